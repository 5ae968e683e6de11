"""Bias against effectiveness: which systems no other system beats on both (the Pareto front: lower GSR and
higher effectiveness), and how often each is on the front across bootstrap resamples of the queries.

A system is dominated when another audited system has GSR at most and effectiveness at least its own, one
of them strictly. Lower GSR is read as better: positive GSR is the system's reinforcement of stereotypes
(Fabris et al., Section 3.5). The front's share of a system is the fraction of bootstrap resamples — the
queries every audited system has for both measures, resampled as for every CI — in which it is on the
front. The perfect and random runs are drawn beside the front, never part of it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..measures.resampling import bootstrap_weights, slopes_from_weights
from .comparisons import GSR, Inference, QueryValues

TRADEOFF_COLUMNS = ("gsr", "measure", "on_front", "front_share", "n_queries")


def on_front(gsr: np.ndarray, effectiveness: np.ndarray) -> np.ndarray:
    """Pareto front membership of k systems (lower ``gsr``, higher ``effectiveness``): arrays of shape
    (..., k) → bool (..., k); a system with an undefined value is never on the front."""
    g, e = np.asarray(gsr, dtype=np.float64), np.asarray(effectiveness, dtype=np.float64)
    defined = np.isfinite(g) & np.isfinite(e)
    gi, gj = g[..., :, None], g[..., None, :]
    ei, ej = e[..., :, None], e[..., None, :]
    dominates = (gj <= gi) & (ej >= ei) & ((gj < gi) | (ej > ei)) & defined[..., None, :]
    return defined & ~dominates.any(axis=-1)


def tradeoff(values: QueryValues, systems, measure: str, gsr: np.ndarray, effectiveness: np.ndarray,
             inference: Inference) -> pd.DataFrame:
    """Per audited system (index ``system``): its GSR and ``measure`` (the table's values, arrays of shape
    (k,)), whether it is on the front, its share of bootstrap resamples on the front and the number of
    queries resampled."""
    systems = list(systems)
    gsr = np.asarray(gsr, dtype=np.float64)
    effectiveness = np.asarray(effectiveness, dtype=np.float64)
    rows = values.rows(systems)
    x = values.query_genderedness
    y = values.values[GSR][rows]
    m = values.values[measure][rows]
    common = np.isfinite(x) & np.isfinite(y).all(axis=0) & np.isfinite(m).all(axis=0)
    n = int(common.sum())
    share = np.full(len(systems), np.nan)
    if inference.n_bootstrap > 0 and n >= 3 and systems:
        weights = bootstrap_weights(n, inference.n_bootstrap, inference.seed)
        resampled_gsr = slopes_from_weights(x[common], y[:, common], weights)
        resampled_measure = weights @ m[:, common].T / n
        share = on_front(resampled_gsr, resampled_measure).mean(axis=0)
    return pd.DataFrame({"system": systems, "gsr": gsr, "measure": effectiveness, "on_front": on_front(gsr, effectiveness),
                         "front_share": share, "n_queries": n}, columns=["system", *TRADEOFF_COLUMNS]).set_index("system")
