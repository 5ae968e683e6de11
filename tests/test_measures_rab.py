"""RaB and ARaB (Rekabsaz & Schedl 2020) on hand-worked toy rankings (irfair.measures.rab)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.measures.rab import (
    DEFAULT_CUTOFFS,
    average_rank_bias,
    average_rank_bias_batch,
    gender_magnitude,
    rank_bias,
    rank_bias_batch,
)
from irfair.measures.ranked import stack_ranked_lists

# Toy ranking of 4 documents: (female words, male words) = (2, 0), (0, 1), (0, 0), (1, 3)
FEMALE = np.array([2.0, 0.0, 0.0, 1.0])
MALE = np.array([0.0, 1.0, 0.0, 3.0])


def test_term_count_rab_and_arab_by_hand():
    """tc magnitudes: female 2, 0, 0, 1; male 0, 1, 0, 3; RaB_t = mean(male) − mean(female) over the top t.
    RaB_1 = 0 − 2 = −2
    RaB_2 = 1/2 − 2/2 = −1/2
    RaB_3 = 1/3 − 2/3 = −1/3
    RaB_4 = 4/4 − 3/4 = 1/4
    ARaB_2 = (−2 − 1/2) / 2 = −5/4
    ARaB_3 = (−2 − 1/2 − 1/3) / 3 = −17/18
    ARaB_4 = (−2 − 1/2 − 1/3 + 1/4) / 4 = −31/48"""
    assert [rank_bias(FEMALE, MALE, t) for t in (1, 2, 3, 4)] == pytest.approx([-2, -1 / 2, -1 / 3, 1 / 4])
    assert [average_rank_bias(FEMALE, MALE, t) for t in (1, 2, 3, 4)] == pytest.approx([-2, -5 / 4, -17 / 18, -31 / 48])


def test_boolean_rab_and_arab_by_hand():
    """bool magnitudes: female 1, 0, 0, 1; male 0, 1, 0, 1.
    RaB_1 = 0 − 1 = −1;  RaB_2 = 1/2 − 1/2 = 0;  RaB_3 = 1/3 − 1/3 = 0;  RaB_4 = 2/4 − 2/4 = 0
    ARaB_4 = (−1 + 0 + 0 + 0) / 4 = −1/4"""
    assert [rank_bias(FEMALE, MALE, t, variant="bool") for t in (1, 2, 3, 4)] == pytest.approx([-1, 0, 0, 0])
    assert average_rank_bias(FEMALE, MALE, 4, variant="bool") == pytest.approx(-1 / 4)
    assert average_rank_bias(FEMALE, MALE, 2, variant="bool") == pytest.approx(-1 / 2)


def test_log_term_frequency_rab_by_hand():
    """tf magnitudes ln(1 + n): female ln 3, 0, 0, ln 2; male 0, ln 2, 0, ln 4.
    RaB_1 = −ln 3;  RaB_2 = (ln 2 − ln 3)/2;  RaB_3 = (ln 2 − ln 3)/3;  RaB_4 = (ln 2 + ln 4 − ln 3 − ln 2)/4 = ln(4/3)/4
    ARaB_4 = (RaB_1 + RaB_2 + RaB_3 + RaB_4) / 4"""
    expected = [-math.log(3), math.log(2 / 3) / 2, math.log(2 / 3) / 3, math.log(4 / 3) / 4]
    assert [rank_bias(FEMALE, MALE, t, variant="tf") for t in (1, 2, 3, 4)] == pytest.approx(expected)
    assert average_rank_bias(FEMALE, MALE, 4, variant="tf") == pytest.approx(sum(expected) / 4)


def test_magnitude_variants():
    counts = np.array([0.0, 1.0, 3.0])
    np.testing.assert_allclose(gender_magnitude(counts, "tc"), [0, 1, 3])
    np.testing.assert_allclose(gender_magnitude(counts, "tf"), [0, math.log(2), math.log(4)])
    np.testing.assert_allclose(gender_magnitude(counts, "bool"), [0, 1, 1])
    with pytest.raises(IrfairInputError, match="magnitude variant"):
        gender_magnitude(counts, "log")


def test_cutoff_beyond_the_list_averages_the_documents_there_are():
    """Documented choice: a list of 4 documents has RaB_5 = RaB_4 = 1/4 and ARaB_20 = ARaB_4 = −31/48
    (the missing ranks are not counted as neutral documents, which would give RaB_5 = (4 − 3)/5 = 1/5)."""
    assert rank_bias(FEMALE, MALE, 5) == pytest.approx(1 / 4)
    assert average_rank_bias(FEMALE, MALE, 20) == pytest.approx(-31 / 48)


@pytest.mark.parametrize("variant", ["tc", "tf", "bool"])
def test_swapping_the_lists_flips_the_sign(variant):
    rng = np.random.default_rng(3)
    female = rng.integers(0, 4, size=(6, 25)).astype(float)
    male = rng.integers(0, 4, size=(6, 25)).astype(float)
    cutoffs = (1, 5, 10, 20, 30)
    rab = rank_bias_batch(female, male, None, cutoffs, variant=variant)
    arab = average_rank_bias_batch(female, male, None, cutoffs, variant=variant)
    assert np.any(rab != 0)
    np.testing.assert_allclose(rank_bias_batch(male, female, None, cutoffs, variant=variant), -rab)
    np.testing.assert_allclose(average_rank_bias_batch(male, female, None, cutoffs, variant=variant), -arab)


def test_sign_is_positive_towards_male():
    """One male word per document: RaB_2 = (1 + 1)/2 − 0 = 1 > 0."""
    assert rank_bias([0, 0], [1, 1], 2) == 1.0
    assert rank_bias([1, 1], [0, 0], 2) == -1.0


def test_edge_cases():
    """No gendered words: 0 at every cut-off. One document (1 female, 3 male): RaB_t = ARaB_t = 3 − 1 = 2
    for every t. Empty list: NaN (documented: no documents is not no bias)."""
    assert rank_bias([0, 0, 0], [0, 0, 0], 10) == 0.0
    assert average_rank_bias([0, 0, 0], [0, 0, 0], 10) == 0.0
    assert rank_bias([1], [3], 10) == 2.0 and average_rank_bias([1], [3], 5) == 2.0
    assert math.isnan(rank_bias([], [], 5)) and math.isnan(average_rank_bias([], [], 5))


def test_batch_with_padding_matches_each_list():
    """Padding positions are ignored whatever they hold; rows match the single-list functions."""
    lists_female = [FEMALE, np.array([1.0]), np.array([]), np.array([0.0, 2.0, 2.0])]
    lists_male = [MALE, np.array([0.0]), np.array([]), np.array([1.0, 0.0, 5.0])]
    female, mask = stack_ranked_lists(lists_female, fill=99.0)
    male, _ = stack_ranked_lists(lists_male, fill=-7.0)
    rab = rank_bias_batch(female, male, mask)
    arab = average_rank_bias_batch(female, male, mask, variant="bool")
    assert rab.shape == arab.shape == (4, len(DEFAULT_CUTOFFS))
    for q, (f, m) in enumerate(zip(lists_female, lists_male)):
        for c, cutoff in enumerate(DEFAULT_CUTOFFS):
            np.testing.assert_equal(rab[q, c], rank_bias(f, m, cutoff))
            np.testing.assert_equal(arab[q, c], average_rank_bias(f, m, cutoff, variant="bool"))
    assert rab[0, 0] == pytest.approx(1 / 4) and np.isnan(rab[2, 0])


def test_bad_inputs():
    with pytest.raises(IrfairInputError, match="non-negative female_counts"):
        rank_bias([-1, 0], [0, 0], 2)
    with pytest.raises(IrfairInputError, match="padding last"):
        rank_bias_batch(np.zeros((1, 3)), np.zeros((1, 3)), np.array([[True, False, True]]))
    with pytest.raises(IrfairInputError, match="positive integers"):
        rank_bias_batch(np.zeros((1, 3)), np.zeros((1, 3)), None, [0, 5])
    with pytest.raises(IrfairInputError, match="shape"):
        rank_bias_batch(np.zeros((1, 3)), np.zeros((1, 4)))
