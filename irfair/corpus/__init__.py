"""Document collections: a folder of .txt files, JSONL, TREC SGML (plain, gzip or unix compress; a TREC
disks 4&5 tree read as Robust04 reads it), a pyserini Lucene index with stored raw text, an ir_datasets id,
or an in-memory mapping — opened by :func:`open_corpus`; and the term store (:class:`TermStore`), the
cached bag-of-words view every later stage reads. Every route gives a TREC document the same text
(:func:`document_text`)."""
from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from ..errors import IrfairInputError, MissingExtraError
from ..trec.irdatasets import dataset_id
from .base import Corpus, FileCorpus, InMemoryCorpus
from .disks45 import announce, disks45_files, walk_files
from .irdatasets import IrDatasetsCorpus
from .jsonl import JsonlCorpus
from .lucene import LuceneIndexCorpus, is_lucene_index
from .termstore import TermStore
from .textdir import TextDirCorpus
from .trec_sgml import TrecCorpus, is_trec_file
from .trec_text import document_text

__all__ = [
    "Corpus", "FileCorpus", "InMemoryCorpus", "IrDatasetsCorpus", "JsonlCorpus", "LuceneIndexCorpus", "TermStore", "TextDirCorpus",
    "TrecCorpus", "document_text", "is_lucene_index", "open_corpus",
]

_JSONL_ENDINGS = (".jsonl", ".jsonl.gz", ".jsonl.z")


def _open_folder(path: Path) -> Corpus:
    disks45 = disks45_files(path)
    if disks45 is not None:
        not_sgml = {p for p in disks45.robust04 if not is_trec_file(p)}  # ir_datasets finds no document in them either
        disks45.robust04 = [p for p in disks45.robust04 if p not in not_sgml]
        disks45.other = sorted([*disks45.other, *not_sgml])
        announce(disks45, path)
        return TrecCorpus(disks45.robust04, path.name)
    files = walk_files(path)
    jsonl = [p for p in files if p.name.lower().endswith(_JSONL_ENDINGS)]
    if jsonl:
        return JsonlCorpus(jsonl, path.name)
    txt = [p for p in files if p.suffix == ".txt"]
    if txt and len(txt) == len(files):
        return TextDirCorpus(path)
    trec = [p for p in files if is_trec_file(p)]
    if trec:
        if len(trec) < len(files):
            other = sorted(set(files) - set(trec))
            print(f"irfair: {path}: reading {len(trec):,} TREC SGML files; leaving out {len(other):,} files that do not start with <DOC> "
                  f"(e.g. {other[0].name})", file=sys.stderr)
        return TrecCorpus(trec, path.name)
    raise IrfairInputError(path, None, "corpus folder holds no .txt, .jsonl or TREC SGML (<DOC>) files")


def _open_file(path: Path) -> Corpus:
    if path.name.lower().endswith((*_JSONL_ENDINGS, ".json")):
        return JsonlCorpus([path], path.stem)
    if is_trec_file(path):
        return TrecCorpus([path], path.stem)
    raise IrfairInputError(path, 1, "corpus file is neither JSONL (.jsonl) nor TREC SGML (starting with <DOC>)")


def _open_ir_datasets(spec: str) -> Corpus:
    try:
        return IrDatasetsCorpus(spec)
    except MissingExtraError:
        raise IrfairInputError(
            spec, None, "corpus not found as a file or folder (an ir_datasets id needs: pip install 'irfair[datasets]')"
        ) from None


def open_corpus(spec: str | Path | Mapping[str, str] | Corpus) -> Corpus:
    """Open a corpus from a path (folder of .txt, JSONL file/folder, TREC file/folder or disks 4&5 tree, a
    pyserini Lucene index with stored raw text), an ir_datasets id (any registered id, ``vaswani`` as
    ``disks45/nocr/trec-robust-2004``; its documents must already be on disk: irfair downloads nothing), a
    ``{doc_id: text}`` mapping, or an existing corpus."""
    if isinstance(spec, Mapping):
        return InMemoryCorpus(spec)
    if not isinstance(spec, (str, Path)):
        return spec
    path = Path(spec)
    if is_lucene_index(path):
        return LuceneIndexCorpus(path)
    if path.is_dir():
        return _open_folder(path)
    if path.is_file():
        return _open_file(path)
    text = str(spec)
    if ("/" in text and not text.startswith((".", "/", "~"))) or dataset_id(text) is not None:
        return _open_ir_datasets(text)
    raise IrfairInputError(path, None, "corpus not found: expected a file, a folder or an ir_datasets id")
