"""Compressed files recognised by their first bytes (magic numbers), never by their names: gzip
(``1f 8b``), bzip2 (``BZh``), xz (``fd 37 7a 58 5a 00``) and unix ``compress`` (``1f 9d``, decoded by
:mod:`irfair.corpus.compressed`, which reads corpora). Runs, qrels, topics and corpora share this one
detection, so ``run.txt`` holding gzip data is read as gzip and ``run.gz`` holding plain text as text.

A damaged or truncated stream gives one :class:`IrfairInputError` naming the file, never a decoder
traceback.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import re
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import IrfairInputError

# (kind, leading bytes as a pattern): data, so that a new format is one more row. bzip2's "BZh" alone could
# begin a text file, so its block size digit and the magic of its first block (or of an empty stream) count too.
MAGIC = (("gzip", rb"\x1f\x8b"), ("bzip2", rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), ("xz", rb"\xfd7zXZ\x00"),
         ("compress", rb"\x1f\x9d"))
_PATTERNS = tuple((kind, re.compile(pattern)) for kind, pattern in MAGIC)
# the usual file endings of each kind (lower case): only to name a file without its ending, never to decide
SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".z": "compress", ".0z": "compress", ".1z": "compress", ".2z": "compress"}
# each takes a path or an open binary file
_OPENERS: dict[str, Callable[[Path | IO[bytes]], IO[bytes]]] = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}
_DECODERS: dict[str, Callable[[bytes], bytes]] = {"gzip": gzip.decompress, "bzip2": bz2.decompress, "xz": lzma.decompress}
_HEAD = 10


def sniff(head: bytes) -> str | None:
    """The compression of data starting with ``head`` (``"gzip"``, ``"bzip2"``, ``"xz"``, ``"compress"``), or None."""
    return next((kind for kind, pattern in _PATTERNS if pattern.match(head)), None)


def compression_of(path: str | Path) -> str | None:
    """The compression of the file ``path`` by its first bytes; None for plain data (or a file that cannot be read:
    its reader says why)."""
    try:
        with open(path, "rb") as handle:
            return sniff(handle.read(_HEAD))
    except OSError:
        return None


def plain_name(path: str | Path) -> str:
    """The file name without a compression ending: ``bm25.run.gz`` → ``bm25.run``."""
    name = Path(path).name
    suffix = Path(name).suffix.lower()
    return name[: -len(suffix)] if suffix in SUFFIXES and len(name) > len(suffix) else name


def damaged(path: str | Path, what: str) -> IrfairInputError:
    """The error for a damaged or truncated compressed file."""
    return IrfairInputError(path, None, f"damaged or truncated compressed file ({what}); expected a complete copy")


@contextmanager
def reading(path: str | Path) -> Iterator[None]:
    """Turn a decoder's or the file system's error while reading ``path`` into one IrfairInputError."""
    try:
        yield
    except (EOFError, zlib.error, gzip.BadGzipFile, lzma.LZMAError) as error:
        raise damaged(path, f"{type(error).__name__}: {error}") from None
    except OSError as error:
        if error.errno is None:  # bz2 reports bad data as a bare OSError("Invalid data stream")
            raise damaged(path, f"{type(error).__name__}: {error}") from None
        raise IrfairInputError(path, None, f"cannot be read ({error.strerror or error})") from None


def decodes(kind: str | None) -> bool:
    """True for the kinds this module decompresses itself (gzip, bzip2, xz)."""
    return kind in _DECODERS


def decompress(raw: bytes, kind: str | None, path: str | Path) -> bytes:
    """``raw`` decompressed as ``kind`` (gzip, bzip2, xz; None: unchanged); damage → IrfairInputError naming ``path``."""
    if kind is None:
        return raw
    with reading(path):
        try:
            return _DECODERS[kind](raw)
        except ValueError as error:  # bz2's whole-data decoder reports a cut stream as ValueError
            raise damaged(path, f"{type(error).__name__}: {error}") from None


def open_binary(path: str | Path, kind: str) -> IO[bytes]:
    """``path`` opened for reading its decompressed bytes (``kind``: gzip, bzip2 or xz); read it inside :func:`reading`."""
    return _OPENERS[kind](Path(path))


BLOCK = 16 * 2**20  # bytes a streaming reader holds at a time


def _refuse_compress(path: Path, what: str) -> IrfairInputError:
    return IrfairInputError(path, None, f"unix compress (.Z) data: a {what} file must be plain, gzip, bzip2 or xz "
                                        "(decompress it with uncompress, or recompress it with gzip)")


def line_blocks(path: str | Path, what: str = "file", block: int = BLOCK) -> Iterator[bytes]:
    """The decompressed bytes of ``path`` (told by its first bytes, as :func:`read_bytes`) in blocks of about
    ``block`` bytes, each ending after a ``\\n`` (the last one: where the data ends), so that memory holds one block,
    not the file: a 2 MB gzip file of 1 GB of text is read 16 MB at a time. A pipe is read once, as it comes.
    Damage, wherever it is met, is one IrfairInputError naming the file."""
    path = Path(path)
    with reading(path):
        with open(path, "rb") as raw:
            kind = sniff(raw.peek(_HEAD)[:_HEAD])
            if kind == "compress":
                raise _refuse_compress(path, what)
            stream = _OPENERS[kind](raw) if kind else raw
            pending = b""
            while True:
                chunk = stream.read(block)
                if not chunk:
                    break
                data = pending + chunk
                cut = data.rfind(b"\n") + 1
                if cut == 0 and len(data) < 16 * block:  # a line longer than a block: gather it (up to 16 blocks)
                    pending = data
                    continue
                cut = cut or len(data)
                pending = data[cut:]
                yield data[:cut]
            if pending:
                yield pending


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """The whole content of ``path``, decompressed when its bytes say gzip, bzip2 or xz.

    ``compress`` (``.Z``) data is refused with one line: only corpora are read from it
    (:mod:`irfair.corpus.compressed`); ``what`` names the file's role in that message."""
    path = Path(path)
    with reading(path):
        raw = path.read_bytes()
    kind = sniff(raw[:_HEAD])
    if kind == "compress":
        raise _refuse_compress(path, what)
    return decompress(raw, kind, path)
