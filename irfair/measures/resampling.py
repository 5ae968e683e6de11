"""Resampling over queries, the one place every CI, paired test and correction of an audit comes from.

One system's mean has an expanded BCa bootstrap CI (:mod:`irfair.measures.intervals`); one system's GSR, and every
paired difference, the interval that inverts a sign-flip test (:mod:`irfair.measures.inverted_intervals`): the
paired tests' CIs are the δ their own test, on its own flips, does not reject, so a CI excludes 0 exactly when the
unadjusted test rejects.

The null hypothesis of a paired test is that each query's difference is symmetric about 0 (for GSR: each query's
residual about the difference of slopes) — true when the two systems are exchangeable per query, whatever each
query's spread. Mean-zero differences that are strongly skewed are outside it: with skewness 2 the test rejects at
0.073, 0.069 and 0.057 at 20, 50 and 93 queries instead of 0.05. So a mean's decision also asks the skew-corrected
sign-flip test (:mod:`irfair.measures.skew_corrected`, on the same flips) to reject: *differs* needs both, a
difference only the randomization test shows is *undecided*, and a mean's interval is widened by the δ the
corrected test keeps. The p-values stay the randomization test's (``scripts/bench_skew.py`` measures both tests,
``scripts/bench_calibration.py`` the decisions).

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

import threading
from dataclasses import dataclass

import numpy as np

from ..errors import IrfairInputError
from .intervals import (  # noqa: F401  (the bootstrap side of resampling, imported from here by older callers)
    MeanCIs,
    _groups,
    bca_interval,
    bootstrap_indices,
    bootstrap_weights,
    jackknife_slopes,
    mean_cis,
    percentile_ci,
    slope_ci,
    slopes_from_weights,
)
from .inverted_intervals import all_sign_patterns, exceeding_flips, flip_products, inverted_intervals
from .names import CORRECTIONS
from .skew_corrected import corrected_counts, corrected_intervals, exact_corrected_counts

# the corrections whose smallest adjusted p over m tests is m times the smallest p (BH's and none's: itself)
FAMILY_WISE = ("holm", "bonferroni")
TEST_NAME = "paired randomization"
# statistics whose |T*| is within this share of Σ|terms| of |T| count as ties (floating-point sums in another order)
_TIE = 1e-9
_MAX_CELLS = 1 << 22  # resamples × columns per block of a product (32 MiB of float64)


def sign_flips(n: int, n_permutations: int, seed) -> np.ndarray:
    """Random swaps of ``n`` paired queries: float array (n_permutations, n) of ±1, from ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(n_permutations, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0


@dataclass(frozen=True)
class PairedTests:
    """k paired comparisons: ``delta`` (a − b over the queries both have), its CI (the randomization test inverted),
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
    first_counts: np.ndarray | None = None  # (k,): the first round's counts where the CI computed them, else -1
    skew_corrected: bool = False  # mean differences: decided with the skew-corrected test too (decide's n_queries)


def paired_differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
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
    positions, NaN where a system has no value), over the queries both have, with the randomization test and the
    interval that inverts it (:func:`inverted_cis`; none when ``n_bootstrap`` is 0)."""
    differences = paired_differences(a, b)
    present = np.isfinite(differences)
    counts = present.sum(axis=1)
    terms = np.where(present, differences, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = terms.sum(axis=1) / counts
    first = np.full(len(terms), -1, dtype=np.int64)
    low, high = inverted_cis(terms, present.astype(np.float64), present, n_bootstrap, n_permutations, seed, level,
                             counts=first)
    if n_bootstrap > 0 and len(terms):  # with the δ the skew-corrected test keeps beyond them (its decision's interval)
        flips_count = n_permutations if n_permutations > 0 else n_bootstrap
        low, high = corrected_intervals(terms, present, _round_flips(terms.shape[1], flips_count, seed, 0), flips_count,
                                        low, high, level)
    p = randomization_p(terms, n_permutations if p_values else 0, seed)
    p[counts == 0] = np.nan
    return PairedTests(delta, low, high, p, counts, terms, counts > 0, first_counts=first, skew_corrected=True)


def inverted_cis(terms: np.ndarray, load: np.ndarray, present: np.ndarray, n_bootstrap: int, n_permutations: int,
                   seed: int, level: float, inflation: float = 1.0,
                   counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The intervals of :func:`~irfair.measures.inverted_intervals.inverted_intervals` on the test's own flips (the
    first round of :func:`decide`: exact where the 2^n patterns of a row's queries fit in ``n_permutations``), so an
    interval excludes 0 exactly when the unadjusted test rejects; with ``n_permutations`` 0, on ``n_bootstrap``
    flips of ``seed``. NaN throughout when ``n_bootstrap`` is 0 (no intervals asked for). ``counts``: filled with
    the first round's counts of the rows inverted on random flips (for :func:`decide`), when there is a test."""
    k = len(np.atleast_2d(terms))
    if n_bootstrap <= 0 or k == 0:
        return np.full(k, np.nan), np.full(k, np.nan)
    flips_count = n_permutations if n_permutations > 0 else n_bootstrap
    flips = _round_flips(np.atleast_2d(terms).shape[1], flips_count, seed, 0)
    return inverted_intervals(terms, load, present, flips, flips_count, level, _TIE, inflation,
                              counts if n_permutations > 0 else None)


def wild_slope_ci(x: np.ndarray, y: np.ndarray, n_bootstrap: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    """One system's GSR CI: the OLS slope of y on x (shape (n,)) with the interval that inverts the wild bootstrap
    test of H0 "the slope is δ" — Rademacher signs on the restricted residuals (y − ȳ) − δ (x − x̄), ``n_bootstrap``
    flips of ``seed`` (all 2^n patterns when they fit), each residual multiplied by √(n/(n − 1)) as HC1 does (the
    restricted fit estimated the intercept: unscaled, the flips' spread is the errors' shrunk by 1 − 1/n, and the
    interval covered 0.937 instead of 0.95 at 20 heteroscedastic queries; scaled, 0.949, scripts/bench_calibration.py).
    A query far from ḡ may be noisier. NaN with n < 3, no spread in x or no flips."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if n_bootstrap <= 0 or len(x) < 3 or np.ptp(x) == 0:
        return float("nan"), float("nan")
    centred = x - x.mean()
    low, high = inverted_cis((centred * (y - y.mean()))[None, :], (centred * centred)[None, :], np.ones((1, len(x)), dtype=bool),
                             n_bootstrap, 0, seed, level, np.sqrt(len(x) / (len(x) - 1)))  # n_bootstrap flips of seed
    return float(low[0]), float(high[0])


def paired_slope_tests(x: np.ndarray, a: np.ndarray, b: np.ndarray, *, n_bootstrap: int, n_permutations: int, seed: int,
                       level: float = 0.95, p_values: bool = True, simultaneous: float | None = None) -> PairedTests:
    """GSR_a − GSR_b for each row of ``a`` and ``b`` (g_q(L) of two systems, shape (k, n), NaN where a query is
    not used) on ``x`` = g(q) (shape (n,)): the OLS slope of the per-query differences d_q on g(q) over the
    queries both use, with the randomization test of H0: "the slopes are equal", whatever the two systems' mean
    genderedness, and the interval that inverts it (:func:`inverted_cis`; ``simultaneous``: also at that level).
    The test flips the signs of the centred differences d_q − d̄: the statistic Σ (g(q) − ḡ)(d_q − d̄) equals
    Σ (g(q) − ḡ) d_q (as Σ (g(q) − ḡ) = 0), but a difference of intercepts no longer widens the permutation
    distribution (flipping d_q itself tests "the two lists are exchangeable per query": with intercepts apart it
    kept its level at 0.5 % instead of 5 %). NaN with fewer than 3 common queries."""
    x = np.asarray(x, dtype=np.float64)
    differences = paired_differences(a, b)
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
    # g(q) with no spread (equal values leave sums of ~1e-17, not 0, once centred): no slope
    usable = (counts >= 3) & (sxx > 1e-12 * np.maximum((xs * xs).sum(axis=1), 1e-300))
    delta[~usable] = np.nan
    p = randomization_p(terms, n_permutations if p_values else 0, seed)
    p[~usable] = np.nan
    kept = np.where(usable[:, None], terms, 0.0)
    load = np.where(usable[:, None], centred * centred, 0.0)
    first = np.full(len(kept), -1, dtype=np.int64)
    low, high = inverted_cis(kept, load, both & usable[:, None], n_bootstrap, n_permutations, seed, level, counts=first)
    wide_low, wide_high = (inverted_cis(kept, load, both & usable[:, None], n_bootstrap, n_permutations, seed, simultaneous)
                           if simultaneous is not None else (None, None))
    return PairedTests(delta, low, high, p, counts, kept, usable, wide_low, wide_high, first)


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


# --- decisions a reader acts on, exact or with their Monte-Carlo error under control --------------------------------
DIFFERS, NO_DIFFERENCE, UNDECIDED, CANNOT_DIFFER, NOT_COMPARED = (
    "differs", "does not differ", "undecided", "cannot differ", "not compared")
DECISIONS = (DIFFERS, NO_DIFFERENCE, UNDECIDED, CANNOT_DIFFER, NOT_COMPARED)
MAX_ROUNDS = 64  # permutations are added in rounds of B, up to 64 B, while a decision's MC interval holds alpha
MC_Z = 3.0  # a decision is stable when p ± 3 standard errors, corrected, stays on one side of alpha


def rejects(p: np.ndarray | float, alpha: float) -> np.ndarray | bool:
    """Whether a (corrected) p rejects at ``alpha``: p < α, never for a NaN p (no test). The one place the rule is
    written; a decision also asks that it be stable (:func:`decide`)."""
    with np.errstate(invalid="ignore"):
        found = np.isfinite(p) & (np.asarray(p) < alpha)
    return bool(found) if np.ndim(found) == 0 else found


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
    patterns = all_sign_patterns(n)
    part = terms[:, mask]
    return exceeding_flips(part, (patterns @ part.T).T, _TIE), 2**n


def _round_flips(n: int, n_permutations: int, seed: int, round_: int) -> np.ndarray:
    """The sign flips of one round as ±1 bytes, shape (n_permutations, n) (round 0: :func:`sign_flips` of ``seed``;
    later rounds from (seed, round)). Drawing them is most of a round's cost, and every family of an audit uses the
    same rounds: they are kept for the next family, the most recently used first, up to :data:`_KEPT_BYTES`
    (round 0 of MS MARCO's 6,980 queries at 10,000 flips: 70 MB; as float64 it would be 558 MB)."""
    key = (n, n_permutations, seed, round_)
    with _KEPT_LOCK:
        flips = _KEPT.pop(key, None)
        if flips is not None:
            _KEPT[key] = flips
            return flips
    rng = np.random.default_rng(seed if round_ == 0 else [seed, round_])
    flips = rng.integers(0, 2, size=(n_permutations, n), dtype=np.int8)  # the draws of sign_flips
    flips *= 2
    flips -= 1
    flips.flags.writeable = False
    with _KEPT_LOCK:
        _KEPT[key] = flips
        while sum(kept.nbytes for kept in _KEPT.values()) > _KEPT_BYTES and len(_KEPT) > 1:
            _KEPT.pop(next(iter(_KEPT)))
    return flips


_KEPT_BYTES = 1 << 28
_KEPT: dict[tuple, np.ndarray] = {}  # insertion order = least recently used first
_KEPT_LOCK = threading.Lock()


def _mc_counts(terms: np.ndarray, n_permutations: int, seed: int, round_: int = 0) -> np.ndarray:
    """#{|T*| ≥ |T|} over the ``n_permutations`` random sign flips of round ``round_`` of ``seed``, the same flips
    for every row (and every family of tests on the same queries)."""
    flips = _round_flips(terms.shape[1], n_permutations, seed, round_)
    count = np.zeros(len(terms), dtype=np.int64)
    step = max(1, _MAX_CELLS // n_permutations)
    for start in range(0, len(terms), step):
        block = terms[start:start + step]
        count[start:start + step] = exceeding_flips(block, flip_products(flips, block).T, _TIE)
    return count


def decide(terms: np.ndarray, usable: np.ndarray, n_permutations: int, seed: int, correction: str, alpha: float,
           first_counts: np.ndarray | None = None, n_queries: np.ndarray | None = None) -> Decisions:
    """Decide a family of paired randomization tests (rows of ``terms``, shape (k, n): the per-query terms whose sum is
    the statistic, 0 where a pair lacks a query; ``usable``: rows that can be compared at all).

    A row whose 2^n sign patterns (n = its queries) number at most ``n_permutations`` is enumerated: its p is exact.
    Otherwise p = (1 + count) / (1 + B) from B random flips (the first B from ``seed``, as :func:`randomization_p`),
    with MC standard error √(p(1 − p)/B); while a decision is unstable — p ± :data:`MC_Z` standard errors, corrected
    over the family, fall on both sides of α — B more flips are drawn for it, up to :data:`MAX_ROUNDS` · B. Then:
    *not compared* (no usable row), *cannot differ* (even the smallest p the test can give, corrected, is not below
    α: too few queries, or too few permutations), *undecided* (still unstable at the cap), else *differs* or *does
    not differ*. ``first_counts`` (k,): a row's count on the first B flips where it is known already (the interval
    that inverts the test computed it: :attr:`PairedTests.first_counts`), −1 where not.

    ``n_queries`` (k,), for mean differences (``terms`` = the differences): each row is also tested by the
    skew-corrected sign-flip test (:mod:`irfair.measures.skew_corrected`) on the same flips, corrected over the
    family alike, and *differs* asks both to reject (stably); where the randomization test rejects and the
    corrected one does not, the decision is *undecided* (the differences' skewness leaves it open). ``p`` and
    ``p_adjusted`` stay the randomization test's."""
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
    skewed = n_queries is not None
    if skewed:
        n_queries = np.asarray(n_queries)
        counts_c, p_c, se_c = np.zeros(k, dtype=np.int64), np.full(k, np.nan), np.zeros(k)
    for mask, rows in _groups(present):
        rows = rows[usable[rows]]
        if len(rows) and 2 ** int(mask.sum()) <= n_permutations:
            counts[rows], total = _exact_counts(terms[rows], mask)
            totals[rows], exact[rows] = total, True
            if skewed:
                counts_c[rows] = exact_corrected_counts(terms[rows], n_queries[rows], mask)[0]

    def round_counts(rows: np.ndarray, round_: int) -> np.ndarray:
        """The randomization test's counts of ``rows`` on the flips of ``round_`` (for a mean, with the corrected
        test's, added to ``counts_c``, from the same products)."""
        if not skewed:
            return _mc_counts(terms[rows], n_permutations, seed, round_)
        corrected, plain = corrected_counts(terms[rows], n_queries[rows],
                                            _round_flips(terms.shape[1], n_permutations, seed, round_), _TIE)
        counts_c[rows] += corrected
        return plain

    random_rows = np.flatnonzero(usable & ~exact)
    if len(random_rows):
        given = np.full(k, -1, dtype=np.int64) if first_counts is None else np.asarray(first_counts)
        known = random_rows[given[random_rows] >= 0]
        # the products of every row for the corrected test; of the rows the interval did not count, for the other
        fresh = random_rows if skewed else random_rows[given[random_rows] < 0]
        if len(fresh):
            counts[fresh] = round_counts(fresh, 0)
        counts[known] = given[known]  # the first round's count, where the interval computed it
        totals[random_rows] = n_permutations

    def estimate():
        mc = usable & ~exact
        for found, errors, counted in ((p, se, counts), *(((p_c, se_c, counts_c),) if skewed else ())):
            found[exact] = counted[exact] / totals[exact]
            found[mc] = (counted[mc] + 1) / (totals[mc] + 1)
            errors[mc] = np.sqrt(found[mc] * (1 - found[mc]) / totals[mc])

    def rejected(found: np.ndarray, errors: np.ndarray, sign: float) -> np.ndarray:
        """Whether each row is rejected with its p moved by ``sign`` · MC_Z standard errors, corrected over the family."""
        return rejects(adjust_p(np.clip(found + sign * MC_Z * errors, 0, 1), correction), alpha)

    def unstable() -> np.ndarray:
        """Rows whose p ± MC_Z standard errors, corrected over the family, lie on both sides of α; for a mean with its
        skew-corrected test, also those whose decision that both reject could go either way."""
        low, high = rejected(p, se, -1), rejected(p, se, 1)
        either = low != high
        if skewed:
            either |= (low & rejected(p_c, se_c, -1)) != (high & rejected(p_c, se_c, 1))
        return usable & ~exact & either

    estimate()
    for round_ in range(1, MAX_ROUNDS):
        rows = np.flatnonzero(unstable())
        if not len(rows):
            break
        counts[rows] += round_counts(rows, round_)
        totals[rows] += n_permutations
        estimate()
    adjusted = adjust_p(p, correction)
    # the smallest p each test can give (exact: the identity and its mirror, 2 of 2^n; MC: 1 / (1 + most flips)),
    # corrected as if it were the smallest of the family (Holm and Bonferroni multiply it by m, BH and none keep it)
    floor = np.where(exact, 2.0 / np.maximum(totals, 1), 1.0 / (1.0 + MAX_ROUNDS * n_permutations))
    best = np.minimum(1.0, floor * (int(usable.sum()) if correction in FAMILY_WISE else 1))
    decision[usable] = np.where(rejects(adjusted[usable], alpha), DIFFERS, NO_DIFFERENCE)
    if skewed:  # the randomization test rejects, the skew-corrected one does not: the skewness leaves it open
        decision[usable & (decision == DIFFERS) & ~rejects(adjust_p(p_c, correction), alpha)] = UNDECIDED
    decision[unstable()] = UNDECIDED
    decision[usable & (best >= alpha) & (sizes > 0)] = CANNOT_DIFFER
    decision[usable & (sizes == 0)] = NO_DIFFERENCE  # identical on every query: p = 1, nothing to decide
    return Decisions(p, se, adjusted, totals, exact, decision)
