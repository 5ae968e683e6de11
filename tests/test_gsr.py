import numpy as np
import pandas as pd
import pytest

from irfair.measures.gsr import fit_gsr, ols_fit, paired_gsr_test, relative_gsr


def test_ols_by_hand():
    # x = 1..4, y = 2,1,4,3: Sxy = 3, Sxx = 5 → slope 0.6, intercept 2.5 - 0.6*2.5 = 1.0, r = 3/5
    slope, intercept, r, p = ols_fit(np.array([1, 2, 3, 4.0]), np.array([2, 1, 4, 3.0]))
    assert (slope, intercept, r) == pytest.approx((0.6, 1.0, 0.6))
    assert 0 < p < 1
    assert ols_fit(np.array([-1, 0, 1.0]), np.array([-2, 0, 2.0]))[:3] == pytest.approx((2.0, 0.0, 1.0))


def test_constant_list_genderedness_gives_zero_slope_and_undefined_r():
    slope, _, r, p = ols_fit(np.array([0.1, -0.3, 0.2, 0.05]), np.full(4, 0.1))
    assert abs(slope) < 1e-15 and np.isnan(r) and np.isnan(p)


def _table(x, y):
    return pd.DataFrame({"qid": [str(i) for i in range(len(x))], "query_genderedness": x,
                         "list_genderedness": y, "used": True, "reason": ""})


def test_fit_gsr_ci_contains_slope_and_counts_exclusions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    y = 0.5 * x + rng.normal(scale=0.2, size=60)
    table = _table(x, y)
    table.loc[0, "used"] = False
    table.loc[0, "reason"] = "query not in run"
    result = fit_gsr("sys", table, n_bootstrap=500, seed=0)
    assert result.n_queries == 59 and result.excluded == {"query not in run": 1}
    assert result.slope == pytest.approx(np.polyfit(x[1:], y[1:], 1)[0])
    assert result.ci_low < result.slope < result.ci_high
    assert 0.3 < result.ci_low and result.ci_high < 0.7


def test_paired_test_identical_and_different_systems():
    rng = np.random.default_rng(2)
    x = rng.normal(size=50)
    reference = fit_gsr("perfect", _table(x, 0.1 * x + rng.normal(scale=0.05, size=50)), 400, 0)
    same = paired_gsr_test(reference, reference, 400, 0, n_permutations=999)
    assert same.difference == 0 and same.p_value == 1.0
    stronger = fit_gsr("sys", _table(x, 0.6 * x + rng.normal(scale=0.05, size=50)), 400, 0)
    test = paired_gsr_test(stronger, reference, 400, 0, n_permutations=999)
    assert test.difference == pytest.approx(stronger.slope - reference.slope)
    # 0.5 · Var(x) against noise of 0.05: no swap comes near, so p is its floor 1/(B + 1)
    assert test.p_value == pytest.approx(1 / 1000) and test.ci_low > 0 and test.n_queries == 50
    # without resamples the difference is still there (the CI and p are not)
    bare = paired_gsr_test(stronger, reference, 0, 0, n_permutations=0)
    assert bare.difference == test.difference and np.isnan(bare.ci_low) and np.isnan(bare.p_value)


def test_paired_test_uses_the_queries_both_systems_use():
    x = np.array([-0.2, -0.1, 0.0, 0.1, 0.2, 0.3])
    a = _table(x, 2 * x)
    b = _table(x, x)
    b.loc[5, "used"] = False
    test = paired_gsr_test(fit_gsr("a", a, 0), fit_gsr("b", b, 0), 0, 0, n_permutations=0)
    # slope of (2x - x) = x on x over the 5 common queries is 1
    assert test.n_queries == 5 and test.difference == pytest.approx(1.0)


def test_relative_gsr():
    assert relative_gsr(0.3, 0.2) == pytest.approx(0.5)
    assert relative_gsr(-0.1, 0.2) == pytest.approx(-1.5)
    assert np.isnan(relative_gsr(0.3, 0.0)) and np.isnan(relative_gsr(0.3, 1e-17))


def test_pearson_r_and_p_equal_scipys_linregress():
    from scipy import stats

    rng = np.random.default_rng(3)
    for n in (3, 4, 10, 93, 249):
        x, y = rng.normal(size=n), rng.normal(size=n)
        y[: n // 2] += 0.5 * x[: n // 2]
        fit = stats.linregress(x, y)
        _, _, r, p = ols_fit(x, y)
        assert r == pytest.approx(fit.rvalue, abs=1e-12) and p == pytest.approx(fit.pvalue, rel=1e-9, abs=1e-15)
