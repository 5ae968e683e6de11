"""The classification audit behind ``irfair fairness``: read a predictions CSV strictly, then ε per
attribute subset (data, classifier, amplification), every group's PPR/TPR/FPR with the counts behind it and
its 95 % Wilson interval, gaps with an explicit direction, GapRMS, and the disparate-impact ratio
(four-fifths rule). A binary task (two classes) is reported once, for its positive class: the other class's
rates are complements (PPR' = 1 − PPR, TPR' = 1 − FPR, FPR' = 1 − TPR); with ``multiclass`` every class
is a task of its own (that class vs the rest), one table each.

The reader accepts UTF-8 (with or without a byte-order mark) and UTF-16/UTF-32 with a byte-order mark;
anything else (binary data, another encoding) is refused with one line naming the file. Values are
stripped of surrounding spaces. Every used column must have a value in every row: empty cells and
the usual missing-value markers (NaN, NA, N/A, #N/A, NULL, None, <NA>, any case) are refused with the
file line and column. The label and prediction columns together hold two values (binary audit)
unless ``positive`` maps them to VALUE vs the rest or ``multiclass`` makes every value a class; a
third value is refused with its line and column. The score column is read into its own array of
finite numbers and never replaces another column.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import write_text
from ..errors import IrfairInputError
from ..numbers import finite_or_none
from ._checks import short
from .differential import bias_amplification
from .gaps import METRICS, GroupGaps, MultiGroupGaps, reference_of, statistical_gaps, statistical_gaps_by_group
from .intervals import INTERVAL
from .predictions import LABEL_COLUMN, PREDICTION_COLUMN, read_predictions
from .rates import FOUR_FIFTHS, RATE_BASES, DisparateImpact, disparate_impact, group_rates


@dataclass(frozen=True)
class ClassificationAudit:
    """ε table (data, classifier, amplification per attribute subset), gaps of one group column (two values:
    :class:`GroupGaps`; more: :class:`MultiGroupGaps`, each value against a reference group), mean scores
    by group when a score column was given, and ``rates``: :func:`irfair.fairness.rates.group_rates` of the
    groups the gaps compare (counts and Wilson intervals; None when not computed)."""

    epsilon: pd.DataFrame
    gaps: GroupGaps | MultiGroupGaps
    gap_group: str
    scores_by_group: pd.Series | None
    n_rows: int
    classes: list[str]
    positive: str | None
    rates: pd.DataFrame | None = None
    multiclass: bool = False

    @property
    def positive_class(self) -> str | None:
        """The class a binary task is reported for: ``positive`` when given (``--positive``), else the
        second of the two values in sorted order (1 of 0/1, True of False/True, yes of no/yes); None with
        ``multiclass``."""
        if self.multiclass:
            return None
        return self.positive if self.positive is not None else self.classes[-1]

    @property
    def task_classes(self) -> list[str]:
        """The classes with a table: the positive class of a binary task, every class with ``multiclass``."""
        return list(self.classes) if self.multiclass else [self.positive_class]

    def disparate_impact(self) -> dict[str, DisparateImpact]:
        """The four-fifths check of every task class (empty without ``rates``)."""
        if self.rates is None:
            return {}
        return {c: disparate_impact(self.rates, c) for c in self.task_classes}

    def to_dict(self) -> dict:
        return {
            "n_rows": self.n_rows,
            "classes": [str(c) for c in self.classes],
            "positive": self.positive,
            "epsilon": _keyed({k: _keyed({c: finite_or_none(float(v)) for c, v in row.items()}, "ε column")
                               for k, row in self.epsilon.to_dict("index").items()}, "attribute subset"),
            "gaps": self._gaps_dict(),
            "mean_score_by_group": None if self.scores_by_group is None
            else _keyed({k: float(v) for k, v in self.scores_by_group.items()}, "group"),
            **self._rates_dict(),
        }

    def _rates_dict(self) -> dict:
        """``positive_class``, ``interval``, ``group_rates`` {class: {group: {metric: {rate, k, n, n_counts,
        ci_low, ci_high}}}} and ``disparate_impact`` {class: {reference_group, reference_selection_rate,
        threshold, by_group: {group: {selection_rate, ratio, below_four_fifths}}}}, for the task classes."""
        if self.rates is None:
            return {}
        rates, impact = {}, {}
        for c, check in self.disparate_impact().items():
            by_group = {}
            for group in check.by_group.index:
                by_group[group] = {m: _rate_entry(self.rates.loc[(c, group, m)], m) for m in METRICS}
            rates[c] = _keyed(by_group, "group")
            impact[c] = {
                "reference_group": str(check.reference_group),
                "reference_selection_rate": finite_or_none(float(check.by_group.loc[check.reference_group, "selection_rate"])),
                "threshold": FOUR_FIFTHS,
                "by_group": _keyed({g: {"selection_rate": finite_or_none(float(row.selection_rate)),
                                        "ratio": finite_or_none(float(row.ratio)),
                                        "below_four_fifths": bool(row.below_four_fifths)}
                                    for g, row in check.by_group.iterrows()}, "group"),
            }
        return {"positive_class": self.positive_class, "interval": INTERVAL,
                "group_rates": _keyed(rates, "class"), "disparate_impact": _keyed(impact, "class")}


    def _gaps_dict(self) -> dict:
        gaps = self.gaps
        if isinstance(gaps, MultiGroupGaps):
            reference = gaps.reference_group
            per_group = {}
            for group in gaps.groups:
                rates = gaps.rates[group].unstack("metric")[list(METRICS)]
                entry = {"n_rows": int(gaps.sizes[group]), "rates": _per_class(rates)}
                if group != reference:
                    entry["gaps"] = _per_class(gaps.gaps.loc[group])
                    entry["gap_rms"] = {m: finite_or_none(float(v)) for m, v in gaps.gap_rms.loc[group].items()}
                per_group[group] = entry
            return {
                "group_column": self.gap_group,
                "groups": [str(g) for g in gaps.groups],
                "reference_group": str(reference),
                "direction": f"rate(group) − rate({reference}) for every other group; {reference}: {gaps.reference_rule}",
                "by_group": _keyed(per_group, "group"),
                "spread": _per_class(gaps.difference()),
            }
        protected, reference = gaps.groups
        return {
            "group_column": self.gap_group,
            "protected_group": str(protected),
            "reference_group": str(reference),
            "direction": f"rate({protected}) − rate({reference}): {gaps.direction}",
            "per_class": _per_class(gaps.gaps),
            "gap_rms": {m: finite_or_none(v) for m, v in gaps.gap_rms.items()},
        }


def _rate_entry(row: pd.Series, metric: str) -> dict:
    """One rate as JSON: value, the counts k of n behind it, what n counts, and the interval."""
    return {"rate": finite_or_none(float(row["rate"])), "k": int(row["k"]), "n": int(row["n"]), "n_counts": RATE_BASES[metric],
            "ci_low": finite_or_none(float(row["ci_low"])), "ci_high": finite_or_none(float(row["ci_high"]))}


def _per_class(frame: pd.DataFrame) -> dict:
    """``{class: {metric: value}}`` of a frame with one row per class and one column per metric."""
    return _keyed({c: {str(m): finite_or_none(float(v)) for m, v in row.items()} for c, row in frame.to_dict("index").items()},
                  "class")


def _keyed(mapping: dict, what: str) -> dict:
    """``mapping`` with text keys; two keys that would become the same text are an error, never a
    silently dropped entry."""
    out: dict[str, object] = {}
    for key, value in mapping.items():
        text = str(key)
        if text in out:
            raise IrfairInputError(None, None, f"two {what} keys are both written {text!r} in the JSON output")
        out[text] = value
    return out


def parse_groups(groups: str | Sequence[str]) -> list[str]:
    """The group column names (``--groups``: comma-separated text, or a list): at least one, none
    empty, no repeats."""
    if isinstance(groups, str):
        names = [name.strip() for name in groups.split(",")]
    elif isinstance(groups, Sequence) and all(isinstance(name, str) for name in groups):
        names = [name.strip() for name in groups]
    else:
        raise IrfairInputError(None, None, f"groups must be column names, not {short(groups)}")
    if not any(names):
        raise IrfairInputError(None, None, "--groups needs at least one column name (comma-separated)")
    for name in names:
        if not name:
            raise IrfairInputError(None, None, f"--groups {short(groups)} has an empty column name")
        if names.count(name) > 1:
            raise IrfairInputError(None, None, f"--groups names column {name!r} twice")
    return names


def parse_alpha(value: str | float) -> float:
    """``--alpha`` as a finite number >= 0."""
    try:
        alpha = float(value)
    except (TypeError, ValueError):
        alpha = float("nan")
    if not math.isfinite(alpha) or alpha < 0:
        raise IrfairInputError(None, None, f"--alpha must be a finite number >= 0, not {short(value)}")
    return alpha


def check_output_path(path: str | Path) -> Path:
    """An output file path whose folder exists and is writable (no folder is ever created)."""
    target = Path(path)
    if target.is_dir():
        raise IrfairInputError(target, None, "is a folder: expected a file name for the JSON output")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise IrfairInputError(target, None, f"folder {str(parent)!r} does not exist (it is not created): "
                                             "expected a file in an existing folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise IrfairInputError(target, None, f"folder {str(parent)!r} is not writable")
    return target


def write_json(path: str | Path, audit: ClassificationAudit) -> None:
    """Write the audit as JSON: a temporary file in the same folder, renamed over ``path`` only once
    complete, so no reader ever sees a partial file."""
    target = check_output_path(path)
    text = json.dumps(audit.to_dict(), indent=2, ensure_ascii=False) + "\n"
    try:
        write_text(target, text)
    except OSError as exc:
        raise IrfairInputError(target, None, f"cannot write the JSON output ({exc.strerror or exc})") from None


def audit_predictions(path: str | Path, label: str, prediction: str, groups: Sequence[str], *, score: str | None = None,
                      alpha: float = 1.0, gap_group: str | None = None, positive: str | None = None,
                      multiclass: bool = False, protected_group: str | None = None,
                      reference_group: str | None = None) -> ClassificationAudit:
    """The ``irfair fairness`` audit of a predictions CSV: ε of labels and predictions over the group
    columns (Foulds et al.), and PPR/TPR/FPR gaps in the ``gap_group`` column (Chen et al.): with two
    values rate(protected) − rate(reference) (female − male by default when the values say so); with more,
    every value's rates and gaps against ``reference_group`` (default: the largest group) and the spread
    max − min over the values — or, with ``protected_group``, that value against the reference alone."""
    group_names = parse_groups(groups)
    label, prediction = _column_name("--label", label), _column_name("--prediction", prediction)
    score = None if score is None else _column_name("--score", score)
    alpha = parse_alpha(alpha)
    gap_column = (gap_group.strip() if gap_group else None) or group_names[0]
    table = read_predictions(path, label, prediction, group_names, score, positive=positive, multiclass=multiclass,
                             gap_group=gap_column)
    gap_values = table.groups[gap_column].to_numpy(dtype=object)
    distinct = sorted(pd.unique(gap_values))
    if len(distinct) < 2:
        raise IrfairInputError(path, None, f"gaps need a group column with two or more values; {gap_column!r} has only "
                                           f"{short(distinct[0], 40)}; choose another with --gap-group")
    protected = None if protected_group is None else protected_group.strip()
    reference = None if reference_group is None else reference_group.strip()
    for option, value in (("--protected-group", protected), ("--reference-group", reference)):
        if value is not None and value not in distinct:
            raise IrfairInputError(path, None, f"{option} {short(value)} is not a value of column {gap_column!r} "
                                               f"({', '.join(short(v, 40) for v in distinct)})")
    frame = pd.concat([pd.DataFrame({LABEL_COLUMN: table.labels, PREDICTION_COLUMN: table.predictions}), table.groups[group_names]], axis=1)
    epsilon = bias_amplification(frame, LABEL_COLUMN, PREDICTION_COLUMN, group_names, alpha=alpha)
    gaps = _gaps(table.labels, table.predictions, gap_values, table.classes, protected, reference)
    scores = None
    if table.scores is not None:
        scores = pd.Series({value: float(table.scores[gap_values == value].mean()) for value in gaps.groups})
    rates = group_rates(table.labels, table.predictions, gap_values, table.classes, sorted(gaps.groups, key=str))
    return ClassificationAudit(epsilon, gaps, gap_column, scores, len(table.labels), table.classes, table.positive,
                               rates, multiclass)


def _gaps(labels, predictions, groups: np.ndarray, classes: list, protected: str | None,
          reference: str | None) -> GroupGaps | MultiGroupGaps:
    """Two values: protected − reference; more: every value against the reference (default the largest), or,
    with ``protected``, that value against the reference on their rows alone (the rates do not depend on the others)."""
    if len(pd.unique(groups)) == 2:
        return statistical_gaps(labels, predictions, groups, classes=classes, protected_group=protected, reference_group=reference)
    if protected is None:
        return statistical_gaps_by_group(labels, predictions, groups, classes=classes, reference_group=reference)
    reference, _ = reference_of(groups, reference)
    if reference == protected:
        raise IrfairInputError(None, None, f"the protected and reference groups must differ (both {short(protected)}); "
                                           "the reference defaults to the largest group")
    rows = (groups == protected) | (groups == reference)
    return statistical_gaps(labels[rows], predictions[rows], groups[rows], classes=classes, protected_group=protected,
                            reference_group=reference)


def _column_name(option: str, name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise IrfairInputError(None, None, f"{option} needs a column name, not {short(name)}")
    return name.strip()
