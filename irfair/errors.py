"""The one exception type for bad user input; the CLI prints it as one line and exits 2."""
from __future__ import annotations

from pathlib import Path


class IrfairInputError(Exception):
    """Bad input: names the file, the line (when there is one) and what was expected."""

    def __init__(self, path: str | Path | None, line: int | None, expected: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.expected = expected
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return f"{where}{self.expected}"


class MissingExtraError(ImportError):
    """An optional dependency is missing; names the extra that installs it."""

    def __init__(self, module: str, extra: str) -> None:
        super().__init__(
            f"{module} is not installed; install it with: pip install 'irfair[{extra}]'"
        )
