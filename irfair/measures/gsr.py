"""Gender Stereotype Reinforcement (Fabris et al., Eq. 3): the OLS slope of list genderedness g_q(L)
on query genderedness g(q) across queries, with bootstrap confidence intervals over queries and a
paired bootstrap test against a reference system (the perfect run)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

ZERO_SLOPE = 1e-12


@dataclass(frozen=True)
class GSRResult:
    """GSR of one system: slope with intercept, Pearson r and its p-value, 95% bootstrap CI, counts.

    ``per_query`` holds one row per query considered (qid, query, query_genderedness,
    list_genderedness, depth, used, reason) — excluded queries included with their reason.
    """

    system: str
    slope: float
    intercept: float
    r: float
    p_value: float
    ci_low: float
    ci_high: float
    n_queries: int
    n_excluded: int
    excluded: dict[str, int] = field(default_factory=dict)
    per_query: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)


def ols_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """``(slope, intercept, pearson_r, p_value)`` of y on x; r and p are NaN when x or y is constant."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.ptp(x) == 0:
        return (float("nan"),) * 4
    dx = x - x.mean()
    slope = float(np.dot(dx, y - y.mean()) / np.dot(dx, dx))
    intercept = float(y.mean() - slope * x.mean())
    if len(x) < 3 or np.ptp(y) <= 1e-15 * max(1.0, float(np.abs(y).max())):
        return slope, intercept, float("nan"), float("nan")
    from scipy.special import stdtr

    dy = y - y.mean()
    r = float(np.clip(np.dot(dx, dy) / np.sqrt(np.dot(dx, dx) * np.dot(dy, dy)), -1.0, 1.0))
    df = len(x) - 2
    # two-sided p of the t statistic of r with n - 2 degrees of freedom, as scipy.stats.linregress computes it
    t = r * np.sqrt(df / ((1.0 - r) * (1.0 + r) + 1e-20))
    return slope, intercept, r, float(2 * stdtr(df, -abs(t)))


def bootstrap_slopes(x: np.ndarray, y: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """OLS slopes for resamples ``indices`` (shape (B, n)); NaN where a resample has constant x."""
    xb = x[indices]
    yb = y[indices]
    dx = xb - xb.mean(axis=1, keepdims=True)
    denominator = np.einsum("ij,ij->i", dx, dx)
    numerator = np.einsum("ij,ij->i", dx, yb - yb.mean(axis=1, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


def resample_indices(n: int, n_bootstrap: int, seed: int) -> np.ndarray:
    """Bootstrap resamples of query positions, shape (n_bootstrap, n), reproducible from ``seed``."""
    return np.random.default_rng(seed).integers(0, n, size=(n_bootstrap, n))


def percentile_ci(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap samples."""
    finite = samples[np.isfinite(samples)]
    if len(finite) == 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def fit_gsr(system: str, per_query: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0) -> GSRResult:
    """GSR from a per-query table with columns ``query_genderedness``, ``list_genderedness``, ``used``, ``reason``."""
    used = per_query[per_query["used"]]
    x = used["query_genderedness"].to_numpy(dtype=np.float64)
    y = used["list_genderedness"].to_numpy(dtype=np.float64)
    slope, intercept, r, p = ols_fit(x, y)
    ci_low = ci_high = float("nan")
    if n_bootstrap > 0 and len(x) >= 3:
        ci_low, ci_high = percentile_ci(bootstrap_slopes(x, y, resample_indices(len(x), n_bootstrap, seed)))
    reasons = per_query.loc[~per_query["used"], "reason"].value_counts()
    return GSRResult(
        system=system,
        slope=slope,
        intercept=intercept,
        r=r,
        p_value=p,
        ci_low=ci_low,
        ci_high=ci_high,
        n_queries=len(x),
        n_excluded=int((~per_query["used"]).sum()),
        excluded={str(k): int(v) for k, v in reasons.items()},
        per_query=per_query.reset_index(drop=True),
    )


@dataclass(frozen=True)
class PairedGSRTest:
    """GSR_system − GSR_reference on the queries both can use, with a 95% CI and a two-sided p-value."""

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_queries: int


def paired_gsr_test(system: GSRResult, reference: GSRResult, n_bootstrap: int = 1000, seed: int = 0) -> PairedGSRTest:
    """Paired bootstrap over queries of the slope difference (resampling the same queries for both).

    p-value: share of centred bootstrap differences at least as far from 0 as the observed one,
    (1 + #{|δ* − δ| ≥ |δ|}) / (B + 1).
    """
    a = system.per_query[system.per_query["used"]].set_index("qid")
    b = reference.per_query[reference.per_query["used"]].set_index("qid")
    common = a.index.intersection(b.index)
    nan = float("nan")
    if len(common) < 3 or n_bootstrap <= 0:
        return PairedGSRTest(nan, nan, nan, nan, len(common))
    x = a.loc[common, "query_genderedness"].to_numpy(dtype=np.float64)
    ya = a.loc[common, "list_genderedness"].to_numpy(dtype=np.float64)
    yb = b.loc[common, "list_genderedness"].to_numpy(dtype=np.float64)
    observed = ols_fit(x, ya)[0] - ols_fit(x, yb)[0]
    indices = resample_indices(len(common), n_bootstrap, seed)
    differences = bootstrap_slopes(x, ya, indices) - bootstrap_slopes(x, yb, indices)
    finite = differences[np.isfinite(differences)]
    low, high = percentile_ci(finite)
    if math.isnan(observed) or len(finite) == 0:
        return PairedGSRTest(observed, low, high, nan, len(common))
    extreme = np.abs(finite - observed) >= abs(observed) - 1e-15
    p = (1 + int(extreme.sum())) / (len(finite) + 1)
    return PairedGSRTest(observed, low, high, float(min(1.0, p)), len(common))


def relative_gsr(system_slope: float, perfect_slope: float) -> float:
    """(GSR_sys − GSR_perfect) / GSR_perfect; NaN when the perfect run's GSR is (numerically) zero."""
    if not math.isfinite(perfect_slope) or abs(perfect_slope) < ZERO_SLOPE:
        return float("nan")
    return (system_slope - perfect_slope) / perfect_slope
