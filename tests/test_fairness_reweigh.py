import numpy as np
import pandas as pd
import pytest

from irfair.errors import IrfairInputError
from irfair.fairness.reweigh import kamiran_calders_weights, mitigate, oversample, undersample

LABELS = [1, 1, 1, 1, 0, 0]
GROUPS = ["M", "M", "M", "F", "F", "F"]


def test_kamiran_calders_weights_by_hand():
    # N=6, N_M=3, N_F=3, N_1=4, N_0=2; cells (M,1)=3, (F,1)=1, (F,0)=2
    weights = kamiran_calders_weights(LABELS, GROUPS)
    assert weights == pytest.approx([3 * 4 / (6 * 3)] * 3 + [3 * 4 / (6 * 1)] + [3 * 2 / (6 * 2)] * 2)
    # weighted, each group has the overall label distribution wherever it has both labels: F has 1 of each
    f_weights = weights[3:]
    assert f_weights[0] / f_weights.sum() == pytest.approx(4 / 6)


def test_over_and_undersampling_balance_groups_within_labels():
    over = oversample(LABELS, GROUPS, seed=0)
    counts = pd.Series([(LABELS[i], GROUPS[i]) for i in over]).value_counts()
    assert counts[(1, "M")] == 3 and counts[(1, "F")] == 3 and counts[(0, "F")] == 2
    under = undersample(LABELS, GROUPS, seed=0)
    counts = pd.Series([(LABELS[i], GROUPS[i]) for i in under]).value_counts()
    assert counts[(1, "M")] == 1 and counts[(1, "F")] == 1 and counts[(0, "F")] == 2


def test_mitigate_with_cda_adds_one_counterfactual_per_kept_example():
    texts = ["he flies", "he flies", "his plane", "she flies", "she nurses", "her ward"]
    frame = mitigate(texts, LABELS, GROUPS, "RW-CDA")
    assert len(frame) == 12 and frame["is_counterfactual"].sum() == 6
    assert np.allclose(frame["weight"][:6], frame["weight"][6:])
    assert frame["text"][6:].tolist() == ["she flies", "she flies", "her plane", "he flies", "he nurses", "his ward"]
    assert frame["group"][6:].tolist() == ["F", "F", "F", "M", "M", "M"]
    assert len(mitigate(texts, LABELS, GROUPS, "US-CDA")) == 2 * 4
    with pytest.raises(IrfairInputError, match="method must be one of"):
        mitigate(texts, LABELS, GROUPS, "XX")


def test_cda_in_mitigation_uses_the_gaps_papers_swap_list():
    # Chen et al.'s combinations swap pronouns and titles only; the CDA paper's list would make a poetess
    frame = mitigate(["she is a poet", "Mr Lee is a poet"], ["poet", "poet"], ["F", "M"], "CDA")
    assert frame["text"][2:].tolist() == ["he is a poet", "Ms Lee is a poet"]
    lu = mitigate(["she is a poet"] * 2, ["poet"] * 2, ["F", "M"], "CDA", swap_list="lu2020")
    assert lu["text"][2] == "he is a poetess"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kamiran_calders_weights([1, 0, 1], ["F", "M"]), "labels has 3 values but groups has 2"),
        (lambda: oversample([1, 0], ["F", "M"], seed=-1), "seed must be >= 0"),
        (lambda: mitigate("ab", [1, 0], ["F", "M"], "RW"), "texts must be a sequence"),
        (lambda: mitigate(["a", "b", "c"], [1, 0, 1], ["F", "M", "X"], "CDA"), "CDA needs exactly two groups, found 3"),
    ],
)
def test_bad_mitigation_input(call, message):
    with pytest.raises(IrfairInputError, match=message):
        call()
