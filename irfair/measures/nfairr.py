"""Document neutrality, FaiRR and NFaiRR (Rekabsaz, Kopeinik & Schedl, "Societal Biases in Retrieved
Contents", SIGIR 2021, arXiv 2104.13640; the NFaiRR reported by Bigdeli et al., "A light-weight
strategy for restraining gender biases in neural rankers", ECIR 2022, and used as the reference
measure by Abolghasemi et al., ECIR 2024).

Neutrality of a document d with n_f(d), n_m(d) occurrences of female and male words (default list:
``rekabsaz2021`` in :mod:`irfair.measures.gender_words`), balanced target share J = 1/2 per gender
and threshold τ:

    ω(d) = 1 − Σ_{r∈{f,m}} | n_r(d) / (n_f(d) + n_m(d)) − 1/2 |   if n_f(d) + n_m(d) > τ
         = 1                                                        otherwise

which for two genders is 1 − |n_f − n_m| / (n_f + n_m): 1 for a balanced (or nearly word-free)
document, 0 for a document whose gendered words are all of one gender. τ = 1 (the value of the
authors' released measurement tool): a document with a single gendered word counts as neutral.

Fairness of the ranked list L of query q at cut-off k, with the position discount 1/log2(i + 1):

    FaiRR_k(L)  = Σ_{i=1..k} ω(L_i) / log2(i + 1)
    NFaiRR_k(L) = FaiRR_k(L) / FaiRR_k(L*)

where L* is the ideal list: the candidate documents S_q sorted by neutrality, most neutral first
(IFaiRR = FaiRR_k(L*), the most any ordering of S_q can reach). NFaiRR lies in [0, 1] when the
top k of L are among S_q; higher is fairer.

Candidate set S_q: the paper normalises a re-ranker's list by the documents it re-ranks. irfair's
audit passes each run's own top-N documents for the query (N: the depth the run is judged at),
the same set for all cut-offs k ≤ N; when no candidates are given, the documents of the list
itself are the candidates.

Choices where the paper is silent, documented and tested:

* A list shorter than k: the sums run over the documents there are (no padding), for L and L*.
* An empty list, or IFaiRR = 0 (every candidate has neutrality 0, so no ordering can be fairer
  than another): NaN, left out of the mean over queries and counted.

Where irfair's conventions differ from the authors' released code (on the same tokens irfair's values
equal that code's to 2e-16; ``docs/measures/nfairr.md``):

* Normalisation set: the authors normalise every system by one background set, a BM25 run's top 200
  documents per query; irfair's audit normalises each system by its own top 100 (``candidates``), which
  moved the TIME means by up to 0.018. The authors' convention is available here: pass the background
  run's neutralities as ``candidate_neutrality`` (any depth).
* An undefined NFaiRR (IFaiRR = 0) makes the authors' mean over the run NaN; irfair leaves the query out of
  the mean and counts it (``n_undefined``) — kept on purpose, so one word-free candidate set does not void
  a run.
* RaB/ARaB (:mod:`.rab`), reported by the authors with ``tf`` and ``bool``: irfair's audit shows ``tc`` and
  ``bool`` by default; ``tf`` is one option away (``RAB.with_options(variants=("tf", "bool"))``).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import IrfairInputError
from .ranked import (
    as_batch,
    check_cutoffs,
    effective_depth,
    single_list,
    value_at_depth,
)

NEUTRALITY_THRESHOLD = 1
DEFAULT_CUTOFFS = (5, 10, 20)


def document_neutrality(female_counts: np.ndarray, male_counts: np.ndarray, *, threshold: float = NEUTRALITY_THRESHOLD) -> np.ndarray:
    """ω(d) for each document from its female and male word counts (arrays of the same shape)."""
    female = np.asarray(female_counts, dtype=np.float64)
    male = np.asarray(male_counts, dtype=np.float64)
    if female.shape != male.shape:
        raise IrfairInputError(None, None, f"expected female and male counts of the same shape, got {female.shape} and {male.shape}")
    total = female + male
    counted = total > threshold
    imbalance = np.abs(female - male) / np.where(counted, total, 1.0)
    return np.where(counted, 1.0 - imbalance, 1.0)


def log_discount(depth: int) -> np.ndarray:
    """1 / log2(i + 1) for ranks i = 1..depth, shape (depth,)."""
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _neutrality_batch(neutrality: np.ndarray, mask: np.ndarray | None, name: str) -> tuple[np.ndarray, np.ndarray]:
    (values,), _, lengths = as_batch({name: neutrality}, mask)
    if np.any(values > 1):
        raise IrfairInputError(None, None, f"expected {name} between 0 and 1")
    return values, lengths


def _discounted_running_sum(values: np.ndarray) -> np.ndarray:
    return np.cumsum(values * log_discount(values.shape[1]), axis=1)


def fairr_batch(neutrality: np.ndarray, mask: np.ndarray | None = None, cutoffs: Sequence[int] = DEFAULT_CUTOFFS) -> np.ndarray:
    """FaiRR_k of many lists: shape (n_queries, n_cutoffs), NaN for empty lists.

    ``neutrality``: ω of each query's documents in rank order, shape (n_queries, depth); ``mask``
    (same shape) marks the real documents (default: all).
    """
    cuts = check_cutoffs(cutoffs)
    values, lengths = _neutrality_batch(neutrality, mask, "neutrality")
    return value_at_depth(_discounted_running_sum(values), effective_depth(lengths, cuts))


def ideal_fairr_batch(candidate_neutrality: np.ndarray, candidate_mask: np.ndarray | None = None,
                      cutoffs: Sequence[int] = DEFAULT_CUTOFFS) -> np.ndarray:
    """IFaiRR_k: FaiRR_k of each query's candidates sorted by neutrality, shape (n_queries, n_cutoffs).

    ``candidate_neutrality``: ω of each query's candidate set S_q (any order), shape
    (n_queries, n_candidates); ``candidate_mask`` marks the real candidates (padding last).
    """
    cuts = check_cutoffs(cutoffs)
    values, lengths = _neutrality_batch(candidate_neutrality, candidate_mask, "candidate_neutrality")
    # padding was set to 0, so it sorts after every real candidate except those with ω = 0, which add nothing
    ideal = -np.sort(-values, axis=1)
    return value_at_depth(_discounted_running_sum(ideal), effective_depth(lengths, cuts))


def nfairr_batch(neutrality: np.ndarray, mask: np.ndarray | None = None, candidate_neutrality: np.ndarray | None = None,
                 candidate_mask: np.ndarray | None = None, cutoffs: Sequence[int] = DEFAULT_CUTOFFS) -> np.ndarray:
    """NFaiRR_k of many lists: shape (n_queries, n_cutoffs); NaN for empty lists and IFaiRR = 0.

    Inputs as for :func:`fairr_batch` and :func:`ideal_fairr_batch`; without candidates, each
    list's own documents are its candidate set.
    """
    if candidate_neutrality is None:
        candidate_neutrality, candidate_mask = neutrality, mask
    fairr = fairr_batch(neutrality, mask, cutoffs)
    ideal = ideal_fairr_batch(candidate_neutrality, candidate_mask, cutoffs)
    if ideal.shape != fairr.shape:
        raise IrfairInputError(None, None, f"expected candidates for {fairr.shape[0]} queries, got {ideal.shape[0]}")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ideal > 0, fairr / np.where(ideal > 0, ideal, 1.0), np.nan)


def fairr(neutrality: np.ndarray, cutoff: int = 10) -> float:
    """FaiRR_k of one ranked list; ``neutrality`` of shape (n_docs,) in rank order. NaN if empty."""
    return float(fairr_batch(single_list(neutrality, "neutrality"), None, [cutoff])[0, 0])


def nfairr(neutrality: np.ndarray, cutoff: int = 10, candidate_neutrality: np.ndarray | None = None) -> float:
    """NFaiRR_k of one ranked list (shape (n_docs,), rank order) against its candidates (shape (n_candidates,)).

    Without candidates the list's own documents are the candidate set. NaN if empty or IFaiRR = 0.
    """
    listed = single_list(neutrality, "neutrality")
    candidates = None if candidate_neutrality is None else single_list(candidate_neutrality, "candidate_neutrality")
    return float(nfairr_batch(listed, None, candidates, None, [cutoff])[0, 0])
