"""Rank bias RaB and average rank bias ARaB (Rekabsaz & Schedl, "Do Neural Ranking Models Intensify
Gender Bias?", SIGIR 2020, arXiv 2005.00372, bias measurement framework).

For a document d and gender r ∈ {f, m} with word list G_r (default: the paper's 32 + 32 words,
``rekabsaz2020`` in :mod:`irfair.measures.gender_words`), n_r(d) = Σ_{w∈G_r} #⟨w, d⟩ counts the
occurrences of the gender's words in d. The document's gender magnitude is, by variant:

* ``tc`` (term count):        mag_r(d) = n_r(d)
* ``tf`` (log term frequency): mag_r(d) = ln(1 + n_r(d))
* ``bool`` (boolean):          mag_r(d) = 1 if n_r(d) > 0 else 0

For the ranked list d_1, d_2, ... of query q and cut-off t:

    qRaB_t^r(q) = (1/t) Σ_{i=1..t} mag_r(d_i)                        (mean magnitude in the top t)
    RaB_t(q)    = qRaB_t^m(q) − qRaB_t^f(q)                          (rank bias)
    ARaB_t(q)   = (1/t) Σ_{x=1..t} RaB_x(q)                          (average rank bias)

and a system's RaB_t / ARaB_t is the mean over queries (:func:`irfair.measures.aggregate.query_mean_ci`).

Sign: positive values mean the top of the list is more male than female, negative more female;
the direction of the paper's finding that "all models are strongly biased toward male", and the
difference its authors' released evaluation code takes (male minus female). The three variants are
the three that code computes per document. The authors report ``tf`` and ``bool``; irfair's audit shows
``tc`` and ``bool`` unless told otherwise (``RAB.with_options(variants=("tf", "bool"))`` in
:mod:`.ranking_bias`), and its values equal that code's to 3e-14 on the same tokens.

Choices where the paper is silent, documented and tested:

* A list shorter than t: the mean runs over the documents there are, i.e. RaB_t = RaB_n and
  ARaB_t = ARaB_n for a list of n < t documents (missing documents are not counted as
  gender-neutral ones). This is also what the authors' code does.
* ``tf`` uses the natural logarithm of 1 + n_r(d), the form of the authors' released code.
* An empty list has no rank bias: NaN (left out of the mean over queries and counted).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from ..errors import IrfairInputError
from .ranked import (
    as_batch,
    check_cutoffs,
    effective_depth,
    single_list,
    value_at_depth,
)

MagnitudeVariant = Literal["tc", "tf", "bool"]
MAGNITUDE_VARIANTS: tuple[str, ...] = ("tc", "tf", "bool")
DEFAULT_CUTOFFS = (5, 10, 20)


def gender_magnitude(counts: np.ndarray, variant: MagnitudeVariant = "tc") -> np.ndarray:
    """mag_r(d) of each document from n_r(d), the occurrences of one gender's words (any shape)."""
    counts = np.asarray(counts, dtype=np.float64)
    if variant == "tc":
        return counts.copy()
    if variant == "tf":
        return np.log1p(counts)
    if variant == "bool":
        return (counts > 0).astype(np.float64)
    raise IrfairInputError(None, None, f"expected a magnitude variant among {MAGNITUDE_VARIANTS}, got {variant!r}")


def _running_rank_bias(female_counts: np.ndarray, male_counts: np.ndarray, mask: np.ndarray | None,
                       variant: MagnitudeVariant) -> tuple[np.ndarray, np.ndarray]:
    """RaB_x(q) for every x = 1..depth (shape (n_queries, depth)) and the list lengths."""
    (female, male), valid, lengths = as_batch({"female_counts": female_counts, "male_counts": male_counts}, mask)
    difference = np.where(valid, gender_magnitude(male, variant) - gender_magnitude(female, variant), 0.0)
    ranks = np.arange(1, difference.shape[1] + 1, dtype=np.float64)
    return np.cumsum(difference, axis=1) / ranks, lengths


def rank_bias_batch(female_counts: np.ndarray, male_counts: np.ndarray, mask: np.ndarray | None = None,
                    cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *, variant: MagnitudeVariant = "tc") -> np.ndarray:
    """RaB_t(q) for many queries: array of shape (n_queries, n_cutoffs), NaN for empty lists.

    ``female_counts``, ``male_counts``: n_f(d) and n_m(d) of each query's documents in rank order,
    shape (n_queries, depth); ``mask`` (same shape) marks the real documents (default: all).
    """
    cuts = check_cutoffs(cutoffs)
    running, lengths = _running_rank_bias(female_counts, male_counts, mask, variant)
    return value_at_depth(running, effective_depth(lengths, cuts))


def average_rank_bias_batch(female_counts: np.ndarray, male_counts: np.ndarray, mask: np.ndarray | None = None,
                            cutoffs: Sequence[int] = DEFAULT_CUTOFFS, *, variant: MagnitudeVariant = "tc") -> np.ndarray:
    """ARaB_t(q) for many queries: array of shape (n_queries, n_cutoffs), NaN for empty lists.

    Inputs as for :func:`rank_bias_batch`.
    """
    cuts = check_cutoffs(cutoffs)
    running, lengths = _running_rank_bias(female_counts, male_counts, mask, variant)
    ranks = np.arange(1, running.shape[1] + 1, dtype=np.float64)
    depth = effective_depth(lengths, cuts)
    return value_at_depth(np.cumsum(running, axis=1) / ranks, depth)


def rank_bias(female_counts: np.ndarray, male_counts: np.ndarray, cutoff: int = 10, *,
              variant: MagnitudeVariant = "tc") -> float:
    """RaB_t(q) of one ranked list; counts of shape (n_docs,) in rank order. NaN for an empty list."""
    female = single_list(female_counts, "female_counts")
    male = single_list(male_counts, "male_counts")
    return float(rank_bias_batch(female, male, None, [cutoff], variant=variant)[0, 0])


def average_rank_bias(female_counts: np.ndarray, male_counts: np.ndarray, cutoff: int = 10, *,
                      variant: MagnitudeVariant = "tc") -> float:
    """ARaB_t(q) of one ranked list; counts of shape (n_docs,) in rank order. NaN for an empty list."""
    female = single_list(female_counts, "female_counts")
    male = single_list(male_counts, "male_counts")
    return float(average_rank_bias_batch(female, male, None, [cutoff], variant=variant)[0, 0])
