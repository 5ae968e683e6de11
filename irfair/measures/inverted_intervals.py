"""Confidence intervals read from a sign-flip test: every δ the two-sided test of H0 "the statistic is δ" keeps.

A paired comparison's statistic and every δ it could be tested against share one form: per query q,
r_q(δ) = u_q − δ v_q, weighted by w_q, and T(δ) = Σ w_q r_q(δ) = K (e − δ) with K = Σ w_q v_q and e the estimate
Σ w_q u_q / K. A mean difference has w = 1, u = d_q, v = 1 on the queries the pair shares (e = d̄); a GSR
difference (or one system's GSR) has w = v = g(q) − ḡ and u = d_q − d̄ (e = the OLS slope; r_q(δ) are the
residuals of the restricted fit, the wild bootstrap's restricted residuals). Flipping the signs s_q of r_q(δ)
gives T*(δ) = A − δ C with A = Σ s_q w_q u_q and C = Σ s_q w_q v_q, and T*(δ) counts against T(δ) where
|A − δ C| ≥ K |e − δ|: with |C| < K that holds on one interval around e (a quadratic in δ − e), and the identity
flips (C = K) hold it everywhere. The test at level α keeps δ while p(δ) ≥ α (it rejects when p < α), so the
interval's ends are order statistics of the flips' interval ends: the upper end is e plus the k-th largest upper
offset, k the fewest flips that keep p at α or above — (1 + k)/(B + 1) ≥ α for B random flips, k / 2^n ≥ α for all
2^n patterns (weighted by probability when the queries without a difference are summed, as the test enumerates only
the queries that differ). The interval is what the test decides: 0 lies outside it exactly when the test (same
flips, same tie margin) rejects "no difference" at α
(Garthwaite 1996, "Confidence intervals from randomization tests"; Good 2005, §3.4). Unbounded (NaN here) when
even the largest p the test can give away from e stays above α — too few queries to exclude anything.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

_MAX_CELLS = 1 << 22  # flips × rows per block of random flips (32 MiB of float64)


def all_sign_patterns(n: int) -> np.ndarray:
    """Every sign pattern of n queries: float array (2^n, n) of ±1 (row 0: all −1; the last row: all +1)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64) * 2.0 - 1.0


def flip_products(flips: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``flips @ vectors.T`` in float64 (``flips``: ±1 bytes or floats, shape (B, n); ``vectors``: (k, n)), the flips
    made float64 a block of rows at a time, so memory holds the bytes and one block (32 MiB), never B × n floats."""
    vectors = np.atleast_2d(vectors)
    out = np.empty((len(flips), len(vectors)))
    step = max(1, _MAX_CELLS // max(1, flips.shape[1]))
    for start in range(0, len(flips), step):
        out[start:start + step] = flips[start:start + step].astype(np.float64) @ vectors.T
    return out


def exceeding_flips(terms: np.ndarray, products: np.ndarray, tie: float) -> np.ndarray:
    """The two-sided sign-flip test's count of each row of ``terms`` (k, n): #{flips with |T*| ≥ |T| − ``tie`` · Σ |terms|}
    (T = Σ terms; a flip within that share of |T| counts, sums added in another order being equal), ``products``
    (k, F) holding T* of each row under each flip. The one place the counting rule is written: the test's p
    (:func:`~irfair.measures.resampling.decide`) and the first round its interval reads use it alike."""
    threshold = np.abs(terms.sum(axis=1)) - tie * np.abs(terms).sum(axis=1)
    return (np.abs(products) >= threshold[:, None]).sum(axis=1)


def _flipped_sums(patterns: np.ndarray, load: np.ndarray, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(patterns @ load, terms @ patterns.T)``: C per flip (F,) and A per row and flip (m, F), the ±1 ``patterns``
    (F, n; bytes or floats) made float64 a block of flips at a time (memory: one block, never F × n floats). Not
    :func:`flip_products`: C stays a matrix-vector product and A ``terms @ patterns.T``, so that their last bits,
    and the interval ends printed from them, are those these products always gave."""
    c, a = np.empty(len(patterns)), np.empty((len(terms), len(patterns)))
    step = max(1, _MAX_CELLS // max(1, patterns.shape[1]))
    for start in range(0, len(patterns), step):
        block = patterns[start:start + step].astype(np.float64)
        c[start:start + step] = block @ load
        a[:, start:start + step] = terms @ block.T
    return c, a


def kept_count(flips: int, alpha: float, exact: bool) -> int:
    """The fewest flips (of ``flips`` random ones, or of all ``flips`` = 2^n patterns when ``exact``) with
    |T*(δ)| ≥ |T(δ)| for the two-sided test not to reject δ: p(δ) ≥ ``alpha`` (a test rejects when p < α,
    :func:`~irfair.measures.resampling.rejects`)."""
    if exact:
        return int(np.ceil(alpha * flips - 1e-9))
    return int(np.ceil(alpha * (flips + 1) - 1 - 1e-9))


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
                       exact_up_to: int, level: float = 0.95, tie: float = 1e-9,
                       inflation: float = 1.0, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The two-sided ``level`` interval of each row's statistic by inverting its sign-flip test (module docstring).

    ``inflation``: the flipped residuals r_q(δ) are multiplied by it (T*(δ) = inflation · (A − δ C)): √(n/(n − 1))
    for the residuals of a fit that estimated an intercept, whose spread is the errors' shrunk by 1 − 1/n (HC1);
    a flip with inflation · |C| ≥ K then counts for every δ far enough from e, and is counted for every δ (which
    can only widen the interval).

    A flip within ``tie`` (a share of Σ |w_q u_q|, the test's own margin for sums added in another order) of
    counting is counted, as the test counts it, so that an interval's end never excludes 0 on rounding alone.

    ``terms`` (k, n): w_q u_q, 0 where a row lacks query q; ``load`` (k, n): w_q v_q, 0 there, the same for rows with
    the same queries (a mean's 1s, a slope's (g(q) − ḡ)² over those queries); ``present`` (k, n, bool): the queries
    of each row; ``flips`` (B, n): the random ±1 flips of the test (its first round); rows whose 2^n_row patterns
    number at most ``exact_up_to`` are inverted over all of them instead. Returns ``(low, high)`` of shape (k,); NaN
    where a row has no query, no load, or the interval is unbounded.

    ``counts`` (k,), int64, when given: for each row inverted on the random ``flips`` (with ``inflation`` 1), the
    test's own count at δ = 0, #{|T*| ≥ |T| − ``tie`` · Σ |terms|}, read from the products the interval needs anyway
    (the first round of :func:`~irfair.measures.resampling.decide`, which would compute them again); other rows are
    left as they are."""
    terms, load = np.atleast_2d(terms), np.atleast_2d(load)
    present = np.atleast_2d(present)
    low, high = np.full(len(terms), np.nan), np.full(len(terms), np.nan)
    alpha = 1.0 - level
    scale = load.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = terms.sum(axis=1) / scale
    valid = (scale > 0) & np.isfinite(estimate)
    for rows, block in _blocks(terms, load, present, valid, flips, exact_up_to):
        c, a = _flipped_sums(block.patterns, load[rows[0]][block.columns], terms[rows][:, block.columns])
        c += block.extra  # (F,): the same for rows with the same queries; a (m, F): one row per comparison
        if counts is not None and block.weights is None and inflation == 1.0:  # T*(0) = A: the test's first round
            counts[rows] = exceeding_flips(terms[rows], a, tie)
        a -= estimate[rows][:, None] * c[None, :]  # A − e C: T*(δ) = (A − e C) − (δ − e) C
        below, above = _offsets(a, c, float(scale[rows[0]]) / inflation)
        ends = _ends(below, above, block.weights, alpha)
        if ends is None:
            continue  # no δ can be excluded (even p = 1 / (B + 1) is at least α, or 2 / 2^n): unbounded
        lower, upper = ends
        margin = 2 * tie * np.abs(terms[rows]).sum(axis=1) / scale[rows]  # |T| within tie·Σ|terms| ↔ δ within ~this
        upper, lower = upper + margin, lower - margin
        bounded = np.isfinite(upper) & np.isfinite(lower)
        low[rows] = np.where(bounded, estimate[rows] + lower, np.nan)
        high[rows] = np.where(bounded, estimate[rows] + upper, np.nan)
    return low, high


def _ends(below: np.ndarray, above: np.ndarray, weights: np.ndarray | None, alpha: float):
    """Per row, the lowest and highest offsets u that flips of mass at least α (``weights``: each flip's probability,
    exact enumeration; None: B random flips, p = (1 + count) / (B + 1)) keep; None when every u is kept."""
    width = above.shape[1]
    if weights is None:
        needed = kept_count(width, alpha, exact=False)
        if not 1 <= needed <= width:
            return None
        return (np.partition(below, needed - 1, axis=1)[:, needed - 1],  # the needed-th smallest lower offset
                np.partition(above, width - needed, axis=1)[:, width - needed])  # the needed-th largest upper offset
    ends = []
    for offsets, sign in ((below, 1.0), (above, -1.0)):
        order = np.argsort(sign * offsets, axis=1, kind="stable")  # lowest first, or highest first
        mass = np.cumsum(weights[order], axis=1)
        first = np.argmax(mass >= alpha - 1e-12, axis=1)  # the first flip at which the kept mass reaches α
        ends.append(np.take_along_axis(offsets, np.take_along_axis(order, first[:, None], axis=1), axis=1)[:, 0])
    return ends[0], ends[1]


@dataclass(frozen=True)
class _Flips:
    """The flips of one block: ``patterns`` (F, len(columns)) of ±1 over ``columns``, ``extra`` (F,) what the
    block's other queries add to C, ``weights`` (F,) each flip's probability (exact) or None (random flips)."""

    columns: np.ndarray
    patterns: np.ndarray
    extra: np.ndarray
    weights: np.ndarray | None


def _blocks(terms: np.ndarray, load: np.ndarray, present: np.ndarray, valid: np.ndarray, flips: np.ndarray, budget: int):
    """``(rows, flips)`` for rows with the same queries (and, when exact, the same differing queries). A row whose
    differing queries have 2^n sign patterns within ``budget`` is inverted exactly, as the test decides it
    (:func:`_exact_flips`); the others, and exact rows that cannot be enumerated, get the random ``flips``."""
    differing = present & (terms != 0)
    exact = valid & (2.0 ** np.minimum(differing.sum(axis=1), 62) <= budget)
    random = valid & ~exact
    for rows in _grouped(np.concatenate([present, differing], axis=1), np.flatnonzero(exact)):
        block = _exact_flips(load[rows[0]], present[rows[0]], differing[rows[0]], budget)
        if block is None:
            random[rows] = True
        else:
            yield rows, block
    if len(flips):
        every = np.arange(present.shape[1])
        for rows in _grouped(present, np.flatnonzero(random)):
            step = max(1, _MAX_CELLS // len(flips))
            for start in range(0, len(rows), step):
                yield rows[start:start + step], _Flips(every, flips, np.zeros(len(flips)), None)


def _exact_flips(load: np.ndarray, present: np.ndarray, differing: np.ndarray, budget: int) -> _Flips | None:
    """Every sign pattern of one row's queries, with its probability. Queries without a difference add only their
    summed load to C: with equal loads λ (a mean's 1s), m of them add λ (2k − m) with probability C(m, k) / 2^m,
    so only the differing queries are enumerated; with unequal loads every query is, if 2^n fits in ``budget``.
    None when neither fits."""
    columns = np.flatnonzero(differing)
    idle = np.flatnonzero(present & ~differing)
    patterns = all_sign_patterns(len(columns))
    if not len(idle):
        return _Flips(columns, patterns, np.zeros(len(patterns)), np.full(len(patterns), 1.0 / len(patterns)))
    if np.ptp(load[idle]) == 0 and len(patterns) * (len(idle) + 1) <= 8 * max(budget, 1):
        m, level, k = len(idle), float(load[idle[0]]), np.arange(len(idle) + 1)
        mass = np.exp(gammaln(m + 1) - gammaln(k + 1) - gammaln(m - k + 1) - m * np.log(2.0))
        return _Flips(columns, np.tile(patterns, (m + 1, 1)), np.repeat(level * (2.0 * k - m), len(patterns)),
                      np.repeat(mass, len(patterns)) / len(patterns))
    if 2.0 ** min(int(present.sum()), 62) <= budget:
        columns = np.flatnonzero(present)
        patterns = all_sign_patterns(len(columns))
        return _Flips(columns, patterns, np.zeros(len(patterns)), np.full(len(patterns), 1.0 / len(patterns)))
    return None


def _grouped(mask: np.ndarray, rows: np.ndarray):
    """``rows`` grouped by their row of the boolean ``mask`` (rows sharing their queries), in order."""
    if not len(rows):
        return
    unique, inverse = np.unique(mask[rows], axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    for i in range(len(unique)):
        yield rows[inverse == i]
