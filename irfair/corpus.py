"""Document collections: a folder of .txt files, JSONL, TREC SGML (plain or gzip), ir_datasets ids, or
an in-memory mapping. Every corpus yields ``(doc_id, text)`` pairs, optionally only for wanted ids.

TREC SGML: each ``<DOC>`` must have one ``<DOCNO>``. The text is the content of the ``<HEADLINE>``,
``<HEAD>``, ``<HL>``, ``<TITLE>`` and ``<TEXT>`` elements when the document has any of them (as on TREC
disks 4&5); otherwise everything after ``</DOCNO>`` with tags removed (as in the NPL/Vaswani files).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from .errors import IrfairInputError, MissingExtraError

_CONTENT_TAGS = ("HEADLINE", "HEAD", "HL", "TITLE", "TEXT")
_CONTENT = re.compile(r"<(%s)\b[^>]*>(.*?)</\1\s*>" % "|".join(_CONTENT_TAGS), re.IGNORECASE | re.DOTALL)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)
_ANY_TAG = re.compile(r"<[^>]*>")


class Corpus(Protocol):
    """What irfair needs of a collection."""

    name: str

    def fingerprint(self) -> str:
        """A short string that changes when the documents change (used to key caches)."""

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        """Yield ``(doc_id, text)``; only ids in ``wanted`` when it is given."""


def _file_stamp(paths: Iterable[Path]) -> str:
    digest = hashlib.sha1()
    for path in sorted(paths):
        stat = path.stat()
        digest.update(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


class InMemoryCorpus:
    """Documents held in a dict ``{doc_id: text}`` (toy collections, tests, API callers)."""

    def __init__(self, docs: Mapping[str, str], name: str = "in-memory") -> None:
        self.docs = dict(docs)
        self.name = name

    def fingerprint(self) -> str:
        digest = hashlib.sha1()
        for doc_id in sorted(self.docs):
            digest.update(doc_id.encode() + b"\0" + self.docs[doc_id].encode() + b"\0")
        return digest.hexdigest()[:16]

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        for doc_id, text in self.docs.items():
            if wanted is None or doc_id in wanted:
                yield doc_id, text


class TextDirCorpus:
    """A folder of ``.txt`` files; the document id is the file stem."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.files = sorted(self.folder.glob("*.txt"))
        if not self.files:
            raise IrfairInputError(self.folder, None, "no .txt files in this corpus folder")
        self.name = self.folder.name

    def fingerprint(self) -> str:
        return _file_stamp(self.files)

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        for file in self.files:
            if wanted is None or file.stem in wanted:
                yield file.stem, file.read_text(encoding="utf-8", errors="replace")


class _FileCorpus:
    """Documents stored in one or more files; ids must be unique across them."""

    def __init__(self, paths: list[Path], name: str) -> None:
        self.paths = paths
        self.name = name

    def fingerprint(self) -> str:
        return _file_stamp(self.paths)

    def _records(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        """``(line, doc_id, text)`` of every document in ``path`` (text may be empty when not wanted)."""
        raise NotImplementedError

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        seen: dict[str, tuple[Path, int]] = {}
        for path in self.paths:
            for lineno, doc_id, text in self._records(path, wanted):
                if doc_id in seen:
                    first = seen[doc_id]
                    raise IrfairInputError(path, lineno, f"document id {doc_id} appears twice (first at {first[0]}:{first[1]})")
                seen[doc_id] = (path, lineno)
                if wanted is None or doc_id in wanted:
                    yield doc_id, text


class JsonlCorpus(_FileCorpus):
    """One or more JSONL files (``.jsonl`` or ``.jsonl.gz``): ``{"id": ..., "contents"|"text": ...}`` per line."""

    def _records(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        with _open_text(path) as handle:
            for lineno, line in enumerate(handle, start=1):
                if line.strip():
                    yield (lineno, *self._parse(path, lineno, line))

    @staticmethod
    def _parse(path: Path, lineno: int, line: str) -> tuple[str, str]:
        expected = "a JSON object with 'id' and 'contents' or 'text'"
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise IrfairInputError(path, lineno, f"not valid JSON: expected {expected}") from None
        if not isinstance(record, dict):
            raise IrfairInputError(path, lineno, f"expected {expected}")
        doc_id = record.get("id", record.get("docid", record.get("_id")))
        text = record.get("contents", record.get("text"))
        if doc_id is None or not isinstance(text, str):
            raise IrfairInputError(path, lineno, f"expected {expected}")
        title = record.get("title")
        if isinstance(title, str) and title:
            text = f"{title}\n{text}"
        return str(doc_id), text


class TrecCorpus(_FileCorpus):
    """TREC SGML files (``<DOC><DOCNO>…</DOCNO><TEXT>…</TEXT></DOC>``), plain or gzip."""

    def _records(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        return self._iter_file(path, keep_text=wanted)

    @staticmethod
    def _iter_file(path: Path, keep_text: set[str] | None) -> Iterator[tuple[int, str, str]]:
        block: list[str] | None = None
        start = 0
        with _open_text(path) as handle:
            for lineno, line in enumerate(handle, start=1):
                upper = line.lstrip()[:6].upper()
                if upper.startswith("<DOC>"):
                    if block is not None:
                        raise IrfairInputError(path, lineno, f"<DOC> opened before the document of line {start} was closed with </DOC>")
                    block, start = [line.lstrip()[5:]], lineno
                elif upper.startswith("</DOC>"):
                    if block is None:
                        raise IrfairInputError(path, lineno, "</DOC> without a matching <DOC>")
                    raw = "".join(block)
                    match = _DOCNO.search(raw)
                    if match is None or not match.group(1):
                        raise IrfairInputError(path, start, "document has no <DOCNO>...</DOCNO>")
                    doc_id = match.group(1)
                    text = ""
                    if keep_text is None or doc_id in keep_text:
                        text = TrecCorpus._text_of(raw, match.end())
                    yield start, doc_id, text
                    block = None
                elif block is not None:
                    block.append(line)
                elif line.strip():
                    raise IrfairInputError(path, lineno, "text outside <DOC> ... </DOC>: expected TREC SGML")
        if block is not None:
            raise IrfairInputError(path, start, "document opened with <DOC> is never closed with </DOC>")

    @staticmethod
    def _text_of(raw: str, docno_end: int) -> str:
        parts = [match.group(2) for match in _CONTENT.finditer(raw)]
        body = "\n".join(parts) if parts else raw[docno_end:]
        return _ANY_TAG.sub(" ", body)


class IrDatasetsCorpus:
    """Documents of an ir_datasets id (e.g. ``disks45/nocr/trec-robust-2004``), read from the user's own copy."""

    def __init__(self, dataset_id: str) -> None:
        try:
            import ir_datasets
        except ImportError:
            raise MissingExtraError("ir_datasets", "datasets") from None
        try:
            self.dataset = ir_datasets.load(dataset_id)
        except KeyError:
            raise IrfairInputError(None, None, f"unknown ir_datasets id {dataset_id!r}") from None
        if not self.dataset.has_docs():
            raise IrfairInputError(None, None, f"ir_datasets id {dataset_id!r} has no documents")
        self.dataset_id = dataset_id
        self.name = dataset_id.replace("/", "_")

    def fingerprint(self) -> str:
        return hashlib.sha1(f"ir_datasets:{self.dataset_id}".encode()).hexdigest()[:16]

    @staticmethod
    def _text(doc) -> str:
        if hasattr(doc, "default_text"):
            return doc.default_text()
        fields = [getattr(doc, name) for name in ("title", "text", "body") if isinstance(getattr(doc, name, None), str)]
        return "\n".join(fields)

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        if wanted is not None:
            store = self.dataset.docs_store()
            for doc_id, doc in store.get_many(sorted(wanted)).items():
                yield doc_id, self._text(doc)
            return
        for doc in self.dataset.docs_iter():
            yield doc.doc_id, self._text(doc)


def _is_trec_file(path: Path) -> bool:
    with _open_text(path) as handle:
        head = handle.read(4096).lstrip()
    return head[:5].upper() == "<DOC>"


def open_corpus(spec: str | Path | Mapping[str, str] | Corpus) -> Corpus:
    """Open a corpus from a path (folder of .txt, JSONL file/folder, TREC file/folder, a pyserini Lucene
    index with stored raw text), an ir_datasets id,
    a ``{doc_id: text}`` mapping, or an existing corpus object."""
    if isinstance(spec, Mapping):
        return InMemoryCorpus(spec)
    if not isinstance(spec, (str, Path)):
        return spec
    path = Path(spec)
    if path.is_dir() and any(path.glob("segments_*")):
        from .lucene import LuceneIndexCorpus

        return LuceneIndexCorpus(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
        jsonl = [p for p in files if p.name.endswith((".jsonl", ".jsonl.gz"))]
        if jsonl:
            return JsonlCorpus(jsonl, path.name)
        txt = [p for p in files if p.suffix == ".txt"]
        if txt and len(txt) == len(files):
            return TextDirCorpus(path)
        trec = [p for p in files if _is_trec_file(p)]
        if trec:
            return TrecCorpus(trec, path.name)
        raise IrfairInputError(path, None, "corpus folder holds no .txt, .jsonl or TREC SGML (<DOC>) files")
    if path.is_file():
        if path.name.endswith((".jsonl", ".jsonl.gz", ".json")):
            return JsonlCorpus([path], path.stem)
        if _is_trec_file(path):
            return TrecCorpus([path], path.stem)
        raise IrfairInputError(path, 1, "corpus file is neither JSONL (.jsonl) nor TREC SGML (starting with <DOC>)")
    text = str(spec)
    if "/" in text and not text.startswith((".", "/", "~")):
        try:
            return IrDatasetsCorpus(text)
        except MissingExtraError:
            raise IrfairInputError(
                path, None, "corpus not found as a file or folder (an ir_datasets id needs: pip install 'irfair[datasets]')"
            ) from None
    raise IrfairInputError(path, None, "corpus not found: expected a file, a folder or an ir_datasets id")
