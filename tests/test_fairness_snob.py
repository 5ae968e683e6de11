import numpy as np
import pandas as pd
import pytest

from irfair.fairness.snob import NormScorer, balancing_weights, remove_words, social_norm_bias, task_relevant_words

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


def test_occupation_irrelevant_variant_removes_class_words():
    texts, labels, _, _ = _generated(per_class=40, n_classes=4)
    relevant = task_relevant_words(texts, labels, top_k=2)
    assert relevant[0] == {"job0", "task0"}
    assert remove_words("job0 lovely Task0 report", relevant[0]) == " lovely  report"
