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
    frame = groups.to_frame() if isinstance(groups, pd.Series) else groups.reset_index(drop=True)
    if len(frame) != len(outcomes):
        raise ValueError(f"{len(outcomes)} outcomes but {len(frame)} group rows")
    if alpha < 0:
        raise ValueError("alpha must be >= 0")
    attributes = tuple(str(c) for c in frame.columns)
    key = frame.iloc[:, 0].astype(str)
    for column in frame.columns[1:]:
        key = key + " & " + frame[column].astype(str)
    values = list(outcome_values) if outcome_values is not None else sorted(pd.unique(pd.Series(outcomes)), key=str)
    group_codes, group_names = pd.factorize(key, sort=True)
    outcome_codes = pd.Categorical(np.asarray(outcomes), categories=values).codes
    if (outcome_codes < 0).any():
        raise ValueError("an outcome is not among outcome_values")
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


def differential_fairness_table(
    data: pd.DataFrame,
    outcome: str,
    attributes: Sequence[str],
    *,
    alpha: float = 1.0,
    outcome_values: Sequence | None = None,
) -> pd.DataFrame:
    """ε for every non-empty subset of ``attributes`` (one row each, as in Foulds & Pan's tables)."""
    rows = []
    values = outcome_values if outcome_values is not None else sorted(pd.unique(data[outcome]), key=str)
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
    values = sorted(set(pd.unique(data[label])) | set(pd.unique(data[prediction])), key=str)
    of_data = differential_fairness_table(data, label, attributes, alpha=alpha, outcome_values=values)
    of_model = differential_fairness_table(data, prediction, attributes, alpha=alpha, outcome_values=values)
    return pd.DataFrame({
        "epsilon_data": of_data["epsilon"],
        "epsilon_classifier": of_model["epsilon"],
        "amplification": of_model["epsilon"] - of_data["epsilon"],
        "groups": of_data["groups"],
    })
