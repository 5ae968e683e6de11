"""The lines of a TREC text file (topics, qrels, runs, word lists), read strictly: UTF-8 (a leading byte-order
mark, as Windows editors write, is dropped), not empty; gzip, bzip2 or xz data is decompressed first, recognised
by its bytes (:mod:`irfair.compression`)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..compression import line_blocks
from ..errors import IrfairInputError

BOM = "\ufeff"


def iter_lines(path: str | Path, what: str) -> Iterator[str]:
    """The lines of ``path``, a ``what`` file, one at a time as they are decompressed and decoded (memory holds one
    block of the file, never the whole: an error on line 2 of a huge file is said at once), without a leading UTF-8
    byte-order mark (kept, it would join the first line's first field: query 1 read as U+FEFF followed by 1); the
    lines are those of ``str.splitlines``. IrfairInputError when missing, damaged, not UTF-8 (naming the line) or blank."""
    file = Path(path)
    if file.is_dir():
        raise IrfairInputError(file, None, f"is a folder, expected a {what} file")
    if not file.exists():  # a pipe (`<(zcat run.gz)`) or a device is read as it comes
        raise IrfairInputError(file, None, f"{what} file not found")
    before, first, blank = 0, True, True
    for data in line_blocks(file, what):  # each block ends after a \n: its lines are the file's lines
        try:
            text = data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise IrfairInputError(file, before + data[: exc.start].count(b"\n") + 1, f"{what} file must be UTF-8 text") from None
        before += data.count(b"\n")
        if first:
            text, first = text.removeprefix(BOM), False
        blank = blank and not text.strip()
        yield from text.splitlines()
    if blank:
        raise IrfairInputError(file, None, f"empty {what} file")


def read_lines(path: str | Path, what: str) -> list[str]:
    """Every line of ``path`` at once (:func:`iter_lines`), for files that are read whole anyway (topics, word lists)."""
    return list(iter_lines(path, what))
