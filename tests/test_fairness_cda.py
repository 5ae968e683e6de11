import math

import pytest

from irfair.errors import IrfairInputError
from irfair.fairness.cda import (
    aggregate_occupation_bias,
    augment,
    counterfactual,
    language_model_bias,
    occupation_bias,
)
from irfair.fairness.wordlists import COREFERENCE_TEMPLATES, OCCUPATIONS, lu2020_pairs, swap_list


def test_shipped_pair_lists():
    pairs = lu2020_pairs()
    assert pairs["king"] == "queen" and pairs["queen"] == "king"
    assert pairs["sons-in-law"] == "daughters-in-law" and pairs["mr"] == "mrs"
    assert len(pairs) == 2 * 123  # 123 pairs (mr./mrs. folded into mr/mrs), each word in one pair only
    chen = swap_list("chen2024")
    # the gaps paper swaps pronouns and titles only
    assert set(chen.words) == {"he", "she", "him", "his", "her", "hers", "himself", "herself", "mr", "ms", "mrs"}
    assert (chen.words["mr"], chen.words["ms"], chen.words["mrs"]) == ("ms", "mr", "mr")
    assert swap_list("lu2020").words["ms"] == "mr"


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
        # a degree is not a person: kept by the grammatical rule, swapped by the naive one
        ("She has a Bachelor of Science.", "He has a Spinster of Science.", "He has a Bachelor of Science."),
        ("Her bachelor's degree and masters in law.", "His spinster's degree and mistresses in law.",
         "His bachelor's degree and masters in law."),
        # titles with and without a period are swapped alike, even before a name
        ("Mr Smith met Mr. Jones and Ms. Lee.", "Mrs Smith met Mrs. Jones and Mr. Lee.",
         "Mrs Smith met Mrs. Jones and Mr. Lee."),
    ],
)
def test_lu2020_interventions(text, naive, grammatical):
    assert counterfactual(text, "naive") == naive
    assert counterfactual(text, "grammatical") == grammatical


@pytest.mark.parametrize(
    "text, swapped",
    [
        ("She is a poet.", "He is a poet."),  # the CDA list would give "He is a poetess."
        ("He holds a Bachelor of Science.", "She holds a Bachelor of Science."),
        ("Mr Smith, Mr. Jones, Ms Lee, Ms. Ray and Mrs. Brown", "Ms Smith, Ms. Jones, Mr Lee, Mr. Ray and Mr. Brown"),
        ("MS. LEE", "MR. LEE"),
        ("She released her 2010 album with her band, then toured with her.",
         "He released his 2010 album with his band, then toured with him."),
        ("The king told his wife that she was a waitress.", "The king told her wife that he was a waitress."),
        ("Hers is the prize; she won it herself.", "His is the prize; he won it himself."),
    ],
)
def test_chen2024_swaps_pronouns_and_titles_only(text, swapped):
    assert counterfactual(text, swap_list="chen2024") == swapped


def test_poet_under_each_list():
    assert counterfactual("She is a poet.", swap_list="lu2020") == "He is a poetess."
    assert counterfactual("She is a poet.", swap_list="chen2024") == "He is a poet."


def test_her_before_a_number_is_possessive():
    assert counterfactual("her 2010 album") == "his 2010 album"
    assert counterfactual("They thanked her, 2 days later.") == "They thanked him, 2 days later."


def test_custom_possessive_rule():
    assert counterfactual("I saw her run", possessive_her=lambda text, start, end: False) == "I saw him run"
    assert counterfactual("I saw her run", possessive_her=lambda text, start, end: True) == "I saw his run"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: counterfactual(["she"]), "text must be a string"),
        (lambda: counterfactual("she", "clever"), "mode must be one of naive, grammatical"),
        (lambda: counterfactual("she", swap_list="seed-004"), "unknown swap list 'seed-004'"),
        (lambda: augment("abc", ["a", "b", "c"]), "texts must be a sequence .* not str"),
        (lambda: augment(["a", "b"], ["x"]), "texts has 2 values but labels has 1"),
        (lambda: augment(["a", None], ["x", "y"]), r"texts\[1\] is None"),
        (lambda: augment(["a", "b", "c"], [1, 2, 3], ["F", "M", "X"]), "exactly two groups; found 3"),
        (lambda: augment(["a"], [1], ["F"], group_swap={"M": "F"}), "no partner for group 'F'"),
    ],
)
def test_bad_counterfactual_input(call, message):
    with pytest.raises(IrfairInputError, match=message):
        call()


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


def _words_if_male(sentence: str) -> float:
    """A toy scorer: the number of words of a sentence with "he", 0 for one with "she"."""
    return float(len(sentence.split())) if "he" in sentence.split() else 0.0


def test_occupation_bias_defaults_with_a_word_count_scorer():
    table = occupation_bias(_words_if_male)
    # every default occupation is one word: six templates have 7 words, the fired/promoted ones 8 → 58 / 8
    assert len(table) == len(OCCUPATIONS) == 59 and "businessperson" in table.index
    assert len(COREFERENCE_TEMPLATES) == 8
    assert table["bias"].tolist() == [7.25] * 59
    assert aggregate_occupation_bias(table)["mean"] == 7.25


def test_multi_word_occupations_are_filled_in_whole_and_never_swapped():
    seen = []

    def score(sentence: str) -> float:
        seen.append(sentence)
        return _words_if_male(sentence)

    table = occupation_bias(score, occupations=["police officer", "nurse", "waiter"])
    # "police officer" adds a word to every template: (6 × 8 + 2 × 9) / 8
    assert table.loc["police officer", "bias"] == 66 / 8 and table.loc["nurse", "bias"] == 7.25
    assert "The waiter ate because she was hungry." in seen and "The waitress ate because she was hungry." not in seen
    assert "The police officer was promoted because she was hardworking." in seen


def test_language_model_bias_compares_prefixes():
    calls = []

    def log_probability(prefix: str, continuation: str) -> float:
        calls.append((prefix, continuation))
        female = {"she", "woman"} & set(prefix.lower().split())
        return -math.log(2) * len(continuation) * (2 if female else 1)

    table = language_model_bias(log_probability, occupations=["nurse", "pilot"])
    # log P(o | male) − log P(o | female) = len(o) log 2 for both templates
    assert table.loc["nurse", "bias"] == pytest.approx(5 * math.log(2))
    assert table.loc["pilot", "bias"] == pytest.approx(5 * math.log(2))
    assert set(calls) == {(p, o) for p in ("He is a", "She is a", "The man is a", "The woman is a") for o in ("nurse", "pilot")}


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: occupation_bias(_words_if_male, templates=["The [OCCUPATION] ate."]), "no gendered word"),
        (lambda: occupation_bias(_words_if_male, templates=["He ate."]), r"no \[OCCUPATION\] placeholder"),
        (lambda: occupation_bias(_words_if_male, templates="The [OCCUPATION] ate because he was hungry."),
         "templates must be a sequence"),
        (lambda: occupation_bias(_words_if_male, occupations="nurse"), "occupations must be a sequence"),
        (lambda: occupation_bias(_words_if_male, occupations=["nurse", "nurse"]), "listed twice"),
        (lambda: occupation_bias(lambda s: float("nan"), occupations=["nurse"]), "expected a finite number"),
        (lambda: language_model_bias(lambda p, c: 0.0, templates=["He is a [OCCUPATION]"]), "one '|'"),
    ],
)
def test_bad_occupation_bias_input(call, message):
    with pytest.raises(IrfairInputError, match=message):
        call()
