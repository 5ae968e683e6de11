"""Building a Lucene index of a corpus with Anserini's IndexCollection (Java from :mod:`irfair.anserini`).

The index stores raw text, positions and document vectors. It is a cache entry
``lucene/<corpus>-<digest>/`` keyed by the corpus (name, fingerprint), the Anserini jar and the indexing
options: the corpus is written as JSONL in as many files as threads (Anserini indexes files in
parallel) in a private folder, indexed into the entry's private build folder, and published with its
manifest by one rename. Java runs as a child process that dies with irfair (a killed audit leaves no
indexer writing behind it).
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from ..anserini import java_heap, prepare_java, pyserini_jar
from ..cache import CacheEntry, EntryDamaged, Manifest
from ..cache.entry import new_build_folder, remove_path
from .base import Corpus
from .lucene import is_lucene_index

INDEX_OPTIONS = ("-collection", "JsonCollection", "-generator", "DefaultLuceneDocumentGenerator",
                 "-storeRaw", "-storeDocvectors", "-storePositions")


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _write_json(corpus: Corpus, folder: Path, threads: int, progress: bool) -> int:
    from tqdm.auto import tqdm

    handles = [open(folder / f"part-{i:02d}.jsonl", "w", encoding="utf-8") for i in range(threads)]
    count = 0
    try:
        for doc_id, text in tqdm(corpus.iter_docs(None), desc=f"writing {corpus.name} for Lucene", unit="doc", disable=not progress):
            handles[count % threads].write(json.dumps({"id": doc_id, "contents": text}) + "\n")
            count += 1
    finally:
        for handle in handles:
            handle.close()
    return count


def build_index(corpus: Corpus, cache_dir: str | Path, threads: int = 2, progress: bool = True) -> Path:
    """Build (or reuse) the Lucene index of ``corpus`` under ``<cache_dir>/lucene/``; returns its folder."""
    java = prepare_java()
    threads = max(1, threads)
    jar = pyserini_jar()
    key = {"corpus": corpus.name, "fingerprint": corpus.fingerprint(), "anserini": jar.name, "options": list(INDEX_OPTIONS)}
    entry = CacheEntry(cache_dir, "lucene", corpus.name, key)

    def build(staging: Path) -> dict[str, int]:
        work = new_build_folder(entry.parent, f"{entry.name}-json")
        try:
            source = work / "documents"
            source.mkdir()
            count = _write_json(corpus, source, threads, progress)
            command = [str(java), f"-Xmx{java_heap()}", "-cp", str(jar), "io.anserini.index.IndexCollection",
                       "-input", str(source), "-index", str(staging), "-threads", str(threads), *INDEX_OPTIONS]
            completed = subprocess.run(command, capture_output=True, text=True, preexec_fn=_die_with_parent)
        finally:
            remove_path(work)
        if completed.returncode != 0 or not is_lucene_index(staging):
            tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
            raise RuntimeError("Anserini indexing failed: " + " | ".join(tail))
        return {"documents": count}

    def load(folder: Path, manifest: Manifest) -> Path:
        if not is_lucene_index(folder):
            raise EntryDamaged("no segments_* file")
        return folder

    return entry.obtain(load, build)
