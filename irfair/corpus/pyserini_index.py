"""``irfair index --corpus ... --pyserini-index DIR``: a pyserini/Anserini ``TrecCollection`` index, built the
way Anserini's Robust04 recipe builds one (``IndexCollection -collection TrecCollection -generator
DefaultLuceneDocumentGenerator -storePositions -storeDocvectors -storeRaw``) with the Java irfair installs.

The recipe run on the original files keeps only the lines inside Anserini's content tags (so FBIS titles,
which sit in the document header, are lost). Here Anserini is given each document as irfair reads it
(:func:`.trec_text.document_fields`): the title in ``<HEADLINE>``, the body in ``<TEXT>`` (``&``, ``<``,
``>`` escaped). The index then searches exactly irfair's text, and reading it back as a corpus gives every
document the same tokens as the folder and ir_datasets routes.
"""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..anserini import java_heap, prepare_java, pyserini_jar
from ..errors import IrfairInputError
from .base import Corpus
from .lucene import is_lucene_index


def corpus_fields(corpus: Corpus) -> Iterator[tuple[str, str, str]]:
    """``(doc_id, title, body)`` of every document: a TREC corpus's fields, else ``("", text)``."""
    if hasattr(corpus, "iter_fields"):
        for doc_id, title, body in corpus.iter_fields():
            yield doc_id, title or "", body
        return
    for doc_id, text in corpus.iter_docs(None):
        yield doc_id, "", text


def trec_record(doc_id: str, title: str, body: str) -> str:
    """One document as Anserini's TrecCollection reads it, title and body kept whole."""
    return (f"<DOC>\n<DOCNO>{doc_id}</DOCNO>\n<HEADLINE>\n{html.escape(title, quote=False)}\n</HEADLINE>\n"
            f"<TEXT>\n{html.escape(body, quote=False)}\n</TEXT>\n</DOC>\n")


def check_target(index_dir: str | Path) -> Path:
    """``index_dir`` when it can take a new index (absent or an empty folder), else IrfairInputError."""
    target = Path(index_dir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise IrfairInputError(target, None, "exists and is not an empty folder: give a new folder for the pyserini index")
    return target


def build_trec_index(corpus: Corpus, index_dir: str | Path, threads: int = 2, progress: bool = True) -> int:
    """Build the TrecCollection index of ``corpus`` at ``index_dir`` (new or empty); returns how many
    documents Anserini indexed. Built in a temporary folder beside it, moved into place when complete."""
    from tqdm.auto import tqdm

    target = check_target(index_dir)
    java = prepare_java()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}.build-") as work:
        source = Path(work) / "trec"
        source.mkdir()
        handles = [open(source / f"part-{i:02d}.trec", "w", encoding="utf-8") for i in range(max(1, threads))]
        written = 0
        try:
            for doc_id, title, body in tqdm(corpus_fields(corpus), desc=f"writing {corpus.name} for Anserini", unit="doc",
                                            disable=not progress):
                handles[written % len(handles)].write(trec_record(doc_id, title, body))
                written += 1
        finally:
            for handle in handles:
                handle.close()
        built = Path(work) / "index"
        command = [
            str(java), f"-Xmx{java_heap()}", "-cp", str(pyserini_jar()), "io.anserini.index.IndexCollection",
            "-collection", "TrecCollection", "-input", str(source), "-index", str(built),
            "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(max(1, threads)),
            "-storePositions", "-storeDocvectors", "-storeRaw",
        ]
        completed = subprocess.run(command, capture_output=True, text=True)
        log = completed.stdout + completed.stderr
        if completed.returncode != 0 or not is_lucene_index(built):
            tail = log.strip().splitlines()[-3:]
            raise RuntimeError("Anserini indexing failed: " + " | ".join(tail))
        indexed = _counter(log, "indexed")
        if indexed is not None and indexed != written:
            print(f"irfair: Anserini indexed {indexed:,} of {written:,} documents ({_counter(log, 'empty') or 0:,} empty ones "
                  "are not indexed)", file=sys.stderr)
        if target.exists():
            target.rmdir()
        os.replace(built, target)
    return written if indexed is None else indexed


def _counter(log: str, name: str) -> int | None:
    """A final counter of Anserini's log (``indexed: 2,301``), or None."""
    found = re.findall(rf"\b{name}:\s+([\d,]+)", log)
    return int(found[-1].replace(",", "")) if found else None
