"""Differential fairness (Foulds, Islam, Keya & Pan, "An Intersectional Definition of Fairness", ICDE 2020).

A mechanism M is ε-differentially fair over the intersections s of the protected attributes when for
every outcome y and every pair of groups (s_i, s_j): e^-ε ≤ P(M = y | s_i) / P(M = y | s_j) ≤ e^ε.
The smallest such ε is

    ε = max_y max_{i,j} | log P(y | s_i) − log P(y | s_j) |.

Empirical (α = 0): P(y | s) = N_{y,s} / N_s. Dirichlet-smoothed (α > 0):
P(y | s) = (N_{y,s} + α) / (N_s + |Y| α). Groups with no example are left out (and counted); with
α = 0 a zero probability gives ε = inf, which is why the smoothed estimate is the default (α = 1).
Applied to predictions it measures the classifier; applied to labels, the data. Bias amplification
= ε(classifier) − ε(data) on the same examples.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import _checks


@dataclass(frozen=True)
class DifferentialFairness:
    """ε with the conditional probabilities it came from (groups × outcomes) and the group sizes."""

    epsilon: float
    attributes: tuple[str, ...]
    alpha: float
    probabilities: pd.DataFrame
    group_sizes: pd.Series
    worst_outcome: object
    worst_pair: tuple[object, object]

    @property
    def by_group(self) -> pd.DataFrame:
        """P(y | group) per group (rows) and outcome (columns), with each group's size."""
        table = self.probabilities.copy()
        table["n"] = self.group_sizes
        return table


def epsilon_from_probabilities(probabilities: np.ndarray) -> float:
    """ε of a (n_groups, n_outcomes) matrix of P(y | s): the largest |log ratio| within any column."""
    matrix = np.asarray(probabilities, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(matrix)
        highest, lowest = logs.max(axis=0), logs.min(axis=0)
        # an outcome no group ever gets shows no disparity; one some groups never get is unbounded
        spread = np.where(np.isneginf(highest), 0.0, highest - lowest)
    return float(spread.max())


def differential_fairness(
    outcomes: Sequence,
    groups: pd.DataFrame | pd.Series,
    *,
    alpha: float = 1.0,
    outcome_values: Sequence | None = None,
) -> DifferentialFairness:
    """ε-differential fairness of ``outcomes`` (predictions or labels, length n) over the intersections
    of the columns of ``groups`` (n rows). ``outcome_values`` fixes |Y| (default: the values seen)."""
    if not isinstance(groups, (pd.DataFrame, pd.Series)):
        raise _checks.fail(f"groups must be a DataFrame or Series of protected attributes, not {type(groups).__name__}")
    frame = groups.to_frame() if isinstance(groups, pd.Series) else groups.reset_index(drop=True)
    if frame.shape[1] == 0:
        raise _checks.fail("groups must have at least one protected attribute column")
    outcomes = _checks.sequence("outcomes", outcomes)
    _checks.same_length(outcomes=outcomes, groups=frame)
    if len(frame) == 0:
        raise _checks.fail("differential fairness needs at least one example")
    for column in frame.columns:
        name = f"protected attribute {column!r}"
        _distinct_as_text(name, pd.unique(_checks.sequence(name, frame[column].to_numpy())))
    _checks.number("alpha", alpha, low=0)
    attributes = tuple(str(c) for c in frame.columns)
    key = frame.iloc[:, 0].astype(str)
    for column in frame.columns[1:]:
        key = key + " & " + frame[column].astype(str)
    values = _outcome_values(outcomes, outcome_values)
    group_codes, group_names = pd.factorize(key, sort=True)
    outcome_codes = pd.Categorical(np.asarray(outcomes), categories=values).codes
    if (outcome_codes < 0).any():
        raise _checks.fail(f"outcome {_checks.short(outcomes[int(np.argmax(outcome_codes < 0))])} is not among outcome_values")
    matrix = np.zeros((len(group_names), len(values)))
    np.add.at(matrix, (group_codes, outcome_codes), 1)
    counts = pd.DataFrame(matrix, index=pd.Index(group_names))
    sizes = counts.sum(axis=1)
    probabilities = (counts + alpha).div(sizes + len(values) * alpha, axis=0)
    probabilities.index.name = " & ".join(attributes)
    probabilities.columns = [str(v) for v in values]
    epsilon = epsilon_from_probabilities(probabilities.to_numpy())
    logs = np.log(probabilities.to_numpy().clip(min=1e-300))
    column = int(np.argmax(logs.max(axis=0) - logs.min(axis=0)))
    pair = (probabilities.index[int(np.argmax(logs[:, column]))], probabilities.index[int(np.argmin(logs[:, column]))])
    return DifferentialFairness(epsilon, attributes, alpha, probabilities, sizes, values[column], pair)


def _distinct_as_text(name: str, values: Sequence) -> list:
    """``values``, checked to stay distinct once written as text (1 and "1" would merge)."""
    seen: dict[str, object] = {}
    for value in values:
        if str(value) in seen:
            raise _checks.fail(f"{name} holds both {_checks.short(seen[str(value)])} and {_checks.short(value)}, "
                               "which are written the same: give each value once, all of one type")
        seen[str(value)] = value
    return list(values)


def _outcome_values(outcomes: np.ndarray, outcome_values: Sequence | None) -> list:
    if outcome_values is None:
        return _distinct_as_text("outcomes", sorted(pd.unique(outcomes), key=str))
    values = list(_checks.sequence("outcome_values", outcome_values))
    if not values:
        raise _checks.fail("outcome_values must not be empty")
    return _distinct_as_text("outcome_values", values)


def _columns(data: pd.DataFrame, outcome: str, attributes: Sequence[str]) -> list[str]:
    if not isinstance(data, pd.DataFrame):
        raise _checks.fail(f"data must be a DataFrame, not {type(data).__name__}")
    names = _checks.texts("attributes", attributes)
    if not names:
        raise _checks.fail("attributes must name at least one protected attribute column")
    for name in names:
        if names.count(name) > 1:
            raise _checks.fail(f"attribute {name!r} is given twice")
    for name in [outcome, *names]:
        _checks.member("column", name, list(data.columns), "columns of data")
    return names


def differential_fairness_table(
    data: pd.DataFrame,
    outcome: str,
    attributes: Sequence[str],
    *,
    alpha: float = 1.0,
    outcome_values: Sequence | None = None,
) -> pd.DataFrame:
    """ε for every non-empty subset of ``attributes`` (one row each, as in Foulds & Pan's tables)."""
    attributes = _columns(data, outcome, attributes)
    rows = []
    values = _outcome_values(_checks.sequence(f"column {outcome!r}", data[outcome].to_numpy()), outcome_values)
    for size in range(1, len(attributes) + 1):
        for subset in itertools.combinations(attributes, size):
            result = differential_fairness(data[outcome].to_numpy(), data[list(subset)], alpha=alpha, outcome_values=values)
            rows.append({"attributes": " × ".join(subset), "epsilon": result.epsilon, "groups": len(result.group_sizes)})
    return pd.DataFrame(rows).set_index("attributes")


def bias_amplification(
    data: pd.DataFrame,
    label: str,
    prediction: str,
    attributes: Sequence[str],
    *,
    alpha: float = 1.0,
) -> pd.DataFrame:
    """ε of the data (labels), of the classifier (predictions) and their difference, per attribute subset."""
    attributes = _columns(data, label, attributes)
    _columns(data, prediction, attributes)
    seen = [*pd.unique(_checks.sequence(f"column {label!r}", data[label].to_numpy())),
            *pd.unique(_checks.sequence(f"column {prediction!r}", data[prediction].to_numpy()))]
    values = sorted(pd.unique(np.asarray(seen, dtype=object)), key=str)
    of_data = differential_fairness_table(data, label, attributes, alpha=alpha, outcome_values=values)
    of_model = differential_fairness_table(data, prediction, attributes, alpha=alpha, outcome_values=values)
    return pd.DataFrame({
        "epsilon_data": of_data["epsilon"],
        "epsilon_classifier": of_model["epsilon"],
        "amplification": of_model["epsilon"] - of_data["epsilon"],
        "groups": of_data["groups"],
    })
