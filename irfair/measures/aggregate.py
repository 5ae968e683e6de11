"""Mean over queries of a per-query measure, with an expanded BCa bootstrap confidence interval (:mod:`irfair.measures.intervals`).

The resamples are those of every interval of an audit (:mod:`.resampling`): ``B`` resamples of query
positions drawn as ``np.random.default_rng(seed).integers(0, n, size=(B, n))`` over the n queries with a
value, so with the same seed and the same queries every measure's interval is built from the same
resamples as GSR's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import IrfairInputError
from .resampling import mean_cis


@dataclass(frozen=True)
class MeasureSummary:
    """Mean of a measure over queries with its bootstrap CI.

    ``n_queries``: queries with a finite value (those averaged); ``n_undefined``: queries whose value
    was NaN (e.g. an empty ranked list), left out of the mean and counted here.
    """

    mean: float
    ci_low: float
    ci_high: float
    n_queries: int
    n_undefined: int


def query_mean_ci(per_query: np.ndarray, n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95) -> MeasureSummary:
    """Mean of ``per_query`` (shape (n_queries,)) over its finite values, with an expanded BCa bootstrap CI.

    The CI is NaN when fewer than 2 queries have a value or ``n_bootstrap`` is 0; it collapses to the
    mean when all values are equal.
    """
    values = np.asarray(per_query, dtype=np.float64)
    if values.ndim != 1:
        raise IrfairInputError(None, None, f"expected per-query values of shape (n_queries,), got shape {values.shape}")
    if not 0 < level < 1:
        raise IrfairInputError(None, None, f"expected a confidence level between 0 and 1, got {level}")
    found = mean_cis(values[None, :], n_bootstrap, seed, level)
    n = int(found.n_queries[0])
    return MeasureSummary(float(found.mean[0]), float(found.ci_low[0]), float(found.ci_high[0]), n, len(values) - n)
