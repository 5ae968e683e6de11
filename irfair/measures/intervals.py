"""Bootstrap intervals over queries: the resamples, the statistics under them, and the interval read from them.

A **bootstrap resample** of n queries is one row of ``np.random.default_rng(seed).integers(0, n, size=(B, n))``:
query positions drawn with replacement. It is used as a row of counts (how often each query was drawn,
:func:`bootstrap_weights`), so that a resampled mean is ``weights @ values / n`` and a resampled OLS slope a
few weighted sums, for a whole matrix of systems, measures or pairs at once.

Every interval an audit prints is an **expanded BCa interval** (:func:`bca_interval`): Efron's bias-corrected and
accelerated percentile interval (Efron 1987; Efron & Tibshirani 1993, §14.3) — the bias correction
z0 = Φ⁻¹(#{θ* < θ̂} / B) (ties counted half), the acceleration a = Σ (θ̄ − θ_(i))³ / (6 (Σ (θ̄ − θ_(i))²)^{3/2}) from
the jackknife values θ_(i); resamples within 1e-12 of θ̂ are ties — read at the percentiles
Φ(z0 + (z0 + z)/(1 − a (z0 + z))) for z = ±z_e, where
z_e = √(n / (n − p)) · t_{n−p, 1−α/2} instead of z_{1−α/2} (Hesterberg's expanded percentile interval, "What teachers
should know about the bootstrap", The American Statistician 69(4), 2015; p = 1 for a mean, 2 for a slope). The
expansion undoes the plug-in variance's narrowness ((n − p)/n) and uses Student's quantile, which the percentile
interval lacks at 10–20 queries; BCa corrects the skew of a mean difference. ``scripts/bench_calibration.py``
measures the coverage (docs/reliability/calibration.md): 0.94–0.96 from 20 queries up for GSR differences with
equal or shifted intercepts and for symmetric or skewed mean differences (the percentile interval: 0.89–0.94), but
0.90–0.93 for GSR under strong heteroscedasticity and 0.88–0.92 for heavy-tailed mean differences. The interval
stays within the resamples' range, so a measure that is 0 on most queries never gets an interval outside what its
values can reach.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri, stdtrit

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
    """Expanded BCa bootstrap CI (:func:`bca_interval`) of the OLS slope of y on x (both shape (n,)); NaN with n < 3 or
    no resamples."""
    if n_bootstrap <= 0 or len(x) < 3:
        return float("nan"), float("nan")
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    samples = slopes_from_weights(x, y[None, :], bootstrap_weights(len(x), n_bootstrap, seed))
    dx = x - x.mean()
    estimate = np.array([np.dot(dx, y - y.mean()) / np.dot(dx, dx)])
    low, high = bca_interval(samples, estimate, jackknife_slopes(x, y)[:, None], len(x), level, parameters=2)
    return float(low[0]), float(high[0])


@dataclass(frozen=True)
class MeanCIs:
    """Means over queries of k rows of values, each over its finite values, with expanded BCa bootstrap CIs
    (arrays of shape (k,); ``n_queries``: finite values per row)."""

    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_queries: np.ndarray


def mean_cis(values: np.ndarray, n_bootstrap: int, seed: int, level: float = 0.95) -> MeanCIs:
    """Mean of each row of ``values`` (shape (k, n); NaN = no value) over its finite values, with an expanded BCa
    bootstrap CI (:func:`bca_interval`) drawn over those values (:func:`bootstrap_weights` of their count, so rows with the same
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
            present = filled[rows][:, mask]
            resampled = weights @ present.T / n
            low[rows], high[rows] = bca_interval(resampled, means[rows], jackknife_means(present), n, level)
    return MeanCIs(means, low, high, counts)


def jackknife_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """OLS slope of y on x with each query left out in turn: y of shape (n,) gives shape (n,), y of shape (k, n) gives
    (n, k); NaN where the remaining x has no spread (needs n ≥ 3)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    rows = np.atleast_2d(y).T  # (n, k)
    n = len(x)
    if n < 3:
        return np.full(y.shape[::-1], np.nan)
    m = n - 1
    sx, sxx = (x.sum() - x)[:, None], ((x * x).sum() - x * x)[:, None]
    sy, sxy = rows.sum(axis=0)[None, :] - rows, (x[:, None] * rows).sum(axis=0)[None, :] - x[:, None] * rows
    denominator = sxx - sx * sx / m
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (sxy - sx * sy / m) / denominator
    out[np.broadcast_to(denominator <= 1e-12 * np.maximum(sxx, 1e-300), out.shape)] = np.nan
    return out[:, 0] if y.ndim == 1 else out


def expansion(n: np.ndarray | int, parameters: int, level: float) -> np.ndarray:
    """z_e = √(n / (n − p)) · t_{n−p, (1 + level)/2} for n observations and p parameters (NaN where n ≤ p)."""
    n = np.asarray(n, dtype=np.float64)
    df = n - parameters
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(df > 0, np.sqrt(n / np.where(df > 0, df, 1.0)) * stdtrit(np.maximum(df, 1.0), (1 + level) / 2),
                        np.nan)


def acceleration(jackknife: np.ndarray) -> np.ndarray:
    """BCa's acceleration of each column of ``jackknife`` (shape (n, k): the statistic with each query left out;
    NaN rows ignored): Σ (θ̄ − θ_(i))³ / (6 (Σ (θ̄ − θ_(i))²)^{3/2}), 0 where the values do not vary."""
    jackknife = np.atleast_2d(np.asarray(jackknife, dtype=np.float64))
    finite = np.isfinite(jackknife)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(finite, jackknife, 0.0).sum(axis=0) / finite.sum(axis=0)
        deviation = np.where(finite, centre - jackknife, 0.0)
        squares = (deviation**2).sum(axis=0)
        out = (deviation**3).sum(axis=0) / (6.0 * squares**1.5)
    return np.where(np.isfinite(out), out, 0.0)


def _quantiles(samples: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The ``probabilities[j]`` quantile of column j of ``samples`` (B, k) over its finite values (numpy's default
    linear interpolation); NaN where a column has none or its probability is NaN."""
    ordered = np.sort(samples, axis=0)  # NaN last
    count = np.isfinite(samples).sum(axis=0)
    known = np.isfinite(probabilities)
    position = np.where(known, probabilities, 0.0) * np.maximum(count - 1, 0)
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, np.maximum(count - 1, 0))
    columns = np.arange(samples.shape[1])
    low, high = ordered[np.minimum(below, len(samples) - 1), columns], ordered[np.minimum(above, len(samples) - 1), columns]
    with np.errstate(invalid="ignore"):
        out = low + (position - below) * (high - low)
    return np.where((count > 0) & known, np.where(high == low, low, out), np.nan)


def bca_interval(samples: np.ndarray, estimate: np.ndarray, jackknife: np.ndarray, n: np.ndarray | int,
                 level: float = 0.95, parameters: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The expanded BCa interval (module docstring) of k statistics: ``samples`` (B, k) their bootstrap values (NaN =
    undefined in a resample), ``estimate`` (k,) their values on the data, ``jackknife`` (m, k) their leave-one-out
    values, ``n`` the queries behind each (scalar or (k,)), ``parameters`` 1 for a mean, 2 for a slope. Returns
    ``(low, high)`` of shape (k,); NaN where a column has no finite resample or n ≤ parameters."""
    samples = np.asarray(samples, dtype=np.float64)
    samples = samples.reshape(len(samples), -1)
    estimate = np.asarray(estimate, dtype=np.float64).reshape(-1)
    finite = np.isfinite(samples)
    drawn = finite.sum(axis=0)
    count = np.maximum(drawn, 1)
    with np.errstate(invalid="ignore"):
        # a resample equal to the estimate up to floating-point noise (sums in another order) is a tie, counted half:
        # z0 then does not hang on the last bits a CPU's kernels leave
        scale = np.maximum(np.abs(estimate), np.where(finite, np.abs(samples), 0.0).max(axis=0, initial=0.0))
        tie = finite & (np.abs(samples - estimate) <= 1e-12 * scale)
        share = ((samples < estimate) & finite & ~tie).sum(axis=0) + 0.5 * tie.sum(axis=0)
    z0 = ndtri(np.clip(share / count, 0.5 / count, 1 - 0.5 / count))
    a = acceleration(jackknife)
    z = expansion(n, parameters, level) * np.ones_like(estimate)
    bounds = []
    for side in (-1.0, 1.0):
        shifted = z0 + side * z
        with np.errstate(invalid="ignore", divide="ignore"):
            # 1 − a(z0 + z) ≤ 0 only for an acceleration no query set gives; the tail is then the extreme resample
            denominator = 1.0 - a * shifted
            probability = np.where(denominator > 0, ndtr(z0 + shifted / np.where(denominator > 0, denominator, 1.0)),
                                   (side + 1) / 2)
        bounds.append(_quantiles(samples, probability))
    low, high = bounds
    bad = ~np.isfinite(z) | ~np.isfinite(estimate) | (drawn == 0)
    low[bad], high[bad] = np.nan, np.nan
    return low, high


def jackknife_means(values: np.ndarray) -> np.ndarray:
    """The mean of each row of ``values`` (k, n; all finite) with each query left out: shape (n, k)."""
    n = values.shape[1]
    return ((values.sum(axis=1)[None, :] - values.T) / (n - 1)) if n > 1 else np.full((n, len(values)), np.nan)


def _groups(mask: np.ndarray):
    """``(columns, rows)`` for each distinct row of the boolean matrix ``mask`` (rows sharing their queries)."""
    if len(mask) == 0:
        return
    unique, inverse = np.unique(mask, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    for i, columns in enumerate(unique):
        yield columns, np.flatnonzero(inverse == i)

