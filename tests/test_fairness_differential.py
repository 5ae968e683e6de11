import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from irfair.errors import IrfairInputError
from irfair.fairness.differential import (
    bias_amplification,
    differential_fairness,
    differential_fairness_table,
    epsilon_from_probabilities,
)


def test_gaussian_scores_thresholded_worked_example():
    # scores N(10,1) vs N(12,1), threshold 10.5: P(yes|1) = 1-Φ(0.5), P(yes|2) = 1-Φ(-1.5)
    p1, p2 = 1 - norm.cdf(0.5), 1 - norm.cdf(-1.5)
    epsilon = epsilon_from_probabilities([[p1, 1 - p1], [p2, 1 - p2]])
    assert epsilon == pytest.approx(2.337, abs=5e-4)
    assert epsilon == pytest.approx(math.log((1 - p1) / (1 - p2)))


def _admissions() -> pd.DataFrame:
    cells = {("A", 1): (81, 87), ("B", 1): (234, 270), ("A", 2): (192, 263), ("B", 2): (55, 80)}
    rows = []
    for (gender, race), (admitted, total) in cells.items():
        rows += [{"gender": gender, "race": race, "admitted": 1}] * admitted
        rows += [{"gender": gender, "race": race, "admitted": 0}] * (total - admitted)
    return pd.DataFrame(rows)


def test_admissions_worked_example():
    data = _admissions()
    table = differential_fairness_table(data, "admitted", ["gender", "race"], alpha=0.0)
    assert table.loc["gender × race", "epsilon"] == pytest.approx(1.511, abs=5e-4)
    assert table.loc["gender", "epsilon"] == pytest.approx(0.2329, abs=5e-5)
    assert table.loc["race", "epsilon"] == pytest.approx(0.8667, abs=5e-5)
    result = differential_fairness(data["admitted"], data[["gender", "race"]], alpha=0.0)
    # worst: not admitted, B2 (25/80) against A1 (6/87)
    assert result.worst_outcome == 0 and set(result.worst_pair) == {"A & 1", "B & 2"}
    assert result.epsilon == pytest.approx(math.log((25 / 80) / (6 / 87)))


def test_smoothing_formula_by_hand():
    outcomes = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    groups = pd.Series(["a", "a", "a", "b", "b", "b", "b", "b"], name="g")
    raw = differential_fairness(outcomes, groups, alpha=0.0)
    assert raw.epsilon == math.inf  # P(1|b) = 0
    smoothed = differential_fairness(outcomes, groups, alpha=1.0)
    # P(1|a) = (3+1)/(3+2) = 0.8, P(1|b) = 1/7, P(0|a) = 0.2, P(0|b) = 6/7
    assert smoothed.epsilon == pytest.approx(max(math.log(0.8 * 7), math.log(6 / 7 / 0.2)))
    assert smoothed.by_group.loc["b", "n"] == 5


def test_amplification_is_classifier_minus_data():
    data = _admissions()
    data["predicted"] = data["admitted"]
    data.loc[(data["gender"] == "B") & (data["race"] == 2), "predicted"] = 0
    table = bias_amplification(data, "admitted", "predicted", ["gender", "race"], alpha=1.0)
    assert np.allclose(table["amplification"], table["epsilon_classifier"] - table["epsilon_data"])
    assert (table["amplification"] > 0).all()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: differential_fairness([1, 0], pd.Series(["a", "b"]), alpha=float("nan")), "alpha must be a finite number"),
        (lambda: differential_fairness([1, 0], pd.Series(["a", "b"]), alpha=-1), "alpha must be >= 0"),
        (lambda: differential_fairness([1, 0, 1], pd.Series(["a", "b"])), "outcomes has 3 values but groups has 2"),
        (lambda: differential_fairness([1, 0], ["a", "b"]), "groups must be a DataFrame or Series"),
        (lambda: differential_fairness([1, "1"], pd.Series(["a", "b"])), "holds both 1 and '1'"),
        (lambda: differential_fairness([1, 0], pd.Series(["a", None])), r"protected attribute 0\[1\] is (None|nan)"),
        (lambda: differential_fairness_table(_admissions(), "admitted", "gender"), "attributes must be a sequence"),
        (lambda: differential_fairness_table(_admissions(), "admitted", ["gender", "gender"]), "given twice"),
        (lambda: differential_fairness_table(_admissions(), "admitted", ["sex"]), "column 'sex' is not among"),
        (lambda: bias_amplification(_admissions(), "admitted", "predicted", ["gender"]), "column 'predicted' is not among"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(IrfairInputError, match=message):
        call()
