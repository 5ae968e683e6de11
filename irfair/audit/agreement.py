"""Do the bias measures agree? One row per pair of measures (``agreement.csv``; in an audit, each measure's
headline columns: ``gsr``, ``rab_tc@10``, ``rab_bool@10``, ``arab_tc@10``, ``arab_bool@10``, ``nfairr@10``, ``texfair@10``):

* ``kendall_tau``, ``kendall_p``, ``n_systems`` — Kendall's τ-b between the orderings of the audited
  systems (the perfect and random runs left out) by the two measures' values (GSR's slope, the other
  measures' means over queries), with its two-sided p-value (scipy: exact for small samples without
  ties), over the systems where both are defined; NaN with fewer than 2 systems.
* ``pearson_r``, ``pearson_p``, ``n_pairs`` — Pearson's r between the two measures' per-query values,
  pooled over the audited systems (one pair per system and query where both are defined), with its
  two-sided p-value; NaN with fewer than 3 pairs, for a constant measure, and for GSR, which is a slope
  over queries and has no per-query value.

Values are compared as the measures give them, each with its own sign convention: GSR, RaB and ARaB grow
with bias (stereotype reinforcement; male-leaning), NFaiRR and TExFAIR with fairness, so two measures
that agree on which systems are more biased show τ > 0 within a group and τ < 0 across the groups.
"""
from __future__ import annotations

import warnings
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from ..cache.arrays import ArraysMemo

AGREEMENT_COLUMNS = ("measure_a", "measure_b", "kendall_tau", "kendall_p", "n_systems", "pearson_r", "pearson_p", "n_pairs")


def _kendall(a: np.ndarray, b: np.ndarray) -> tuple[float, float, int]:
    both = np.isfinite(a) & np.isfinite(b)
    n = int(both.sum())
    if n < 2:
        return float("nan"), float("nan"), n
    from scipy import stats  # half a second to import: an audit imports it on a thread beside its reading

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.kendalltau(a[both], b[both])
    return float(result.statistic), float(result.pvalue), n


def _pearson(a: np.ndarray, b: np.ndarray) -> tuple[float, float, int]:
    both = np.isfinite(a) & np.isfinite(b)
    n = int(both.sum())
    x, y = a[both], b[both]
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan"), n
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.pearsonr(x, y)
    return float(result.statistic), float(result.pvalue), n


def agreement_table(system_values: pd.DataFrame, per_query: pd.DataFrame | None = None,
                    memo: ArraysMemo | None = None) -> pd.DataFrame:
    """One row per pair of measures, in the order of ``system_values``' columns (see the module docstring).

    ``system_values``: one row per system, one column per measure; ``per_query``: one row per system and
    query with a column for each measure that has per-query values (a measure without one gets NaN r).
    ``memo`` (an audit's cache, :func:`irfair.cache.arrays.arrays_memo`): the numbers are read from it when these
    values were compared before (a re-audit then does not import scipy.stats, a second of its start-up).
    """
    per_query = pd.DataFrame() if per_query is None else per_query
    pairs = list(combinations(list(system_values.columns), 2))

    def numbers() -> tuple[np.ndarray]:
        rows = []
        for a, b in pairs:
            tau, tau_p, n_systems = _kendall(system_values[a].to_numpy(dtype=np.float64), system_values[b].to_numpy(dtype=np.float64))
            if a in per_query and b in per_query:
                r, r_p, n_pairs = _pearson(per_query[a].to_numpy(dtype=np.float64), per_query[b].to_numpy(dtype=np.float64))
            else:
                r, r_p, n_pairs = float("nan"), float("nan"), 0
            rows.append((tau, tau_p, n_systems, r, r_p, n_pairs))
        return (np.array(rows, dtype=np.float64).reshape(len(pairs), 6),)

    if memo is None or not pairs:
        found = numbers()[0]
    else:
        pooled = [c for c in system_values.columns if c in per_query]
        found, = memo("agreement", [system_values.to_numpy(dtype=np.float64), per_query[pooled].to_numpy(dtype=np.float64)],
                      (list(map(str, system_values.columns)), pooled), numbers, [(len(pairs), 6)])
    rows = [{"measure_a": a, "measure_b": b, "kendall_tau": float(tau), "kendall_p": float(tau_p), "n_systems": int(n_systems),
             "pearson_r": float(r), "pearson_p": float(r_p), "n_pairs": int(n_pairs)}
            for (a, b), (tau, tau_p, n_systems, r, r_p, n_pairs) in zip(pairs, found.tolist())]
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))
