"""Social Norm Bias (Cheng et al., "Social Norm Bias: Residual Harms of Fairness-Aware Algorithms",
Data Mining and Knowledge Discovery, 2023).

1. A norm scorer G predicts the group (e.g. female) from text; it is trained with per-class balancing
   weights so that it cannot learn the group from the class alone: in class c with S_c the examples of
   the scored group and H_c the others, α_x = |H_c| / max(|S_c|, |H_c|) for x in S_c and
   |S_c| / max(|S_c|, |H_c|) for x in H_c.
2. For each class c: r_c = Spearman correlation, over the scored group's examples of class c, between
   the audited classifier's probability for c and G's score; p_c = the scored group's share of class c.
3. SNoB = Spearman ρ(p_C, r_C) across classes, with its p-value. A classifier whose confidence rises
   with conformity to the group's norms in classes where that group dominates gets a high ρ.

The occupation-irrelevant variant scores G on texts from which each class's task-relevant words
have been removed (given, or the top words of a one-vs-rest bag-of-words model per class).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import MissingExtraError


def _sklearn():
    try:
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise MissingExtraError("scikit-learn", "fairness") from None
    return CountVectorizer, LogisticRegression


def balancing_weights(labels: Sequence, groups: Sequence, scored_group) -> np.ndarray:
    """α_x per example (see module docstring), shape (n,)."""
    frame = pd.DataFrame({"y": list(labels), "in_s": [g == scored_group for g in groups]})
    s_size = frame.groupby("y")["in_s"].transform("sum").to_numpy(dtype=float)
    h_size = frame.groupby("y")["in_s"].transform(lambda x: (~x).sum()).to_numpy(dtype=float)
    larger = np.maximum(np.maximum(s_size, h_size), 1.0)
    return np.where(frame["in_s"].to_numpy(), h_size / larger, s_size / larger)


class NormScorer:
    """Logistic regression on bag-of-words predicting membership of ``scored_group``, class-balanced."""

    def __init__(self, scored_group, *, min_df: int = 2, C: float = 1.0, max_iter: int = 2000) -> None:
        CountVectorizer, LogisticRegression = _sklearn()
        self.scored_group = scored_group
        self.vectorizer = CountVectorizer(lowercase=True, min_df=min_df, binary=True)
        self.model = LogisticRegression(C=C, max_iter=max_iter)

    def fit(self, texts: Sequence[str], labels: Sequence, groups: Sequence) -> NormScorer:
        features = self.vectorizer.fit_transform(texts)
        target = np.array([g == self.scored_group for g in groups], dtype=int)
        self.model.fit(features, target, sample_weight=balancing_weights(labels, groups, self.scored_group))
        return self

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """P(scored group | text), shape (n,)."""
        return self.model.predict_proba(self.vectorizer.transform(texts))[:, 1]


def task_relevant_words(texts: Sequence[str], labels: Sequence, top_k: int = 10) -> dict[object, set[str]]:
    """Per class, the ``top_k`` words with the largest one-vs-rest logistic-regression coefficients."""
    CountVectorizer, LogisticRegression = _sklearn()
    vectorizer = CountVectorizer(lowercase=True, min_df=2, binary=True)
    features = vectorizer.fit_transform(texts)
    vocabulary = np.array(vectorizer.get_feature_names_out())
    y = np.asarray(labels)
    words = {}
    for c in sorted(set(labels), key=str):
        model = LogisticRegression(max_iter=2000).fit(features, (y == c).astype(int))
        words[c] = set(vocabulary[np.argsort(model.coef_[0])[::-1][:top_k]])
    return words


def remove_words(text: str, words: Iterable[str]) -> str:
    """``text`` without the given words (case-insensitive, whole words)."""
    banned = {w.lower() for w in words}
    return re.sub(r"\w+", lambda m: "" if m.group().lower() in banned else m.group(), text)


@dataclass(frozen=True)
class SocialNormBias:
    """SNoB ρ with its p-value and the per-class table (p_c, r_c, n_c)."""

    rho: float
    p_value: float
    per_class: pd.DataFrame


def social_norm_bias(
    class_probabilities: pd.DataFrame,
    labels: Sequence,
    groups: Sequence,
    norm_scores: np.ndarray | Mapping[object, np.ndarray],
    scored_group,
    *,
    min_examples: int = 3,
) -> SocialNormBias:
    """SNoB of a classifier. ``class_probabilities``: (n, n_classes) DataFrame, one column per class;
    ``norm_scores``: G's score per example, or per class (the occupation-irrelevant variant).
    Classes with fewer than ``min_examples`` scored-group examples get r_c = NaN and are left out."""
    y, g = np.asarray(labels), np.asarray(groups)
    rows = []
    for c in class_probabilities.columns:
        in_class = y == c
        mask = in_class & (g == scored_group)
        scores = norm_scores[c] if isinstance(norm_scores, Mapping) else np.asarray(norm_scores)
        r = float("nan")
        if mask.sum() >= min_examples:
            probabilities = class_probabilities[c].to_numpy()[mask]
            if np.ptp(probabilities) > 0 and np.ptp(scores[mask]) > 0:
                r = float(stats.spearmanr(probabilities, scores[mask]).statistic)
        share = float(mask.sum() / in_class.sum()) if in_class.any() else float("nan")
        rows.append({"class": c, "p_c": share, "r_c": r, "n_scored_group": int(mask.sum()), "n_class": int(in_class.sum())})
    table = pd.DataFrame(rows).set_index("class")
    usable = table.dropna(subset=["p_c", "r_c"])
    if len(usable) < 3:
        return SocialNormBias(float("nan"), float("nan"), table)
    result = stats.spearmanr(usable["p_c"], usable["r_c"])
    return SocialNormBias(float(result.statistic), float(result.pvalue), table)
