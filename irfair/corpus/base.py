"""What irfair needs of a document collection, and the pieces its readers share.

Every corpus yields ``(doc_id, text)`` pairs, optionally only for wanted ids, and has a fingerprint
that changes when its documents change (caches are keyed by it).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from ..errors import IrfairInputError


class Corpus(Protocol):
    """What irfair needs of a collection."""

    name: str

    def fingerprint(self) -> str:
        """A short string that changes when the documents change (used to key caches)."""

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        """Yield ``(doc_id, text)``; only ids in ``wanted`` when it is given."""


def file_stamp(paths: Iterable[Path]) -> str:
    """Fingerprint of files by path, size and modification time (16 hex digits): a changed copy of a
    corpus gets a new one, so caches keyed by it are rebuilt. A file that is gone is an IrfairInputError."""
    digest = hashlib.sha1()
    for path in sorted(paths):
        try:
            stat = path.stat()
        except OSError as error:
            raise IrfairInputError(path, None, f"corpus file cannot be read ({error.strerror or error}); was the corpus moved?") from None
        digest.update(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


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
        return self._unique(self._records, wanted)

    def _unique(self, records_of, wanted: set[str] | None) -> Iterator[tuple[str, str]]:
        """``(doc_id, value)`` of ``records_of(path, wanted)`` over every file, ids checked to be unique."""
        seen: dict[str, tuple[Path, int]] = {}
        for path in self.paths:
            for lineno, doc_id, text in records_of(path, wanted):
                if doc_id in seen:
                    first = seen[doc_id]
                    raise IrfairInputError(path, lineno, f"document id {doc_id} appears twice (first at {first[0]}:{first[1]})")
                seen[doc_id] = (path, lineno)
                if wanted is None or doc_id in wanted:
                    yield doc_id, text
