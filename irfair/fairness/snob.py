"""Social Norm Bias (Cheng, De-Arteaga, Mackey & Kalai, "Social Norm Bias: Residual Harms of
Fairness-Aware Algorithms", Data Mining and Knowledge Discovery, 2023).

1. A norm scorer G predicts the group (e.g. female) from text; it is trained with per-class balancing
   weights so that it cannot learn the group from the class alone: in class c with S_c the examples of
   the scored group and H_c the others, α_x = |H_c| / max(|S_c|, |H_c|) for x in S_c and
   |S_c| / max(|S_c|, |H_c|) for x in H_c. The explicit gender words of the scrubbed BiasBios
   (he, she, him, his, her, hers, himself, herself, mr, mrs, ms) are removed from its input, so G
   scores conformity to gender norms, not pronouns.
2. For each class c: r_c = Spearman correlation, over the scored group's examples of class c, between
   the audited classifier's probability for c and G's score; p_c = the scored group's share of class c.
3. SNoB = Spearman ρ(p_C, r_C) across classes, with its p-value (t-test with n_classes − 2 degrees of
   freedom, as scipy computes it).

Ties are decided exactly: before any ranking, values within ``TIE_TOLERANCE`` (1e-9) of the smallest
value of their run are set equal to it, so r_c values of 0.9999999999999999 and 1.0 tie (average ranks)
instead of being ranked apart by floating-point noise.

Occupation-irrelevant norms (the paper's recipe): for each class c, the words relevant to the task are
found by χ² tests of word occurrence against "class c or not" conditioned on gender, with the
Benjamini–Hochberg correction (:func:`task_relevant_words`); one norm scorer per class is trained on
texts without them and without the gender words (:func:`norm_scores_by_class`), and r_c uses that
class's scorer.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse, stats

from ..errors import MissingExtraError
from . import _checks
from .wordlists import SCRUBBED_GENDER_WORDS

TIE_TOLERANCE = 1e-9


def _sklearn():
    try:
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise MissingExtraError("scikit-learn", "fairness") from None
    return CountVectorizer, LogisticRegression


def tie_values(values: Sequence[float], tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """``values`` with every run of values within ``tolerance`` of the run's smallest value set to it
    (NaN stays NaN), so that ranking treats them as ties."""
    array = np.asarray(values, dtype=np.float64).copy()
    order = np.argsort(array, kind="stable")
    start = None
    for index in order:
        value = array[index]
        if np.isnan(value):
            continue
        if start is None or value - start > tolerance:
            start = value
        array[index] = start
    return array


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's ρ and its two-sided p-value, ties decided within ``TIE_TOLERANCE``."""
    result = stats.spearmanr(tie_values(x), tie_values(y))
    return float(result.statistic), float(result.pvalue)


def _in_groups(groups: np.ndarray, scored_group: object) -> np.ndarray:
    _checks.member("scored group", scored_group, list(pd.unique(groups)), "group values")
    return groups == scored_group


def balancing_weights(labels: Sequence, groups: Sequence, scored_group: object) -> np.ndarray:
    """α_x per example (see module docstring), shape (n,)."""
    y, g = _checks.sequence("labels", labels), _checks.sequence("groups", groups)
    _checks.same_length(labels=y, groups=g)
    frame = pd.DataFrame({"y": y, "in_s": _in_groups(g, scored_group)})
    s_size = frame.groupby("y")["in_s"].transform("sum").to_numpy(dtype=float)
    h_size = frame.groupby("y")["in_s"].transform(lambda x: (~x).sum()).to_numpy(dtype=float)
    larger = np.maximum(np.maximum(s_size, h_size), 1.0)
    return np.where(frame["in_s"].to_numpy(), h_size / larger, s_size / larger)


def _word_list(name: str, words: Iterable[str]) -> frozenset[str]:
    listed = _checks.texts(name, list(words) if isinstance(words, (set, frozenset)) else words)
    return frozenset(w.lower() for w in listed)


class NormScorer:
    """L2-regularised logistic regression (liblinear) on a binary bag of words predicting membership of
    ``scored_group``, trained with the class-balancing weights; the words in ``remove`` (default: the
    scrubbed-BiasBios gender words) are dropped from its input before training and scoring."""

    def __init__(self, scored_group: object, *, remove: Iterable[str] = SCRUBBED_GENDER_WORDS, min_df: int = 2,
                 C: float = 1.0, max_iter: int = 2000) -> None:
        CountVectorizer, LogisticRegression = _sklearn()
        self.scored_group = scored_group
        self.removed_words = _word_list("remove", remove)
        _checks.number("min_df", min_df, low=1, integer=True)
        _checks.number("C", C, low=0, low_open=True)
        _checks.number("max_iter", max_iter, low=1, integer=True)
        self.vectorizer = CountVectorizer(lowercase=True, min_df=int(min_df), binary=True,
                                          stop_words=sorted(self.removed_words) or None)
        self.model = LogisticRegression(C=C, max_iter=int(max_iter), solver="liblinear")

    def fit(self, texts: Sequence[str], labels: Sequence, groups: Sequence) -> NormScorer:
        text_list = _checks.texts("texts", texts)
        y, g = _checks.sequence("labels", labels), _checks.sequence("groups", groups)
        _checks.same_length(texts=text_list, labels=y, groups=g)
        target = _in_groups(g, self.scored_group).astype(int)
        if target.min() == target.max():
            raise _checks.fail("a norm scorer needs examples of the scored group and of the others")
        try:
            features = self.vectorizer.fit_transform(text_list)
        except ValueError:
            raise _checks.fail(f"no word occurs in at least min_df={self.vectorizer.min_df} texts") from None
        self.model.fit(features, target, sample_weight=balancing_weights(y, g, self.scored_group))
        return self

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """P(scored group | text), shape (n,)."""
        return self.model.predict_proba(self.vectorizer.transform(_checks.texts("texts", texts)))[:, 1]


def remove_words(text: str, words: Iterable[str]) -> str:
    """``text`` without the given words (case-insensitive, whole words)."""
    if not isinstance(text, str):
        raise _checks.fail(f"text must be a string, not {type(text).__name__}")
    banned = _word_list("words", words)
    return re.sub(r"\w+", lambda m: "" if m.group().lower() in banned else m.group(), text)


def benjamini_hochberg(p_values: Sequence[float], alpha: float = 0.05) -> np.ndarray:
    """Which hypotheses the Benjamini–Hochberg procedure rejects at false discovery rate ``alpha``:
    all with p ≤ p_(k), k the largest rank with p_(k) ≤ k α / m. Boolean array, shape (m,)."""
    p = np.asarray(p_values, dtype=np.float64)
    _checks.number("alpha", alpha, low=0, low_open=True, high=1, high_open=True)
    m = len(p)
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    order = np.argsort(p, kind="stable")
    passed = np.nonzero(p[order] <= alpha * np.arange(1, m + 1) / m)[0]
    if len(passed):
        rejected[order[: passed[-1] + 1]] = True
    return rejected


def conditional_chi2(present: np.ndarray, in_class: np.ndarray, strata: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """χ² test of word occurrence ⊥ class given the stratum (gender): per word, the sum over strata of
    Pearson's χ² (no continuity correction) of the 2×2 table present/absent × in class/not, with one
    degree of freedom per stratum whose table has no empty margin. ``present``: (n, n_words) 0/1,
    dense or sparse; returns (statistic, degrees of freedom, p-value), each shape (n_words,); p = 1
    where df = 0."""
    present = sparse.csr_matrix(present, dtype=np.float64)
    in_class = np.asarray(in_class, dtype=bool)
    strata = np.asarray(strata)
    statistic = np.zeros(present.shape[1])
    dof = np.zeros(present.shape[1])
    for stratum in pd.unique(strata):
        rows = strata == stratum
        n = float(rows.sum())
        n_class = float(in_class[rows].sum())
        with_word = np.asarray(present[rows].sum(axis=0)).ravel()
        a = np.asarray(present[rows & in_class].sum(axis=0)).ravel()  # word present, in class
        b = with_word - a
        c = n_class - a
        d = (n - n_class) - b
        margins = with_word * (n - with_word) * n_class * (n - n_class)
        usable = margins > 0
        statistic[usable] += n * (a[usable] * d[usable] - b[usable] * c[usable]) ** 2 / margins[usable]
        dof[usable] += 1
    p_value = np.ones_like(statistic)
    tested = dof > 0
    p_value[tested] = stats.chi2.sf(statistic[tested], dof[tested])
    return statistic, dof, p_value


def task_relevant_words(texts: Sequence[str], labels: Sequence, groups: Sequence, *, alpha: float = 0.05,
                        remove: Iterable[str] = SCRUBBED_GENDER_WORDS) -> dict[object, frozenset[str]]:
    """Per class c, the words whose occurrence depends on "class c or not" given the group (gender):
    :func:`conditional_chi2` per word, Benjamini–Hochberg at false discovery rate ``alpha`` over the
    vocabulary (Cheng et al.'s occupation-irrelevant variant). Words are lower-cased tokens of two or
    more letters/digits; the words in ``remove`` (the gender words) are never reported."""
    CountVectorizer, _ = _sklearn()
    text_list = _checks.texts("texts", texts)
    y, g = _checks.sequence("labels", labels), _checks.sequence("groups", groups)
    _checks.same_length(texts=text_list, labels=y, groups=g)
    _checks.number("alpha", alpha, low=0, low_open=True, high=1, high_open=True)
    removed = _word_list("remove", remove)
    vectorizer = CountVectorizer(lowercase=True, binary=True, stop_words=sorted(removed) or None)
    try:
        present = vectorizer.fit_transform(text_list)
    except ValueError:
        raise _checks.fail("the texts contain no words") from None
    vocabulary = np.array(vectorizer.get_feature_names_out())
    words = {}
    for c in sorted(pd.unique(y), key=str):
        _, _, p_value = conditional_chi2(present, y == c, g)
        words[c] = frozenset(vocabulary[benjamini_hochberg(p_value, alpha)])
    return words


def norm_scores_by_class(texts: Sequence[str], labels: Sequence, groups: Sequence, scored_group: object, *,
                         score_texts: Sequence[str] | None = None, relevant_words: Mapping[object, Iterable[str]] | None = None,
                         alpha: float = 0.05, remove: Iterable[str] = SCRUBBED_GENDER_WORDS, **scorer_options) -> dict[object, np.ndarray]:
    """One norm scorer per class (Cheng et al.'s occupation-irrelevant norms): for class c, a
    :class:`NormScorer` trained on ``texts`` without c's task-relevant words (given, or
    :func:`task_relevant_words` at ``alpha``) and without the gender words, then applied to
    ``score_texts`` (default: ``texts``) with the same words removed. Returns class → scores, shape (n,)."""
    text_list = _checks.texts("texts", texts)
    y, g = _checks.sequence("labels", labels), _checks.sequence("groups", groups)
    _checks.same_length(texts=text_list, labels=y, groups=g)
    targets = text_list if score_texts is None else _checks.texts("score_texts", score_texts)
    if relevant_words is None:
        relevant_words = task_relevant_words(text_list, y, g, alpha=alpha, remove=remove)
    scores = {}
    gender_words = _word_list("remove", remove)
    for c in sorted(pd.unique(y), key=str):
        if c not in relevant_words:
            raise _checks.fail(f"relevant_words has no entry for class {_checks.short(c)}")
        banned = _word_list(f"relevant_words[{c!r}]", relevant_words[c])
        # the scorer drops removed words when it tokenises, which for a bag of words is the same as
        # deleting them from the texts
        scorer = NormScorer(scored_group, remove=banned | gender_words, **scorer_options)
        scores[c] = scorer.fit(text_list, y, g).score(targets)
    return scores


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
    norm_scores: Sequence[float] | Mapping[object, Sequence[float]],
    scored_group: object,
    *,
    min_examples: int = 3,
) -> SocialNormBias:
    """SNoB of a classifier (Cheng et al. §4). ``class_probabilities``: (n, n_classes) DataFrame, one
    column per class; ``norm_scores``: G's score per example, or per class (one scorer per class, the
    paper's recipe: :func:`norm_scores_by_class`). Classes with fewer than ``min_examples``
    scored-group examples, or constant probabilities or scores there, get r_c = NaN and are left out;
    ρ is NaN with fewer than three usable classes."""
    if not isinstance(class_probabilities, pd.DataFrame) or class_probabilities.shape[1] == 0:
        raise _checks.fail("class_probabilities must be a DataFrame with one column per class")
    probabilities = class_probabilities.to_numpy(dtype=np.float64)
    if not np.isfinite(probabilities).all():
        row, column = np.argwhere(~np.isfinite(probabilities))[0]
        raise _checks.fail(f"class_probabilities has a non-finite value in row {row}, column {class_probabilities.columns[column]!r}")
    y, g = _checks.sequence("labels", labels), _checks.sequence("groups", groups)
    n = _checks.same_length(class_probabilities=probabilities, labels=y, groups=g)
    _checks.number("min_examples", min_examples, low=2, integer=True)
    columns = list(class_probabilities.columns)
    for label in pd.unique(y):
        _checks.member("label", label, columns, "columns of class_probabilities")
    in_group = _in_groups(g, scored_group)
    per_class_scores = _norm_scores(norm_scores, columns, n)
    rows = []
    for index, c in enumerate(columns):
        in_class = y == c
        mask = in_class & in_group
        r = float("nan")
        if mask.sum() >= min_examples:
            confidence, scores = tie_values(probabilities[mask, index]), tie_values(per_class_scores[c][mask])
            if np.ptp(confidence) > 0 and np.ptp(scores) > 0:
                r = spearman(confidence, scores)[0]
        share = float(mask.sum() / in_class.sum()) if in_class.any() else float("nan")
        rows.append({"class": c, "p_c": share, "r_c": r, "n_scored_group": int(mask.sum()), "n_class": int(in_class.sum())})
    table = pd.DataFrame(rows).set_index("class")
    usable = table.dropna(subset=["p_c", "r_c"])
    if len(usable) < 3:
        return SocialNormBias(float("nan"), float("nan"), table)
    rho, p_value = spearman(usable["p_c"], usable["r_c"])
    return SocialNormBias(rho, p_value, table)


def _norm_scores(norm_scores: object, columns: list, n: int) -> dict[object, np.ndarray]:
    if isinstance(norm_scores, Mapping):
        result = {}
        for c in columns:
            if c not in norm_scores:
                raise _checks.fail(f"norm_scores has no scores for class {_checks.short(c)}")
            result[c] = _score_array(f"norm_scores[{c!r}]", norm_scores[c], n)
        return result
    shared = _score_array("norm_scores", norm_scores, n)
    return {c: shared for c in columns}


def _score_array(name: str, values: object, n: int) -> np.ndarray:
    array = _checks.sequence(name, values)
    if array.dtype.kind not in "biuf":
        raise _checks.fail(f"{name} must hold numbers, not {array.dtype}")
    if len(array) != n:
        raise _checks.fail(f"{name} has {len(array)} values but there are {n} examples")
    return array.astype(np.float64)
