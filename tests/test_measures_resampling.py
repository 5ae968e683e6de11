"""Resampling over queries: bootstrap counts equal the drawn indices, slopes and means under them equal
refits on the resampled queries, randomization p-values equal an exact enumeration of every swap (an
independent implementation) within Monte-Carlo error, and corrections equal values worked out by hand."""
import itertools
import math

import numpy as np
import pytest
from bootstrap_reference import expanded_bca, hall_corrected_t, inverted_by_bisection, ols_slopes

from irfair.errors import IrfairInputError
from irfair.measures.resampling import (
    adjust_p,
    bootstrap_indices,
    bootstrap_weights,
    jackknife_slopes,
    mean_cis,
    paired_mean_tests,
    paired_slope_tests,
    percentile_ci,
    sign_flips,
    slopes_from_weights,
    wild_slope_ci,
)


def test_weights_count_the_drawn_indices():
    indices = bootstrap_indices(7, 50, seed=4)
    weights = bootstrap_weights(7, 50, seed=4)
    assert weights.shape == (50, 7) and (weights.sum(axis=1) == 7).all()
    for row, drawn in zip(weights, indices):
        assert row.tolist() == np.bincount(drawn, minlength=7).tolist()
    flips = sign_flips(5, 1000, seed=1)
    assert set(np.unique(flips)) == {-1.0, 1.0} and abs(flips.mean()) < 0.05
    assert np.array_equal(flips, sign_flips(5, 1000, seed=1)) and not np.array_equal(flips, sign_flips(5, 1000, seed=2))


def test_slopes_and_means_under_weights_equal_refits_on_the_resampled_queries():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=30), rng.normal(size=(2, 30))
    indices = bootstrap_indices(30, 20, seed=3)
    slopes = slopes_from_weights(x, y, bootstrap_weights(30, 20, seed=3))
    for k in range(2):
        assert np.allclose(slopes[:, k], [np.polyfit(x[i], y[k][i], 1)[0] for i in indices], atol=1e-12)
    values = np.array([[1.0, np.nan, 2.0, 3.0, 4.0], [0.5, 0.1, 0.2, np.nan, 0.9]])
    found = mean_cis(values, 200, seed=7)
    assert found.mean.tolist() == pytest.approx([2.5, 0.425]) and found.n_queries.tolist() == [4, 4]
    finite = values[0][np.isfinite(values[0])]
    means = finite[bootstrap_indices(4, 200, seed=7)].mean(axis=1)
    leave_one_out = [np.delete(finite, i).mean() for i in range(4)]
    assert (found.ci_low[0], found.ci_high[0]) == pytest.approx(expanded_bca(means, 2.5, leave_one_out, 4), abs=1e-12)
    # a constant resample of x has no slope
    assert np.isnan(slopes_from_weights(np.array([1.0, 2.0]), np.array([[1.0, 2.0]]), np.array([[2.0, 0.0]]))[0, 0])


def test_percentile_ci_skips_undefined_resamples():
    low, high = percentile_ci(np.array([[1.0, np.nan], [np.nan, np.nan], [3.0, np.nan]]))
    assert (low[0], high[0]) == pytest.approx((1.05, 2.95)) and math.isnan(low[1]) and math.isnan(high[1])
    assert all(math.isnan(v) for v in percentile_ci(np.empty(0)))


def test_jackknife_equals_refits_without_each_query():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=12), rng.normal(size=12)
    expected = [np.polyfit(np.delete(x, q), np.delete(y, q), 1)[0] for q in range(12)]
    assert np.allclose(jackknife_slopes(x, y), expected, atol=1e-12)
    # without query 2 the remaining x are equal: no slope
    assert np.isnan(jackknife_slopes(np.array([1.0, 1.0, 5.0]), np.array([0.0, 1.0, 2.0]))[2])


def _exact_sign_flip_p(statistic, a, b):
    """Every one of the 2^n swaps of a's and b's values, each refitted with ``statistic``: the exact
    two-sided p = #{|T*| ≥ |T|} / 2^n (written independently of irfair's sums)."""
    observed = abs(statistic(a, b))
    n, hits = len(a), 0
    for swap in itertools.product((False, True), repeat=n):
        swap = np.array(swap)
        hits += abs(statistic(np.where(swap, b, a), np.where(swap, a, b))) >= observed - 1e-12
    return hits / 2**n


def test_paired_mean_p_agrees_with_exact_enumeration():
    rng = np.random.default_rng(11)
    a = rng.normal(0.3, 1.0, size=(3, 11))
    b = a - rng.normal([[0.0], [0.4], [0.9]], 0.8, size=(3, 11))
    b[2, 0] = a[2, 0]  # a query both systems score alike
    found = paired_mean_tests(a, b, n_bootstrap=500, n_permutations=20_000, seed=3)
    for k in range(3):
        exact = _exact_sign_flip_p(lambda u, v: np.mean(u - v), a[k], b[k])
        # Monte-Carlo error of a proportion from 20,000 draws: within 4 standard errors
        assert abs(found.p[k] - exact) <= 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1 / 20_001
        assert found.delta[k] == pytest.approx(np.mean(a[k] - b[k]))
    # the CI: every δ the exact test of "the mean difference is δ" keeps (2^11 patterns fit in 20,000), or its
    # skew-corrected form keeps (the decision asks both to reject)
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=11)))
    for k in range(3):
        d = a[k] - b[k]
        plain = inverted_by_bisection(lambda v: v.mean(axis=1), lambda delta, d=d: d - delta, patterns, d.mean())
        corrected = inverted_by_bisection(hall_corrected_t, lambda delta, d=d: d - delta, patterns, d.mean())
        expected = min(plain[0], corrected[0]), max(plain[1], corrected[1])
        assert (found.ci_low[k], found.ci_high[k]) == pytest.approx(expected, abs=1e-7)  # ends widened by the tie margin
    assert found.n_queries.tolist() == [11, 11, 11]


def _exact_centred_slope_p(x, a, b) -> float:
    """The exact p of the GSR pair test by its definition: every sign pattern s of the centred differences
    d_q − d̄, T* = OLS slope of s (d − d̄) on x, p = share of patterns with |T*| ≥ |T| (ties within 1e-12)."""
    d = a - b
    centred = d - d.mean()
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=len(x))))
    slopes = np.array([np.polyfit(x, s * centred, 1)[0] for s in patterns])
    observed = abs(np.polyfit(x, d, 1)[0])
    return float(np.mean(np.abs(slopes) >= observed - 1e-12))


def test_the_gsr_pair_test_keeps_its_power_when_the_mean_genderedness_differs():
    """Equal noise, a slope difference of 0.3, and system a's lists 5 units more gendered on every query: flipping
    the signs of d_q itself makes the intercept swamp the slope (p far above 0.05); the centred differences give
    the same p as without the shift (the statistic and its permutation distribution ignore d̄)."""
    rng = np.random.default_rng(4)
    x = np.linspace(-1, 1, 20)
    b = rng.normal(0, 0.1, size=20)
    a = b + 0.3 * x + rng.normal(0, 0.1, size=20)
    shifted = paired_slope_tests(x, (a + 5.0)[None], b[None], n_bootstrap=0, n_permutations=20_000, seed=1)
    level = paired_slope_tests(x, a[None], b[None], n_bootstrap=0, n_permutations=20_000, seed=1)
    assert shifted.p[0] == pytest.approx(level.p[0], abs=1e-12) and shifted.p[0] < 0.01
    flips = sign_flips(20, 20_000, 1)
    c = x - x.mean()
    uncentred = np.mean(np.abs(flips @ (c * (a + 5.0 - b))) >= abs(c @ (a + 5.0 - b)) - 1e-9)
    assert uncentred > 0.3


def test_paired_slope_p_agrees_with_exact_enumeration_of_centred_differences():
    rng = np.random.default_rng(12)
    x = rng.normal(0, 0.1, size=10)
    a = 0.8 * x + rng.normal(0, 0.05, size=10)
    b = 0.1 * x + rng.normal(0, 0.05, size=10)
    found = paired_slope_tests(x, a[None], b[None], n_bootstrap=400, n_permutations=20_000, seed=9)

    def slope_difference(u, v):
        return np.polyfit(x, u, 1)[0] - np.polyfit(x, v, 1)[0]

    exact = _exact_centred_slope_p(x, a, b)
    assert 0.001 < exact < 0.2
    assert abs(found.p[0] - exact) <= 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1 / 20_001
    # the CI: every δ the exact test of "the slopes differ by δ" keeps, flipping the restricted residuals
    d = a - b
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=10)))
    expected = inverted_by_bisection(lambda v: ols_slopes(x, v), lambda delta: d - d.mean() - delta * (x - x.mean()),
                                     patterns, slope_difference(a, b), span=100.0)
    assert (found.ci_low[0], found.ci_high[0]) == pytest.approx(expected, abs=1e-7)
    assert found.ci_low[0] > 0  # exact p below 0.05: the interval excludes 0, as the test rejects
    assert found.delta[0] == pytest.approx(slope_difference(a, b), abs=1e-12)


def test_paired_tests_on_common_queries_ties_and_degenerate_cases():
    x = np.array([-0.2, -0.1, 0.0, 0.1, 0.2, np.nan])
    a = np.array([[0.0, 1.0, 2.0, 3.0, np.nan, 7.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])
    b = np.array([[0.0, 0.0, 0.0, 0.0, 9.0, 7.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])
    means = paired_mean_tests(a, b, n_bootstrap=100, n_permutations=999, seed=0)
    # row 0: queries 0-3 and 5 are common (query 4 is missing from a): mean of 0, 1, 2, 3, 0
    assert means.n_queries.tolist() == [5, 6] and means.delta[0] == pytest.approx(6 / 5)
    # identical systems: every swap ties the observed 0, p = 1; the CI collapses to 0
    assert means.p[1] == 1.0 and means.delta[1] == 0.0 and (means.ci_low[1], means.ci_high[1]) == (0.0, 0.0)
    slopes = paired_slope_tests(x, a, b, n_bootstrap=100, n_permutations=999, seed=0)
    # row 0: x has no value for query 5, a none for query 4: slope of 0, 1, 2, 3 on -0.2..0.1 is 10
    assert slopes.n_queries.tolist() == [4, 5] and slopes.delta[0] == pytest.approx(10.0)
    assert slopes.p[1] == 1.0
    few = paired_slope_tests(x[:2], a[:1, :2], b[:1, :2], n_bootstrap=10, n_permutations=10, seed=0)
    assert np.isnan(few.delta[0]) and np.isnan(few.p[0]) and np.isnan(few.ci_low[0])
    none = paired_mean_tests(a, b, n_bootstrap=0, n_permutations=0, seed=0)
    assert none.delta[0] == pytest.approx(6 / 5) and np.isnan(none.p).all() and np.isnan(none.ci_low).all()


def test_corrections_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04; Holm: 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06, max(1·0.04, 0.06) = 0.06
    assert adjust_p(p, "holm").tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust_p(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # BH: 4·0.005/1 = 0.02, 4·0.01/2 = 0.02, 4·0.03/3 = 0.04, 4·0.04/4 = 0.04, then the minimum from the top
    assert adjust_p(p, "bh").tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust_p(p, "none").tolist() == p.tolist()
    # NaN is not part of the family (m = 2) and stays NaN; nothing exceeds 1
    assert adjust_p(np.array([0.01, np.nan, 0.04]), "holm").tolist() == pytest.approx([0.02, np.nan, 0.04], nan_ok=True)
    assert adjust_p(np.array([0.6, 0.7]), "holm").tolist() == [1.0, 1.0]
    assert adjust_p(np.array([0.5, 0.01, 0.02]), "bh").tolist() == pytest.approx([0.5, 0.03, 0.03])
    assert adjust_p(np.array([]), "holm").tolist() == []
    with pytest.raises(IrfairInputError, match="correction must be one of holm, bonferroni, bh, none"):
        adjust_p(p, "sidak")


def test_decisions_exact_where_enumerable_and_cannot_differ_below_the_floor():
    """Three queries with positive differences 1, 2, 3: of the 8 sign patterns, only all + and all − reach |T| = 6,
    so p = 2/8 exactly, and no test on 3 queries can reach 0.05 ('cannot differ'); identical systems do not
    differ (p 1); a row with no usable query is not compared."""
    from irfair.measures.resampling import CANNOT_DIFFER, NO_DIFFERENCE, NOT_COMPARED, decide

    found = decide(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]), np.array([True, True, False]),
                   n_permutations=1000, seed=0, correction="none", alpha=0.05)
    assert found.p[0] == 0.25 and found.p_se[0] == 0.0 and found.exact[0] and found.n_permutations[0] == 8
    assert found.p[1] == 1.0 and np.isnan(found.p[2])
    assert found.decision.tolist() == [CANNOT_DIFFER, NO_DIFFERENCE, NOT_COMPARED]


def test_decisions_by_monte_carlo_add_permutations_until_stable_or_say_undecided():
    """20 queries of difference 1 (exact p = 2/2^20): 100 random flips give p = 1/101 with its standard error, far
    enough from 0.05 to decide at once ('differs'). A test read at an alpha equal to its true p cannot be decided:
    permutations are added up to 64 × 200 and it stays 'undecided'."""
    from irfair.measures.resampling import DIFFERS, MAX_ROUNDS, UNDECIDED, decide

    terms = np.ones((1, 20))
    found = decide(terms, np.array([True]), n_permutations=100, seed=0, correction="none", alpha=0.05)
    assert (found.p[0], found.n_permutations[0], found.decision[0]) == (1 / 101, 100, DIFFERS)
    assert found.p_se[0] == pytest.approx(math.sqrt((1 / 101) * (100 / 101) / 100))
    rng = np.random.default_rng(5)
    middling = rng.normal(0.3, 1.0, size=(1, 30))
    flips = sign_flips(30, 400_000, 99)  # the true p, to 1e-3, from many more flips of another seed
    true_p = float(np.mean(np.abs(flips @ middling[0]) >= abs(middling.sum()) - 1e-9))
    on_the_edge = decide(middling, np.array([True]), n_permutations=200, seed=0, correction="none", alpha=true_p)
    assert on_the_edge.decision[0] == UNDECIDED and on_the_edge.n_permutations[0] == MAX_ROUNDS * 200


def test_an_undefined_estimate_gets_no_interval_and_leaves_the_others_alone():
    """Column 1's estimate is undefined: its interval is NaN, column 0's is the definition's."""
    from irfair.measures.intervals import bca_interval

    samples = np.random.default_rng(0).normal(size=(200, 2))
    leave_one_out = np.array([0.1, -0.2, 0.05, 0.3, -0.1])
    low, high = bca_interval(samples, np.array([0.02, np.nan]), np.column_stack([leave_one_out, leave_one_out]), 5)
    assert (low[0], high[0]) == pytest.approx(expanded_bca(samples[:, 0], 0.02, leave_one_out, 5), abs=1e-12)
    assert np.isnan(low[1]) and np.isnan(high[1])


def test_a_pair_interval_excludes_zero_exactly_when_its_random_flips_reject():
    """Monte-Carlo rows (2^30 patterns do not fit in 2,000 flips): each end is where the p of the test of δ, on the
    test's own flips, falls below α; 0 lies outside the interval exactly when the unadjusted p is below α."""
    rng = np.random.default_rng(21)
    a = rng.normal(0.0, 1.0, size=(40, 30))
    b = a - rng.normal(np.linspace(-0.8, 0.8, 40)[:, None], 1.0, size=(40, 30))
    found = paired_mean_tests(a, b, n_bootstrap=1, n_permutations=2_000, seed=5)
    flips = sign_flips(30, 2_000, 5)

    def p(d, delta):
        r = d - delta
        return (1 + np.sum(np.abs(flips @ r) >= abs(r.sum()) - 1e-12)) / 2_001

    def p_corrected(d, delta):
        r = d - delta
        return (1 + np.sum(np.abs(hall_corrected_t(flips * r)) >= abs(hall_corrected_t(r[None, :])[0]) * (1 - 1e-9))) / 2_001

    def kept(d, delta):  # the interval: the δ either test keeps (the decision asks both to reject)
        return max(p(d, delta), p_corrected(d, delta)) >= 0.05

    for k in range(40):
        d = a[k] - b[k]
        for end in (found.ci_low[k], found.ci_high[k]):
            inside = end + 1e-6 * np.sign(found.delta[k] - end)
            outside = end - 1e-6 * np.sign(found.delta[k] - end)
            assert kept(d, inside) and not kept(d, outside)  # kept while a test does not reject (p < α rejects)
        assert (found.ci_low[k] > 0 or found.ci_high[k] < 0) == (found.p[k] < 0.05 and p_corrected(d, 0.0) < 0.05)
    assert 5 < np.sum(found.p <= 0.05) < 35  # both kinds of row are checked


def test_the_first_rounds_counts_read_from_the_interval_are_the_tests_own():
    """The interval's products give the first round of the decision (PairedTests.first_counts): for Monte-Carlo rows
    (30 queries, 2,000 flips) they are the counts an independent sign-flip count gives on the same flips, -1 for the
    enumerated rows (8 queries), and decide() gives the same p and decisions with them as without."""
    from irfair.measures.resampling import decide

    rng = np.random.default_rng(8)
    a = rng.normal(0.0, 1.0, size=(12, 30))
    b = a - rng.normal(np.linspace(-0.6, 0.6, 12)[:, None], 1.0, size=(12, 30))
    b[6:, 8:] = np.nan  # rows 6-11: 8 shared queries, 2^8 patterns enumerated
    x = np.linspace(-1.0, 1.0, 30)
    flips = sign_flips(30, 2_000, 5)
    for found in (paired_mean_tests(a, b, n_bootstrap=1, n_permutations=2_000, seed=5, p_values=False),
                  paired_slope_tests(x, a, b, n_bootstrap=1, n_permutations=2_000, seed=5, p_values=False)):
        terms = found.terms
        independent = np.sum(np.abs(flips @ terms[:6].T) >= np.abs(terms[:6].sum(axis=1)) - 1e-9 * np.abs(terms[:6]).sum(axis=1),
                             axis=0)
        assert found.first_counts[:6].tolist() == independent.tolist()
        assert (found.first_counts[6:] == -1).all()
        with_counts = decide(terms, found.usable, 2_000, 5, "holm", 0.05, found.first_counts)
        without = decide(terms, found.usable, 2_000, 5, "holm", 0.05)
        assert with_counts.p.tolist() == without.p.tolist()
        assert with_counts.decision.tolist() == without.decision.tolist()
        assert with_counts.exact.tolist() == [False] * 6 + [True] * 6
        told = decide(terms, found.usable, 2_000, 5, "none", 0.05, np.where(found.first_counts >= 0, 0, -1))
        assert told.p[:6].tolist() == [1 / 2_001] * 6  # the counts given are the ones used


def test_one_systems_gsr_interval_inverts_the_wild_bootstrap_of_its_restricted_residuals():
    """A heteroscedastic slope on 10 queries, 2^10 patterns within 5,000 flips: exact, the residuals multiplied by
    √(10/9) (HC1: the restricted fit estimated the intercept); with 3 queries no δ can be excluded at 95% (2 of 8
    patterns always count): no interval."""
    rng = np.random.default_rng(8)
    x = rng.normal(0.0, 1.0, 10)
    y = 0.3 * x + (0.3 + np.abs(x)) * rng.normal(0.0, 1.0, 10)
    low, high = wild_slope_ci(x, y, 5_000, 0)
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=10)))
    slope = np.polyfit(x, y, 1)[0]
    inflation = np.sqrt(10 / 9)
    restricted = lambda delta: y - y.mean() - delta * (x - x.mean())  # noqa: E731
    # a pattern whose scaled Σ s (x − x̄)² reaches Σ (x − x̄)² counts for every δ far from the slope: counted for all
    centred = (x - x.mean()) ** 2
    always = inflation * np.abs(patterns @ centred) >= centred.sum() * (1 - 1e-12)
    assert 2 < always.sum() < 52  # more than the identity and its mirror, fewer than the 5% that would leave no bound
    expected = inverted_by_bisection(lambda v: ols_slopes(x, v), restricted, inflation * patterns, slope, always=always)
    assert (low, high) == pytest.approx(expected, abs=1e-7)
    unscaled = inverted_by_bisection(lambda v: ols_slopes(x, v), restricted, patterns, slope)
    assert high - low > unscaled[1] - unscaled[0] + 0.01  # wider than the interval of the residuals as they are
    assert low < slope < high
    assert all(np.isnan(wild_slope_ci(x[:3], y[:3], 5_000, 0)))


def test_too_few_flips_or_queries_leave_the_interval_unbounded():
    """With 10 random flips even the smallest p, 1/11, is above 0.05; with 4 queries the exact test's smallest, 2/16:
    no δ is excluded, and the CI is NaN (no interval) rather than a range of the flips drawn."""
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(2, 30)), rng.normal(size=(2, 30))
    few = paired_mean_tests(a, b, n_bootstrap=1, n_permutations=10, seed=0)
    assert np.isnan(few.ci_low).all() and np.isnan(few.ci_high).all()
    four = paired_mean_tests(a[:, :4], b[:, :4] + 5.0, n_bootstrap=1, n_permutations=10_000, seed=0)
    assert np.isnan(four.ci_low).all() and np.isnan(four.ci_high).all()
    six = paired_mean_tests(a[:, :6], b[:, :6] + 5.0, n_bootstrap=1, n_permutations=10_000, seed=0)
    assert (six.ci_high < 0).all()  # 2/64 < 0.05: 6 queries all on one side exclude 0


def test_an_interval_agrees_with_its_test_at_ties_and_at_p_equal_to_alpha():
    """Scores in steps of 0.1 make sums that tie with the observed one in exact arithmetic but not in floating
    point: the test counts them (within 1e-9 of Σ|terms|), and so does the interval, which then keeps 0 (exact p
    3/32 = 0.094 here, found by a review). A p of exactly α does not reject, and the interval keeps δ there."""
    from irfair.measures.resampling import decide

    a = np.array([.2, .1, .7, 0, .8, .5, .4, .2])
    b = np.array([.2, .1 + .2, 1, .3, 1, .5, .1 + .2, .1 + .2])
    found = paired_mean_tests(a[None], b[None], n_bootstrap=1000, n_permutations=1000, seed=0)
    decided = decide(found.terms, found.usable, 1000, 0, "none", 0.05)
    assert decided.decision[0] == "does not differ" and found.ci_low[0] < 0 <= found.ci_high[0]
    from irfair.measures.inverted_intervals import kept_count
    # B = 999 random flips: p = (1 + 49)/1000 = 0.05 does not reject, so 49 counting flips keep δ
    assert kept_count(999, 0.05, exact=False) == 49 and kept_count(10_000, 0.05, exact=False) == 500
    assert kept_count(1024, 0.05, exact=True) == 52 and kept_count(32, 0.05, exact=True) == 2


def test_a_constant_query_genderedness_has_no_slope_interval():
    """g(q) all 0.1: centred, it leaves sums of about 1e-17, not 0; no slope, so no interval (not ±1.8e17)."""
    x = np.full(6, 0.1)
    y = np.arange(6.0)
    assert all(np.isnan(wild_slope_ci(x, y, 1000, 0)))
    tests = paired_slope_tests(x, y[None], y[None] * 0.5, n_bootstrap=1000, n_permutations=1000, seed=0)
    assert not tests.usable[0] and np.isnan([tests.delta[0], tests.ci_low[0], tests.ci_high[0]]).all()


def test_queries_without_a_difference_are_counted_exactly_as_the_test_decides():
    """The test enumerates the 2^8 patterns of the queries that differ; the interval must too, though for δ ≠ 0 the
    4 queries without a difference matter: they add 2k − 4 to C with probability C(4, k)/16. Against the full
    enumeration of all 2^12 patterns the ends are equal; 0 is outside exactly when the exact p (0.047) is below α
    (with random flips over the 12 queries it was not, found by a review)."""
    from irfair.measures.resampling import decide

    d = np.array([-0.246, .797, .483, .296, -.234, .887, .808, .407, 0, 0, 0, 0])
    zeros = np.zeros((1, 12))
    reduced = paired_mean_tests(d[None], zeros, n_bootstrap=1, n_permutations=1000, seed=0)  # 2^8 ≤ 1000 < 2^12
    full = paired_mean_tests(d[None], zeros, n_bootstrap=1, n_permutations=5000, seed=0)  # 2^12 ≤ 5000
    assert (reduced.ci_low[0], reduced.ci_high[0]) == pytest.approx((full.ci_low[0], full.ci_high[0]), abs=1e-12)
    decided = decide(reduced.terms, reduced.usable, 1000, 0, "none", 0.05)
    assert decided.exact[0] and decided.p[0] == pytest.approx(12 / 256) and decided.decision[0] == "differs"
    assert reduced.ci_low[0] > 0
