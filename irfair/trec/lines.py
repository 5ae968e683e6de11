"""The lines of a TREC text file (topics, qrels, runs), read strictly: UTF-8, not empty."""
from __future__ import annotations

from pathlib import Path

from ..errors import IrfairInputError


def read_lines(path: str | Path, what: str) -> list[str]:
    """The lines of ``path``, a ``what`` file; IrfairInputError when missing, not UTF-8 (naming the line) or blank."""
    file = Path(path)
    if not file.is_file():
        raise IrfairInputError(file, None, f"{what} file not found")
    try:
        text = file.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        line = file.read_bytes()[: exc.start].count(b"\n") + 1
        raise IrfairInputError(file, line, f"{what} file must be UTF-8 text") from None
    if not text.strip():
        raise IrfairInputError(file, None, f"empty {what} file")
    return text.splitlines()
