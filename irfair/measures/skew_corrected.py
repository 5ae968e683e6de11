"""The skew-corrected sign-flip test of a mean difference, which an audit's decision also asks of a mean measure.

The paired randomization test of a mean flips the signs of the per-query differences d_q; it holds its level exactly
when each d_q is symmetric about 0, but mean-zero differences that are strongly skewed are outside that null: with
skewness 2 it rejects at 0.073, 0.069 and 0.057 instead of 0.05 at 20, 50 and 93 queries
(``scripts/bench_skew.py``, 10,000 replications). This test flips the same signs but ranks the flips by a statistic that corrects
Student's t for the sample's skewness — Hall's (1992) transformation (*The Bootstrap and Edgeworth Expansion*,
§3.10) of t,

    h = t + g (t²/3 + 1/6) / √n + g² t³ / (27 n),   g = c γ̂ / √n,   γ̂ = m₃ / s³,

with t = √n d̄ / s, s the sample standard deviation and m₃ the third central moment of the n differences (every
shared query, those without a difference included). Hall's transformation takes g = γ̂, to correct a one-sided
test at order 1/√n; the error of a two-sided test is of order 1/n, and there the skewness is taken at that order,
g = c γ̂ / √n with c = :data:`SKEW_SCALE` (5.5, chosen on centred exponential, χ²₄ and lognormal differences at
20, 50 and 93 queries, 10,000 replications each; on other draws, in ``scripts/bench_skew.py``, the decision's
type-I error is 0.047–0.061 at 20 queries and 0.045–0.050 at 50, 93 and 200).

Any statistic under sign flips keeps the exact level when the differences are symmetric, so this test does too;
the audit's decision "differs" asks both tests to reject (an intersection–union test, whose level is at most
either's). Its interval is the randomization test's interval widened by the δ the corrected test keeps next to
it, and to 0 where the corrected test keeps 0 (what it keeps need not be one interval), so that it excludes 0
exactly when both tests reject on the first round's flips. The p-values an audit prints are the randomization
test's, as ranx, PyTerrier and the IR literature compute them (where the decision of both needs more rounds of
flips than the randomization test's alone, its p rests on those flips).
"""
from __future__ import annotations

import numpy as np

from .inverted_intervals import _blocks, all_sign_patterns, exceeding_flips, flip_products, kept_count

SKEW_SCALE = 5.5  # c in g = c γ̂ / √n
_TIE = 1e-9  # flips whose |h*| is within this share of |h| count as ties (sums added in another order)
_MAX_CELLS = 1 << 22  # flips × rows per block (32 MiB of float64)
_STEPS = 24  # bisection steps per interval end (its bracket shrinks 2^24-fold)
_STAGE = 6  # bisection steps between two narrowings to the flips that still change


def corrected_statistic(s1: np.ndarray, s2: np.ndarray, s3: np.ndarray, n: np.ndarray) -> np.ndarray:
    """|h| (module docstring) of samples given by their sums Σ d, Σ d², Σ d³ and sizes n (arrays that broadcast).

    Computed from z = d̄ / √(Σ d²/n): 1 − z² is the variance's share of the mean square, t = z √((n − 1)/(1 − z²)),
    γ̂ = (Σ d³ / (n (Σ d²/n)^{3/2}) − z (3 − 2z²)) · ((n − 1)/(n (1 − z²)))^{3/2}, and with G = g / √n = c γ̂ / n,
    h = t + G (t²/3 + 1/6) + G² t³ / 27. A sample with no spread (every difference equal) has |h| = ∞ unless its
    mean is 0 (then 0); below 3 values, where the skewness is undefined, |h| is |t|'s monotone stand-in
    |Σ d| / √(Σ d²), the randomization test's own ranking."""
    s1, s2, s3, n = (np.asarray(v, dtype=np.float64) for v in (s1, s2, s3, n))
    shape = np.broadcast_shapes(s1.shape, s2.shape, s3.shape, n.shape)
    # the sums at the full shape (views), for the steps done in place; the moments from raw sums lose precision when
    # the spread is tiny against the mean (a coefficient of variation near 1e-6), where |h| is huge either way
    s1, s3 = np.broadcast_to(s1, shape or (1,)), np.broadcast_to(s3, shape or (1,))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        root = np.sqrt(s2 / n)  # √(mean square), per row
        z = s1 / (n * root)
        share = z * z
        np.subtract(1.0, share, out=share)  # 1 − z²
        flat = ~(share > 1e-12)  # and no values (0 / 0)
        ratio = (n - 1) / share  # (n − 1) / (1 − z²)
        t = np.sqrt(ratio)
        gamma = ratio * t  # ((n − 1)/(1 − z²))^{3/2}
        t *= z
        share *= 2
        share += 1  # 3 − 2z² = 1 + 2 (1 − z²)
        share *= z
        skew = s3 / (n * root ** 3)
        skew -= share
        gamma *= skew
        gamma *= SKEW_SCALE / n ** 2.5  # G = c γ̂ / n, γ̂ carrying n^{-3/2}
        u = gamma * t
        u /= 3  # G t / 3
        h = u * u
        h /= 3
        h += u
        h += 1
        h *= t  # t (1 + G t / 3 + G² t² / 27)
        gamma /= 6
        h += gamma
        np.abs(h, out=h)
        if flat.any():
            h[flat] = np.where(np.broadcast_to(s1, h.shape)[flat] == 0, 0.0, np.inf)
        if (n < 3).any():
            h = np.where(n < 3, np.where(s2 > 0, np.abs(s1) / np.sqrt(s2), 0.0), h)
    return h.reshape(shape)


def _reaching(observed: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """Per row and flip, whether the flip's |h*| (``flipped``, (m, F)) reaches the row's |h| (``observed``, (m,)) up
    to :data:`_TIE` (bool (m, F)): the counting rule of the corrected test, in its p and in its interval alike."""
    return flipped >= (observed * (1 - _TIE))[:, None]


def corrected_counts(terms: np.ndarray, n_queries: np.ndarray, flips: np.ndarray,
                     tie: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """#{flips with |h*| ≥ |h|} for each row of ``terms`` (k, n: the differences, 0 where a pair lacks a query; the
    rows' sizes ``n_queries`` (k,)) under the ±1 ``flips`` (B, n), and the randomization test's own counts on the
    same products (:func:`~irfair.measures.inverted_intervals.exceeding_flips` with margin ``tie``), as
    :func:`~irfair.measures.resampling.decide` counts them: (corrected, randomization), each int (k,)."""
    terms = np.atleast_2d(terms)
    corrected, plain = np.zeros(len(terms), dtype=np.int64), np.zeros(len(terms), dtype=np.int64)
    step = max(1, _MAX_CELLS // max(1, len(flips)))
    for start in range(0, len(terms), step):
        block = terms[start:start + step]
        n = n_queries[start:start + step].astype(np.float64)
        s2 = (block * block).sum(axis=1)
        observed = corrected_statistic(block.sum(axis=1), s2, (block ** 3).sum(axis=1), n)
        first = flip_products(flips, block).T
        plain[start:start + step] = exceeding_flips(block, first, tie)
        flipped = corrected_statistic(first, s2[:, None], flip_products(flips, block ** 3).T, n[:, None])
        corrected[start:start + step] = _reaching(observed, flipped).sum(axis=1)
    return corrected, plain


def exact_corrected_counts(terms: np.ndarray, n_queries: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, int]:
    """#{patterns with |h*| ≥ |h|} over all 2^m sign patterns of the m queries of ``mask`` (the queries where rows of
    ``terms`` differ; flipping the others changes nothing), and 2^m."""
    m = int(mask.sum())
    return corrected_counts(terms[:, mask], n_queries, all_sign_patterns(m))[0], 2**m


def _reached(sums: tuple, delta: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per row and flip, whether the flip's |h*| reaches the row's |h| (bool (m, F)) for the test of "the mean
    difference is δ" (``delta`` (m,)). ``sums``: (s1, s2, s3) per row (m,), and per flip the flipped Σ s d, Σ s d²,
    Σ s d³ (m, F) and Σ s over the row's queries (F,, or (m, F)). d − δ's sums follow from d's (binomial expansion)."""
    s1, s2, s3, p1, p2, p3, c = sums
    dl = delta[:, None]
    shifted2 = s2 - 2 * delta * s1 + n * delta * delta
    observed = corrected_statistic(s1 - n * delta, shifted2, s3 - 3 * delta * s2 + 3 * delta * delta * s1 - n * delta ** 3,
                                   n)
    first = np.multiply(c, -dl)  # Σ s (d − δ) = P1 − δ C, and Σ s (d − δ)³ = P3 − 3δ P2 + 3δ² P1 − δ³ C, in place
    first += p1
    third = np.multiply(p2, -3 * dl)
    third += p3
    term = np.multiply(p1, 3 * dl * dl)
    third += term
    np.multiply(c, dl ** 3, out=term)
    third -= term
    return _reaching(observed, corrected_statistic(first, shifted2[:, None], third, n[:, None]))


def _needed(total: int, weights: np.ndarray | None, alpha: float) -> float:
    """The count (of ``total`` random flips, ``weights`` None) or probability mass (enumerated flips) of the flips
    reaching |h| at which the test keeps δ: p(δ) ≥ α."""
    return kept_count(total, alpha, exact=False) if weights is None else alpha - 1e-12


def _kept(reached: np.ndarray, weights: np.ndarray | None, alpha: float) -> np.ndarray:
    """Whether p(δ) ≥ α, the flips that reach |h| being ``reached`` (m, F) (with probabilities ``weights`` (F,) when
    enumerated; None: F random flips)."""
    mass = reached.sum(axis=1) if weights is None else reached @ weights
    return mass >= _needed(reached.shape[1], weights, alpha)


def corrected_intervals(terms: np.ndarray, present: np.ndarray, flips: np.ndarray, exact_up_to: int, low: np.ndarray,
                        high: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The union of each row's interval ``[low, high]`` (the randomization test's, inverted) with the δ the
    corrected test keeps beyond it: from each end, steps outward (doubling) while the corrected test keeps δ, then
    bisection to the first δ it rejects (:data:`_STEPS` steps). ``terms`` (k, n): the differences, 0 where a row
    lacks a query; ``present`` (k, n): the queries each row has; ``flips`` (B, n): the test's first round; rows
    whose differing queries' 2^m patterns fit in ``exact_up_to`` use them (and the others' sign sums, by their
    binomial probabilities), as the randomization test's interval does. NaN where either interval is unbounded."""
    terms, present = np.atleast_2d(terms), np.atleast_2d(present)
    low, high = np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)
    alpha = 1.0 - level
    n_all = present.sum(axis=1).astype(np.float64)
    valid = np.isfinite(low) & np.isfinite(high) & (n_all >= 3)
    load = present.astype(np.float64)
    for rows, block in _blocks(terms, load, present, valid, flips, exact_up_to):
        part = terms[rows][:, block.columns]
        n = n_all[rows]
        c = block.patterns.astype(np.float64) @ load[rows[0]][block.columns] + block.extra
        sums = (part.sum(axis=1), (part * part).sum(axis=1), (part ** 3).sum(axis=1),
                flip_products(block.patterns, part).T, flip_products(block.patterns, part * part).T,
                flip_products(block.patterns, part ** 3).T, c)
        for ends, sign in ((high, 1.0), (low, -1.0)):
            ends[rows] = _outward(block, sums, ends[rows], sign * np.maximum(high[rows] - low[rows], 1e-12) / 8, n, alpha)
        # the δ the test keeps need not be one interval: where it keeps 0 away from the union, 0 joins it, so that
        # the union holds 0 exactly when one of the two tests keeps it
        away = np.flatnonzero((low[rows] > 0) | (high[rows] < 0))
        if len(away):
            some = (*(v[away] for v in sums[:6]), sums[6])
            keeps = _kept(_reached(some, np.zeros(len(away)), n[away]), block.weights, alpha)
            low[rows[away[keeps]]] = np.minimum(low[rows[away[keeps]]], 0.0)
            high[rows[away[keeps]]] = np.maximum(high[rows[away[keeps]]], 0.0)
    return low, high


def _outward(block, sums: tuple, start: np.ndarray, step: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """From ``start`` (m,), the last δ the corrected test keeps in the direction of ``step`` (m,; signed: the
    bracket's first width), or ``start`` itself where it rejects ``start``; NaN where it still keeps δ 2^30 widths
    out (unbounded). Once bracketed, the end is found to 2^-:data:`_STEPS` of its bracket on the flips whose
    verdict differs between the bracket's ends (the others count as at both ends), then checked on every flip."""
    found, weights = start.copy(), block.weights
    at_start = _reached(sums, start, n)
    moving = np.flatnonzero(_kept(at_start, weights, alpha))
    if not len(moving):
        return found
    sums = (*(v[moving] for v in sums[:6]), sums[6])  # the rows that move; C is per flip
    n, inside, step = n[moving], start[moving], step[moving]
    outside = inside + step
    # which flips reach |h| at each end of the bracket, kept from the steps that found it
    at_inside, at_outside = at_start[moving], np.zeros((len(moving), at_start.shape[1]), dtype=bool)
    open_ = np.ones(len(moving), dtype=bool)  # still kept at ``outside``: bracket not closed
    for _ in range(30):
        reached = _reached(sums, outside, n)
        kept = open_ & _kept(reached, weights, alpha)
        at_outside[open_ & ~kept], at_inside[kept] = reached[open_ & ~kept], reached[kept]
        open_ = kept
        if not open_.any():
            break
        inside = np.where(open_, outside, inside)
        step = np.where(open_, 2 * step, step)
        outside = np.where(open_, outside + step, outside)
    inside[open_] = np.nan
    bracket = inside.copy(), outside.copy()
    total = sums[3].shape[1]
    counted = np.ones((len(moving), total))  # the flips still to be told apart (1), with their probabilities
    probability = counted if weights is None else np.broadcast_to(weights, counted.shape)
    narrow, base = (*sums[:6], np.broadcast_to(sums[6], counted.shape)), np.zeros(len(moving))
    for stage in range(0, _STEPS, _STAGE):
        # the flips whose verdict differs between the bracket's ends; the others count as at both ends
        if stage:
            at_inside, at_outside = _reached(narrow, inside, n), _reached(narrow, outside, n)
        changing = (at_inside != at_outside) & (counted > 0)
        base = base + ((at_inside & at_outside) * counted * probability).sum(axis=1)
        order = np.argsort(~changing, axis=1, kind="stable")[:, :max(1, int(changing.sum(axis=1).max()))]
        counted = np.take_along_axis(changing, order, axis=1).astype(np.float64)  # 0 for the padding
        probability = np.take_along_axis(probability, order, axis=1)
        narrow = (*narrow[:3], *(np.take_along_axis(v, order, axis=1) for v in narrow[3:]))
        for _ in range(min(_STAGE, _STEPS - stage)):
            middle = (inside + outside) / 2
            mass = base + (_reached(narrow, middle, n) * counted * probability).sum(axis=1)
            keep = mass >= _needed(total, weights, alpha)
            inside = np.where(keep, middle, inside)
            outside = np.where(keep, outside, middle)
    # a flip may reach |h| at both ends of a bracket and not between them: the ends are checked on every flip, and
    # a row whose check fails is bisected again on every flip
    wrong = np.flatnonzero(np.isfinite(inside) & ~(_kept(_reached(sums, inside, n), weights, alpha)
                                                   & ~_kept(_reached(sums, outside, n), weights, alpha)))
    if len(wrong):
        some = (*(v[wrong] for v in sums[:6]), sums[6])
        low, high = bracket[0][wrong], bracket[1][wrong]
        for _ in range(_STEPS):
            middle = (low + high) / 2
            keep = _kept(_reached(some, middle, n[wrong]), weights, alpha)
            low, high = np.where(keep, middle, low), np.where(keep, high, middle)
        inside[wrong] = low
    found[moving] = inside
    return found
