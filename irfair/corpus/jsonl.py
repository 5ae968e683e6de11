"""JSONL corpora (``.jsonl``, ``.jsonl.gz`` or ``.jsonl.Z``): one ``{"id": ..., "contents"|"text": ...}`` object per line.

The id may also be called ``docid`` or ``_id``; a string ``title`` is put before the text.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..errors import IrfairInputError
from .base import FileCorpus
from .compressed import open_text, reading
from .pieces import FilePiece, check_stamp, text_pieces


class JsonlCorpus(FileCorpus):
    """One or more JSONL files (``.jsonl`` or ``.jsonl.gz``): ``{"id": ..., "contents"|"text": ...}`` per line."""

    def _records(self, path: Path, wanted: set[str] | None) -> Iterator[tuple[int, str, str]]:
        with reading(path), open_text(path) as handle:
            for lineno, line in enumerate(handle, start=1):
                if line.strip():
                    yield (lineno, *self._parse(path, lineno, line))

    @staticmethod
    def piece_documents(piece: FilePiece) -> Iterator[tuple[int, str, str]]:
        """``(line, doc_id, text)`` of the documents (lines) of ``piece``, numbered as in the whole file."""
        path = Path(piece.path)
        with reading(path):
            check_stamp(piece)
            number = piece.line
            for text in text_pieces(path, piece.start, piece.end):
                lines = text.split("\n")
                if text.endswith("\n"):
                    lines.pop()
                for line in lines:
                    if line.strip():
                        yield (number, *JsonlCorpus._parse(path, number, line))
                    number += 1

    @staticmethod
    def _parse(path: Path, lineno: int, line: str) -> tuple[str, str]:
        expected = "a JSON object with 'id' and 'contents' or 'text'"
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise IrfairInputError(path, lineno, f"not valid JSON: expected {expected}") from None
        if not isinstance(record, dict):
            raise IrfairInputError(path, lineno, f"expected {expected}")
        doc_id = record.get("id", record.get("docid", record.get("_id")))
        text = record.get("contents", record.get("text"))
        if doc_id is None or not isinstance(text, str):
            raise IrfairInputError(path, lineno, f"expected {expected}")
        title = record.get("title")
        if isinstance(title, str) and title:
            text = f"{title}\n{text}"
        return str(doc_id), text
