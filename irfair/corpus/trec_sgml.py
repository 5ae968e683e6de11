"""TREC SGML corpora (``<DOC><DOCNO>…</DOCNO>…</DOC>``), each file plain or compressed (``.gz``, ``.Z``,
``.0Z``...); a TREC disks 4&5 folder is read the way Robust04 reads it (:mod:`.disks45`).

Each ``<DOC>`` must have one ``<DOCNO>``; ``<DOC>`` and ``</DOC>`` begin their lines. A document's text is
:func:`.trec_text.document_text` — the one rule every route into irfair applies.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import IrfairInputError
from .base import FileCorpus
from .compressed import open_text, read_head, reading
from .trec_text import document_fields, document_text

_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)


def is_trec_file(path: Path) -> bool:
    """True when the file (plain or compressed) starts with ``<DOC>``."""
    return read_head(path).lstrip()[:5].upper() == "<DOC>"


class TrecCorpus(FileCorpus):
    """TREC SGML files (``<DOC><DOCNO>…</DOCNO>…</DOC>``), plain or compressed."""

    def _records(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        for start, doc_id, markup in self._markup(path, wanted):
            yield start, doc_id, document_text(markup) if markup else ""

    def _markup(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        with reading(path):
            yield from self._iter_file(path, keep_text=wanted)

    def iter_fields(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str | None, str]]:
        """``(doc_id, title, body)`` of every document (:func:`.trec_text.document_fields`)."""
        for doc_id, markup in self._unique(self._markup, wanted):
            yield (doc_id, *document_fields(markup))

    @staticmethod
    def _iter_file(path: Path, keep_text: set[str] | None) -> Iterator[tuple[int, str, str]]:
        block: list[str] | None = None
        start = 0
        with open_text(path) as handle:
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
                    yield start, doc_id, raw if keep_text is None or doc_id in keep_text else ""
                    block = None
                elif block is not None:
                    block.append(line)
                elif line.strip():
                    raise IrfairInputError(path, lineno, "text outside <DOC> ... </DOC>: expected TREC SGML")
        if block is not None:
            raise IrfairInputError(path, start, "document opened with <DOC> is never closed with </DOC> (a truncated file?)")
