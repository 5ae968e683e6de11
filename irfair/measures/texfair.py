"""TExFAIR, term exposure-based fairness (Abolghasemi, Azzopardi, Askari, de Rijke & Verberne,
"Measuring Bias in a Ranked List using Term-based Representations", ECIR 2024, arXiv 2403.05975) —
**a reconstruction**.

The authors' repository holds no code (its README only: "code will soon be available"), and of the paper
only the abstract and a secondary summary of its term-exposure formula could be read:
TE@k(t) = Σ_r p(t | d_r) · p(d_r) with p(t | d) = tf(t, d) / |d|. irfair's term exposure matches that
formula exactly. Everything else is irfair's choice, and each choice changes the values:

* the rank discount p(d_i) = 0.8^(i−1) (``patience``; any other discount through ``position_weights``, e.g.
  :func:`irfair.measures.nfairr.log_discount` for 1/log2(i + 1));
* the distance to the balanced target: L1 (``distance="l1"``; ``"kl"``: Kullback–Leibler divergence from
  (1/2, 1/2) in bits, 1 − H(shares));
* the rank-biased discounting factor RBDF: the share of the list's attention on representative
  documents (those holding a word of either list);
* TExFAIR = 1 for a list whose top k holds no gendered word;
* |d| = the document's tokens after irfair's stop list (:mod:`irfair.measures.gender_counts`: the term
  matrix's row sum; a document of length 0 exposes no term).

On the three-document list of ``docs/measures/texfair.md`` (tested), TExFAIR@3 = 0.925 becomes 0.838 with a
log discount, 0.903 with stop words counted in |d| and 0.994 with the KL distance (on lists of a real
audit: 0.590 → 0.531 with a log discount, 0.387 → 0.345 with stop words kept).

Definitions, for the ranked list d_1, d_2, ... of query q, cut-off k, observation probability p_o(d_i) of
rank i, and per document n_r(d) occurrences of gender r's words (default list: ``rekabsaz2021`` in
:mod:`irfair.measures.gender_words`) among its |d| tokens:

    TE_k(t)   = Σ_{i=1..k} p_o(t | d_i) · p_o(d_i),   p_o(t | d) = tf(t, d) / |d|     (term exposure)
    GE_k(r)   = Σ_{t∈G_r} TE_k(t) = Σ_{i=1..k} p_o(d_i) · n_r(d_i) / |d_i|          (group exposure)
    Δ_k       = Σ_{r∈{f,m}} | GE_k(r) / (GE_k(f) + GE_k(m)) − 1/2 |
              = | GE_k(f) − GE_k(m) | / (GE_k(f) + GE_k(m))     (L1 distance to the balanced target)
    RBDF_k    = Σ_{i≤k, d_i representative} p_o(d_i) / Σ_{i≤k} p_o(d_i)
    TExFAIR_k = 1 − RBDF_k · Δ_k

TExFAIR lies in [0, 1], higher is fairer; unlike NFaiRR it judges the list as a whole, so two documents
that are each one-sided can balance each other. Swapping the female and male lists leaves it unchanged.
A list shorter than k: the sums run over the documents there are; an empty list: NaN. A constant factor
of the discount (RBP's (1 − γ)) cancels in Δ and RBDF. TExFAIR is not linear in the documents' values, so
a list whose order is partly unknown (ties) gets its expectation over the orders
(:func:`texfair_over_tie_orders`), not TExFAIR of the mean values.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

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
DISTANCES = ("l1", "kl")


def imbalance(female_exposure: np.ndarray, male_exposure: np.ndarray, distance: str = "l1") -> np.ndarray:
    """Δ: the distance of the exposure shares (GE_f, GE_m) / (GE_f + GE_m) from (1/2, 1/2), in [0, 1]; 0 when
    nothing is exposed. ``"l1"``: |GE_f − GE_m| / (GE_f + GE_m); ``"kl"``: KL((p_f, p_m) ‖ (1/2, 1/2)) in bits."""
    if distance not in DISTANCES:
        raise IrfairInputError(None, None, f"expected a distance among {', '.join(DISTANCES)}, got {distance!r}")
    total = female_exposure + male_exposure
    safe = np.where(total > 0, total, 1.0)
    if distance == "l1":
        return np.where(total > 0, np.abs(female_exposure - male_exposure) / safe, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = [np.where(share > 0, share * np.log2(2 * share), 0.0) for share in (female_exposure / safe, male_exposure / safe)]
    return np.where(total > 0, terms[0] + terms[1], 0.0)


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
                  position_weights: np.ndarray | None = None, distance: str = "l1") -> np.ndarray:
    """TExFAIR_k of many lists: shape (n_queries, n_cutoffs), NaN for empty lists.

    ``female_counts``, ``male_counts``: n_f(d), n_m(d); ``lengths``: |d| (tokens); all of shape
    (n_queries, depth), each query's documents in rank order; ``mask`` (same shape) marks the real
    documents (default: all). ``position_weights`` (shape (≥ depth,)) replaces γ^(i−1); ``distance``: see
    :func:`imbalance`.
    """
    (female, male, length), valid, _ = as_batch(
        {"female_counts": female_counts, "male_counts": male_counts, "lengths": lengths}, mask)
    if np.any(female + male > length):
        raise IrfairInputError(None, None, "expected each document's gendered word counts to be at most its length")
    safe_length = np.where(length > 0, length, 1.0)
    return texfair_from_shares(female / safe_length, male / safe_length, ((female + male) > 0).astype(np.float64), valid,
                               cutoffs, patience=patience, position_weights=position_weights, distance=distance)


def texfair_from_shares(female_share: np.ndarray, male_share: np.ndarray, representative: np.ndarray,
                        mask: np.ndarray | None = None, cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *,
                        patience: float = DEFAULT_PATIENCE, position_weights: np.ndarray | None = None,
                        distance: str = "l1") -> np.ndarray:
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
    delta = imbalance(ge_female, ge_male, distance)
    with np.errstate(invalid="ignore"):
        rbdf = value_at_depth(exposed, depth) / value_at_depth(attention, depth)
    return np.where(depth > 0, 1.0 - rbdf * delta, np.nan)


def texfair(female_counts: np.ndarray, male_counts: np.ndarray, lengths: np.ndarray, cutoff: int = 10, *,
            patience: float = DEFAULT_PATIENCE, position_weights: np.ndarray | None = None, distance: str = "l1") -> float:
    """TExFAIR_k of one ranked list; counts and lengths of shape (n_docs,) in rank order. NaN if empty."""
    female = single_list(female_counts, "female_counts")
    male = single_list(male_counts, "male_counts")
    length = single_list(lengths, "lengths")
    return float(texfair_batch(female, male, length, None, [cutoff], patience=patience,
                               position_weights=position_weights, distance=distance)[0, 0])


def _texfair_of_sums(attention: float, distance: str):
    """TExFAIR from the sums (GE_k(f), GE_k(m), Σ representative p_o), shape (n, 3), for attention Σ p_o."""
    def measure(sums: np.ndarray) -> np.ndarray:
        return 1.0 - sums[:, 2] / attention * imbalance(sums[:, 0], sums[:, 1], distance)
    return measure


def texfair_over_tie_orders(female_share: np.ndarray, male_share: np.ndarray, representative: np.ndarray, mask: np.ndarray,
                            ties: np.ndarray, cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *, patience: float = DEFAULT_PATIENCE,
                            position_weights: np.ndarray | None = None, distance: str = "l1", exact_limit: int = EXACT_LIMIT,
                            samples: int = SAMPLES, seed: int = 0, memo: Callable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """TExFAIR_k of lists whose tied positions have no order (the perfect run's equal grades): its expectation
    over the orders of each list's ties, every order equally likely (:mod:`.tie_orders`; exact up to
    ``exact_limit`` distinct orders, else the mean of ``samples`` orders drawn with a generator seeded by
    (``seed``, query row, cut-off)). Arguments as for :func:`texfair_from_shares` (the features of each
    document, not tie means); ``ties``: int labels, equal on the adjacent positions of a tie.

    Returns ``(values, standard_errors)``, each of shape (n_queries, n_cutoffs): NaN for an empty list, a
    standard error of 0 where the expectation is exact. ``memo`` (the audit's cache,
    :func:`irfair.cache.arrays.arrays_memo`): the two arrays are read from it under the digest of every input and of
    the code that computes them, instead of drawn again.
    """
    cuts = check_cutoffs(cutoffs)
    imbalance(np.zeros(1), np.zeros(1), distance)  # an unknown distance fails before any work
    (female, male, representative), valid, lengths = as_batch(
        {"female_share": female_share, "male_share": male_share, "representative": representative}, mask)
    ties = np.asarray(ties)
    weights = _weights(female.shape[1], position_weights, patience)
    shape = (female.shape[0], len(cuts))

    def compute() -> tuple[np.ndarray, np.ndarray]:
        values = np.full(shape, np.nan)
        errors = np.full(shape, np.nan)
        for row in range(female.shape[0]):
            n = int(lengths[row])
            features = np.stack([female[row, :n], male[row, :n], representative[row, :n]], axis=1)
            for column, cutoff in enumerate(cuts):
                depth = min(int(cutoff), n)
                if depth == 0:
                    continue
                measure = _texfair_of_sums(float(weights[:depth].sum()), distance)
                found = expected_over_tie_orders(features, ties[row, :n], weights[:depth], measure, exact_limit=exact_limit,
                                                 samples=samples, seed=(seed, row, int(cutoff)))
                values[row, column], errors[row, column] = found.value, found.standard_error
        return values, errors

    if memo is None:
        return compute()
    values, errors = memo("texfair", [female, male, representative, lengths, ties, weights],
                          (tuple(int(c) for c in cuts), distance, int(exact_limit), int(samples), seed), compute, [shape, shape])
    return values, errors
