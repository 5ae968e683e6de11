"""The skew-corrected sign-flip test an audit's decision on a mean also asks (irfair.measures.skew_corrected)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from bootstrap_reference import hall_corrected_t

from irfair.measures.resampling import DIFFERS, UNDECIDED, decide, paired_mean_tests
from irfair.measures.skew_corrected import corrected_statistic, exact_corrected_counts


def test_the_statistic_is_halls_t_with_the_skewness_at_order_one_over_n():
    """From its sums, equal to the definition written with numpy's moments; worked by hand for d = (1, 2, 6):
    mean 3, s² = 7, t = 3 / √(7/3) = 1.963961, m₃ = (−8 − 1 + 27) / 3 = 6, γ̂ = 6 / 7^{3/2} = 0.323970,
    g = 5.5 γ̂ / √3 = 1.028741, h = t + g (t²/3 + 1/6) / √3 + g² t³ / 81 = 1.963961 + 0.862632 + 0.098975
    = 2.925568."""
    d = np.array([[1.0, 2.0, 6.0]])
    found = corrected_statistic(d.sum(axis=1), (d * d).sum(axis=1), (d**3).sum(axis=1), 3)
    assert found[0] == pytest.approx(2.925568, abs=2e-6)
    rng = np.random.default_rng(4)
    values = rng.exponential(1.0, size=(50, 20)) - 1.2
    found = corrected_statistic(values.sum(axis=1), (values**2).sum(axis=1), (values**3).sum(axis=1), 20)
    assert found == pytest.approx(np.abs(hall_corrected_t(values)), rel=1e-12)
    # no spread: infinite unless the mean is 0; fewer than 3 values: |Σ d| / √(Σ d²)
    assert corrected_statistic(np.array([6.0, 0.0]), np.array([12.0, 0.0]), np.array([24.0, 0.0]), 3).tolist() == [np.inf, 0.0]
    assert corrected_statistic(3.0, 5.0, 9.0, 2) == pytest.approx(3 / np.sqrt(5))


def test_its_exact_counts_are_the_enumerated_patterns():
    """Every sign pattern of the 7 differing queries of a 9-query pair (two without a difference, which the
    statistic still counts in n), counted independently with the definition."""
    d = np.array([0.9, -0.1, -0.2, 0.0, -0.15, 0.05, -0.3, 0.0, -0.25])
    mask = d != 0
    count, total = exact_corrected_counts(d[None, :], np.array([9]), mask)
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=9)))
    observed = abs(hall_corrected_t(d[None, :])[0])
    share = np.mean(np.abs(hall_corrected_t(patterns * d)) >= observed * (1 - 1e-9))
    assert total == 2**7 and count[0] / total == pytest.approx(share, abs=1e-12)


def test_a_skewed_difference_the_plain_test_rejects_and_the_corrected_one_does_not_is_undecided():
    """20 queries, 19 worse by 0.1 and one better by 0.2 (mean −0.085, skewness 4.1): the randomization test rejects
    (2 of 10,000 flips reach |Σ d|: p = 3/10,001), but a mean of 0 with such a skew is not excluded (the corrected
    statistic −1.688; 829 flips reach it: p = 0.083), so the decision is undecided, never "differs", and the p
    printed stays the randomization test's. The mirror image is undecided alike; a symmetric difference of 0.1
    (−0.15 and −0.05 alternating) differs."""
    d = np.array([-0.1] * 19 + [0.2])
    rows = np.vstack([d, -d, np.array([-0.15, -0.05] * 10)])
    found = paired_mean_tests(rows, np.zeros_like(rows), n_bootstrap=0, n_permutations=10_000, seed=0, p_values=True)
    assert hall_corrected_t(rows[:1])[0] == pytest.approx(-1.687907, abs=1e-6)
    decided = decide(found.terms, found.usable, 10_000, 0, "none", 0.05, None, found.n_queries)
    plain = decide(found.terms, found.usable, 10_000, 0, "none", 0.05)
    assert decided.p.tolist() == plain.p.tolist() == pytest.approx([3 / 10_001, 3 / 10_001, 1 / 10_001])
    assert plain.decision.tolist() == [DIFFERS, DIFFERS, DIFFERS]
    assert decided.decision.tolist() == [UNDECIDED, UNDECIDED, DIFFERS]
