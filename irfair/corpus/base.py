"""What irfair needs of a document collection, and the pieces its readers share.

Every corpus yields ``(doc_id, text)`` pairs, optionally only for wanted ids, and has a fingerprint
that changes when its documents change (caches are keyed by it).
"""
from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Protocol

from ..errors import IrfairInputError


class Corpus(Protocol):
    """What irfair needs of a collection."""

    name: str

    def fingerprint(self) -> str:
        """A short string that changes when the documents change (used to key caches)."""

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        """Yield ``(doc_id, text)``; only ids in ``wanted`` when it is given."""


def file_stamp(paths: Iterable[Path]) -> str:
    """Fingerprint of files by path, size and modification time (16 hex digits)."""
    digest = hashlib.sha1()
    for path in sorted(paths):
        stat = path.stat()
        digest.update(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def open_text(path: Path) -> IO[str]:
    """``path`` opened as UTF-8 text (undecodable bytes replaced), gunzipped when it ends in ``.gz``."""
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


class FileCorpus:
    """Documents stored in one or more files; ids must be unique across them."""

    def __init__(self, paths: list[Path], name: str) -> None:
        self.paths = paths
        self.name = name

    def fingerprint(self) -> str:
        return file_stamp(self.paths)

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
