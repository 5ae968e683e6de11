"""The one exception type for bad user input; the CLI prints it as one line and exits 2.

Error lines stay readable whatever the input holds: every run of more than :data:`LONG_VALUE`
non-blank characters (a megabyte-long document id, a binary blob) is abbreviated to its head and
tail with its length, line breaks become spaces, and the whole line is cut at :data:`MAX_LINE`
characters.
"""
from __future__ import annotations

import re
from pathlib import Path

MAX_LINE = 300
LONG_VALUE = 100
_LONG = re.compile(r"\S{" + str(LONG_VALUE + 1) + ",}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _abbreviate_value(match: re.Match) -> str:
    value = match.group(0)
    return f"{value[:40]}…{value[-40:]} ({len(value):,} characters)"


def one_line(text: str, limit: int = MAX_LINE) -> str:
    """``text`` as one printable line of at most ``limit`` characters: control characters (line
    breaks included) become spaces, long values are abbreviated, the rest is cut with '…'."""
    flat = _CONTROL.sub(" ", str(text))
    flat = _LONG.sub(_abbreviate_value, flat)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class IrfairInputError(Exception):
    """Bad input: names the file, the line (when there is one) and what was expected."""

    def __init__(self, path: str | Path | None, line: int | None, expected: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.expected = expected
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """``path:line: expected`` as one line of at most :data:`MAX_LINE` characters."""
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return one_line(f"{where}{self.expected}")


class IrfairWarning(UserWarning):
    """A documented decision the user should know about (e.g. run documents missing from the corpus
    below the audited depth); the CLI prints it as one line ``irfair: warning: ...``."""


class MissingExtraError(ImportError):
    """An optional dependency is missing; names the extra that installs it."""

    def __init__(self, module: str, extra: str) -> None:
        super().__init__(
            f"{module} is not installed; install it with: pip install 'irfair[{extra}]'"
        )
