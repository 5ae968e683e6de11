"""Mean over queries with an expanded BCa bootstrap CI (irfair.measures.aggregate)."""
from __future__ import annotations

import numpy as np
import pytest
from bootstrap_reference import expanded_bca

from irfair.errors import IrfairInputError
from irfair.measures.aggregate import query_mean_ci


def test_mean_leaves_out_and_counts_undefined_queries():
    """(1 + 2 + 3 + 4) / 4 = 2.5; the NaN query is counted, not averaged."""
    summary = query_mean_ci(np.array([1.0, np.nan, 2.0, 3.0, 4.0]), n_bootstrap=0)
    assert (summary.mean, summary.n_queries, summary.n_undefined) == (2.5, 4, 1)
    assert np.isnan(summary.ci_low) and np.isnan(summary.ci_high)


def test_ci_uses_the_gsr_resamples():
    """A loop over the resamples GSR draws (rng.integers(0, n, size=(B, n)) over the finite values)
    read at the expanded BCa percentiles (from the definition) gives the same interval."""
    values = np.array([0.3, -0.1, 0.8, np.nan, 0.0, 0.45, 1.2])
    finite = values[np.isfinite(values)]
    draws = np.random.default_rng(7).integers(0, len(finite), size=(200, len(finite)))
    means = [sum(finite[i] for i in row) / len(row) for row in draws]
    expected = expanded_bca(means, finite.mean(), [np.delete(finite, i).mean() for i in range(6)], 6)
    summary = query_mean_ci(values, n_bootstrap=200, seed=7)
    assert summary.ci_low == pytest.approx(expected[0], abs=1e-12)
    assert summary.ci_high == pytest.approx(expected[1], abs=1e-12)
    assert summary.mean == pytest.approx(sum(finite) / 6)


def test_constant_values_collapse_the_ci_and_one_query_has_none():
    constant = query_mean_ci(np.full(5, 0.25), n_bootstrap=50)
    assert (constant.ci_low, constant.ci_high) == pytest.approx((0.25, 0.25))
    single = query_mean_ci(np.array([0.7]))
    assert single.mean == 0.7 and np.isnan(single.ci_low)
    empty = query_mean_ci(np.array([np.nan]))
    assert np.isnan(empty.mean) and (empty.n_queries, empty.n_undefined) == (0, 1)


def test_rejects_matrices_and_bad_levels():
    with pytest.raises(IrfairInputError, match="shape \\(n_queries,\\)"):
        query_mean_ci(np.zeros((3, 2)))
    with pytest.raises(IrfairInputError, match="confidence level"):
        query_mean_ci(np.zeros(3), level=1.5)
