"""A folder of ``.txt`` files, one document each; the document id is the file stem."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import IrfairInputError
from .base import file_stamp
from .compressed import reading


class TextDirCorpus:
    """A folder of ``.txt`` files; the document id is the file stem."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.files = sorted(self.folder.glob("*.txt"))
        if not self.files:
            raise IrfairInputError(self.folder, None, "no .txt files in this corpus folder")
        self.name = self.folder.name

    def fingerprint(self) -> str:
        return file_stamp(self.files)

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        for file in self.files:
            if wanted is None or file.stem in wanted:
                with reading(file):
                    text = file.read_text(encoding="utf-8", errors="replace")
                yield file.stem, text
