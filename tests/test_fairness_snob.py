import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irfair.errors import IrfairInputError
from irfair.fairness.snob import (
    NormScorer,
    balancing_weights,
    benjamini_hochberg,
    conditional_chi2,
    norm_scores_by_class,
    remove_words,
    social_norm_bias,
    task_relevant_words,
    tie_values,
)

FEMININE = ["lovely", "caring", "gentle", "warm", "kind", "sweet"]


def test_balancing_weights_by_hand():
    # class a: 1 F, 3 M → F gets 3/3, M get 1/3; class b: 2 F, 2 M → all 1
    labels = ["a", "a", "a", "a", "b", "b", "b", "b"]
    groups = ["F", "M", "M", "M", "F", "F", "M", "M"]
    assert balancing_weights(labels, groups, "F") == pytest.approx([1, 1 / 3, 1 / 3, 1 / 3, 1, 1, 1, 1])


def _generated(seed=0, n_classes=16, per_class=120):
    """Classes with female shares from 0.1 to 0.9; women's texts carry norm words in proportion to a
    conformity level z; men's rarely. Returns texts, labels, groups, conformity."""
    rng = np.random.default_rng(seed)
    texts, labels, groups, conformity = [], [], [], []
    for c in range(n_classes):
        share = 0.1 + 0.8 * c / (n_classes - 1)
        for _ in range(per_class):
            female = rng.random() < share
            z = rng.random()
            rate = 0.1 + 0.8 * z if female else 0.1
            words = [f"job{c}", f"task{c}"] + [w for w in FEMININE if rng.random() < rate]
            words += list(rng.choice(["report", "team", "year", "city", "work", "project"], size=4))
            rng.shuffle(words)
            texts.append(" ".join(words))
            labels.append(c)
            groups.append("F" if female else "M")
            conformity.append(z if female else 0.0)
    return texts, np.array(labels), np.array(groups), np.array(conformity)


def _probabilities(labels, dependence, rng):
    n_classes = labels.max() + 1
    shares = 0.1 + 0.8 * np.arange(n_classes) / (n_classes - 1)
    logits = rng.normal(scale=0.3, size=(len(labels), n_classes))
    logits[np.arange(len(labels)), labels] += 2.0 + dependence
    exp = np.exp(logits)
    return pd.DataFrame(exp / exp.sum(axis=1, keepdims=True), columns=range(n_classes)), shares


def test_snob_high_when_classifier_follows_norms_and_near_zero_otherwise():
    texts, labels, groups, conformity = _generated()
    scorer = NormScorer("F").fit(texts, labels, groups)
    scores = scorer.score(texts)
    assert np.corrcoef(scores[groups == "F"], conformity[groups == "F"])[0, 1] > 0.5
    rng = np.random.default_rng(1)
    shares = 0.1 + 0.8 * np.arange(16) / 15
    # confidence rises with conformity in female-dominated classes and falls in male-dominated ones
    follows, _ = _probabilities(labels, 3.0 * (shares[labels] - 0.5) * conformity, rng)
    biased = social_norm_bias(follows, labels, groups, scores, "F")
    assert biased.rho > 0.8 and biased.p_value < 0.01
    ignores, _ = _probabilities(labels, np.zeros(len(labels)), rng)
    neutral = social_norm_bias(ignores, labels, groups, scores, "F")
    assert abs(neutral.rho) < 0.35
    assert biased.per_class.loc[15, "p_c"] > biased.per_class.loc[0, "p_c"]


def _four_classes():
    """Classes A–D with female shares 3/10, 5/10, 3/5, 3/4. Within each class the women's classifier
    probabilities follow their norm scores exactly (A reversed, C in the order 1, 3, 2), so
    r_A = −1, r_B = 1 (5 women), r_C = 1 − 6·2/(3·8) = 0.5, r_D = 1 (3 women)."""
    rows = []

    def add(name, women, men, score_order):
        for rank, score in enumerate(score_order):
            rows.append((name, "F", 0.1 + 0.1 * rank, float(score)))
        rows.extend((name, "M", 0.5, 0.5) for _ in range(men))

    add("A", 3, 7, [2, 1, 0])
    add("B", 5, 5, [0, 1, 2, 3, 4])
    add("C", 3, 2, [0, 2, 1])
    add("D", 3, 1, [0, 1, 2])
    frame = pd.DataFrame(rows, columns=["label", "group", "probability", "score"])
    probabilities = pd.DataFrame({c: np.where(frame["label"] == c, frame["probability"], 0.01) for c in "ABCD"})
    return probabilities, frame


def test_snob_ties_are_exact():
    """p ranks 1, 2, 3, 4; r ranks 1, 3.5, 2, 3.5 (B and D tie at r = 1). Deviations from the mean rank
    2.5: p (−1.5, −0.5, 0.5, 1.5), r (−1.5, 1, −0.5, 1): covariance sum 2.25 − 0.5 − 0.25 + 1.5 = 3,
    squares 5 and 4.5, so ρ = 3 / √22.5. With n = 4 the t-test has 2 degrees of freedom, where
    p = 1 − |t| / √(t² + 2) and t² = 2ρ² / (1 − ρ²), which gives p = 1 − ρ."""
    probabilities, frame = _four_classes()
    result = social_norm_bias(probabilities, frame["label"], frame["group"], frame["score"].to_numpy(), "F")
    assert result.per_class["p_c"].tolist() == [0.3, 0.5, 0.6, 0.75]
    assert result.per_class["r_c"].tolist() == pytest.approx([-1.0, 1.0, 0.5, 1.0], abs=1e-15)
    # the float noise the tolerance absorbs: scipy gives 0.9999999999999999 for B and 1.0 for D
    assert result.per_class.loc["B", "r_c"] != result.per_class.loc["D", "r_c"]
    assert stats.spearmanr(result.per_class["p_c"], result.per_class["r_c"]).statistic == pytest.approx(0.8)
    assert result.rho == pytest.approx(3 / math.sqrt(22.5), abs=1e-12)
    assert result.p_value == pytest.approx(1 - 3 / math.sqrt(22.5), abs=1e-12)


def test_tie_values_within_tolerance_of_the_run_start():
    values = [1.0, 0.9999999999999999, 0.5 + 2e-9, 0.5 + 1e-12, 0.5, float("nan")]
    tied = tie_values(values)
    assert tied[:2].tolist() == [0.9999999999999999] * 2
    assert tied[2:5].tolist() == [0.5 + 2e-9, 0.5, 0.5] and math.isnan(tied[5])


def _confounded():
    """Class A is 8/10 of the women and 2/10 of the men. "lady" is in every woman's text, "alpha" in every
    class-A text, "beta" in 3 of 8 class-A women, 2 of 2 class-A men and 1 of 8 class-B men."""
    texts, labels, groups = [], [], []
    for i in range(8):
        texts.append("bio lady alpha she" + (" beta" if i < 3 else "")), labels.append("A"), groups.append("F")
    for _ in range(2):
        texts.append("bio lady she"), labels.append("B"), groups.append("F")
    for _ in range(2):
        texts.append("bio gent alpha beta he"), labels.append("A"), groups.append("M")
    for i in range(8):
        texts.append("bio gent he" + (" beta" if i < 1 else "")), labels.append("B"), groups.append("M")
    return texts, np.array(labels), np.array(groups)


def test_conditional_chi2_by_hand():
    """χ² = n (ad − bc)² / ((a+b)(c+d)(a+c)(b+d)) per gender, summed. alpha: women a=8 b=0 c=0 d=2 →
    10·16²/(8·2·8·2) = 10, men a=2 b=0 c=0 d=8 → 10; beta: women a=3 b=0 c=5 d=2 → 10·6²/(3·7·8·2) =
    360/336, men a=2 b=1 c=0 d=7 → 10·14²/(3·7·2·8) = 1960/336; lady occurs in every woman's text and no
    man's, so no gender has a usable table (df 0, p 1). With 2 df, p = exp(−χ²/2)."""
    texts, labels, groups = _confounded()
    words = ["alpha", "beta", "lady"]
    present = np.array([[w in t.split() for w in words] for t in texts], dtype=float)
    statistic, dof, p = conditional_chi2(present, labels == "A", groups)
    assert statistic.tolist() == pytest.approx([20.0, 2320 / 336, 0.0])
    assert dof.tolist() == [2, 2, 0]
    assert p.tolist() == pytest.approx([math.exp(-10), math.exp(-2320 / 672), 1.0])
    # unconditioned, lady looks task-relevant: 8/10 of lady-texts are A against 2/10 of the others
    pooled, _, _ = conditional_chi2(present, labels == "A", np.zeros(len(texts)))
    assert pooled[2] == pytest.approx(20 * (8 * 8 - 2 * 2) ** 2 / (10 * 10 * 10 * 10))


def test_benjamini_hochberg_by_hand():
    # m = 4, α = 0.05: thresholds 0.0125, 0.025, 0.0375, 0.05. Sorted 0.001, 0.02, 0.036, 0.9: the largest k
    # with p_(k) ≤ kα/m is 3. Sorted 0.001, 0.03, 0.04, 0.9: 0.03 > 0.025 and 0.04 > 0.0375, so k = 1.
    assert benjamini_hochberg([0.036, 0.001, 0.02, 0.9]).tolist() == [True, True, True, False]
    assert benjamini_hochberg([0.04, 0.001, 0.03, 0.9]).tolist() == [False, True, False, False]


def test_task_relevant_words_chi2_bh_conditioned_on_gender():
    """p-values over the vocabulary alpha, beta, bio, gent, lady (gender words removed): exp(−10),
    exp(−2320/672) = 0.0317, 1, 1, 1. BH at 0.05 (thresholds 0.01, 0.02, ...) keeps alpha only; at 0.1
    (0.02, 0.04, ...) also beta. lady is associated with class A only through gender."""
    texts, labels, groups = _confounded()
    assert task_relevant_words(texts, labels, groups) == {"A": {"alpha"}, "B": {"alpha"}}
    assert task_relevant_words(texts, labels, groups, alpha=0.1)["A"] == {"alpha", "beta"}


def test_occupation_irrelevant_variant_removes_class_words():
    texts, labels, groups, _ = _generated(per_class=40, n_classes=4)
    relevant = task_relevant_words(texts, labels, groups)
    assert {"job0", "task0"} <= relevant[0] and not relevant[0] & set(FEMININE)
    assert remove_words("job0 lovely Task0 report", relevant[0]) == " lovely  report"
    scores = norm_scores_by_class(texts, labels, groups, "F", relevant_words=relevant)
    assert sorted(scores) == [0, 1, 2, 3] and all(len(s) == len(texts) for s in scores.values())
    # class 0's scorer never saw class 0's words: its scores ignore them
    probe = norm_scores_by_class(texts, labels, groups, "F", relevant_words=relevant, score_texts=["job0 task0", ""])
    assert probe[0][0] == pytest.approx(probe[0][1])


def test_norm_scorer_removes_the_gender_words_itself():
    texts = ["she is here", "he is here"] * 10
    labels, groups = ["x"] * 20, ["F", "M"] * 10
    scorer = NormScorer("F").fit(texts, labels, groups)
    assert "she" not in scorer.vectorizer.vocabulary_ and "he" not in scorer.vectorizer.vocabulary_
    assert np.ptp(scorer.score(["she is here", "he is here"])) == 0
    learns_pronouns = NormScorer("F", remove=()).fit(texts, labels, groups)
    low, high = learns_pronouns.score(["he is here", "she is here"])
    assert high > 0.5 > low


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda p, f: social_norm_bias(p, f["label"], f["group"], f["score"].to_numpy(), "W"), "scored group 'W' is not among"),
        (lambda p, f: social_norm_bias(p, f["label"], f["group"], f["score"].to_numpy()[:-1], "F"),
         "norm_scores has 28 values but there are 29"),
        (lambda p, f: social_norm_bias(p, f["label"][:-1], f["group"], f["score"].to_numpy(), "F"),
         "class_probabilities has 29 values but labels has 28"),
        (lambda p, f: social_norm_bias(p, f["label"], f["group"], {"A": f["score"].to_numpy()}, "F"), "no scores for class 'B'"),
        (lambda p, f: social_norm_bias(p.assign(A=np.nan), f["label"], f["group"], f["score"].to_numpy(), "F"), "non-finite"),
        (lambda p, f: social_norm_bias(p[["A", "B", "C"]], f["label"], f["group"], f["score"].to_numpy(), "F"), "label 'D' is not among"),
        (lambda p, f: social_norm_bias(p, f["label"], f["group"], f["score"].to_numpy(), "F", min_examples=1), "min_examples must be >= 2"),
        (lambda p, f: task_relevant_words(["a b"], ["x"], ["F"], alpha=float("nan")), "alpha must be a finite number"),
        (lambda p, f: task_relevant_words("ab", ["x", "y"], ["F", "M"]), "texts must be a sequence"),
        (lambda p, f: NormScorer("F").fit(["a b", "c d"], ["x", "y"], ["M", "M"]), "scored group 'F' is not among"),
        (lambda p, f: balancing_weights(["x", "y"], ["F"], "F"), "labels has 2 values but groups has 1"),
    ],
)
def test_bad_snob_input(call, message):
    probabilities, frame = _four_classes()
    with pytest.raises(IrfairInputError, match=message):
        call(probabilities, frame)
