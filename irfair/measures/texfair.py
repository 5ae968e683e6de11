"""TExFAIR, term exposure-based fairness (Abolghasemi, Azzopardi, Askari, de Rijke & Verberne,
"Measuring Bias in a Ranked List using Term-based Representations", ECIR 2024, arXiv 2403.05975).

TExFAIR places gender in the AWRF framework (attention-weighted rank fairness: the exposure a list
gives each group, compared with a target distribution) with two extensions: documents belong to
groups through their terms, and a rank-biased discounting factor (RBDF) lets documents without any
group term count towards the fairness of the list.

For the ranked list d_1, d_2, ... of query q, cut-off k, observation probability p_o(d_i) of rank i,
and per document n_r(d) occurrences of gender r's words (default list: ``rekabsaz2021`` in
:mod:`irfair.measures.gender_words`) among its |d| tokens:

    TE_k(t)   = Σ_{i=1..k} p_o(t | d_i) · p_o(d_i),   p_o(t | d) = tf(t, d) / |d|     (term exposure)
    GE_k(r)   = Σ_{t∈G_r} TE_k(t) = Σ_{i=1..k} p_o(d_i) · n_r(d_i) / |d_i|          (group exposure)
    Δ_k       = Σ_{r∈{f,m}} | GE_k(r) / (GE_k(f) + GE_k(m)) − 1/2 |
              = | GE_k(f) − GE_k(m) | / (GE_k(f) + GE_k(m))     (distance to the balanced target)
    RBDF_k    = Σ_{i≤k, d_i representative} p_o(d_i) / Σ_{i≤k} p_o(d_i)
    TExFAIR_k = 1 − RBDF_k · Δ_k

A document is representative when it holds at least one word of either list. TExFAIR lies in
[0, 1], higher is fairer; unlike NFaiRR it judges the list as a whole, so two documents that are
each one-sided can balance each other. Swapping the female and male lists leaves it unchanged.

The full text of the paper was not available to us; TE and p_o(t | d) follow its definitions as
summarised publicly, and the following are irfair's reading, documented and tested:

* p_o(d_i) = γ^(i−1), the rank-biased (RBP) browsing model with patience γ = 0.8 (a constant factor
  such as RBP's (1 − γ) cancels in Δ and RBDF). Any other model can be passed as
  ``position_weights`` (e.g. :func:`irfair.measures.nfairr.log_discount` for NFaiRR's 1/log2(i + 1)).
* Δ is the L1 distance to the uniform target (equal exposure for both genders).
* RBDF is the share of the list's attention that falls on representative documents.
* No representative document in the top k: RBDF = 0 and TExFAIR = 1 (nothing gendered is exposed).
* A list shorter than k: the sums run over the documents there are. An empty list: NaN.
* |d| is the document's token count as given (:mod:`irfair.measures.gender_counts`: the term
  matrix's row sum); a document of length 0 exposes no term.
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
from .tie_orders import EXACT_LIMIT, SAMPLES, expected_over_tie_orders

DEFAULT_PATIENCE = 0.8
DEFAULT_CUTOFFS = (5, 10, 20)


def geometric_weights(depth: int, patience: float = DEFAULT_PATIENCE) -> np.ndarray:
    """p_o(d_i) = patience^(i − 1) for ranks i = 1..depth, shape (depth,)."""
    if not 0 < patience <= 1:
        raise IrfairInputError(None, None, f"expected a patience in (0, 1], got {patience}")
    return patience ** np.arange(depth, dtype=np.float64)


def _weights(depth: int, position_weights: np.ndarray | None, patience: float) -> np.ndarray:
    if position_weights is None:
        return geometric_weights(depth, patience)
    weights = np.asarray(position_weights, dtype=np.float64)
    if weights.ndim != 1 or len(weights) < depth or not np.all(np.isfinite(weights)) or np.any(weights[:depth] <= 0):
        raise IrfairInputError(None, None, f"expected at least {depth} positive position weights")
    return weights[:depth]


def texfair_batch(female_counts: np.ndarray, male_counts: np.ndarray, lengths: np.ndarray, mask: np.ndarray | None = None,
                  cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *, patience: float = DEFAULT_PATIENCE,
                  position_weights: np.ndarray | None = None) -> np.ndarray:
    """TExFAIR_k of many lists: shape (n_queries, n_cutoffs), NaN for empty lists.

    ``female_counts``, ``male_counts``: n_f(d), n_m(d); ``lengths``: |d| (tokens); all of shape
    (n_queries, depth), each query's documents in rank order; ``mask`` (same shape) marks the real
    documents (default: all). ``position_weights`` (shape (≥ depth,)) replaces γ^(i−1).
    """
    (female, male, length), valid, _ = as_batch(
        {"female_counts": female_counts, "male_counts": male_counts, "lengths": lengths}, mask)
    if np.any(female + male > length):
        raise IrfairInputError(None, None, "expected each document's gendered word counts to be at most its length")
    safe_length = np.where(length > 0, length, 1.0)
    return texfair_from_shares(female / safe_length, male / safe_length, ((female + male) > 0).astype(np.float64), valid,
                               cutoffs, patience=patience, position_weights=position_weights)


def texfair_from_shares(female_share: np.ndarray, male_share: np.ndarray, representative: np.ndarray,
                        mask: np.ndarray | None = None, cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *,
                        patience: float = DEFAULT_PATIENCE, position_weights: np.ndarray | None = None) -> np.ndarray:
    """TExFAIR_k from the per-document terms the sums are made of: shape (n_queries, n_cutoffs).

    ``female_share``, ``male_share``: n_r(d)/|d| (0 for an empty document); ``representative``: 1 when the
    document holds a word of either list, else 0 — or, for documents whose order is unknown (tied grades),
    the mean of these over the tie, which makes GE_k and RBDF's numerator their expectations over the orders
    of the tie. All of shape (n_queries, depth) in rank order; other arguments as for :func:`texfair_batch`.
    """
    cuts = check_cutoffs(cutoffs)
    (female, male, representative), _, list_lengths = as_batch(
        {"female_share": female_share, "male_share": male_share, "representative": representative}, mask)
    if np.any(female + male > 1 + 1e-12) or np.any(representative > 1 + 1e-12):
        raise IrfairInputError(None, None, "expected shares n_r(d)/|d| summing to at most 1 and representative values in [0, 1]")
    weights = _weights(female.shape[1], position_weights, patience)
    exposure_female = np.cumsum(weights * female, axis=1)
    exposure_male = np.cumsum(weights * male, axis=1)
    exposed = np.cumsum(weights * representative, axis=1)
    attention = np.cumsum(np.broadcast_to(weights, female.shape), axis=1)

    depth = effective_depth(list_lengths, cuts)
    ge_female = value_at_depth(exposure_female, depth)
    ge_male = value_at_depth(exposure_male, depth)
    total = ge_female + ge_male
    with np.errstate(invalid="ignore"):
        distance = np.where(total > 0, np.abs(ge_female - ge_male) / np.where(total > 0, total, 1.0), 0.0)
        rbdf = value_at_depth(exposed, depth) / value_at_depth(attention, depth)
    return np.where(depth > 0, 1.0 - rbdf * distance, np.nan)


def texfair(female_counts: np.ndarray, male_counts: np.ndarray, lengths: np.ndarray, cutoff: int = 10, *,
            patience: float = DEFAULT_PATIENCE, position_weights: np.ndarray | None = None) -> float:
    """TExFAIR_k of one ranked list; counts and lengths of shape (n_docs,) in rank order. NaN if empty."""
    female = single_list(female_counts, "female_counts")
    male = single_list(male_counts, "male_counts")
    length = single_list(lengths, "lengths")
    return float(texfair_batch(female, male, length, None, [cutoff], patience=patience,
                               position_weights=position_weights)[0, 0])


def _texfair_of_sums(attention: float):
    """TExFAIR from the sums (GE_k(f), GE_k(m), Σ representative p_o), shape (n, 3), for attention Σ p_o."""
    def measure(sums: np.ndarray) -> np.ndarray:
        female, male, exposed = sums[:, 0], sums[:, 1], sums[:, 2]
        total = female + male
        distance = np.where(total > 0, np.abs(female - male) / np.where(total > 0, total, 1.0), 0.0)
        return 1.0 - exposed / attention * distance
    return measure


def texfair_over_tie_orders(female_share: np.ndarray, male_share: np.ndarray, representative: np.ndarray, mask: np.ndarray,
                            ties: np.ndarray, cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *, patience: float = DEFAULT_PATIENCE,
                            position_weights: np.ndarray | None = None, exact_limit: int = EXACT_LIMIT, samples: int = SAMPLES,
                            seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """TExFAIR_k of lists whose tied positions have no order (the perfect run's equal grades): its expectation
    over the orders of each list's ties, every order equally likely (:mod:`.tie_orders`; exact up to
    ``exact_limit`` distinct orders, else the mean of ``samples`` orders drawn with a generator seeded by
    (``seed``, query row, cut-off)). Arguments as for :func:`texfair_from_shares` (the features of each
    document, not tie means); ``ties``: int labels, equal on the adjacent positions of a tie.

    Returns ``(values, standard_errors)``, each of shape (n_queries, n_cutoffs): NaN for an empty list, a
    standard error of 0 where the expectation is exact.
    """
    cuts = check_cutoffs(cutoffs)
    (female, male, representative), valid, lengths = as_batch(
        {"female_share": female_share, "male_share": male_share, "representative": representative}, mask)
    ties = np.asarray(ties)
    weights = _weights(female.shape[1], position_weights, patience)
    values = np.full((female.shape[0], len(cuts)), np.nan)
    errors = np.full(values.shape, np.nan)
    for row in range(female.shape[0]):
        n = int(lengths[row])
        features = np.stack([female[row, :n], male[row, :n], representative[row, :n]], axis=1)
        for column, cutoff in enumerate(cuts):
            depth = min(int(cutoff), n)
            if depth == 0:
                continue
            found = expected_over_tie_orders(features, ties[row, :n], weights[:depth], _texfair_of_sums(float(weights[:depth].sum())),
                                             exact_limit=exact_limit, samples=samples, seed=(seed, row, int(cutoff)))
            values[row, column], errors[row, column] = found.value, found.standard_error
    return values, errors
