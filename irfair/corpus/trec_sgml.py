"""TREC SGML corpora (``<DOC><DOCNO>…</DOCNO>…</DOC>``), each file plain or compressed (``.gz``, ``.Z``,
``.0Z``...); a TREC disks 4&5 folder is read the way Robust04 reads it (:mod:`.disks45`).

Each ``<DOC>`` must have one ``<DOCNO>``; ``<DOC>`` and ``</DOC>`` begin their lines (after blanks, any
letter case); the text after ``<DOC>`` on its line belongs to the document, the rest of a ``</DOC>``
line does not, and lines between documents must be blank. A document's text is
:func:`.trec_text.document_text` — the one rule every route into irfair applies.

A file is read in pieces of whole lines (16 MB), each decoded once as UTF-8 (undecodable bytes replaced,
line ends as in text mode: CR LF and CR become LF, except in ``.Z`` files, read as they are), and the
``<DOC>``/``</DOC>`` lines are found by one regular-expression scan of each piece.
"""
from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import IrfairInputError
from .base import FileCorpus
from .compressed import compression_of, read_bytes, read_head, reading
from .trec_text import document_fields, document_text

_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)
# a line that opens or closes a document, found by the line end before it
_DOC_LINE = re.compile(r"\n[^\S\n]*<(/?)[Dd][Oo][Cc]>")
PIECE_BYTES = 1 << 24


def text_pieces(path: Path) -> Iterator[str]:
    """The text of ``path`` in pieces of whole lines (the last may lack its line end), each decoded once;
    line ends as :func:`.compressed.open_text` gives them."""
    kind = compression_of(path)
    if kind == "compress":  # decompressed whole, and read without turning CR into LF
        yield read_bytes(path).decode("utf-8", errors="replace")
        return
    with gzip.open(path, "rb") if kind == "gzip" else open(path, "rb") as handle:
        rest = b""
        while chunk := handle.read(PIECE_BYTES):
            data = rest + chunk if rest else chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                yield _text_mode(data[:cut].decode("utf-8", errors="replace"))
            rest = data[cut:]
        if rest:
            yield _text_mode(rest.decode("utf-8", errors="replace"))


def _text_mode(text: str) -> str:
    """Line ends as text mode reads them: CR LF and a lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


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
        """``(line of <DOC>, doc_id, markup)`` of each document of ``path``; markup "" when not in ``keep_text``."""
        carry, line = "", 1  # an unfinished document carried to the next piece, and the line it starts on
        for piece in text_pieces(path):
            carry, line = yield from _documents(path, "\n" + carry + piece, line, keep_text)
        if carry:
            raise IrfairInputError(path, line, "document opened with <DOC> is never closed with </DOC> (a truncated file?)")


def _documents(path: Path, buffer: str, line: int, keep_text: set[str] | None):
    """Yield the documents of ``buffer`` (whole lines after a leading LF, the first on line ``line``);
    return the text of a document still open at its end, from its ``<DOC>`` line, and that line's number."""
    counted, outside, opened = 1, 1, None  # where lines were counted to; where lines outside documents begin
    search = _DOCNO.search
    for match in _DOC_LINE.finditer(buffer):
        start = match.start() + 1
        if not match.group(1):
            line += buffer.count("\n", counted, start)
            counted = start
            if opened is not None:
                raise IrfairInputError(path, line, f"<DOC> opened before the document of line {opened[0]} was closed with </DOC>")
            if outside < start and not buffer[outside:start].isspace():
                _check_blank(path, buffer, outside, start, line)
            opened = (line, start, match.end())
            continue
        if opened is None:
            line += buffer.count("\n", counted, start)
            counted = start
            _check_blank(path, buffer, outside, start, line)
            raise IrfairInputError(path, line, "</DOC> without a matching <DOC>")
        raw = buffer[opened[2]:start]
        docno = search(raw)
        if docno is None or not docno.group(1):
            raise IrfairInputError(path, opened[0], "document has no <DOCNO>...</DOCNO>")
        doc_id = docno.group(1)
        yield opened[0], doc_id, raw if keep_text is None or doc_id in keep_text else ""
        opened = None
        outside = buffer.find("\n", match.end()) + 1 or len(buffer)  # the rest of a </DOC> line is not read
    if opened is not None:
        return buffer[opened[1]:], opened[0]
    line += buffer.count("\n", counted)
    _check_blank(path, buffer, outside, len(buffer), line)
    return "", line


def _check_blank(path: Path, buffer: str, start: int, end: int, line: int) -> None:
    """IrfairInputError naming the first line of ``buffer[start:end]`` (whole lines; ``end`` on line ``line``)
    that is not blank."""
    if start >= end or buffer[start:end].isspace():
        return
    for number, text in enumerate(buffer[start:end].split("\n"), start=line - buffer.count("\n", start, end)):
        if text.strip():
            raise IrfairInputError(path, number, "text outside <DOC> ... </DOC>: expected TREC SGML")
