"""The Wilson score interval of a binomial proportion (Wilson, JASA 1927), the interval every group rate of
``irfair fairness`` is printed with.

For k successes in n trials, p = k / n and z the normal quantile (1.959963984540054 for 95 %):
center = (p + z²/2n) / (1 + z²/n), half-width = z / (1 + z²/n) · sqrt(p(1 − p)/n + z²/4n²), and the
interval is [center − half-width, center + half-width]. Unlike the normal (Wald) interval it stays inside
[0, 1] and does not collapse to a point at k = 0 or k = n, which matters for a group rate resting on a few
examples. n = 0 gives NaN for both bounds.
"""
from __future__ import annotations

import numpy as np

from ._checks import fail

Z_95 = 1.959963984540054
"""The standard normal quantile of 0.975: two-sided 95 % intervals."""

INTERVAL = f"95 % Wilson score interval (z = {Z_95})"
"""How the intervals are computed, in words (printed and written into the JSON)."""


def wilson_interval(successes: np.ndarray | int, trials: np.ndarray | int, z: float = Z_95) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the Wilson score interval of ``successes`` out of ``trials`` (integers, any shape, the
    same shape; 0 <= successes <= trials): proportions in [0, 1], NaN where ``trials`` is 0. The bounds at
    k = 0 and k = n are exactly 0 and 1."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if k.shape != n.shape:
        raise fail(f"successes of shape {k.shape} and trials of shape {n.shape} differ")
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise fail("successes must lie between 0 and trials")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        z2 = z * z
        denominator = 1 + z2 / n
        center = (p + z2 / (2 * n)) / denominator
        half_width = z / denominator * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        low = np.where(k == 0, 0.0, np.clip(center - half_width, 0.0, 1.0))
        high = np.where(k == n, 1.0, np.clip(center + half_width, 0.0, 1.0))
    empty = n == 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)
