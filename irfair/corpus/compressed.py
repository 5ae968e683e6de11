"""Corpus files as users hold them: plain, gzip, bzip2, xz or unix ``compress`` (the ``.Z`` files and the
``.0Z``/``.1Z``/``.2Z`` parts of the TREC disks), recognised by their first bytes
(:func:`irfair.compression.compression_of`, the one detection runs, qrels and topics share), not by their names.

Text is read as UTF-8 with undecodable bytes replaced (U+FFFD). A damaged or truncated compressed file
gives one :class:`IrfairInputError` naming it, never a decoder traceback. ``compress`` files are decoded
here (LZW as written by ``compress -b 9..16``: codes of 9 bits and up, least significant bit first, code
256 clears the table in block mode, the code width grows when the table fills and the stream then skips
to the next multiple of 8 × the old width, counted from where that width began).
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import IO

from ..compression import compression_of, damaged, decodes, decompress, open_binary, reading
from ..errors import IrfairInputError

__all__ = ["compression_of", "open_text", "read_bytes", "read_head", "reading", "unlzw"]

_MAGIC = b"\x1f\x9d"
_CLEAR = 256


def unlzw(data: bytes, path: str | Path = "<bytes>", limit: int | None = None) -> bytes:
    """Decode unix ``compress`` (LZW, ``.Z``) data (only about the first ``limit`` bytes when given);
    IrfairInputError naming ``path`` when it is damaged."""
    path = Path(path)
    if len(data) < 3 or data[:2] != _MAGIC:
        raise IrfairInputError(path, None, "not a unix compress file: expected the bytes 1f 9d at its start")
    flags = data[2]
    max_bits = flags & 0x1F
    block_mode = bool(flags & 0x80)
    if flags & 0x60 or not 9 <= max_bits <= 16:
        raise damaged(path, f"header flags {flags:#04x}")
    max_bits = max(max_bits, 10)  # compress writes 9 for streams that still grow to 10 bits
    first_free = 257 if block_mode else 256
    size = len(data)
    table = [bytes((i,)) for i in range(256)] + [b""] * (first_free - 256)
    out: list[bytes] = []
    bits, mask = 9, 0x1FF
    pos = mark = 3
    buffer = held = 0
    previous = b""
    produced = 0
    while pos < size and (limit is None or produced < limit):
        if len(table) - 1 >= mask and bits < max_bits and previous:
            pos = _skip_to_group(pos, mark, bits)
            if pos >= size:
                break
            buffer = held = 0
            mark = pos
            bits += 1
            mask = (1 << bits) - 1
        while held < bits:
            if pos >= size:
                raise damaged(path, f"the stream ends inside a code at byte {size}")
            buffer |= data[pos] << held
            pos += 1
            held += 8
        code = buffer & mask
        buffer >>= bits
        held -= bits
        if code == _CLEAR and block_mode:
            pos = _skip_to_group(pos, mark, bits)
            buffer = held = 0
            mark = pos
            bits, mask = 9, 0x1FF
            del table[first_free:]
            previous = b""
            continue
        if code < len(table) and (code < 256 or code >= first_free):
            entry = table[code]
        elif code == len(table) and previous:
            entry = previous + previous[:1]
        else:
            raise damaged(path, f"invalid code {code} near byte {pos}")
        if previous and len(table) <= mask:
            table.append(previous + entry[:1])
        out.append(entry)
        produced += len(entry)
        previous = entry
    return b"".join(out)


def _skip_to_group(pos: int, mark: int, bits: int) -> int:
    """The byte where the next code group begins: groups are ``bits`` bytes long, counted from ``mark``."""
    remainder = (pos - mark) % bits
    return pos + (bits - remainder if remainder else 0)


def read_bytes(path: str | Path) -> bytes:
    """The whole content of ``path``, decompressed as its first bytes say."""
    path = Path(path)
    kind = compression_of(path)
    with reading(path):
        raw = path.read_bytes()
    return unlzw(raw, path) if kind == "compress" else decompress(raw, kind, path)


def read_head(path: str | Path, size: int = 4096) -> str:
    """About the first ``size`` characters of ``path`` as text, decompressed as its first bytes say."""
    path = Path(path)
    kind = compression_of(path)
    with reading(path):
        if decodes(kind):
            with io.TextIOWrapper(open_binary(path, kind), encoding="utf-8", errors="replace") as handle:
                return handle.read(size)
        with open(path, "rb") as handle:
            raw = handle.read(size if kind is None else None)
    if kind == "compress":
        raw = unlzw(raw, path, limit=size)
    return raw.decode("utf-8", errors="replace")


def open_text(path: str | Path) -> IO[str]:
    """``path`` opened as UTF-8 text (undecodable bytes replaced), decompressed as its first bytes say.

    Read it inside :func:`reading` so that a truncated stream gives one line naming the file."""
    path = Path(path)
    kind = compression_of(path)
    with reading(path):
        if decodes(kind):
            return io.TextIOWrapper(open_binary(path, kind), encoding="utf-8", errors="replace")
        if kind == "compress":
            return io.StringIO(unlzw(path.read_bytes(), path).decode("utf-8", errors="replace"))
        return open(path, encoding="utf-8", errors="replace")
