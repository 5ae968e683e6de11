import math

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.fairness.intervals import Z_95, wilson_interval

# Worked out by hand from center (p + z²/2n)/(1 + z²/n) ± z/(1 + z²/n)·sqrt(p(1 − p)/n + z²/4n²), z² = 3.841458820694...:
# 19 of 50: p 0.38, center 0.41841/1.07683 = 0.38856, half-width 0.12993 → [0.25863, 0.51850];
# 0 of 10: [0, (z²/10)/(1 + z²/10)] = [0, 0.38415/1.38415] = [0, 0.27753];
# 10 of 10: [1/(1 + z²/10), 1] = [0.72247, 1]; 3 of 19 (Adult's Amer-Indian-Eskimo TPR): [0.05520, 0.37565].
HAND = [(19, 50, 0.258628, 0.518496), (0, 10, 0.0, 0.277533), (10, 10, 0.722467, 1.0), (3, 19, 0.055205, 0.375655)]


@pytest.mark.parametrize("k, n, low, high", HAND)
def test_wilson_by_hand(k, n, low, high):
    got_low, got_high = wilson_interval(k, n)
    assert (float(got_low), float(got_high)) == pytest.approx((low, high), abs=1e-6)


def test_the_ends_are_exact_and_empty_groups_are_nan():
    low, high = wilson_interval(np.array([0, 10, 0]), np.array([10, 10, 0]))
    assert low[0] == 0.0 and high[1] == 1.0
    assert math.isnan(low[2]) and math.isnan(high[2])


def test_matches_statsmodels():
    confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint
    k = np.array([0, 1, 3, 19, 50, 88, 1731, 10])
    n = np.array([1, 3, 19, 50, 51, 133, 3490, 10])
    low, high = wilson_interval(k, n)
    expected = np.array([confint(int(a), int(b), alpha=0.05, method="wilson") for a, b in zip(k, n)])
    np.testing.assert_allclose(low, expected[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(high, expected[:, 1], rtol=0, atol=1e-12)
    assert Z_95 == pytest.approx(1.959963984540054, abs=0)


@pytest.mark.parametrize("k, n", [(3, 2), (-1, 5), ([1, 2], [3])])
def test_impossible_counts(k, n):
    with pytest.raises(IrfairInputError):
        wilson_interval(np.array(k), np.array(n))
