"""The lines of a TREC text file (topics, qrels, runs, word lists), read strictly: UTF-8 (a leading byte-order
mark, as Windows editors write, is dropped), not empty; gzip, bzip2 or xz data is decompressed first, recognised
by its bytes (:mod:`irfair.compression`)."""
from __future__ import annotations

from pathlib import Path

from ..compression import read_bytes
from ..errors import IrfairInputError

BOM = "\ufeff"


def read_lines(path: str | Path, what: str) -> list[str]:
    """The lines of ``path``, a ``what`` file, without a leading UTF-8 byte-order mark (kept, it would join the first
    line's first field: query 1 read as U+FEFF followed by 1); IrfairInputError when missing, damaged, not UTF-8 (naming
    the line) or blank."""
    file = Path(path)
    if file.is_dir():
        raise IrfairInputError(file, None, f"is a folder, expected a {what} file")
    if not file.exists():  # a pipe (`<(zcat run.gz)`) or a device is read as it comes
        raise IrfairInputError(file, None, f"{what} file not found")
    data = read_bytes(file, what)
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise IrfairInputError(file, line, f"{what} file must be UTF-8 text") from None
    text = text.removeprefix(BOM)
    if not text.strip():
        raise IrfairInputError(file, None, f"empty {what} file")
    return text.splitlines()
