import math

import numpy as np
import pytest

from irfair.fairness.gaps import causal_gaps, statistical_gaps


def test_statistical_gaps_by_hand():
    labels = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    predictions = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    groups = np.array(["F", "F", "F", "F", "M", "M", "M", "M"])
    result = statistical_gaps(labels, predictions, groups)
    assert result.groups == ("F", "M")
    # class 1: PPR F 3/4, M 1/4; TPR F 2/2, M 1/2; FPR F 1/2, M 0/2
    assert result.gaps.loc[1].to_dict() == pytest.approx({"PPR": 0.5, "TPR": 0.5, "FPR": 0.5})
    # class 0: PPR F 1/4, M 3/4; TPR F 1/2, M 2/2; FPR F 0/2, M 1/2
    assert result.gaps.loc[0].to_dict() == pytest.approx({"PPR": -0.5, "TPR": -0.5, "FPR": -0.5})
    assert result.gap_rms == pytest.approx({"PPR": 0.5, "TPR": 0.5, "FPR": 0.5})
    assert result.by_group.loc[("TPR", 1), "M"] == 0.5


def test_gap_rms_over_three_classes():
    labels = np.array([0, 1, 2, 0, 1, 2])
    predictions = np.array([0, 1, 2, 0, 0, 0])
    groups = np.array(["a", "a", "a", "b", "b", "b"])
    result = statistical_gaps(labels, predictions, groups)
    # TPR gaps: class 0: 1 - 1 = 0, class 1: 1 - 0 = 1, class 2: 1 - 0 = 1
    assert result.gaps["TPR"].tolist() == [0.0, 1.0, 1.0]
    assert result.gap_rms["TPR"] == pytest.approx(math.sqrt(2 / 3))


def test_causal_gaps_average_individual_differences():
    labels = np.array([1, 1, 0, 0])
    groups = np.array(["F", "M", "F", "M"])
    original = np.array([0, 1, 1, 0])        # prediction on each example's own text
    counterfactual = np.array([1, 1, 0, 0])  # prediction after swapping gender words
    # do(F): [0, 1(cf), 1, 0(cf)] ; do(M): [1(cf), 1, 0(cf), 0]
    result = causal_gaps(labels, original, counterfactual, groups)
    assert result.gaps.loc[1, "PPR"] == pytest.approx(((0 - 1) + (1 - 1) + (1 - 0) + (0 - 0)) / 4)
    assert result.gaps.loc[1, "TPR"] == pytest.approx(((0 - 1) + (1 - 1)) / 2)
    assert result.gaps.loc[1, "FPR"] == pytest.approx(((1 - 0) + (0 - 0)) / 2)
    blind = causal_gaps(labels, original, original, groups)  # a model whose predictions ignore gender words
    assert blind.gap_rms == {"PPR": 0.0, "TPR": 0.0, "FPR": 0.0}


def test_gaps_need_two_groups():
    with pytest.raises(ValueError, match="exactly two groups"):
        statistical_gaps([1, 0, 1], [1, 0, 0], ["a", "b", "c"])
