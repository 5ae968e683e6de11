"""Document neutrality, FaiRR and NFaiRR (Rekabsaz et al. 2021) on hand-worked toy rankings."""
from __future__ import annotations

import math

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.measures.nfairr import (
    NEUTRALITY_THRESHOLD,
    document_neutrality,
    fairr,
    fairr_batch,
    ideal_fairr_batch,
    log_discount,
    nfairr,
    nfairr_batch,
)
from irfair.measures.ranked import stack_ranked_lists

# position discounts 1/log2(i + 1) for ranks 1..4
D1, D2, D3, D4 = 1.0, 1 / math.log2(3), 1 / math.log2(4), 1 / math.log2(5)

# Toy ranking: (female, male) = (3, 1), (0, 0), (1, 0), (0, 2)
FEMALE = np.array([3.0, 0.0, 1.0, 0.0])
MALE = np.array([1.0, 0.0, 0.0, 2.0])


def test_neutrality_by_hand():
    """ω = 1 − (|n_f/(n_f+n_m) − 1/2| + |n_m/(n_f+n_m) − 1/2|) when n_f + n_m > τ = 1, else 1:
    (3, 1): 1 − (1/4 + 1/4) = 1/2;  (0, 0): 1 (no words);  (1, 0): 1 (one word, not above τ);
    (0, 2): 1 − (1/2 + 1/2) = 0;  (2, 2): 1;  (1, 2): 1 − (1/6 + 1/6) = 2/3"""
    assert NEUTRALITY_THRESHOLD == 1
    omega = document_neutrality(np.array([3, 0, 1, 0, 2, 1]), np.array([1, 0, 0, 2, 2, 2]))
    np.testing.assert_allclose(omega, [1 / 2, 1, 1, 0, 1, 2 / 3])


def test_threshold_zero_judges_single_words():
    """τ = 0: the document (1, 0) has 1 > 0 words, all female: ω = 1 − (1/2 + 1/2) = 0."""
    assert document_neutrality(np.array([1]), np.array([0]), threshold=0)[0] == 0.0


def test_fairr_and_nfairr_by_hand():
    """ω in rank order: 1/2, 1, 1, 0. Candidates = the list itself; ideal order 1, 1, 1/2, 0.
    FaiRR_3  = 1/2·D1 + 1·D2 + 1·D3,                 IFaiRR_3 = 1·D1 + 1·D2 + 1/2·D3
    FaiRR_2  = 1/2·D1 + 1·D2,                        IFaiRR_2 = D1 + D2
    FaiRR_4  = FaiRR_3 + 0·D4,                       IFaiRR_4 = IFaiRR_3 + 0·D4
    with D_i = 1/log2(i+1): NFaiRR_2 ≈ 0.6934, NFaiRR_3 = NFaiRR_4 ≈ 0.8671."""
    omega = document_neutrality(FEMALE, MALE)
    assert fairr(omega, 3) == pytest.approx(0.5 * D1 + D2 + D3)
    assert nfairr(omega, 1) == pytest.approx(0.5)
    assert nfairr(omega, 2) == pytest.approx((0.5 * D1 + D2) / (D1 + D2))
    assert nfairr(omega, 3) == pytest.approx((0.5 * D1 + D2 + D3) / (D1 + D2 + 0.5 * D3))
    assert nfairr(omega, 4) == pytest.approx(nfairr(omega, 3))
    assert nfairr(omega, 3) == pytest.approx(0.86709, abs=1e-5)


def test_candidates_beyond_the_list_raise_the_ideal():
    """Candidates: the 4 listed documents plus a fifth with ω = 1 (the run's top-5 when judging the top 3):
    ideal top 3 = 1, 1, 1 → IFaiRR_3 = D1 + D2 + D3; NFaiRR_3 = (1/2 + D2 + D3) / (1 + D2 + D3) ≈ 0.7654."""
    omega = document_neutrality(FEMALE, MALE)
    value = nfairr(omega, 3, candidate_neutrality=np.r_[omega, 1.0])
    assert value == pytest.approx((0.5 + D2 + D3) / (D1 + D2 + D3))
    assert value == pytest.approx(0.76536, abs=1e-5)


def test_ideal_and_reversed_orders():
    """Sorted by neutrality the list is its own ideal: NFaiRR = 1. Reversed (0, 1/2, 1, 1):
    NFaiRR_4 = (0·D1 + 1/2·D2 + D3 + D4) / (D1 + D2 + 1/2·D3 + 0·D4)."""
    omega = np.array([1.0, 1.0, 0.5, 0.0])
    assert nfairr(omega, 4) == pytest.approx(1.0)
    assert nfairr(omega[::-1].copy(), 4) == pytest.approx((0.5 * D2 + D3 + D4) / (D1 + D2 + 0.5 * D3))


def test_swapping_the_lists_leaves_neutrality_and_nfairr_unchanged():
    rng = np.random.default_rng(11)
    female = rng.integers(0, 5, size=(8, 30)).astype(float)
    male = rng.integers(0, 5, size=(8, 30)).astype(float)
    omega = document_neutrality(female, male)
    np.testing.assert_array_equal(document_neutrality(male, female), omega)
    assert np.any(omega < 1)
    np.testing.assert_allclose(nfairr_batch(document_neutrality(male, female)), nfairr_batch(omega))


def test_edge_cases():
    """No gendered words: every ω = 1, NFaiRR = 1. One document: it is its own ideal, NFaiRR = 1 if ω > 0.
    All candidates ω = 0: IFaiRR = 0, NFaiRR undefined → NaN. Empty list → NaN."""
    assert nfairr(document_neutrality(np.zeros(3), np.zeros(3)), 10) == 1.0
    assert nfairr(np.array([0.5]), 10) == 1.0
    assert math.isnan(nfairr(np.array([0.0, 0.0]), 2))
    assert math.isnan(nfairr(np.array([]), 5)) and math.isnan(fairr(np.array([]), 5))


def test_batch_with_padding_matches_each_list():
    lists = [np.array([0.5, 1.0, 1.0, 0.0]), np.array([0.2]), np.array([]), np.array([0.0, 1.0, 0.7])]
    candidates = [np.r_[lists[0], 1.0], np.array([0.2, 0.9]), np.array([1.0]), lists[3]]
    omega, mask = stack_ranked_lists(lists, fill=0.75)
    cand, cand_mask = stack_ranked_lists(candidates, fill=0.75)
    cutoffs = (1, 2, 3, 10)
    values = nfairr_batch(omega, mask, cand, cand_mask, cutoffs)
    assert values.shape == (4, 4)
    for q in range(4):
        for c, cutoff in enumerate(cutoffs):
            np.testing.assert_equal(values[q, c], nfairr(lists[q], cutoff, candidates[q]))
    assert values[1, 0] == pytest.approx(0.2 / 0.9)
    ideal = ideal_fairr_batch(cand, cand_mask, [2])
    assert ideal[1, 0] == pytest.approx(0.9 * D1 + 0.2 * D2)
    assert fairr_batch(omega, mask, [2])[3, 0] == pytest.approx(D2)


def test_discount_and_bad_inputs():
    np.testing.assert_allclose(log_discount(4), [D1, D2, D3, D4])
    with pytest.raises(IrfairInputError, match="between 0 and 1"):
        nfairr(np.array([1.5]), 1)
    with pytest.raises(IrfairInputError, match="candidates for 1 queries"):
        nfairr_batch(np.ones((1, 2)), None, np.ones((2, 2)))
    with pytest.raises(IrfairInputError, match="same shape"):
        document_neutrality(np.zeros(2), np.zeros(3))
