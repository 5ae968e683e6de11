"""TREC SGML corpora (``<DOC><DOCNO>…</DOCNO><TEXT>…</TEXT></DOC>``), plain or gzip.

Each ``<DOC>`` must have one ``<DOCNO>``. The text is the content of the ``<HEADLINE>``, ``<HEAD>``,
``<HL>``, ``<TITLE>`` and ``<TEXT>`` elements when the document has any of them (as on TREC disks
4&5); otherwise everything after ``</DOCNO>`` with tags removed (as in the NPL/Vaswani files).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import IrfairInputError
from .base import FileCorpus, open_text

_CONTENT_TAGS = ("HEADLINE", "HEAD", "HL", "TITLE", "TEXT")
_CONTENT = re.compile(r"<(" + "|".join(_CONTENT_TAGS) + r")\b[^>]*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)
_ANY_TAG = re.compile(r"<[^>]*>")


def is_trec_file(path: Path) -> bool:
    """True when the file (plain or gzip) starts with ``<DOC>``."""
    with open_text(path) as handle:
        head = handle.read(4096).lstrip()
    return head[:5].upper() == "<DOC>"


class TrecCorpus(FileCorpus):
    """TREC SGML files (``<DOC><DOCNO>…</DOCNO><TEXT>…</TEXT></DOC>``), plain or gzip."""

    def _records(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        return self._iter_file(path, keep_text=wanted)

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
