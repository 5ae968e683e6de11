"""Documents read back from a pyserini/Anserini Lucene index built with stored raw text."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..anserini import prepare_java
from ..errors import IrfairInputError
from .base import file_stamp


def is_lucene_index(path: str | Path) -> bool:
    """True for a folder holding a Lucene index (``segments_*`` files)."""
    folder = Path(path)
    return folder.is_dir() and any(folder.glob("segments_*"))


class LuceneIndexCorpus:
    """Documents read back from a pyserini/Anserini index built with stored raw text."""

    def __init__(self, index_dir: str | Path) -> None:
        self.index_dir = Path(index_dir)
        if not is_lucene_index(self.index_dir):
            raise IrfairInputError(self.index_dir, None, "not a Lucene index (no segments_* file)")
        self.name = self.index_dir.name
        self._reader = None

    def _open(self):
        if self._reader is None:
            prepare_java()
            from pyserini.index.lucene import LuceneIndexReader

            self._reader = LuceneIndexReader(str(self.index_dir))
        return self._reader

    def fingerprint(self) -> str:
        return file_stamp(self.index_dir.glob("segments_*"))

    def _text(self, doc) -> str:
        raw = doc.raw()
        if raw is None:
            contents = doc.contents()
            if contents is None:
                raise IrfairInputError(self.index_dir, None, "index stores neither raw text nor contents (build it with -storeRaw)")
            return contents
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        return record.get("contents", record.get("text", raw)) if isinstance(record, dict) else raw

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        reader = self._open()
        if wanted is not None:
            for doc_id in sorted(wanted):
                doc = reader.doc(doc_id)
                if doc is not None:
                    yield doc_id, self._text(doc)
            return
        for internal in range(reader.stats()["documents"]):
            doc_id = reader.convert_internal_docid_to_collection_docid(internal)
            yield doc_id, self._text(reader.doc(doc_id))
