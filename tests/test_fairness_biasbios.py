"""Causal gaps, CDA and Social Norm Bias on real biographies (BiasBios sample in ../shared/data)."""
import math
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from irfair.fairness import (
    NormScorer,
    augment,
    causal_gaps_from_model,
    counterfactual,
    norm_scores_by_class,
    social_norm_bias,
)
from irfair.fairness.wordlists import SCRUBBED_GENDER_WORDS

OCCUPATIONS = ["nurse", "dietitian", "paralegal", "surgeon", "software_engineer", "architect", "physician", "professor",
               "accountant", "attorney", "teacher", "psychologist"]
TOKEN = re.compile(r"[A-Za-z]+")


@pytest.fixture(scope="module")
def bios(shared_data):
    return pd.concat([pd.read_csv(shared_data / "biasbios_sample" / f"{o}.csv") for o in OCCUPATIONS], ignore_index=True)


@pytest.fixture(scope="module")
def all_bios(shared_data):
    files = sorted(p for p in (shared_data / "biasbios_sample").glob("*.csv") if p.name != "accountant_complete.csv")
    return pd.concat([pd.read_csv(p) for p in files], ignore_index=True)


def _classifier(texts, labels):
    vectorizer = CountVectorizer(token_pattern=r"(?u)\b\w+\b", binary=True)
    return make_pipeline(vectorizer, LogisticRegression(C=1.0, max_iter=5000)).fit(texts, labels)


def test_cda_removes_the_causal_effect_of_gender_words(bios):
    assert len(bios) == 120 and set(bios["gender"]) == {"Female", "Male"}
    train, test = bios[bios.index % 2 == 0], bios[bios.index % 2 == 1]
    plain = _classifier(train["hard_text"].tolist(), train["profession"].tolist())
    args = (test["hard_text"].tolist(), test["profession"].tolist(), test["gender"].tolist())
    before = causal_gaps_from_model(plain.predict, *args)
    assert before.groups == ("Female", "Male")
    augmented = augment(train["hard_text"].tolist(), train["profession"].tolist(), train["gender"].tolist(),
                        swap_list="chen2024")
    assert len(augmented) == 2 * len(train) and augmented["is_counterfactual"].sum() == len(train)
    debiased = _classifier(augmented["text"].tolist(), augmented["label"].tolist())
    after = causal_gaps_from_model(debiased.predict, *args)
    # the plain model changes some predictions when only gender words change
    assert before.gap_rms["PPR"] > 0.05 and before.gap_rms["TPR"] > 0.1
    # trained on both versions of every bio, paired words get equal weights: swapping changes nothing
    assert after.gap_rms == {"PPR": 0.0, "TPR": 0.0, "FPR": 0.0}


def test_the_gaps_papers_swap_changes_gender_words_only(all_bios):
    assert len(all_bios) == 280
    changed_elsewhere = 0
    for text in all_bios["hard_text"]:
        original = TOKEN.findall(text)
        swapped = TOKEN.findall(counterfactual(text, swap_list="chen2024"))
        assert len(original) == len(swapped)
        for before, after in zip(original, swapped):
            if before != after:
                assert {before.lower(), after.lower()} <= SCRUBBED_GENDER_WORDS, (before, after)
        changed_elsewhere += any(b != a and b.lower() not in SCRUBBED_GENDER_WORDS
                                 for b, a in zip(original, TOKEN.findall(counterfactual(text, swap_list="lu2020"))))
    # the CDA paper's list also swaps nouns (wife, actress, bachelor, ...) in some of these bios
    assert changed_elsewhere > 0


def test_causal_tpr_gap_is_zero_once_gender_word_weights_are_zeroed(all_bios):
    """Chen et al.: a model that gives the swapped words no weight cannot change its prediction when
    only they change, so its causal gaps are 0 — with the paper's own swap list. The CDA paper's list
    also swaps words the model does weigh (poet → poetess, wife → husband, ...)."""
    train, test = all_bios[all_bios.index % 2 == 0], all_bios[all_bios.index % 2 == 1]
    model = _classifier(train["hard_text"].tolist(), train["profession"].tolist())
    vectorizer, regression = model.named_steps["countvectorizer"], model.named_steps["logisticregression"]
    zeroed = [vectorizer.vocabulary_[w] for w in SCRUBBED_GENDER_WORDS if w in vectorizer.vocabulary_]
    assert len(zeroed) >= 9
    regression.coef_[:, zeroed] = 0.0
    args = (test["hard_text"].tolist(), test["profession"].tolist(), test["gender"].tolist())
    own = causal_gaps_from_model(model.predict, *args)
    assert own.gap_rms == {"PPR": 0.0, "TPR": 0.0, "FPR": 0.0}
    other = causal_gaps_from_model(model.predict, *args, swap_list="lu2020")
    # the numbers docs/classification.md quotes: TPR GapRMS 0.0378; 45 of the 280 counterfactuals differ by list
    assert other.gap_rms["TPR"] == pytest.approx(0.0378, abs=5e-5)
    assert sum(counterfactual(t, swap_list="chen2024") != counterfactual(t, swap_list="lu2020") for t in all_bios["hard_text"]) == 45


def _average_ranks(keys):
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    ranks = [Fraction(0)] * len(keys)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and keys[order[end + 1]] == keys[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = Fraction(start + end + 2, 2)
        start = end + 1
    return ranks


def _exact_spearman(x, y):
    """sign(ρ)·ρ² of Spearman's ρ in exact rational arithmetic, ρ = cov / √(var_x var_y) over average ranks
    (a monotone function of ρ, so it ranks r_c values exactly)."""
    rx, ry = _average_ranks(x), _average_ranks(y)
    mean = Fraction(len(x) + 1, 2)
    cov = sum((a - mean) * (b - mean) for a, b in zip(rx, ry))
    variance = sum((a - mean) ** 2 for a in rx) * sum((b - mean) ** 2 for b in ry)
    return (1 if cov >= 0 else -1) * cov * cov / variance


def _check_against_exact_arithmetic(result, probabilities, scores, labels, genders, classes):
    """A second implementation of r_c and ρ that ranks every r_c by its exact rational value, so r_c that
    are equal are tied whatever the float noise."""
    shares, keys = [], []
    for index, c in enumerate(classes):
        women = (labels == c) & (genders == "Female")
        class_scores = scores[c] if isinstance(scores, dict) else scores
        x = [Fraction(v) for v in probabilities[women, index]]
        y = [Fraction(v) for v in class_scores[women]]
        if women.sum() < 3 or len(set(x)) < 2 or len(set(y)) < 2:
            assert math.isnan(result.per_class.loc[c, "r_c"])
            continue
        signed_square = _exact_spearman(x, y)
        assert result.per_class.loc[c, "r_c"] ** 2 == pytest.approx(float(abs(signed_square)), abs=1e-12)
        shares.append(Fraction(int(women.sum()), int((labels == c).sum())))
        keys.append(signed_square)
    assert len(shares) == result.per_class["r_c"].notna().sum() >= 15
    signed_square = _exact_spearman(shares, keys)
    assert result.rho == pytest.approx(math.copysign(math.sqrt(abs(signed_square)), signed_square), abs=1e-12)


def test_snob_on_biasbios_agrees_with_exact_arithmetic(all_bios):
    """The paper's recipe: held-out class probabilities (two halves), one norm scorer per occupation
    trained without that occupation's χ²/BH task-relevant words and without the gender words."""
    texts, labels, genders = all_bios["hard_text"].tolist(), all_bios["profession"].to_numpy(), all_bios["gender"].to_numpy()
    halves = np.arange(len(texts)) % 2
    classes = sorted(set(labels))
    probabilities = np.zeros((len(texts), len(classes)))
    for half in (0, 1):
        model = _classifier([t for t, h in zip(texts, halves) if h != half], labels[halves != half])
        probabilities[halves == half] = model.predict_proba([t for t, h in zip(texts, halves) if h == half])
    scores = norm_scores_by_class(texts, labels, genders, "Female")
    result = social_norm_bias(pd.DataFrame(probabilities, columns=classes), labels, genders, scores, "Female")
    _check_against_exact_arithmetic(result, probabilities, scores, labels, genders, classes)
    # as docs/classification.md quotes them
    assert (round(result.rho, 4), round(result.p_value, 3), int(result.per_class["r_c"].notna().sum())) == (-0.5024, 0.024, 20)


def test_snob_ties_on_biasbios(all_bios):
    """In-sample probabilities with one shared norm scorer: here some r_c that are equal in exact
    arithmetic differ in their last bit, and ranking them apart moves ρ."""
    texts, labels, genders = all_bios["hard_text"].tolist(), all_bios["profession"].to_numpy(), all_bios["gender"].to_numpy()
    classes = sorted(set(labels))
    probabilities = _classifier(texts, labels).predict_proba(texts)
    scores = NormScorer("Female").fit(texts, labels, genders).score(texts)
    result = social_norm_bias(pd.DataFrame(probabilities, columns=classes), labels, genders, scores, "Female")
    _check_against_exact_arithmetic(result, probabilities, scores, labels, genders, classes)
    usable = result.per_class.dropna()
    floating = stats.spearmanr(usable["p_c"], usable["r_c"])
    assert abs(floating.statistic - result.rho) > 0.005
    # as docs/classification.md quotes them: exact ties, then ranking the float noise
    assert (round(result.rho, 4), round(result.p_value, 3)) == (-0.2076, 0.380)
    assert (round(floating.statistic, 4), round(floating.pvalue, 3)) == (-0.2212, 0.349)
