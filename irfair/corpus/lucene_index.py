"""Building a Lucene index of a corpus with Anserini's IndexCollection (Java from :mod:`irfair.anserini`).

The index stores raw text, positions and document vectors, lives under ``<cache>/lucene/<corpus key>/``
and is built once: the corpus is written as JSONL in as many files as threads (Anserini indexes files
in parallel), indexed in a temporary folder, then moved into place.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..anserini import java_heap, prepare_java, pyserini_jar
from ..cache import entry_key
from .base import Corpus
from .lucene import is_lucene_index


def build_index(corpus: Corpus, cache_dir: str | Path, threads: int = 2, progress: bool = True) -> Path:
    """Build (or reuse) the Lucene index of ``corpus`` under ``<cache_dir>/lucene/``; returns its folder."""
    from tqdm.auto import tqdm

    java = prepare_java()
    folder = Path(cache_dir) / "lucene" / entry_key(corpus)
    if (folder / "COMPLETE").is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".build-") as work:
        source = Path(work) / "json"
        source.mkdir()
        handles = [open(source / f"part-{i:02d}.jsonl", "w", encoding="utf-8") for i in range(max(1, threads))]
        count = 0
        try:
            for doc_id, text in tqdm(corpus.iter_docs(None), desc=f"writing {corpus.name} for Lucene", unit="doc", disable=not progress):
                handles[count % len(handles)].write(json.dumps({"id": doc_id, "contents": text}) + "\n")
                count += 1
        finally:
            for handle in handles:
                handle.close()
        target = Path(work) / "index"
        command = [
            str(java), f"-Xmx{java_heap()}", "-cp", str(pyserini_jar()),
            "io.anserini.index.IndexCollection", "-collection", "JsonCollection", "-input", str(source),
            "-index", str(target), "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(max(1, threads)),
            "-storeRaw", "-storeDocvectors", "-storePositions",
        ]
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0 or not is_lucene_index(target):
            tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
            raise RuntimeError("Anserini indexing failed: " + " | ".join(tail))
        (target / "COMPLETE").write_text(f"{count}\n")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(target, folder)
    return folder
