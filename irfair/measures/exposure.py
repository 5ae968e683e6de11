"""Fairness of exposure of groups in rankings, exact to the reference implementations.

* Expected exposure (Diaz, Mitra, Ekstrand, Biega & Carterette, "Evaluating Stochastic Rankings with
  Expected Exposure", CIKM 2020), in group mode: ε = system exposure of each group, ε* = its
  target exposure, EE-L = ‖ε − ε*‖², EE-D = ε·ε, EE-R = ε·ε* (raw, no normalisation). Browsing models:
  ``"trec2022"`` (TREC Fair 2022 Task 2, ``wptrec/metrics/eel.py``, fair-trec/trec2022-fair-public 6fd105f),
  ``"gerr"`` and ``"rbp"`` (``expeval.py -G -U``, diazf/expeval 69ab070).
* AWRF (Sapiezynski et al., "Quantifying the Impact of User Attention on Fair Group Representation in
  Ranked Lists", WWW 2019 companion) = 1 − JS(ranking's group distribution, target), natural log, and
  nDCG × AWRF, as TREC Fair 2022 Task 1 computes them (``wptrec/metrics/awrf.py``).

Inputs, the product's conventions: a ranking is a list of document ids in rank order (already cut and
ordered by the caller, or cut here by ``cutoff``); ``rankings`` is one ranking or a list of sampled rankings
of one query. ``grades`` maps judged documents to int grades, relevant = grade > 0 (judged non-relevant =
unjudged). ``groups`` maps documents to tuples of labels: a document in several groups counts fully in
each (multi-hot, as both references); a document absent from ``groups`` or with no label belongs to
``UNKNOWN``, a group of its own. ``labels`` fixes the order of every group vector; it must hold every label
met (``UNKNOWN`` too when a document without group contributes).

Background mixing (TREC 2022 Task1Alignment.py:184-192, Task2Alignment.py:239-248): the known part of a
target (every label but ``UNKNOWN``) becomes ½ known + ½ background × known mass; the unknown share is
kept. ``background`` is ``"uniform"`` (uniform over the known labels) or a mapping label → weight
(normalised to sum 1; TREC 2022 used female .495, male .495, NB .01). AWRF always mixes (default
uniform); expected exposure does not by default (``background=None``: the target is the ideal ranking's
exposure by grade only, as expeval and the Expected Exposure paper define it).

Undefined values are NaN, never a number: a query without relevant document (expeval skips it, TREC 2022
raises KeyError), rankings with no document at all, an AWRF with an empty ranking (0/0), and EE-D of
``"gerr"``/``"rbp"`` when no relevant document is retrieved (expeval prints ``inf``; TREC 2022 defines 0,
kept for ``"trec2022"``). A single relevant document is computed (expeval does; TREC 2022's eel.py:72
raises TypeError on it). ``docs/measures/exposure.md`` lists every convention and the reference numbers.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

import numpy as np

from ..trec.document_groups import UNKNOWN  # the group of documents without a label, as the groups file reads it
from .names import BROWSING_MODELS  # noqa: F401  (the command line lists them from .names)

TREC_NDCG_DEPTH = 500
BrowsingModel = Literal["trec2022", "gerr", "rbp"]
Background = Mapping[str, float] | Literal["uniform"]
Grades = Mapping[str, int]
Groups = Mapping[str, Sequence[str]]

ERROR_MODEL = "expected a browsing model among ('trec2022', 'gerr', 'rbp'), got {!r}"
ERROR_PARAMETERS = "expected 0 < p < 1 and 0 <= u <= 1, got p={} and u={}"
ERROR_LABELS = "expected distinct labels, at least one, got {!r}"
ERROR_LABEL = "document {!r} has the label {!r}, not among the labels {!r}"
ERROR_NO_GROUP = "document {!r} has no group and 'unknown' is not among the labels {!r}"
ERROR_BACKGROUND = "expected a background 'uniform' or a mapping of known labels to weights >= 0 (sum > 0), got {!r}"
ERROR_CUTOFF = "expected a cut-off >= 1, got {!r}"
ERROR_DEPTH = "the ranking has {} documents, more than the nDCG depth {} (TREC 2022 raises ValueError too)"


class ExpectedExposure(NamedTuple):
    """EE-L = ‖ε − ε*‖², EE-D = ε·ε and EE-R = ε·ε* of one query (NaN where undefined)."""

    ee_l: float
    ee_d: float
    ee_r: float


def trec_discount(n: int) -> np.ndarray:
    """w(i) = 1 / log2(max(i, 2)) for ranks i = 1..n, in float32 as TREC Fair 2022 (common.py:12-30); shape (n,)."""
    ranks = np.arange(1, n + 1, dtype=np.float32)
    return np.reciprocal(np.log2(np.maximum(ranks, 2)))


def _cut(ranking: Sequence[str], cutoff: int | None) -> list[str]:
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise ValueError(ERROR_CUTOFF.format(cutoff))
    return list(ranking if cutoff is None else ranking[:cutoff])


def _samples(rankings: Sequence[str] | Sequence[Sequence[str]], cutoff: int | None) -> list[list[str]]:
    """One ranking or a list of sampled rankings, as a list of rankings each cut at ``cutoff``."""
    if isinstance(rankings, str):
        raise TypeError("expected a list of document ids or a list of such lists, got a string")
    if len(rankings) > 0 and isinstance(rankings[0], str):
        return [_cut(rankings, cutoff)]  # type: ignore[arg-type]
    return [_cut(ranking, cutoff) for ranking in rankings]


def _labels(labels: Sequence[str]) -> tuple[str, ...]:
    labels = tuple(labels)
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(ERROR_LABELS.format(labels))
    return labels


def _check_model(model: str, p: float, u: float) -> None:
    if model not in BROWSING_MODELS:
        raise ValueError(ERROR_MODEL.format(model))
    if model != "trec2022" and not (0.0 < p < 1.0 and 0.0 <= u <= 1.0):
        raise ValueError(ERROR_PARAMETERS.format(p, u))


def alignment(docs: Sequence[str], groups: Groups, labels: Sequence[str]) -> np.ndarray:
    """Multi-hot group matrix a[d, g] = 1 when document d is in group g; shape (len(docs), len(labels))."""
    labels = _labels(labels)
    column = {label: j for j, label in enumerate(labels)}
    matrix = np.zeros((len(docs), len(labels)))
    for i, doc in enumerate(docs):
        doc_labels = tuple(groups.get(doc, ())) or (UNKNOWN,)
        for label in doc_labels:
            if label not in column and label == UNKNOWN and not groups.get(doc):
                raise ValueError(ERROR_NO_GROUP.format(doc, labels))
            if label not in column:
                raise ValueError(ERROR_LABEL.format(doc, label, labels))
            matrix[i, column[label]] = 1.0
    return matrix


def _background_weights(labels: tuple[str, ...], background: Background, ungrouped: Sequence[str] = (UNKNOWN,)) -> np.ndarray:
    """The background over ``labels`` (0 at the ``ungrouped`` labels), summing to 1 over the known labels."""
    known = np.array([label not in ungrouped for label in labels])
    if isinstance(background, str):
        if background != "uniform" or not known.any():
            raise ValueError(ERROR_BACKGROUND.format(background))
        return known / known.sum()
    if not isinstance(background, Mapping) or any(key in ungrouped or key not in labels for key in background):
        raise ValueError(ERROR_BACKGROUND.format(background))
    weights = np.array([float(background.get(label, 0.0)) for label in labels])
    if (weights < 0).any() or not weights.sum() > 0:
        raise ValueError(ERROR_BACKGROUND.format(background))
    return weights / weights.sum()


def mix_background(target: np.ndarray, labels: Sequence[str], background: Background,
                   ungrouped: Sequence[str] = (UNKNOWN,)) -> np.ndarray:
    """½ target + ½ background × known mass on the known labels, the ``UNKNOWN`` share kept; shape (len(labels),).

    TREC 2022 Task1Alignment.py:189-191 and Task2Alignment.py:242-244; the total mass is unchanged. ``ungrouped``:
    the labels kept as they are like ``UNKNOWN`` (the audit adds ``neither`` for groups read from the documents:
    a document without a gendered word is of unknown gender, as a page without one in TREC Fair)."""
    labels = _labels(labels)
    weights = _background_weights(labels, background, ungrouped)
    known = np.array([label not in ungrouped for label in labels])
    mixed = np.array(target, dtype=np.float64)
    mixed[known] = 0.5 * mixed[known] + mixed[known].sum() * weights[known] * 0.5
    return mixed


def position_exposure(ranking: Sequence[str], grades: Grades, *, model: BrowsingModel = "trec2022",
                      p: float = 0.5, u: float = 0.5) -> np.ndarray:
    """Exposure of each position of one ranking; shape (len(ranking),), float64.

    ``"trec2022"``: w(i) of :func:`trec_discount`; ``"rbp"``: p^i; ``"gerr"``: p^i (1 − u)^(relevant docs
    above), i 0-based (expeval exposure.py:37-56)."""
    _check_model(model, p, u)
    if model == "trec2022":
        return trec_discount(len(ranking)).astype(np.float64)
    exposure = p ** np.arange(len(ranking), dtype=np.float64)
    if model == "gerr":
        relevant = np.array([grades.get(doc, 0) > 0 for doc in ranking], dtype=np.int64)
        exposure = exposure * (1.0 - u) ** (np.cumsum(relevant) - relevant)
    return exposure


def _system_exposure(samples: list[list[str]], grades: Grades, groups: Groups, labels: tuple[str, ...],
                     model: BrowsingModel, p: float, u: float) -> np.ndarray:
    total = np.zeros(len(labels))
    for ranking in samples:
        exposure = position_exposure(ranking, grades, model=model, p=p, u=u)
        relevant = [i for i, doc in enumerate(ranking) if grades.get(doc, 0) > 0]
        if relevant:
            total += exposure[relevant] @ alignment([ranking[i] for i in relevant], groups, labels)
    return total / len(samples)


def group_exposure(rankings: Sequence[str] | Sequence[Sequence[str]], grades: Grades, groups: Groups,
                   labels: Sequence[str], *, model: BrowsingModel = "trec2022", p: float = 0.5, u: float = 0.5,
                   cutoff: int | None = None) -> np.ndarray:
    """System exposure of each group, ε_g = (1/S) Σ_s Σ_i e(i) a[d_si, g] over the S sampled rankings, i over
    the positions of relevant documents only (expeval group.py:7-16 without -C; TREC 2022 eel.py:89-92);
    shape (len(labels),). NaN when there is no document."""
    labels = _labels(labels)
    _check_model(model, p, u)
    samples = _samples(rankings, cutoff)
    if not any(samples):
        return np.full(len(labels), np.nan)
    return _system_exposure(samples, grades, groups, labels, model, p, u)


def document_targets(grades: Grades, *, model: BrowsingModel = "trec2022", p: float = 0.5,
                     u: float = 0.5) -> dict[str, float]:
    """Target exposure of each relevant document: the mean exposure of the positions its grade level holds
    in the ideal ranking of the R relevant documents, grades highest first (the paper's equal expected
    exposure for equal grades).

    A level of m documents below b others gets (p^b − p^(b+m)) / (m(1 − p)) for ``"rbp"``, the same with
    p(1 − u) for ``"gerr"`` (expeval exposure.py:66-103), mean of w(b+1..b+m) in float32 for ``"trec2022"``
    (Task2Alignment.py:134-147, over :func:`trec_discount` of R)."""
    _check_model(model, p, u)
    relevant = {doc: grade for doc, grade in grades.items() if grade > 0}
    discount = trec_discount(len(relevant))
    level_target: dict[int, float] = {}
    above = 0
    for level in sorted(set(relevant.values()), reverse=True):
        size = sum(1 for grade in relevant.values() if grade == level)
        if model == "trec2022":
            level_target[level] = float(np.mean(discount[above:above + size]))
        else:
            q = p if model == "rbp" else p * (1.0 - u)
            level_target[level] = (q ** above - q ** (above + size)) / (size * (1.0 - q))
        above += size
    return {doc: level_target[grade] for doc, grade in relevant.items()}


def target_exposure(grades: Grades, groups: Groups, labels: Sequence[str], *, model: BrowsingModel = "trec2022",
                    p: float = 0.5, u: float = 0.5, length: int | None = None,
                    background: Background | None = None) -> np.ndarray:
    """Target exposure ε* of each group: Σ of its relevant documents' :func:`document_targets`, mixed with
    ``background`` when one is given; for ``"trec2022"`` then normalised to a distribution and scaled by
    Σ w(1..length) (Task2Alignment.py:239-248, eel.py:116-122; ``length`` required). Shape (len(labels),);
    NaN when no document is relevant."""
    labels = _labels(labels)
    targets = document_targets(grades, model=model, p=p, u=u)
    if not targets:
        return np.full(len(labels), np.nan)
    docs = list(targets)
    return group_target(np.array([targets[doc] for doc in docs]), alignment(docs, groups, labels), labels, model=model,
                        length=length, background=background)


def group_target(document_targets: np.ndarray, alignment: np.ndarray, labels: Sequence[str], *,
                 model: BrowsingModel = "trec2022", length: int | None = None,
                 background: Background | None = None) -> np.ndarray:
    """ε* from the relevant documents' targets (shape (n,)) and their multi-hot groups (shape (n, len(labels))): the
    sum per group, mixed with ``background`` when one is given, and for ``"trec2022"`` normalised to a distribution
    and scaled by Σ w(1..length) (:func:`target_exposure`'s last steps, shared with the audit's batches)."""
    target = document_targets @ alignment
    if background is not None:
        target = mix_background(target, labels, background)
    if model == "trec2022":
        if length is None or length < 1:
            raise ValueError(ERROR_CUTOFF.format(length))
        target = target / target.sum() * float(np.sum(trec_discount(length)))
    return target


def expected_exposure(rankings: Sequence[str] | Sequence[Sequence[str]], grades: Grades, groups: Groups,
                      labels: Sequence[str], *, model: BrowsingModel = "trec2022", p: float = 0.5, u: float = 0.5,
                      cutoff: int | None = None, background: Background | None = None) -> ExpectedExposure:
    """EE-L = ‖ε − ε*‖², EE-D = ε·ε and EE-R = ε·ε* of the groups for one query (raw: EE-L = EE-D − 2 EE-R + ‖ε*‖²).

    ``"trec2022"`` scales the target by Σ w(1..k), k = ``cutoff`` or, without one, the longest sampled
    ranking (TREC 2022: k = 20). NaN: no relevant document, no document retrieved; EE-D also when
    ``"gerr"``/``"rbp"`` expose no relevant document (expeval: inf)."""
    labels = _labels(labels)
    _check_model(model, p, u)
    samples = _samples(rankings, cutoff)
    undefined = ExpectedExposure(np.nan, np.nan, np.nan)
    if not any(samples):
        return undefined
    length = cutoff if cutoff is not None else max(len(ranking) for ranking in samples)
    target = target_exposure(grades, groups, labels, model=model, p=p, u=u, length=length, background=background)
    if np.isnan(target).any():
        return undefined
    system = _system_exposure(samples, grades, groups, labels, model, p, u)
    disparity = float(system @ system)
    if model != "trec2022" and disparity <= 0:
        disparity = np.nan
    return ExpectedExposure(float((system - target) @ (system - target)), disparity, float(system @ target))


def exposure_shares(rankings: Sequence[str] | Sequence[Sequence[str]], grades: Grades, groups: Groups,
                    labels: Sequence[str], *, model: BrowsingModel = "trec2022", p: float = 0.5, u: float = 0.5,
                    cutoff: int | None = None) -> np.ndarray:
    """Each group's share of the system exposure, ε / Σ ε; shape (len(labels),), NaN when Σ ε is 0 or undefined.
    A document in two groups counts in both, so with multi-hot documents a share is of the summed vector."""
    system = group_exposure(rankings, grades, groups, labels, model=model, p=p, u=u, cutoff=cutoff)
    total = system.sum()
    return system / total if total > 0 else np.full(len(system), np.nan)


def js_divergence(first: np.ndarray, second: np.ndarray) -> float:
    """Jensen–Shannon divergence in nats (natural log) of two non-negative vectors, each first normalised
    to sum 1 (as scipy's ``jensenshannon(...) ** 2``): ½ KL(P‖M) + ½ KL(Q‖M), M = (P + Q) / 2; in [0, ln 2].
    NaN when a vector sums to 0."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    return float(js_divergence_rows(first[None, :], second[None, :])[0])


def js_divergence_rows(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Row-wise :func:`js_divergence` of two (n, k) arrays, each row normalised to sum 1 first; shape (n,), NaN where
    a row sums to 0 or is undefined."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    first_sum, second_sum = first.sum(axis=1, keepdims=True), second.sum(axis=1, keepdims=True)
    defined = (first_sum[:, 0] > 0) & (second_sum[:, 0] > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        first, second = first / first_sum, second / second_sum
        middle = (first + second) / 2.0

        def kl_to_middle(dist: np.ndarray) -> np.ndarray:
            held = dist > 0
            return np.where(held, dist * np.log(np.where(held, dist, 1.0) / np.where(held, middle, 1.0)), 0.0).sum(axis=1)

        out = (kl_to_middle(first) + kl_to_middle(second)) / 2.0
    return np.where(defined, out, np.nan)


def awrf(ranking: Sequence[str], grades: Grades, groups: Groups, labels: Sequence[str], *,
         background: Background = "uniform", cutoff: int | None = None) -> float:
    """Attention-weighted rank fairness, 1 − JS(ranking distribution ‖ target) in nats; in [1 − ln 2, 1].

    Ranking distribution Σ_i w(i) a_d(i) / Σ_i w(i) over every retrieved document (relevant or not, the
    ``UNKNOWN`` column kept, awrf.py:79-127); target = the mean group vector of the relevant documents,
    mixed with ``background`` (:func:`mix_background`, Task1Alignment.py:188-191); both renormalised to
    sum 1 by the divergence (multi-hot rows). NaN: no relevant document, empty ranking."""
    labels = _labels(labels)
    ranking = _cut(ranking, cutoff)
    relevant = [doc for doc, grade in grades.items() if grade > 0]
    if not relevant or not ranking:
        return float("nan")
    weights = trec_discount(len(ranking))
    distribution = (weights.astype(np.float64) @ alignment(ranking, groups, labels)) / float(np.sum(weights))
    target = mix_background(alignment(relevant, groups, labels).mean(axis=0), labels, background)
    return 1.0 - js_divergence(distribution, target)


def trec_ndcg(ranking: Sequence[str], grades: Grades, *, depth: int = TREC_NDCG_DEPTH,
              cutoff: int | None = None) -> float:
    """nDCG as TREC Fair 2022 Task 1 (awrf.py:45-77): binary gain (grade > 0), discount w, ideal over
    min(R, depth) documents, float32. ValueError for a ranking longer than ``depth``; NaN when R = 0."""
    ranking = _cut(ranking, cutoff)
    if len(ranking) > depth:
        raise ValueError(ERROR_DEPTH.format(len(ranking), depth))
    n_relevant = sum(1 for grade in grades.values() if grade > 0)
    if n_relevant == 0:
        return float("nan")
    discount = trec_discount(depth)
    gains = np.array([grades.get(doc, 0) > 0 for doc in ranking], dtype=np.float32)
    return float(np.sum(gains * discount[:len(ranking)]) / np.sum(discount[:min(n_relevant, depth)]))


def fair_score(ranking: Sequence[str], grades: Grades, groups: Groups, labels: Sequence[str], *,
               background: Background = "uniform", depth: int = TREC_NDCG_DEPTH, cutoff: int | None = None) -> float:
    """TREC Fair 2022 Task 1 score of one query, :func:`trec_ndcg` × :func:`awrf` (awrf.py:146-150); NaN when
    either is. A run's score is the mean of these per-query products, not the product of the means."""
    ndcg = trec_ndcg(ranking, grades, depth=depth, cutoff=cutoff)
    return ndcg * awrf(ranking, grades, groups, labels, background=background, cutoff=cutoff)
