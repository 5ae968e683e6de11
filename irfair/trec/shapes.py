"""Recognising and checking the shapes runs, qrels and topics come in: DataFrames, ranx and ir_measures
objects, numbers, id columns. Shared by :mod:`.runs` and :mod:`.judgements`."""
from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence

from ..errors import IrfairInputError

QID_COLUMNS = ("qid", "query_id")
DOC_COLUMNS = ("docno", "doc_id")
GRADE_COLUMNS = ("label", "relevance")
QUERY_COLUMNS = ("query", "text", "title")


def is_frame(obj) -> bool:
    """A pandas DataFrame (pandas is not imported for the check)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, pandas.DataFrame)


def is_ranx(obj, kind: str) -> bool:
    """A ``ranx.Run`` or ``ranx.Qrels`` (``kind``), recognised without importing ranx (slow to import)."""
    return type(obj).__module__.split(".")[0] == "ranx" and type(obj).__name__ == kind


def is_record(obj, value_field: str) -> bool:
    """An ir_measures/ir_datasets record: ``query_id``, ``doc_id`` and ``value_field`` (score, relevance)."""
    return all(hasattr(obj, f) for f in ("query_id", "doc_id", value_field))


def is_number(value) -> bool:
    """A real number (numpy included), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_doc_list(value) -> bool:
    """A list or tuple of document ids (an explicit ranking); a set is not one."""
    return isinstance(value, (list, tuple)) and all(isinstance(d, (str, int)) and not isinstance(d, bool) for d in value)


def score_value(value, name: str, qid, doc) -> float:
    """``value`` as a finite float, else IrfairInputError naming the run, query and document."""
    if not is_number(value) or not math.isfinite(float(value)):
        raise IrfairInputError(f"run {name!r}", None, f"query {qid}, document {doc}: score must be a finite number, found {value!r}")
    return float(value)


def grade_value(value, where: str) -> int:
    """``value`` as an integer relevance grade (1.0 is 1), else IrfairInputError."""
    if is_number(value) and float(value).is_integer():
        return int(value)
    raise IrfairInputError("qrels", None, f"{where}: relevance grade must be an integer, found {value!r}")


def check_numeric_column(frame, column: str, what: str, where: str, cast: str = "float") -> None:
    """IrfairInputError when the DataFrame column ``column`` holds text (or any other non-numbers) instead of ``what``."""
    import pandas

    if not pandas.api.types.is_numeric_dtype(frame[column]) or pandas.api.types.is_bool_dtype(frame[column]):
        values = frame[column]
        example = next((v for v in values if not is_number(v)), values.iloc[0] if len(values) else None)
        kind = "text" if isinstance(example, str) else f"{frame[column].dtype} values"
        raise IrfairInputError(where, None, f"the {column!r} column holds {kind} (e.g. {example!r}), expected {what}: "
                                            f"convert it first, e.g. frame[{column!r}].astype({cast})")


def frame_column(frame, names: Sequence[str], what: str, where: str) -> str:
    """The one column of ``names`` that holds ``what``; two present must agree on every row."""
    present = [c for c in names if c in frame.columns]
    if not present:
        raise IrfairInputError(where, None, f"expected a column {' or '.join(map(repr, names))} ({what}); found {list(frame.columns)}")
    if len(present) > 1 and not (frame[present[0]].astype(str) == frame[present[1]].astype(str)).all():
        raise IrfairInputError(where, None, f"columns {present[0]!r} and {present[1]!r} disagree: which one holds the {what}?")
    return present[0]
