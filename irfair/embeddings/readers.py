"""Strict readers of embedding files: word2vec/fastText/GloVe text and word2vec binary, plain or gzip.

What is checked, so that a damaged or truncated file never loads:

* text: a ``count dim`` header (word2vec, fastText ``.vec``) is optional; without it (GloVe) the
  dimension is that of the first row. Every row is a word followed by exactly ``dim`` numbers (a word
  may contain spaces, but no part of it may be a number), every line ends with a line break (a file
  cut inside its last line is caught), the number of rows equals the header's count (a file cut at a
  line boundary is caught; without a header that case cannot be told apart from a shorter file);
  blank lines and undecodable UTF-8 are errors;
* binary: the header, every word (UTF-8, no line break inside) and exactly ``dim`` little-endian
  float32 values per word; fewer words than announced, or anything but line breaks after them, is an
  error;
* both: a damaged or truncated gzip stream is reported, and every value must be finite.

Errors are :class:`IrfairInputError` naming the file and the line (text) or the word's number (binary).
"""
from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..errors import IrfairInputError

MAX_WORD_BYTES = 4096
_DIGITS = re.compile(r"[0-9]+")
_COMPRESSION_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


@contextmanager
def _opened(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for reading bytes (gunzipped for ``.gz``); damaged compression → one error line."""
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as handle:
            yield handle
    except _COMPRESSION_ERRORS as exc:
        raise IrfairInputError(path, None, f"damaged or truncated gzip file ({exc})") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_finite(path: Path, vectors: np.ndarray, where: list[int] | None, words: list[str]) -> None:
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if len(bad):
        row = int(bad[0])
        line = None if where is None else where[row]
        label = "" if where is not None else f"word {row + 1} "
        raise IrfairInputError(path, line, f"{label}{words[row]!r}: the vector holds a non-finite value (NaN or infinity)")


def _split_row(path: Path, lineno: int, text: str, dim: int) -> tuple[str, list[str]]:
    fields = text.split(" ")
    expected = f"expected a word followed by {dim} numbers"
    if len(fields) < dim + 1:
        raise IrfairInputError(path, lineno, f"{expected}, found {len(fields)} fields (line cut short?)")
    word_parts, numbers = fields[: len(fields) - dim], fields[len(fields) - dim :]
    if not word_parts[0] or any(_is_number(part) for part in word_parts):
        raise IrfairInputError(path, lineno, f"{expected}, found {len(fields) - 1} numbers or an empty word")
    return " ".join(word_parts), numbers


def read_text_vectors(path: Path) -> tuple[list[str], np.ndarray]:
    """word2vec text / fastText .vec (header ``count dim``) or GloVe (no header), plain or gzip:
    ``(words, vectors of shape (n_words, dim), float32)``."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    where: list[int] = []
    count = dim = None
    with _opened(path) as handle:
        for lineno, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                raise IrfairInputError(path, lineno, "the last line has no line end: the file is cut short")
            try:
                text = raw.decode("utf-8").rstrip("\r\n").rstrip(" ")
            except UnicodeDecodeError:
                raise IrfairInputError(path, lineno, "embedding text file must be UTF-8") from None
            if lineno == 1:
                parts = text.split(" ")
                if len(parts) == 2 and all(_DIGITS.fullmatch(p) for p in parts):
                    count, dim = int(parts[0]), int(parts[1])
                    if count < 1 or dim < 1:
                        raise IrfairInputError(path, 1, f"header 'count dim' must be positive, found {text!r}")
                    continue
                dim = len(parts) - 1
                if dim < 1:
                    raise IrfairInputError(path, 1, "expected a word followed by its numbers")
            if not text.strip():
                raise IrfairInputError(path, lineno, f"expected a word followed by {dim} numbers, found a blank line")
            word, numbers = _split_row(path, lineno, text, dim)
            try:
                with np.errstate(over="ignore"):
                    rows.append(np.asarray(numbers, dtype=np.float32))
            except ValueError:
                raise IrfairInputError(path, lineno, f"expected a word followed by {dim} numbers") from None
            words.append(word)
            where.append(lineno)
    if count is not None and len(rows) != count:
        raise IrfairInputError(path, None, f"the header announces {count} words, the file holds {len(rows)} (cut short?)")
    if not rows:
        raise IrfairInputError(path, None, "no word vectors in this file")
    vectors = np.vstack(rows)
    _check_finite(path, vectors, where, words)
    return words, vectors


class _Bytes:
    """Buffered reads of a binary stream: up to a separator, or a fixed number of bytes."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle, self.buffer, self.pos = handle, b"", 0

    def _more(self) -> bool:
        chunk = self.handle.read(1 << 20)
        if not chunk:
            return False
        self.buffer = self.buffer[self.pos :] + chunk
        self.pos = 0
        return True

    def until(self, separator: bytes, limit: int) -> bytes | None:
        """Bytes before the next ``separator`` (consumed); None at the end or beyond ``limit`` bytes."""
        while True:
            found = self.buffer.find(separator, self.pos, self.pos + limit + 1)
            if found >= 0:
                out = self.buffer[self.pos : found]
                self.pos = found + 1
                return out
            if len(self.buffer) - self.pos > limit or not self._more():
                return None

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer at the end of the stream)."""
        while len(self.buffer) - self.pos < n and self._more():
            pass
        out = self.buffer[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    def rest(self) -> bytes:
        """Everything left (at most 1 MiB past the current position is read)."""
        self._more()
        return self.buffer[self.pos :]


def read_word2vec_binary(path: Path) -> tuple[list[str], np.ndarray]:
    """word2vec binary (``count dim`` line, then per word: the word, a space, ``dim`` float32),
    plain or gzip: ``(words, vectors of shape (count, dim), float32)``."""
    with _opened(path) as handle:
        stream = _Bytes(handle)
        header = stream.until(b"\n", 100)
        parts = (header or b"").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts) or int(parts[0]) < 1 or int(parts[1]) < 1:
            raise IrfairInputError(path, 1, "not a word2vec binary file: expected a first line 'count dim'")
        count, dim = int(parts[0]), int(parts[1])
        if path.suffix != ".gz" and count * (4 * dim + 2) > path.stat().st_size:
            raise IrfairInputError(path, 1, f"the header announces {count} words of {dim} values: the file is too short (cut short?)")
        words: list[str] = []
        data = bytearray()
        size = 4 * dim
        for number in range(1, count + 1):
            raw = stream.until(b" ", MAX_WORD_BYTES)
            if raw is None:
                raise IrfairInputError(path, None, f"word {number} of {count}: the file ends, or the word is not followed by a space")
            raw = raw.lstrip(b"\n")
            try:
                word = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise IrfairInputError(path, None, f"word {number} of {count} is not UTF-8 (not a word2vec binary file?)") from None
            if not word or "\n" in word or "\r" in word:
                raise IrfairInputError(path, None, f"word {number} of {count} is empty or holds a line break")
            vector = stream.take(size)
            if len(vector) != size:
                raise IrfairInputError(path, None, f"the file ends inside the vector of word {number} of {count} (cut short?)")
            words.append(word)
            data += vector
        if stream.rest().strip(b"\n"):
            raise IrfairInputError(path, None, f"data after the {count} words the header announces")
    vectors = np.frombuffer(bytes(data), dtype="<f4").reshape(count, dim).astype(np.float32)
    _check_finite(path, vectors, None, words)
    return words, vectors
