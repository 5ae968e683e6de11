"""Documents read back from a pyserini/Anserini Lucene index built with stored raw text.

The raw field holds what the indexer was given: a JSON record (``JsonCollection``: its ``contents``) or,
for an index built with ``TrecCollection -storeRaw`` (Anserini's Robust04 recipe), the document's SGML
— detected and read with :func:`.trec_text.document_text`, the rule of every other route. Anserini's
TrecCollection stores only the lines inside its content tags, so an index built from the original files
lacks the FBIS titles (``<H3>`` in the document header): irfair says so in one line when it meets such a
document; ``irfair index --pyserini-index`` builds an index that keeps them.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from ..anserini import prepare_java
from ..errors import IrfairInputError
from ..numbers import counted
from .base import file_stamp
from .trec_text import document_text, looks_like_trec_document, rule_fingerprint

# every Lucene index file starts with CodecUtil's magic number (big-endian)
LUCENE_CODEC_MAGIC = b"\x3f\xd7\x6c\x17"


def is_lucene_index(path: str | Path) -> bool:
    """True for a folder holding a Lucene index (``segments_*`` files)."""
    folder = Path(path)
    try:
        return folder.is_dir() and any(folder.glob("segments_*"))
    except OSError:
        return False


def check_lucene_index(path: str | Path, what: str = "Lucene index") -> Path:
    """``path`` when it is a readable Lucene index folder (checked before Java opens it); IrfairInputError
    saying what it is instead: missing, a file, unreadable, empty, without a ``segments_N`` file, or with
    one that is not Lucene's."""
    folder = Path(path)
    if not folder.exists():
        raise IrfairInputError(folder, None, f"{what} not found")
    if not folder.is_dir():
        raise IrfairInputError(folder, None, f"expected a {what} folder, found a file")
    try:
        names = os.listdir(folder)
    except OSError as exc:
        raise IrfairInputError(folder, None, f"cannot read the {what} folder ({exc.strerror or exc})") from None
    segments = sorted(n for n in names if n.startswith("segments_"))
    if not segments:
        found = "an empty folder" if not names else f"{counted(len(names), 'file')} but no segments_N file"
        raise IrfairInputError(folder, None, f"not a {what}: {found} (build one with irfair index, or pyserini/Anserini)")
    for name in names:
        try:
            with open(folder / name, "rb") as handle:
                head = handle.read(4)
        except IsADirectoryError:
            continue
        except OSError as exc:
            raise IrfairInputError(folder / name, None, f"cannot read this file of the {what} ({exc.strerror or exc})") from None
        if name in segments and head != LUCENE_CODEC_MAGIC:
            raise IrfairInputError(folder / name, None, f"not a Lucene segments file (it does not start with Lucene's "
                                                        f"codec header): the folder is not a {what}")
    return folder


class LuceneIndexCorpus:
    """Documents read back from a pyserini/Anserini index built with stored raw text."""

    def __init__(self, index_dir: str | Path) -> None:
        self.index_dir = check_lucene_index(index_dir)
        self.name = self.index_dir.name
        self._reader = None
        self._noted_fbis = False

    def _open(self):
        if self._reader is None:
            prepare_java()
            from pyserini.index.lucene import LuceneIndexReader

            self._reader = LuceneIndexReader(str(self.index_dir))
        return self._reader

    def fingerprint(self) -> str:
        """Of the index's segment files and the version of the text rule its raw documents are read with."""
        return rule_fingerprint(file_stamp(self.index_dir.glob("segments_*")))

    def _text(self, doc_id: str, doc) -> str:
        raw = doc.raw()
        if raw is None:
            contents = doc.contents()
            if contents is None:
                raise IrfairInputError(self.index_dir, None, "index stores neither raw text nor contents (build it with -storeRaw)")
            return contents
        if raw.lstrip().startswith("{"):
            try:
                record = json.loads(raw)
            except json.JSONDecodeError:
                record = None
            if isinstance(record, dict):
                return record.get("contents", record.get("text", raw))
        if not looks_like_trec_document(raw):
            return raw
        if not self._noted_fbis and doc_id.upper().startswith("FBIS") and not raw.lstrip()[:10].upper().startswith(("<DOC", "<HEADLINE>")):
            self._noted_fbis = True
            print(f"irfair: {self.index_dir}: FBIS documents in this index have no header, so no title (<H3>): Anserini's TrecCollection "
                  "keeps only the lines inside its content tags; `irfair index --pyserini-index` builds an index that keeps them",
                  file=sys.stderr)
        return document_text(raw)

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        reader = self._open()
        if wanted is not None:
            for doc_id in sorted(wanted):
                doc = reader.doc(doc_id)
                if doc is not None:
                    yield doc_id, self._text(doc_id, doc)
            return
        for internal in range(reader.stats()["documents"]):
            doc_id = reader.convert_internal_docid_to_collection_docid(internal)
            yield doc_id, self._text(doc_id, reader.doc(doc_id))
