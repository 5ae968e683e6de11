"""Reading a classification CSV strictly: the encoding detected from its byte-order mark (UTF-8 otherwise),
every used value present, finite scores in their own array, labels and predictions as two classes (or
mapped with ``positive``, or every value with ``multiclass``); each problem is one IrfairInputError naming
the file, line and column."""
from __future__ import annotations

import codecs
import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import IrfairInputError
from ._checks import short

MISSING_MARKERS = frozenset({"", "nan", "-nan", "na", "n/a", "#n/a", "#na", "null", "none", "<na>"})
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# internal column names for labels and predictions: a NUL never survives the reader, so a header
# name can never collide with them
LABEL_COLUMN, PREDICTION_COLUMN = "\x00label", "\x00prediction"


@dataclass(frozen=True)
class Predictions:
    """The used columns of a predictions CSV, validated: labels and predictions as classes (strings),
    group columns (and the gap column), scores (own array) and each row's file line."""

    path: str
    labels: np.ndarray
    predictions: np.ndarray
    groups: pd.DataFrame
    scores: np.ndarray | None
    lines: np.ndarray
    classes: list[str]
    positive: str | None


def _decode(file: Path, raw: bytes) -> str:
    encoding = next((name for bom, name in _BOMS if raw.startswith(bom)), "utf-8")
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1 if encoding == "utf-8" else None
        raise IrfairInputError(file, line, f"not {encoding.upper()} text (byte 0x{raw[exc.start]:02x} at offset {exc.start}): "
                                           "expected a CSV in UTF-8, or UTF-16 with a byte-order mark") from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise IrfairInputError(file, line, "binary data (NUL character): expected a CSV text file in UTF-8, "
                                           "or UTF-16 with a byte-order mark")
    return text.lstrip("\ufeff")


def _records(file: Path, text: str):
    """(first file line, fields) of every non-blank CSV record."""
    reader = csv.reader(io.StringIO(text, newline=""))
    while True:
        start = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise IrfairInputError(file, start, f"not a valid CSV ({short(str(exc), 120)})") from None
        if record:
            yield start, record


def read_predictions(path: str | Path, label: str, prediction: str, groups: Sequence[str], score: str | None = None, *,
                     positive: str | None = None, multiclass: bool = False, gap_group: str | None = None) -> Predictions:
    """Read and validate a predictions CSV (module docstring); raises IrfairInputError naming the file,
    the line and what was expected."""
    file = Path(path)
    if positive is not None and multiclass:
        raise IrfairInputError(None, None, "--positive and --multiclass exclude each other: choose one")
    if not file.exists():
        raise IrfairInputError(file, None, "predictions file not found")
    if not file.is_file():
        raise IrfairInputError(file, None, "is not a file: expected a predictions CSV")
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise IrfairInputError(file, None, f"cannot read it ({exc.strerror or exc})") from None
    records = _records(file, _decode(file, raw))
    try:
        header_line, header = next(records)
    except StopIteration:
        raise IrfairInputError(file, None, "empty predictions file: expected a CSV with a header line") from None
    header = [name.strip() for name in header]
    for index, name in enumerate(header):
        if name and header.index(name) != index:
            raise IrfairInputError(file, header_line, f"column {name!r} appears twice in the header")
    group_names = list(groups)
    wanted = [label, prediction, *group_names] + ([score] if score else []) + ([gap_group] if gap_group else [])
    for column in wanted:
        if column not in header:
            hint = "; is it separated by ';' or tabs? irfair reads comma-separated files" if len(header) == 1 and any(
                sep in header[0] for sep in ";\t") else ""
            raise IrfairInputError(file, header_line, f"missing column {column!r} (columns: {short(', '.join(header), 200)}){hint}")
    positions = {name: header.index(name) for name in wanted}
    values: dict[str, list[str]] = {name: [] for name in positions}
    lines = []
    for line, record in records:
        if len(record) != len(header):
            raise IrfairInputError(file, line, f"{len(record)} fields where the header has {len(header)}")
        for name, position in positions.items():
            value = record[position].strip()
            if value.lower() in MISSING_MARKERS:
                raise IrfairInputError(file, line, f"column {name!r}: missing value {short(value)}; every row needs a value")
            values[name].append(value)
        lines.append(line)
    if not lines:
        raise IrfairInputError(file, None, "predictions file has a header but no rows")
    line_array = np.asarray(lines)
    labels, predictions, classes = _classes(file, line_array, label, prediction, values, positive, multiclass)
    scores = _scores(file, line_array, score, values[score]) if score else None
    group_columns = {name: values[name] for name in [*group_names, *([gap_group] if gap_group else [])]}
    return Predictions(str(file), labels, predictions, pd.DataFrame(group_columns), scores, line_array, classes,
                       None if positive is None else positive.strip())


def _classes(file: Path, lines: np.ndarray, label: str, prediction: str, values: dict[str, list[str]],
             positive: str | None, multiclass: bool) -> tuple[np.ndarray, np.ndarray, list[str]]:
    labels, predictions = np.asarray(values[label], dtype=object), np.asarray(values[prediction], dtype=object)
    if positive is not None:
        wanted = positive.strip()
        if not wanted or (wanted not in values[label] and wanted not in values[prediction]):
            raise IrfairInputError(file, None, f"--positive {short(positive)} occurs in neither column {label!r} nor {prediction!r}")
        negative = f"not {wanted}"
        return (np.where(labels == wanted, wanted, negative), np.where(predictions == wanted, wanted, negative),
                [wanted, negative])
    seen: list[str] = []
    for row, (y, y_hat) in enumerate(zip(values[label], values[prediction])):
        for column, value in ((label, y), (prediction, y_hat)):
            if value in seen:
                continue
            if len(seen) == 2 and not multiclass:
                raise IrfairInputError(file, int(lines[row]), f"column {column!r} holds a third value {short(value)} "
                                       f"(after {short(seen[0])} and {short(seen[1])}): labels and predictions must "
                                       "hold two values; map them with --positive VALUE, or use --multiclass")
            seen.append(value)
    return labels, predictions, sorted(seen)


def _scores(file: Path, lines: np.ndarray, column: str, values: list[str]) -> np.ndarray:
    scores = np.empty(len(values))
    for row, value in enumerate(values):
        try:
            scores[row] = float(value)
        except ValueError:
            raise IrfairInputError(file, int(lines[row]), f"column {column!r}: score {short(value)} is not a number") from None
        if not math.isfinite(scores[row]):
            raise IrfairInputError(file, int(lines[row]), f"column {column!r}: score {short(value)} is not finite")
    return scores
