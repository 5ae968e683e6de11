"""Resampling over queries, the one place every CI, paired test and correction of an audit comes from.

A **bootstrap resample** of n queries is one row of ``np.random.default_rng(seed).integers(0, n, size=(B, n))``:
query positions drawn with replacement. It is used as a row of counts (how often each query was drawn,
:func:`bootstrap_weights`), so that a resampled mean is ``weights @ values / n`` and a resampled OLS slope a
few weighted sums, for a whole matrix of systems, measures or pairs at once.

A **permutation** of a paired comparison is one row of :func:`sign_flips`: per query, +1 keeps the two
systems' values and −1 swaps them, which flips the sign of the per-query difference. The rows are drawn
over the audit's query positions, so one permutation swaps the same queries for every pair and measure;
a query that a pair lacks contributes nothing. For a mean, the statistic is the sum of the differences;
for GSR, GSR_a − GSR_b is the OLS slope of the differences g_q(L_a) − g_q(L_b) on g(q) (Fabris et al.,
Eq. 3, is linear in g_q(L)), i.e. Σ (g(q) − ḡ)(d_q) / Σ (g(q) − ḡ)², so swapping a query's two lists flips
its term; the flips act on the centred differences d_q − d̄, which leaves the statistic as it is but tests equal
slopes whatever the two systems' mean genderedness (:func:`paired_slope_tests`). The two-sided p-value is
(1 + #{|T*| ≥ |T|}) / (B + 1) (Phipson & Smyth 2010: never 0); :func:`decide` makes it exact where the 2^n sign
patterns are within the budget, and controls its Monte-Carlo error where they are not.

Corrections over a family of m tests (NaN p-values are not part of the family and stay NaN):
``bonferroni`` min(1, m·p); ``holm`` step-down, p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)); ``bh``
(Benjamini–Hochberg) step-up, p̃_(i) = min_{j ≥ i} min(1, m p_(j) / j); ``none`` p.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import IrfairInputError

CORRECTIONS = ("holm", "bonferroni", "bh", "none")
# the corrections whose smallest adjusted p over m tests is m times the smallest p (BH's and none's: itself)
FAMILY_WISE = ("holm", "bonferroni")
TEST_NAME = "paired randomization"
# statistics whose |T*| is within this share of Σ|terms| of |T| count as ties (floating-point sums in another order)
_TIE = 1e-9
_MAX_CELLS = 1 << 22  # resamples × columns per block of a product (32 MiB of float64)


def bootstrap_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """Bootstrap resamples of ``n`` query positions, int array of shape (n_resamples, n), from ``seed``."""
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def bootstrap_weights(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """The resamples of :func:`bootstrap_indices` as counts: float array (n_resamples, n), row b holding how
    often each query was drawn in resample b (each row sums to n)."""
    indices = bootstrap_indices(n, n_resamples, seed)
    offsets = indices + n * np.arange(n_resamples)[:, None]
    return np.bincount(offsets.ravel(), minlength=n_resamples * n).reshape(n_resamples, n).astype(np.float64)


def sign_flips(n: int, n_permutations: int, seed) -> np.ndarray:
    """Random swaps of ``n`` paired queries: float array (n_permutations, n) of ±1, from ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(n_permutations, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0


def percentile_ci(samples: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of ``samples`` (shape (B,) or (B, k)) over its finite values;
    NaN where a column has none. Returns ``(low, high)``, scalars' arrays of shape () or (k,)."""
    samples = np.asarray(samples, dtype=np.float64)
    tail = (1 - level) / 2 * 100
    finite = np.isfinite(samples)
    if len(samples) and finite.all():
        low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
        return low, high
    shape = samples.shape[1:]
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    has = finite.any(axis=0)
    if np.any(has):
        with np.errstate(invalid="ignore"):
            values = np.nanpercentile(samples[:, has] if shape else samples, [tail, 100 - tail], axis=0)
        if shape:
            low[has], high[has] = values
        else:
            low, high = values
    return low, high


def slopes_from_weights(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """OLS slopes of each row of ``y`` (shape (k, n)) on ``x`` (n,) under each row of ``weights`` (B, n):
    shape (B, k); NaN where a resample's x has (numerically) no spread."""
    x = np.asarray(x, dtype=np.float64)
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    total = weights.sum(axis=1)
    mean_x = weights @ x / total
    sxx = weights @ (x * x) - total * mean_x**2
    sxy = weights @ (y * x).T - (total * mean_x)[:, None] * (weights @ y.T) / total[:, None]
    degenerate = sxx <= 1e-12 * np.maximum(weights @ (x * x), 1e-300)
    with np.errstate(invalid="ignore", divide="ignore"):
        slopes = sxy / np.where(degenerate, 1.0, sxx)[:, None]
    slopes[degenerate] = np.nan
    return slopes


def slope_ci(x: np.ndarray, y: np.ndarray, n_bootstrap: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the OLS slope of y on x (both shape (n,)); NaN with n < 3 or no resamples."""
    if n_bootstrap <= 0 or len(x) < 3:
        return float("nan"), float("nan")
    low, high = percentile_ci(slopes_from_weights(x, y[None, :], bootstrap_weights(len(x), n_bootstrap, seed))[:, 0], level)
    return float(low), float(high)


@dataclass(frozen=True)
class MeanCIs:
    """Means over queries of k rows of values, each over its finite values, with percentile bootstrap CIs
    (arrays of shape (k,); ``n_queries``: finite values per row)."""

    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_queries: np.ndarray


def mean_cis(values: np.ndarray, n_bootstrap: int, seed: int, level: float = 0.95) -> MeanCIs:
    """Mean of each row of ``values`` (shape (k, n); NaN = no value) over its finite values, with a percentile
    bootstrap CI drawn over those values (:func:`bootstrap_weights` of their count, so rows with the same
    queries share resamples). CI NaN with fewer than 2 values or no resamples."""
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    finite = np.isfinite(values)
    counts = finite.sum(axis=1)
    filled = np.where(finite, values, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = filled.sum(axis=1) / counts
    low, high = np.full(len(values), np.nan), np.full(len(values), np.nan)
    if n_bootstrap > 0:
        for mask, rows in _groups(finite):
            n = int(mask.sum())
            if n < 2:
                continue
            weights = bootstrap_weights(n, n_bootstrap, seed)
            resampled = weights @ filled[rows][:, mask].T / n
            low[rows], high[rows] = percentile_ci(resampled, level)
    return MeanCIs(means, low, high, counts)


def jackknife_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """OLS slope of y on x (shape (n,)) with each query left out in turn: shape (n,), NaN where the
    remaining x has no spread (needs n ≥ 3)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(x)
    if n < 3:
        return np.full(n, np.nan)
    m = n - 1
    sx, sy, sxx, sxy = x.sum() - x, y.sum() - y, (x * x).sum() - x * x, (x * y).sum() - x * y
    denominator = sxx - sx * sx / m
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (sxy - sx * sy / m) / denominator
    out[denominator <= 1e-12 * np.maximum(sxx, 1e-300)] = np.nan
    return out


@dataclass(frozen=True)
class PairedTests:
    """k paired comparisons: ``delta`` (a − b over the queries both have), its percentile bootstrap CI,
    the two-sided randomization p-value and the number of queries (arrays of shape (k,))."""

    delta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p: np.ndarray
    n_queries: np.ndarray
    terms: np.ndarray | None = None  # (k, n): the per-query terms of each statistic, for :func:`decide`
    usable: np.ndarray | None = None  # (k,): the rows that can be compared
    wide_low: np.ndarray | None = None  # (k,): the CI at ``simultaneous`` level (slope tests), else None
    wide_high: np.ndarray | None = None


def _paired_differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a − b (shape (k, n)), with differences that are floating-point noise around 0 (within 1e-12 of the values'
    size, and of 1 for values near 0) made exactly 0: two systems equal in exact arithmetic then do not differ on
    every CPU alike, instead of being tested on the last bits their BLAS kernels leave (the toy collections' N
    against the perfect run, whose g_q(L) are all 0 up to 1e-17)."""
    a, b = np.atleast_2d(np.asarray(a, dtype=np.float64)), np.atleast_2d(np.asarray(b, dtype=np.float64))
    differences = a - b
    with np.errstate(invalid="ignore"):
        differences[np.abs(differences) <= 1e-12 * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))] = 0.0
    return differences


def paired_mean_tests(a: np.ndarray, b: np.ndarray, *, n_bootstrap: int, n_permutations: int, seed: int,
                      level: float = 0.95, p_values: bool = True) -> PairedTests:
    """Mean over queries of a − b for each row of ``a`` and ``b`` (shape (k, n), columns = the audit's query
    positions, NaN where a system has no value), over the queries both have, with the paired bootstrap CI
    and the paired randomization test (see the module docstring)."""
    differences = _paired_differences(a, b)
    # the mean difference and its CI are mean_cis of the differences (the queries both have)
    summary = mean_cis(differences, n_bootstrap, seed, level)
    terms = np.where(np.isfinite(differences), differences, 0.0)
    p = randomization_p(terms, n_permutations if p_values else 0, seed)
    p[summary.n_queries == 0] = np.nan
    return PairedTests(summary.mean, summary.ci_low, summary.ci_high, p, summary.n_queries, terms, summary.n_queries > 0)


def paired_slope_tests(x: np.ndarray, a: np.ndarray, b: np.ndarray, *, n_bootstrap: int, n_permutations: int, seed: int,
                       level: float = 0.95, p_values: bool = True, simultaneous: float | None = None) -> PairedTests:
    """GSR_a − GSR_b for each row of ``a`` and ``b`` (g_q(L) of two systems, shape (k, n), NaN where a query is
    not used) on ``x`` = g(q) (shape (n,)): the OLS slope of the per-query differences d_q on g(q) over the
    queries both use, with the paired bootstrap CI (resampling those queries) and the randomization test of
    H0: "the slopes are equal", whatever the two systems' mean genderedness. It flips the signs of the centred
    differences d_q − d̄: the statistic Σ (g(q) − ḡ)(d_q − d̄) equals Σ (g(q) − ḡ) d_q (as Σ (g(q) − ḡ) = 0), but a
    difference of intercepts no longer widens the permutation distribution (flipping d_q itself tests "the two
    lists are exchangeable per query": with intercepts apart it kept its level at 0.5 % instead of 5 %).
    NaN with fewer than 3 common queries."""
    x = np.asarray(x, dtype=np.float64)
    differences = _paired_differences(a, b)
    both = np.isfinite(differences) & np.isfinite(x)[None, :]
    counts = both.sum(axis=1)
    xs = np.where(both, x[None, :], 0.0)
    ds = np.where(both, differences, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = np.where(both, xs - (xs.sum(axis=1) / counts)[:, None], 0.0)
        sxx = (centred * centred).sum(axis=1)
        delta = (centred * ds).sum(axis=1) / sxx
        spread = np.where(both, ds - (ds.sum(axis=1) / counts)[:, None], 0.0)  # centred differences
        # two systems whose lists differ by a constant on every query have no spread: what is left is noise
        spread[np.abs(spread) <= 1e-12 * np.maximum(1.0, np.abs(ds).max(axis=1, keepdims=True))] = 0.0
        terms = centred * spread
    usable = (counts >= 3) & (sxx > 0)
    delta[~usable] = np.nan
    p = randomization_p(terms, n_permutations if p_values else 0, seed)
    p[~usable] = np.nan
    low, high = np.full(len(terms), np.nan), np.full(len(terms), np.nan)
    wide_low, wide_high = np.full(len(terms), np.nan), np.full(len(terms), np.nan)
    if n_bootstrap > 0:
        for mask, rows in _groups(both):
            rows = rows[usable[rows]]
            if len(rows) == 0:
                continue
            weights = bootstrap_weights(int(mask.sum()), n_bootstrap, seed)
            slopes = slopes_from_weights(x[mask], differences[rows][:, mask], weights)
            low[rows], high[rows] = percentile_ci(slopes, level)
            if simultaneous is not None:
                wide_low[rows], wide_high[rows] = percentile_ci(slopes, simultaneous)
    wide = (wide_low, wide_high) if simultaneous is not None else (None, None)
    return PairedTests(delta, low, high, p, counts, np.where(usable[:, None], terms, 0.0), usable, *wide)


def randomization_p(terms: np.ndarray, n_permutations: int, seed: int) -> np.ndarray:
    """Two-sided p of T = Σ_q terms[:, q] for each row of ``terms`` (shape (k, n)) against T* = Σ_q s_q terms[:, q]
    under the :func:`sign_flips` s (one matrix for all rows): (1 + #{|T*| ≥ |T|}) / (B + 1). NaN when B = 0."""
    terms = np.atleast_2d(np.asarray(terms, dtype=np.float64))
    if n_permutations <= 0 or len(terms) == 0:
        return np.full(len(terms), np.nan)
    return (_mc_counts(terms, n_permutations, seed) + 1) / (n_permutations + 1)


def adjust_p(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family of tests (shape (m,); see the module docstring for the methods)."""
    if method not in CORRECTIONS:
        raise IrfairInputError(None, None, f"correction must be one of {', '.join(CORRECTIONS)}, not {method!r}")
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = len(finite)
    if m == 0:
        return out
    values = p[finite]
    if method == "none":
        adjusted = values
    elif method == "bonferroni":
        adjusted = np.minimum(1.0, values * m)
    else:
        order = np.argsort(values, kind="stable")
        ranked = values[order]
        if method == "holm":
            steps = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
        else:
            steps = np.minimum.accumulate(np.minimum(1.0, ranked * m / np.arange(1, m + 1))[::-1])[::-1]
        adjusted = np.empty(m)
        adjusted[order] = steps
    out[finite] = adjusted
    return out


def _groups(mask: np.ndarray):
    """``(columns, rows)`` for each distinct row of the boolean matrix ``mask`` (rows sharing their queries)."""
    if len(mask) == 0:
        return
    unique, inverse = np.unique(mask, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    for i, columns in enumerate(unique):
        yield columns, np.flatnonzero(inverse == i)


# --- decisions a reader acts on, exact or with their Monte-Carlo error under control --------------------------------
DIFFERS, NO_DIFFERENCE, UNDECIDED, CANNOT_DIFFER, NOT_COMPARED = (
    "differs", "does not differ", "undecided", "cannot differ", "not compared")
DECISIONS = (DIFFERS, NO_DIFFERENCE, UNDECIDED, CANNOT_DIFFER, NOT_COMPARED)
MAX_ROUNDS = 64  # permutations are added in rounds of B, up to 64 B, while a decision's MC interval holds alpha
MC_Z = 3.0  # a decision is stable when p ± 3 standard errors, corrected, stays on one side of alpha


@dataclass(frozen=True)
class Decisions:
    """A family of k paired tests decided at α: two-sided ``p`` (exact, or Monte Carlo with standard error ``p_se``;
    0 when exact), ``p_adjusted`` over the family, the ``n_permutations`` each p rests on (2^n when enumerated),
    ``exact`` (bool) and ``decision`` (one of :data:`DECISIONS`; object array), all of shape (k,)."""

    p: np.ndarray
    p_se: np.ndarray
    p_adjusted: np.ndarray
    n_permutations: np.ndarray
    exact: np.ndarray
    decision: np.ndarray


def _exact_counts(terms: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, int]:
    """#{patterns s: |Σ s_q terms_q| ≥ |T|} over all 2^n sign patterns of the n queries of ``mask`` (rows of ``terms``
    sharing those queries), and 2^n."""
    n = int(mask.sum())
    patterns = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64) * 2.0 - 1.0
    part = terms[:, mask]
    observed = np.abs(part.sum(axis=1))
    threshold = observed - _TIE * np.abs(part).sum(axis=1)
    return (np.abs(patterns @ part.T) >= threshold).sum(axis=0), 2**n


def _round_flips(n: int, n_permutations: int, seed: int, round_: int) -> np.ndarray:
    """The sign flips of one round (round 0: :func:`sign_flips` of ``seed``; later rounds from (seed, round)). Drawing
    them is most of a round's cost, and every family of an audit uses the same rounds: up to 1 MB each they are kept
    (as ±1 bytes) for the next family, larger ones drawn again."""
    if n * n_permutations <= 2**20:
        return _kept_flips(n, n_permutations, seed, round_).astype(np.float64)
    return sign_flips(n, n_permutations, seed if round_ == 0 else [seed, round_])


@lru_cache(maxsize=MAX_ROUNDS)  # at most 64 MB
def _kept_flips(n: int, n_permutations: int, seed: int, round_: int) -> np.ndarray:
    flips = sign_flips(n, n_permutations, seed if round_ == 0 else [seed, round_]).astype(np.int8)
    flips.flags.writeable = False
    return flips


def _mc_counts(terms: np.ndarray, n_permutations: int, seed: int, round_: int = 0) -> np.ndarray:
    """#{|T*| ≥ |T|} over the ``n_permutations`` random sign flips of round ``round_`` of ``seed``, the same flips
    for every row (and every family of tests on the same queries)."""
    flips = _round_flips(terms.shape[1], n_permutations, seed, round_)
    observed = np.abs(terms.sum(axis=1))
    threshold = observed - _TIE * np.abs(terms).sum(axis=1)
    count = np.zeros(len(terms), dtype=np.int64)
    step = max(1, _MAX_CELLS // n_permutations)
    for start in range(0, len(terms), step):
        count[start:start + step] = (np.abs(flips @ terms[start:start + step].T) >= threshold[start:start + step]).sum(axis=0)
    return count


def decide(terms: np.ndarray, usable: np.ndarray, n_permutations: int, seed: int, correction: str, alpha: float) -> Decisions:
    """Decide a family of paired randomization tests (rows of ``terms``, shape (k, n): the per-query terms whose sum is
    the statistic, 0 where a pair lacks a query; ``usable``: rows that can be compared at all).

    A row whose 2^n sign patterns (n = its queries) number at most ``n_permutations`` is enumerated: its p is exact.
    Otherwise p = (1 + count) / (1 + B) from B random flips (the first B from ``seed``, as :func:`randomization_p`),
    with MC standard error √(p(1 − p)/B); while a decision is unstable — p ± :data:`MC_Z` standard errors, corrected
    over the family, fall on both sides of α — B more flips are drawn for it, up to :data:`MAX_ROUNDS` · B. Then:
    *not compared* (no usable row), *cannot differ* (even the smallest p the test can give, corrected, is not below
    α: too few queries, or too few permutations), *undecided* (still unstable at the cap), else *differs* or *does
    not differ*."""
    terms = np.atleast_2d(np.asarray(terms, dtype=np.float64))
    k = len(terms)
    usable = np.asarray(usable, dtype=bool) & np.isfinite(terms).all(axis=1)
    p, se = np.full(k, np.nan), np.zeros(k)
    counts, totals = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    exact = np.zeros(k, dtype=bool)
    decision = np.full(k, NOT_COMPARED, dtype=object)
    if n_permutations <= 0 or k == 0:
        return Decisions(p, se, np.full(k, np.nan), totals, exact, decision)
    present = (terms != 0) & usable[:, None]
    sizes = present.sum(axis=1)
    for mask, rows in _groups(present):
        rows = rows[usable[rows]]
        if len(rows) and 2 ** int(mask.sum()) <= n_permutations:
            counts[rows], total = _exact_counts(terms[rows], mask)
            totals[rows], exact[rows] = total, True
    random_rows = np.flatnonzero(usable & ~exact)
    if len(random_rows):
        counts[random_rows] = _mc_counts(terms[random_rows], n_permutations, seed)
        totals[random_rows] = n_permutations

    def estimate():
        p[exact] = counts[exact] / totals[exact]
        mc = usable & ~exact
        p[mc] = (counts[mc] + 1) / (totals[mc] + 1)
        se[mc] = np.sqrt(p[mc] * (1 - p[mc]) / totals[mc])

    def unstable() -> np.ndarray:
        """Rows whose p ± MC_Z standard errors, corrected over the family, lie on both sides of α."""
        low, high = (adjust_p(np.clip(p + sign * MC_Z * se, 0, 1), correction) for sign in (-1, 1))
        return usable & ~exact & ((low < alpha) != (high < alpha))

    estimate()
    for round_ in range(1, MAX_ROUNDS):
        rows = np.flatnonzero(unstable())
        if not len(rows):
            break
        counts[rows] += _mc_counts(terms[rows], n_permutations, seed, round_)
        totals[rows] += n_permutations
        estimate()
    adjusted = adjust_p(p, correction)
    # the smallest p each test can give (exact: the identity and its mirror, 2 of 2^n; MC: 1 / (1 + most flips)),
    # corrected as if it were the smallest of the family (Holm and Bonferroni multiply it by m, BH and none keep it)
    floor = np.where(exact, 2.0 / np.maximum(totals, 1), 1.0 / (1.0 + MAX_ROUNDS * n_permutations))
    best = np.minimum(1.0, floor * (int(usable.sum()) if correction in FAMILY_WISE else 1))
    decision[usable] = np.where(adjusted[usable] < alpha, DIFFERS, NO_DIFFERENCE)
    decision[unstable()] = UNDECIDED
    decision[usable & (best >= alpha) & (sizes > 0)] = CANNOT_DIFFER
    decision[usable & (sizes == 0)] = NO_DIFFERENCE  # identical on every query: p = 1, nothing to decide
    return Decisions(p, se, adjusted, totals, exact, decision)
