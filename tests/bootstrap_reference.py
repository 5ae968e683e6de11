"""The expanded BCa interval written from its definition, one statistic at a time, for tests to compare irfair's
vectorised one with (irfair.measures.intervals)."""
import math

import numpy as np
from scipy.stats import norm, t


def expanded_bca(resampled, estimate, leave_one_out, n, parameters=1, level=0.95):
    """The expanded BCa interval by its definition, one statistic at a time (Efron & Tibshirani 1993, §14.3, Eqs.
    14.10-14.15, with Hesterberg's expanded quantile √(n/(n−p)) t_{n−p} in place of z_{1−α/2}): z0 from the share
    of resamples below the estimate (ties, within 1e-12, half), a from the jackknife, percentiles Φ(z0 + (z0 ± z)/(1 − a(z0 ± z)))."""
    resampled = np.asarray(resampled, dtype=float)
    tie = np.abs(resampled - estimate) <= 1e-12 * max(abs(estimate), np.max(np.abs(resampled)))
    share = (np.sum((resampled < estimate) & ~tie) + 0.5 * np.sum(tie)) / len(resampled)
    z0 = norm.ppf(share)
    centre = np.mean(leave_one_out)
    a = np.sum((centre - leave_one_out) ** 3) / (6 * np.sum((centre - leave_one_out) ** 2) ** 1.5)
    z = math.sqrt(n / (n - parameters)) * t.ppf((1 + level) / 2, n - parameters)
    tails = [norm.cdf(z0 + (z0 + q) / (1 - a * (z0 + q))) for q in (-z, z)]
    return tuple(np.percentile(resampled, [100 * q for q in tails]))


def inverted_by_bisection(statistic, residuals, patterns, estimate, level=0.95, span=100.0, always=None):
    """The interval of every δ a sign-flip test keeps, found by bisection on the test's p-value itself (not from
    order statistics): ``residuals(δ)`` (n,) are the values flipped under H0 "the statistic is δ",
    ``statistic(values)`` ((m, n) → (m,)) refits the statistic, and p(δ) = share of ``patterns`` (m, n) with
    |statistic(s · r(δ)) − 0| ≥ |statistic(r(δ))| (ties within 1e-12), or ``always`` (bool (m,): patterns counted
    for every δ); each end is where p(δ) falls to α."""
    alpha = 1 - level

    def p(delta):
        r = residuals(delta)
        observed = abs(statistic(r[None, :])[0])
        counts = np.abs(statistic(patterns * r[None, :])) >= observed - 1e-12
        return np.mean(counts if always is None else counts | always)

    ends = []
    for side in (-1.0, 1.0):
        inside, outside = estimate, estimate + side * span
        assert p(outside) <= alpha
        for _ in range(200):
            middle = (inside + outside) / 2
            if p(middle) > alpha:
                inside = middle
            else:
                outside = middle
        ends.append((inside + outside) / 2)
    return tuple(ends)


def ols_slopes(x, values):
    """OLS slopes of each row of ``values`` on x with an intercept, by least squares on the design [1, x]."""
    design = np.column_stack([np.ones(len(x)), x])
    return np.linalg.lstsq(design, np.asarray(values).T, rcond=None)[0][1]


def hall_corrected_t(values):
    """The skew-corrected statistic of each row of ``values`` (m, n), from its definition: Student's t, the
    skewness γ̂ = m₃ / s³ (m₃ the third central moment, s the standard deviation with n − 1), g = 5.5 γ̂ / √n and
    h = t + g (t²/3 + 1/6) / √n + g² t³ / (27 n)."""
    n = values.shape[1]
    mean = values.mean(axis=1)
    s = values.std(axis=1, ddof=1)
    t = mean / (s / math.sqrt(n))
    g = 5.5 * ((values - mean[:, None]) ** 3).mean(axis=1) / s**3 / math.sqrt(n)
    return t + g * (t * t / 3 + 1 / 6) / math.sqrt(n) + g * g * t**3 / (27 * n)
