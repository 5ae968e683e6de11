import math

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.fairness.gaps import causal_gaps, causal_gaps_from_model, gap_direction, statistical_gaps

LABELS = np.array([1, 1, 0, 0, 1, 1, 0, 0])
PREDICTIONS = np.array([1, 1, 1, 0, 1, 0, 0, 0])


def test_statistical_gaps_by_hand():
    groups = np.array(["F", "F", "F", "F", "M", "M", "M", "M"])
    result = statistical_gaps(LABELS, PREDICTIONS, groups)
    assert result.groups == ("F", "M") and result.direction == "female − male (recognised group values)"
    # class 1: PPR F 3/4, M 1/4; TPR F 2/2, M 1/2; FPR F 1/2, M 0/2
    assert result.gaps.loc[1].to_dict() == pytest.approx({"PPR": 0.5, "TPR": 0.5, "FPR": 0.5})
    # class 0: PPR F 1/4, M 3/4; TPR F 1/2, M 2/2; FPR F 0/2, M 1/2
    assert result.gaps.loc[0].to_dict() == pytest.approx({"PPR": -0.5, "TPR": -0.5, "FPR": -0.5})
    assert result.gap_rms == pytest.approx({"PPR": 0.5, "TPR": 0.5, "FPR": 0.5})
    assert result.by_group.loc[("TPR", 1), "M"] == 0.5


def test_female_minus_male_whatever_the_alphabet_says():
    # "he" sorts before "she": the old alphabetical rule gave he − she; the papers' direction is she − he
    groups = np.array(["she"] * 4 + ["he"] * 4)
    result = statistical_gaps(LABELS, PREDICTIONS, groups)
    assert (result.protected_group, result.reference_group) == ("she", "he")
    assert result.gaps.loc[1, "TPR"] == pytest.approx(1 - 1 / 2)


@pytest.mark.parametrize("female, male", [("f", "m"), ("Woman", "Man"), ("FEMALE", "MALE"), (" female", "male "), ("W", "M")])
def test_recognised_spellings(female, male):
    assert gap_direction([male, female])[:2] == (female, male)


def test_unrecognised_values_use_sorted_order_and_say_so():
    protected, reference, how = gap_direction(["b", "a"])
    assert (protected, reference) == ("a", "b") and how.startswith("sorted order")


def test_explicit_direction():
    groups = np.array(["F"] * 4 + ["M"] * 4)
    reversed_ = statistical_gaps(LABELS, PREDICTIONS, groups, protected_group="M")
    assert reversed_.groups == ("M", "F") and reversed_.direction == "as given"
    assert reversed_.gaps.loc[1, "TPR"] == pytest.approx(1 / 2 - 1)
    assert statistical_gaps(LABELS, PREDICTIONS, groups, reference_group="F").groups == ("M", "F")
    assert statistical_gaps(LABELS, PREDICTIONS, groups, protected_group="M", reference_group="F").groups == ("M", "F")


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


def test_causal_gaps_from_model_uses_the_gaps_papers_swap_list():
    seen = []

    def predict(texts):
        seen.extend(texts)
        return ["poet" if "poet" in t else "other" for t in texts]

    causal_gaps_from_model(predict, ["She is a poet.", "He is a poet."], ["poet", "poet"], ["F", "M"])
    assert seen == ["She is a poet.", "He is a poet.", "He is a poet.", "She is a poet."]
    seen.clear()
    causal_gaps_from_model(predict, ["She is a poet.", "He is a poet."], ["poet", "poet"], ["F", "M"], swap_list="lu2020")
    assert seen[2:] == ["He is a poetess.", "She is a poetess."]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: statistical_gaps([1, 0, 1], [1, 0, 0], ["a", "b", "c"]), "exactly two groups, found 3"),
        (lambda: statistical_gaps([1, 0, 1], [1, 0], ["F", "M", "F"]), "labels has 3 values but predictions has 2"),
        (lambda: statistical_gaps("101", "100", ["F", "M", "F"]), "labels must be a sequence .* not str"),
        (lambda: statistical_gaps([1, float("nan")], [1, 0], ["F", "M"]), r"labels\[1\] is nan"),
        (lambda: statistical_gaps([1, 0], [1, 0], ["F", None]), r"groups\[1\] is None"),
        (lambda: statistical_gaps([1, 0], [1, 0], ["F", "M"], protected_group="X"), "protected group 'X' is not among"),
        (lambda: statistical_gaps([1, 0], [1, 0], ["F", "M"], protected_group="F", reference_group="F"), "must differ"),
        (lambda: statistical_gaps([1, 2], [1, 0], ["F", "M"], classes=[0, 1]), "label or prediction 2 is not among"),
        (lambda: statistical_gaps([], [], []), "at least one example"),
        (lambda: causal_gaps([1, 0], [1, 0], [1], ["F", "M"]), "has 2 values but counterfactual_predictions has 1"),
        (lambda: causal_gaps_from_model(lambda t: [1], ["she", "he"], [1, 0], ["F", "M"]), "returned 1 predictions for 2"),
    ],
)
def test_bad_gap_input(call, message):
    with pytest.raises(IrfairInputError, match=message):
        call()


def test_gaps_of_every_value_against_the_largest_group_by_hand():
    """Three groups: a (3 rows), b (2), c (1). Class 1 predictions: a 2/3, b 0/2, c 1/1 → PPR a 2/3, b 0, c 1.
    TPR (y = 1): a 2/2, b 0/1, c 1/1; FPR (y = 0): a 0/1, b 0/1, c undefined (no y = 0 in c).
    Reference a (largest): class-1 gaps b −2/3 (PPR), −1 (TPR), 0 (FPR); c +1/3, 0, n/a.
    Spread of class-1 PPR: 1 − 0 = 1; of class-1 FPR: 0 (c has none, so over a and b)."""
    from irfair.fairness.gaps import statistical_gaps_by_group

    y = [1, 1, 0, 1, 0, 1]
    y_hat = [1, 1, 0, 0, 0, 1]
    groups = ["a", "a", "a", "b", "b", "c"]
    result = statistical_gaps_by_group(y, y_hat, groups)
    assert result.groups == ("a", "b", "c") and result.reference_group == "a"
    assert result.reference_rule == "the largest group (3 rows)" and result.sizes.to_dict() == {"a": 3, "b": 2, "c": 1}
    assert result.by_group.loc[("PPR", 1)].tolist() == pytest.approx([2 / 3, 0.0, 1.0])
    assert result.gaps.loc[("b", 1)].tolist() == pytest.approx([-2 / 3, -1.0, 0.0])
    c = result.gaps.loc[("c", 1)]
    assert c["PPR"] == pytest.approx(1 / 3) and c["TPR"] == 0.0 and math.isnan(c["FPR"])
    spread = result.difference()
    assert spread.loc[1, "PPR"] == pytest.approx(1.0) and spread.loc[1, "FPR"] == 0.0
    # GapRMS of b over classes 0 and 1 (class 0 mirrors class 1): PPR sqrt((4/9 + 4/9)/2) = 2/3
    assert result.gap_rms.loc["b", "PPR"] == pytest.approx(2 / 3)
    chosen = statistical_gaps_by_group(y, y_hat, groups, reference_group="c")
    assert chosen.reference_rule == "as given" and chosen.gaps.loc[("a", 1), "PPR"] == pytest.approx(-1 / 3)
    with pytest.raises(IrfairInputError, match="reference group 'd' is not among the group values"):
        statistical_gaps_by_group(y, y_hat, groups, reference_group="d")


def test_largest_group_ties_go_to_the_first_in_sorted_order():
    from irfair.fairness.gaps import reference_of

    assert reference_of(["b", "a", "b", "a", "c"]) == ("a", "the largest group (2 rows)")
