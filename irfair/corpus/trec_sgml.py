"""TREC SGML corpora (``<DOC><DOCNO>…</DOCNO>…</DOC>``), each file plain or compressed (``.gz``, ``.Z``,
``.0Z``...); a TREC disks 4&5 folder is read the way Robust04 reads it (:mod:`.disks45`).

Each ``<DOC>`` must have one ``<DOCNO>``; ``<DOC>`` and ``</DOC>`` begin their lines (after blanks, any
letter case); the text after ``<DOC>`` on its line belongs to the document, the rest of a ``</DOC>``
line does not, and lines between documents must be blank. A document's text is
:func:`.trec_text.document_text` — the one rule every route into irfair applies.

A file is read in pieces of whole lines (:func:`.pieces.text_pieces`: decoded once, line ends as in text
mode), and the ``<DOC>``/``</DOC>`` lines are found by one regular-expression scan of each piece. A corpus
pass reads a file's byte ranges in workers (:meth:`TrecCorpus.read_piece`), with the same documents,
line numbers and errors.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import IrfairInputError
from .base import FileCorpus
from .compressed import read_head, reading
from .pieces import OVERFLOW_BYTES, FilePiece, check_stamp, text_pieces
from .trec_text import document_fields, document_text, document_token_text, rule_fingerprint

_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)
# a line that opens or closes a document, found by the line end before it
_DOC_LINE = re.compile(r"\n[^\S\n]*<(/?)[Dd][Oo][Cc]>")


def is_trec_file(path: Path) -> bool:
    """True when the file (plain or compressed) starts with ``<DOC>``."""
    return read_head(path).lstrip()[:5].upper() == "<DOC>"


class TrecCorpus(FileCorpus):
    """TREC SGML files (``<DOC><DOCNO>…</DOCNO>…</DOC>``), plain or compressed."""

    def fingerprint(self) -> str:
        """Of the files (names, sizes, modification times) and the version of the text rule."""
        return rule_fingerprint(super().fingerprint())

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
        scanner = _Scanner(path, 1, keep_text)
        for text in text_pieces(path):
            yield from scanner.feed(text)
        scanner.finish()

    @staticmethod
    def piece_documents(piece: FilePiece) -> Iterator[tuple[int, str, str]]:
        """``(line of <DOC>, doc_id, text)`` of the documents that begin in ``piece``; the text is
        :func:`.trec_text.document_token_text` (the tokens of :func:`.trec_text.document_text`, untidied)."""
        path = Path(piece.path)
        with reading(path):
            check_stamp(piece)
            scanner = _Scanner(path, piece.line, None, skip_to_first=piece.start > 0)
            owned = text_pieces(path, piece.start, piece.end)
            beyond = text_pieces(path, piece.end, None, OVERFLOW_BYTES) if piece.end is not None else iter(())
            for text, mine in _marked(owned, beyond):
                for line, doc_id, markup in scanner.feed(text, mine):
                    yield line, doc_id, document_token_text(markup)
                if scanner.done:
                    break
            scanner.finish()


def _marked(owned: Iterator[str], beyond: Iterator[str]) -> Iterator[tuple[str, bool]]:
    """The texts of a piece (marked True), then those past its end (marked False)."""
    for text in owned:
        yield text, True
    for text in beyond:
        yield text, False


class _Scanner:
    """The documents of one file's text, fed in pieces of whole lines: ``<DOC>`` and ``</DOC>`` lines
    checked as a reader of the whole file checks them, lines numbered from ``line``. Reading a piece of a
    file, ``skip_to_first`` passes over what precedes its first ``<DOC>`` line (the end of the previous
    piece's last document), and text fed as not owned (past the piece's end) only finishes a document
    already begun: the next ``<DOC>`` line there ends the scan (``done``)."""

    def __init__(self, path: Path, line: int, keep_text: set[str] | None, skip_to_first: bool = False) -> None:
        self.path, self.keep_text = path, keep_text
        self.line = line  # the number of the line at which the next text fed begins
        self.opened: int | None = None  # the line of the <DOC> of the document still open
        self.content = ""  # that document's text so far
        self.skipping = skip_to_first
        self.done = False

    def feed(self, text: str, owned: bool = True) -> Iterator[tuple[int, str, str]]:
        """``(line of <DOC>, doc_id, markup)`` of the documents that end in ``text``."""
        if self.done:
            return
        path = self.path
        if self.opened is not None:  # the open document's text, then the new lines
            buffer, content_start = self.content + text, 0
            counted = len(self.content)
            position = max(counted - 1, 0)
        else:
            buffer, counted, position, content_start = "\n" + text, 1, 0, 0
        line = self.line
        outside = 1 if self.opened is None else len(buffer)  # where lines outside documents begin
        search = _DOCNO.search
        for match in _DOC_LINE.finditer(buffer, position):
            start = match.start() + 1
            if not match.group(1):
                line += buffer.count("\n", counted, start)
                counted = start
                if self.skipping:
                    self.skipping = False
                elif self.opened is not None:
                    raise IrfairInputError(path, line, f"<DOC> opened before the document of line {self.opened} was closed with </DOC>")
                elif outside < start and not buffer[outside:start].isspace():
                    _check_blank(path, buffer, outside, start, line)
                if not owned:
                    self.done = True
                    return
                self.opened, content_start = line, match.end()
                continue
            if self.skipping:
                continue
            if self.opened is None:
                line += buffer.count("\n", counted, start)
                counted = start
                _check_blank(path, buffer, outside, start, line)
                raise IrfairInputError(path, line, "</DOC> without a matching <DOC>")
            raw = buffer[content_start:start]
            docno = search(raw)
            if docno is None or not docno.group(1):
                raise IrfairInputError(path, self.opened, "document has no <DOCNO>...</DOCNO>")
            doc_id = docno.group(1)
            yield self.opened, doc_id, raw if self.keep_text is None or doc_id in self.keep_text else ""
            self.opened = None
            outside = buffer.find("\n", match.end()) + 1 or len(buffer)  # the rest of a </DOC> line is not read
        self.line = line + buffer.count("\n", counted)
        if self.opened is not None:
            self.content = buffer[content_start:]
        elif not self.skipping:
            self.content = ""
            _check_blank(path, buffer, outside, len(buffer), self.line)

    def finish(self) -> None:
        """IrfairInputError when the file ended inside a document."""
        if self.opened is not None and not self.done:
            raise IrfairInputError(self.path, self.opened, "document opened with <DOC> is never closed with </DOC> (a truncated file?)")
def _check_blank(path: Path, buffer: str, start: int, end: int, line: int) -> None:
    """IrfairInputError naming the first line of ``buffer[start:end]`` (whole lines; ``end`` on line ``line``)
    that is not blank."""
    if start >= end or buffer[start:end].isspace():
        return
    for number, text in enumerate(buffer[start:end].split("\n"), start=line - buffer.count("\n", start, end)):
        if text.strip():
            raise IrfairInputError(path, number, "text outside <DOC> ... </DOC>: expected TREC SGML")
