"""Gender Stereotype Reinforcement (Fabris et al., Eq. 3): the OLS slope of list genderedness g_q(L)
on query genderedness g(q) across queries, with a bootstrap confidence interval over queries and a
paired test against a reference system (the perfect run); resamples come from :mod:`.resampling`."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .resampling import paired_slope_tests, wild_slope_ci

ZERO_SLOPE = 1e-12


@dataclass(frozen=True)
class GSRResult:
    """GSR of one system: slope with intercept, Pearson r and its p-value, 95% CI (wild bootstrap inverted), counts.

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


def fit_gsr(system: str, per_query: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0) -> GSRResult:
    """GSR from a per-query table with columns ``query_genderedness``, ``list_genderedness``, ``used``, ``reason``."""
    used = per_query[per_query["used"]]
    x = used["query_genderedness"].to_numpy(dtype=np.float64)
    y = used["list_genderedness"].to_numpy(dtype=np.float64)
    slope, intercept, r, p = ols_fit(x, y)
    ci_low, ci_high = wild_slope_ci(x, y, n_bootstrap, seed)
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
    """GSR_system − GSR_reference on the queries both use: the difference, its 95% CI (the paired test inverted), the
    two-sided p of the paired randomization test and the number of queries (:mod:`.resampling`)."""

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_queries: int
    simultaneous_low: float = float("nan")  # the CI simultaneous over the systems compared (Bonferroni), when made
    simultaneous_high: float = float("nan")


def aligned_list_genderedness(results: Sequence[GSRResult]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(qids, g(q), g_q(L))`` of several systems on one query axis (the first table's order, then any other
    query): g(q) of shape (n,), g_q(L) of shape (k, n), NaN where a system does not use a query."""
    qids = list(dict.fromkeys(q for r in results for q in r.per_query["qid"]))
    x = pd.Series(np.nan, index=qids)
    rows = []
    for result in results:
        used = result.per_query[result.per_query["used"]].set_index("qid")
        x.loc[used.index] = used["query_genderedness"].to_numpy(dtype=np.float64)
        rows.append(used["list_genderedness"].reindex(qids).to_numpy(dtype=np.float64))
    return qids, x.to_numpy(dtype=np.float64), np.array(rows).reshape(len(results), len(qids))


def paired_gsr_test(system: GSRResult, reference: GSRResult, n_bootstrap: int = 1000, seed: int = 0,
                    n_permutations: int = 10_000) -> PairedGSRTest:
    """GSR(system) − GSR(reference) as the OLS slope of g_q(L_system) − g_q(L_reference) on g(q) over the
    queries both use, with the randomization test and its inverted CI of
    :func:`~irfair.measures.resampling.paired_slope_tests` (queries placed as in the system's table, so
    an audit's tables give its resamples). The difference is reported even without resamples."""
    _, x, y = aligned_list_genderedness([system, reference])
    test = paired_slope_tests(x, y[:1], y[1:], n_bootstrap=n_bootstrap, n_permutations=n_permutations, seed=seed)
    return PairedGSRTest(float(test.delta[0]), float(test.ci_low[0]), float(test.ci_high[0]), float(test.p[0]),
                         int(test.n_queries[0]))


def relative_gsr(system_slope: float, perfect_slope: float) -> float:
    """(GSR_sys − GSR_perfect) / GSR_perfect; NaN when the perfect run's GSR is (numerically) zero."""
    if not math.isfinite(perfect_slope) or abs(perfect_slope) < ZERO_SLOPE:
        return float("nan")
    return (system_slope - perfect_slope) / perfect_slope
