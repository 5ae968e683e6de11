import pytest

from irfair.fairness.cda import aggregate_occupation_bias, augment, counterfactual, occupation_bias, swap_pairs


def test_shipped_pair_list():
    pairs = swap_pairs()
    assert pairs["king"] == "queen" and pairs["queen"] == "king"
    assert pairs["sons-in-law"] == "daughters-in-law" and pairs["mr"] == "mrs"
    assert len(pairs) == 2 * 123  # 123 pairs (mr./mrs. folded into mr/mrs), each word in one pair only


@pytest.mark.parametrize(
    "text, naive, grammatical",
    [
        ("He gave her the book and her mother smiled.",
         "She gave his the book and his father smiled.",
         "She gave him the book and his father smiled."),
        ("I saw her.", "I saw his.", "I saw him."),
        ("Her book is on the table.", "His book is on the table.", "His book is on the table."),
        ("Let her go.", "Let his go.", "Let him go."),
        ("Queen Elizabeth met the king.", "King Elizabeth met the queen.", "Queen Elizabeth met the queen."),
        ("The MAN and his wife; she is a waitress.",
         "The WOMAN and her husband; he is a waiter.", "The WOMAN and her husband; he is a waiter."),
        ("Her sons-in-law visited their grandpa.",
         "His daughters-in-law visited their grandma.", "His daughters-in-law visited their grandma."),
        ("She told herself the actress was his hero.",
         "He told himself the actor was her heroine.", "He told himself the actor was her heroine."),
    ],
)
def test_interventions(text, naive, grammatical):
    assert counterfactual(text, "naive") == naive
    assert counterfactual(text, "grammatical") == grammatical


def test_custom_possessive_rule():
    assert counterfactual("I saw her run", possessive_her=lambda text, start, end: False) == "I saw him run"
    assert counterfactual("I saw her run", possessive_her=lambda text, start, end: True) == "I saw his run"


def test_augment_keeps_labels_and_swaps_groups():
    frame = augment(["she is a nurse", "he is a pilot"], ["nurse", "pilot"], ["F", "M"])
    assert frame["text"].tolist() == ["she is a nurse", "he is a pilot", "he is a nurse", "she is a pilot"]
    assert frame["label"].tolist() == ["nurse", "pilot", "nurse", "pilot"]
    assert frame["group"].tolist() == ["F", "M", "M", "F"]
    assert frame["is_counterfactual"].tolist() == [False, False, True, True]


def test_occupation_bias_with_a_scorer_that_prefers_he_for_pilots():
    def score(sentence: str) -> float:
        words = sentence.lower().split()
        return (1.0 if "he" in words else 0.0) * (2.0 if "pilot" in words else 0.5)

    table = occupation_bias(score, occupations=["nurse", "pilot"])
    assert table.loc["pilot", "bias"] == pytest.approx(2.0) and table.loc["nurse", "bias"] == pytest.approx(0.5)
    assert aggregate_occupation_bias(table) == pytest.approx({"mean": 1.25, "mean_abs": 1.25})
