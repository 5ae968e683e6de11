"""The classification audit behind ``irfair fairness``: read a predictions CSV strictly, then ε per
attribute subset (data, classifier, amplification), gaps per class and GapRMS."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import IrfairInputError
from ..numbers import finite_or_none
from .differential import bias_amplification
from .gaps import GroupGaps, statistical_gaps


@dataclass(frozen=True)
class ClassificationAudit:
    """ε table (data, classifier, amplification per attribute subset), gaps of one binary group column,
    and mean scores by group when a score column was given."""

    epsilon: pd.DataFrame
    gaps: GroupGaps
    gap_group: str
    scores_by_group: pd.Series | None
    n_rows: int

    def to_dict(self) -> dict:
        return {
            "n_rows": self.n_rows,
            "epsilon": {k: {c: finite_or_none(float(v)) for c, v in row.items()} for k, row in self.epsilon.to_dict("index").items()},
            "gaps": {
                "group_column": self.gap_group,
                "groups": [str(g) for g in self.gaps.groups],
                "per_class": {str(c): {m: finite_or_none(float(v)) for m, v in row.items()}
                              for c, row in self.gaps.gaps.to_dict("index").items()},
                "gap_rms": {m: finite_or_none(v) for m, v in self.gaps.gap_rms.items()},
            },
            "mean_score_by_group": None if self.scores_by_group is None else {str(k): float(v) for k, v in self.scores_by_group.items()},
        }


def read_predictions(path: str | Path, label: str, prediction: str, groups: Sequence[str], score: str | None = None) -> pd.DataFrame:
    """Read and validate a predictions CSV; raises IrfairInputError naming the file and line."""
    file = Path(path)
    if not file.is_file():
        raise IrfairInputError(file, None, "predictions file not found")
    try:
        frame = pd.read_csv(file, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise IrfairInputError(file, None, "empty predictions file: expected a CSV with a header line") from None
    except pd.errors.ParserError as exc:
        raise IrfairInputError(file, None, f"not a valid CSV ({str(exc).splitlines()[0]})") from None
    if frame.empty:
        raise IrfairInputError(file, None, "predictions file has a header but no rows")
    needed = [label, prediction, *groups] + ([score] if score else [])
    for column in needed:
        if column not in frame.columns:
            raise IrfairInputError(file, 1, f"missing column {column!r} (columns: {', '.join(frame.columns)})")
    for column in needed:
        empty = frame[column].str.strip() == ""
        if empty.any():
            raise IrfairInputError(file, int(empty.idxmax()) + 2, f"empty value in column {column!r}")
    if score:
        numbers = pd.to_numeric(frame[score], errors="coerce")
        if numbers.isna().any():
            bad = int(numbers.isna().idxmax())
            raise IrfairInputError(file, bad + 2, f"score column {score!r} must be numeric, found {frame.loc[bad, score]!r}")
        frame[score] = numbers
    return frame


def audit_predictions(path: str | Path, label: str, prediction: str, groups: Sequence[str], *, score: str | None = None,
                      alpha: float = 1.0, gap_group: str | None = None) -> ClassificationAudit:
    """The ``irfair fairness`` audit of a predictions CSV."""
    frame = read_predictions(path, label, prediction, groups, score)
    gap_column = gap_group or groups[0]
    if gap_column not in frame.columns:
        raise IrfairInputError(path, 1, f"missing column {gap_column!r}")
    values = sorted(frame[gap_column].unique())
    if len(values) != 2:
        raise IrfairInputError(path, None, f"gaps need a two-valued group column; {gap_column!r} has {len(values)} values "
                                           f"({', '.join(values[:6])}); choose one with --gap-group")
    epsilon = bias_amplification(frame, label, prediction, list(groups), alpha=alpha)
    gaps = statistical_gaps(frame[label].to_numpy(), frame[prediction].to_numpy(), frame[gap_column].to_numpy())
    scores = frame.groupby(gap_column)[score].mean() if score else None
    return ClassificationAudit(epsilon, gaps, gap_column, scores, len(frame))


def format_audit(result: ClassificationAudit) -> str:
    """Plain-text tables of a classification audit."""
    lines = [f"differential fairness ε ({result.n_rows} rows; smoothed as set by --alpha)", result.epsilon.round(4).to_string(), ""]
    a, b = result.gaps.groups
    lines.append(f"gaps per class: rate({a}) − rate({b}) in column {result.gap_group!r}")
    lines.append(result.gaps.gaps.round(4).to_string())
    rms = result.gaps.gap_rms
    lines.append("GapRMS: " + ", ".join(f"{m} {v:.4f}" for m, v in rms.items()))
    if result.scores_by_group is not None:
        lines.append("mean score by group: " + ", ".join(f"{k} {v:.4f}" for k, v in result.scores_by_group.items()))
    return "\n".join(lines)
