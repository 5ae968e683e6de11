import math

import numpy as np
import pytest

from irfair.fairness.rates import disparate_impact, group_rates


def _arrays(rows):
    return tuple(np.array(column, dtype=object) for column in zip(*rows))


# group A: 6 rows, 5 predicted 1; B: 4 of 6; C: 3 of 6. Labels: A 1,1,1,0,0,0 ; B and C 1,1,0,0,0,0.
A = [("A", "1", "1")] * 3 + [("A", "0", "1")] * 2 + [("A", "0", "0")]
B = [("B", "1", "1"), ("B", "1", "0"), ("B", "0", "1"), ("B", "0", "1"), ("B", "0", "1"), ("B", "0", "0")]
C = [("C", "1", "0"), ("C", "1", "0"), ("C", "0", "1"), ("C", "0", "1"), ("C", "0", "1"), ("C", "0", "0")]


def _rates():
    groups, labels, predictions = _arrays(A + B + C)
    return group_rates(labels, predictions, groups, ["0", "1"], ["A", "B", "C"])


def test_counts_behind_each_rate():
    rates = _rates()
    # class 1, counted from the rows above: (k, n) of PPR, TPR, FPR
    expected = {"A": [(5, 6), (3, 3), (2, 3)], "B": [(4, 6), (1, 2), (3, 4)], "C": [(3, 6), (0, 2), (3, 4)]}
    for group, counts in expected.items():
        for metric, (k, n) in zip(["PPR", "TPR", "FPR"], counts):
            row = rates.loc[("1", group, metric)]
            assert (row["k"], row["n"], row["rate"]) == (k, n, k / n)
    # class 0 of C: PPR 3 of 6, TPR 1 of 4 (y = 0), FPR 2 of 2 (y = 1) → its interval ends at exactly 1
    row = rates.loc[("0", "C", "FPR")]
    assert (row["k"], row["n"], row["ci_high"]) == (2, 2, 1.0)
    # 1 of 2 (B's TPR of class 1): center 0.5, half-width z/(1 + z²/2)·sqrt(1/8 + z²/16) = 0.40546 → [0.0945, 0.9055]
    assert rates.loc[("1", "B", "TPR"), ["ci_low", "ci_high"]].tolist() == pytest.approx([0.094531, 0.905469], abs=1e-6)


def test_four_fifths_rule_is_decided_on_the_counts():
    check = disparate_impact(_rates(), "1")
    assert check.reference_group == "A"  # 5/6 is the highest selection rate
    # B: (4/6)/(5/6) = 0.8 exactly, which floating point makes 0.7999999999999999: not below 0.8
    assert (4 / 6) / (5 / 6) < 0.8
    assert check.by_group.loc["B", "ratio"] == 0.8 and not check.by_group.loc["B", "below_four_fifths"]
    # C: (3/6)/(5/6) = 0.6, below 0.8
    assert check.by_group.loc["C", "ratio"] == pytest.approx(0.6) and check.by_group.loc["C", "below_four_fifths"]
    assert check.flagged == ["C"]
    # class 0: A 1/6, B 2/6, C 3/6 → C is the reference; A 1/3 and B 2/3 are both below 0.8
    check = disparate_impact(_rates(), "0")
    assert check.reference_group == "C" and check.flagged == ["A", "B"]
    assert check.by_group["ratio"].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_ties_and_nobody_selected():
    groups, labels, predictions = _arrays([("A", "1", "0"), ("B", "1", "0"), ("A", "0", "1"), ("B", "0", "1")])
    rates = group_rates(labels, predictions, groups, ["0", "1"], ["B", "A"])
    assert disparate_impact(rates, "1").reference_group == "B"  # a tie: the first in the order given
    groups, labels, predictions = _arrays([("A", "1", "0"), ("B", "1", "0")])
    check = disparate_impact(group_rates(labels, predictions, groups, ["0", "1"], ["A", "B"]), "1")
    assert math.isnan(check.by_group.loc["A", "ratio"]) and check.flagged == []
