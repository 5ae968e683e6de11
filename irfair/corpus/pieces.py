"""Corpus files in pieces: byte ranges that a worker reads itself, so that a corpus pass ships a path and two
offsets to each worker instead of the documents' text, and no process waits on one reader.

A plain file is cut after a line end about every :data:`PIECE_BYTES` bytes; a compressed file (which cannot
be entered in the middle) is one piece. Cutting reads the file once, at memory speed, to find the cuts and
count the lines before each (line ends as in text mode: LF, CR LF or a lone CR), so that a worker gives
the same line numbers as a reader of the whole file. A piece owns the documents that begin in it; a
reader finishes the last of them past the piece's end, and a piece that begins inside a document skips
to the next one. Each piece records the file's size and modification time, which the worker checks (a
Dask worker must see the corpus files at the same path).

Text is decoded as UTF-8 (undecodable bytes replaced) in pieces of whole lines, with line ends as
:func:`.compressed.open_text` gives them (CR LF and CR become LF, except in ``.Z`` files).
"""
from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import IrfairInputError
from .compressed import compression_of, read_bytes

PIECE_BYTES = 8 << 20  # bytes per piece of a plain file (a cut waits for the next line end)
READ_BYTES = 16 << 20  # bytes decoded at a time
OVERFLOW_BYTES = 1 << 16  # bytes read at a time past a piece's end, to finish its last document


@dataclass(frozen=True)
class FilePiece:
    """Bytes ``[start, end)`` of a corpus file (``end`` None: to the file's end), the number of the line
    that begins at ``start``, and the file's ``(size, modification time in ns)`` when it was cut."""

    path: str
    start: int
    end: int | None
    line: int
    stamp: tuple[int, int]


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def line_breaks(data: bytes) -> int:
    """Line ends in ``data`` as text mode counts them: LF, CR LF and a lone CR each end one line."""
    if b"\r" not in data:
        return data.count(b"\n")
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def cut_pieces(paths: Iterable[str | Path], size: int | None = None) -> Iterator[FilePiece]:
    """The pieces of each file in order: after the first line end at or past every ``size`` bytes (default
    :data:`PIECE_BYTES`) of a plain file; a compressed file whole."""
    size = size or PIECE_BYTES
    for path in map(Path, paths):
        stamp = _stamp(path)
        if compression_of(path) is not None:
            yield FilePiece(str(path), 0, None, 1, stamp)
            continue
        start, line, pending = 0, 1, b""
        with open(path, "rb") as handle:
            while chunk := handle.read(max(size, 1 << 16)):
                pending += chunk
                while len(pending) >= size and (cut := pending.find(b"\n", size - 1) + 1):
                    yield FilePiece(str(path), start, start + cut, line, stamp)
                    line += line_breaks(pending[:cut])
                    start, pending = start + cut, pending[cut:]
        if pending or start == 0:
            yield FilePiece(str(path), start, None, line, stamp)


def check_stamp(piece: FilePiece) -> None:
    """IrfairInputError unless the piece's file is, here, the file that was cut."""
    path = Path(piece.path)
    try:
        stamp = _stamp(path)
    except OSError as error:
        raise IrfairInputError(path, None, f"corpus file cannot be read here ({error.strerror or error}); Dask workers "
                                           "must see the corpus files at the same path") from None
    if stamp != piece.stamp:
        raise IrfairInputError(path, None, "corpus file changed while it was read, or a worker sees another file at this path")


def _text_mode(text: str) -> str:
    """Line ends as text mode reads them: CR LF and a lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def text_pieces(path: str | Path, start: int = 0, end: int | None = None, chunk: int | None = None) -> Iterator[str]:
    """The text of bytes ``[start, end)`` of ``path`` (a line start; ``end`` None: to the file's end) in pieces
    of whole lines (the last may lack its line end), each decoded once; line ends as
    :func:`.compressed.open_text` gives them; ``chunk`` bytes decoded at a time (default :data:`READ_BYTES`). A
    compressed file is read whole."""
    path = Path(path)
    chunk = chunk or READ_BYTES
    kind = compression_of(path)
    if kind == "compress":  # decompressed whole, and read without turning CR into LF
        yield read_bytes(path).decode("utf-8", errors="replace")
        return
    with gzip.open(path, "rb") if kind == "gzip" else open(path, "rb") as handle:
        if start:
            handle.seek(start, os.SEEK_SET)
        remaining = None if end is None else end - start
        rest = b""
        while remaining is None or remaining > 0:
            data = handle.read(chunk if remaining is None else min(chunk, remaining))
            if not data:
                break
            if remaining is not None:
                remaining -= len(data)
            data = rest + data if rest else data
            cut = data.rfind(b"\n") + 1
            if cut:
                yield _text_mode(data[:cut].decode("utf-8", errors="replace"))
            rest = data[cut:]
        if rest:
            yield _text_mode(rest.decode("utf-8", errors="replace"))
