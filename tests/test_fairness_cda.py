import math
import re

import pytest

from irfair.errors import IrfairInputError
from irfair.fairness.cda import (
    aggregate_occupation_bias,
    augment,
    counterfactual,
    language_model_bias,
    occupation_bias,
)
from irfair.fairness.wordlists import (
    COREFERENCE_TEMPLATES,
    LANGUAGE_MODEL_TEMPLATES,
    OCCUPATIONS,
    coreference_templates,
    lu2020_pairs,
    swap_list,
)


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


MULTI_WORD = ("air traffic controller", "dental hygienist", "flight attendant", "physician's assistant", "police officer")


def test_defaults_are_the_papers_templates_and_occupations(shared_data):
    """The 20 coreference templates, 4 language-model templates and the occupations of Lu et al.'s supplement,
    compared with the paper's text in ../shared/papers (64 occupations: the paper prints "attorney" twice)."""
    paper = (shared_data.parent / "papers" / "002_ae053a003a3c9852.txt").read_text()
    quoted = re.findall(r"“(.*?)”", paper[paper.index("Context Template Sentences"):paper.index("Gender Pairs")])
    assert list(COREFERENCE_TEMPLATES) == [q for q in quoted if "|" not in q] and len(COREFERENCE_TEMPLATES) == 20
    assert list(LANGUAGE_MODEL_TEMPLATES) == [q for q in quoted if "|" in q] == [
        "He is a | [OCCUPATION]", "he is a | [OCCUPATION]", "The man is a | [OCCUPATION]", "the man is a | [OCCUPATION]"]
    listed = paper[paper.index("hand-picked occupation words"):paper.index("Gender Pairs")].split("multi-word occupations.")[1]
    listed = listed.replace("’", "'")
    words = " ".join(listed.split())
    for name in MULTI_WORD:
        assert name in words
        words = words.replace(name, "")
    assert sorted(set(words.split())) == sorted(o for o in OCCUPATIONS if " " not in o) and words.split().count("attorney") == 2
    assert len(OCCUPATIONS) == 64 and sum(" " in o for o in OCCUPATIONS) == 5
    assert len(coreference_templates("lu2020-8")) == 8 and set(coreference_templates("lu2020-8")) < set(COREFERENCE_TEMPLATES)


def test_occupation_bias_defaults_with_a_word_count_scorer():
    """The toy scorer: a "he" sentence scores its number of words, a "she" sentence 0. The 20 templates have
    150 words with the occupation as one (eleven of 7, eight of 8, one of 9), so every occupation scores
    150/20 = 7.5 when the occupation counts as one word, and 7.5 + 1 or + 2 for a two- or three-word one when
    words are counted as written."""
    def words_occupation_as_one(sentence: str) -> float:
        for name in MULTI_WORD:
            sentence = sentence.replace(name, "X")
        return _words_if_male(sentence)

    table = occupation_bias(words_occupation_as_one)
    assert len(table) == 64 and table["bias"].tolist() == [7.5] * 64
    assert aggregate_occupation_bias(table)["mean"] == 7.5
    written = occupation_bias(_words_if_male)["bias"]
    assert all(written[o] == 7.5 + len(o.split()) - 1 for o in OCCUPATIONS)
    assert written["air traffic controller"] == 9.5 and written["nurse"] == 7.5
    # the earlier 8-template set, by name: six templates of 7 words and two of 8 → 58 / 8
    assert occupation_bias(_words_if_male, "lu2020-8", ["nurse"])["bias"].tolist() == [7.25]


def test_multi_word_occupations_are_filled_in_whole_and_never_swapped():
    seen = []

    def score(sentence: str) -> float:
        seen.append(sentence)
        return _words_if_male(sentence)

    table = occupation_bias(score, occupations=["police officer", "nurse", "waiter"])
    # "police officer" adds a word to every template: (150 + 20) / 20
    assert table.loc["police officer", "bias"] == 170 / 20 and table.loc["nurse", "bias"] == 7.5
    assert "The waiter ate because she was hungry." in seen and "The waitress ate because she was hungry." not in seen
    assert "The police officer was promoted because she was hardworking." in seen


def test_language_model_bias_compares_prefixes():
    calls = []

    def log_probability(prefix: str, continuation: str) -> float:
        calls.append((prefix, continuation))
        female = {"she", "woman"} & set(prefix.lower().split())
        return -math.log(2) * len(continuation) * (2 if female else 1)

    table = language_model_bias(log_probability, occupations=["nurse", "pilot"])
    # log P(o | male) − log P(o | female) = len(o) log 2 for every template
    assert table.loc["nurse", "bias"] == pytest.approx(5 * math.log(2))
    assert table.loc["pilot", "bias"] == pytest.approx(5 * math.log(2))
    prefixes = ("He is a", "She is a", "he is a", "she is a", "The man is a", "The woman is a", "the man is a", "the woman is a")
    assert set(calls) == {(p, o) for p in prefixes for o in ("nurse", "pilot")}


def test_language_model_defaults_and_the_article():
    """59 one-word occupations (the paper leaves multi-word ones out of language modelling), 4 templates, and
    "a" becomes "an" before a vowel: He is an accountant, She is an engineer, the woman is an undertaker."""
    calls = set()

    def log_probability(prefix: str, continuation: str) -> float:
        calls.add((prefix, continuation))
        return 0.0

    table = language_model_bias(log_probability)
    assert len(table) == 59 and not any(" " in o for o in table.index)
    assert len(calls) == 59 * 8
    assert {("He is an", "accountant"), ("She is an", "engineer"), ("the woman is an", "undertaker"), ("The man is a", "nurse")} <= calls
    assert ("He is a", "accountant") not in calls
    assert len(language_model_bias(log_probability, "lu2020-2", ["nurse"])) == 1


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: occupation_bias(_words_if_male, templates=["The [OCCUPATION] ate."]), "no gendered word"),
        (lambda: occupation_bias(_words_if_male, templates=["He ate."]), r"no \[OCCUPATION\] placeholder"),
        (lambda: occupation_bias(_words_if_male, templates="The [OCCUPATION] ate because he was hungry."),
         "unknown coreference template set"),
        (lambda: language_model_bias(lambda p, c: 0.0, templates="lu2020-8"), "unknown language-model template set"),
        (lambda: occupation_bias(_words_if_male, occupations="nurse"), "occupations must be a sequence"),
        (lambda: occupation_bias(_words_if_male, occupations=["nurse", "nurse"]), "listed twice"),
        (lambda: occupation_bias(lambda s: float("nan"), occupations=["nurse"]), "expected a finite number"),
        (lambda: language_model_bias(lambda p, c: 0.0, templates=["He is a [OCCUPATION]"]), "one '|'"),
    ],
)
def test_bad_occupation_bias_input(call, message):
    with pytest.raises(IrfairInputError, match=message):
        call()
