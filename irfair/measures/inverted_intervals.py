"""Confidence intervals read from a sign-flip test: every δ the two-sided test of H0 "the statistic is δ" keeps.

A paired comparison's statistic and every δ it could be tested against share one form: per query q,
r_q(δ) = u_q − δ v_q, weighted by w_q, and T(δ) = Σ w_q r_q(δ) = K (e − δ) with K = Σ w_q v_q and e the estimate
Σ w_q u_q / K. A mean difference has w = 1, u = d_q, v = 1 on the queries the pair shares (e = d̄); a GSR
difference (or one system's GSR) has w = v = g(q) − ḡ and u = d_q − d̄ (e = the OLS slope; r_q(δ) are the
residuals of the restricted fit, the wild bootstrap's restricted residuals). Flipping the signs s_q of r_q(δ)
gives T*(δ) = A − δ C with A = Σ s_q w_q u_q and C = Σ s_q w_q v_q, and T*(δ) counts against T(δ) where
|A − δ C| ≥ K |e − δ|: with |C| < K that holds on one interval around e (a quadratic in δ − e), and the identity
flips (C = K) hold it everywhere. The test at level α keeps δ while p(δ) > α, so the interval's ends are order
statistics of the flips' interval ends: the upper end is e plus the k-th largest upper offset, k the fewest flips
that keep p above α — (1 + k)/(B + 1) > α for B random flips, k / 2^n > α for all 2^n patterns. The interval is
what the test decides: 0 lies outside it exactly when the test (same flips) rejects "no difference" at α
(Garthwaite 1996, "Confidence intervals from randomization tests"; Good 2005, §3.4). Unbounded (NaN here) when
even the largest p the test can give away from e stays above α — too few queries to exclude anything.
"""
from __future__ import annotations

import numpy as np

_MAX_CELLS = 1 << 22  # flips × rows per block (32 MiB of float64)


def all_sign_patterns(n: int) -> np.ndarray:
    """Every sign pattern of n queries: float array (2^n, n) of ±1 (row 0: all −1; the last row: all +1)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64) * 2.0 - 1.0


def kept_count(flips: int, alpha: float, exact: bool) -> int:
    """The fewest flips (of ``flips`` random ones, or of all ``flips`` = 2^n patterns when ``exact``) with
    |T*(δ)| ≥ |T(δ)| for the two-sided p(δ) to stay above ``alpha``."""
    if exact:
        return int(np.floor(alpha * flips)) + 1
    return int(np.floor(alpha * (flips + 1) - 1)) + 1


def _offsets(a: np.ndarray, c: np.ndarray, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Per flip (columns of ``a``: shape (m, B); ``c``: shape (B,), shared by the m rows) the interval of u = δ − e
    where |a − u c| ≥ K |u| (K = ``k``). The quadratic (K² − c²) u² + 2 a c u − a² ≤ 0 has the roots a / (K + c) and
    −a / (K − c), of opposite signs as |c| < K: u lies in [−|a| / (K − s), |a| / (K + s)] with s = sign(a) c. The
    identity flips and their mirror (|c| = K up to rounding) keep every δ."""
    magnitude = np.abs(a)
    signed = np.sign(a)
    signed *= c[None, :]  # sign(a) c
    with np.errstate(invalid="ignore", divide="ignore"):
        high = magnitude / (k + signed)
        np.subtract(k, signed, out=signed)
        low = np.divide(magnitude, signed, out=magnitude)
        np.negative(low, out=low)
    whole = np.abs(c) >= k * (1 - 1e-12)
    low[:, whole], high[:, whole] = -np.inf, np.inf
    return low, high


def inverted_intervals(terms: np.ndarray, load: np.ndarray, present: np.ndarray, flips: np.ndarray,
                       exact_up_to: int, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The two-sided ``level`` interval of each row's statistic by inverting its sign-flip test (module docstring).

    ``terms`` (k, n): w_q u_q, 0 where a row lacks query q; ``load`` (k, n): w_q v_q, 0 there, the same for rows with
    the same queries (a mean's 1s, a slope's (g(q) − ḡ)² over those queries); ``present`` (k, n, bool): the queries
    of each row; ``flips`` (B, n): the random ±1 flips of the test (its first round); rows whose 2^n_row patterns
    number at most ``exact_up_to`` are inverted over all of them instead. Returns ``(low, high)`` of shape (k,); NaN
    where a row has no query, no load, or the interval is unbounded."""
    terms, load = np.atleast_2d(terms), np.atleast_2d(load)
    present = np.atleast_2d(present)
    low, high = np.full(len(terms), np.nan), np.full(len(terms), np.nan)
    alpha = 1.0 - level
    scale = load.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = terms.sum(axis=1) / scale
    valid = (scale > 0) & np.isfinite(estimate)
    sizes = present.sum(axis=1)
    exact = valid & (2.0 ** np.minimum(sizes, 62) <= exact_up_to)
    for rows, matrix, is_exact in _blocks(present, exact, valid, flips):
        needed = kept_count(len(matrix), alpha, is_exact)
        if not 1 <= needed <= len(matrix):
            continue  # no δ can be excluded (even p = 1 / (B + 1) is above α, or 2 / 2^n): unbounded
        c = matrix @ load[rows[0]]  # (B,): the same for rows with the same queries
        a = terms[rows] @ matrix.T  # (m, B): one row per comparison, one column per flip
        a -= estimate[rows][:, None] * c[None, :]  # A − e C: T*(δ) = (A − e C) − (δ − e) C
        below, above = _offsets(a, c, float(scale[rows[0]]))
        width = len(matrix)
        upper = np.partition(above, width - needed, axis=1)[:, width - needed]  # the needed-th largest upper offset
        lower = np.partition(below, needed - 1, axis=1)[:, needed - 1]  # the needed-th smallest lower offset
        bounded = np.isfinite(upper) & np.isfinite(lower)
        low[rows] = np.where(bounded, estimate[rows] + lower, np.nan)
        high[rows] = np.where(bounded, estimate[rows] + upper, np.nan)
    return low, high


def _blocks(present: np.ndarray, exact: np.ndarray, valid: np.ndarray, flips: np.ndarray):
    """``(rows, flips, exact)`` blocks of rows with the same queries: enumerated exactly (all patterns over those
    queries, placed in the full width) where ``exact``, else in chunks against the random ``flips``."""
    n = present.shape[1]
    for chosen, is_exact in ((exact, True), (valid & ~exact, False)):
        candidates = np.flatnonzero(chosen)
        if not len(candidates) or (not is_exact and not len(flips)):
            continue
        unique, inverse = np.unique(present[candidates], axis=0, return_inverse=True)
        inverse = np.asarray(inverse).ravel()
        for i, columns in enumerate(unique):
            rows = candidates[inverse == i]
            if is_exact:
                matrix = np.zeros((2 ** int(columns.sum()), n))
                matrix[:, columns] = all_sign_patterns(int(columns.sum()))
            else:
                matrix = flips
            step = max(1, _MAX_CELLS // len(matrix))
            for start in range(0, len(rows), step):
                yield rows[start:start + step], matrix, is_exact
