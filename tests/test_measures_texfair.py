"""TExFAIR (Abolghasemi et al. 2024) on hand-worked toy rankings (irfair.measures.texfair)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.measures.nfairr import document_neutrality, log_discount, nfairr
from irfair.measures.ranked import stack_ranked_lists
from irfair.measures.texfair import (
    DEFAULT_PATIENCE,
    geometric_weights,
    imbalance,
    texfair,
    texfair_batch,
    texfair_from_shares,
    texfair_over_tie_orders,
)

# Toy ranking: (female, male, length) = (2, 0, 10), (0, 0, 5), (0, 1, 4)
FEMALE = np.array([2.0, 0.0, 0.0])
MALE = np.array([0.0, 0.0, 1.0])
LENGTH = np.array([10.0, 5.0, 4.0])


def test_texfair_by_hand_with_patience_one_half():
    """p_o(d_i) = 0.5^(i−1) = 1, 1/2, 1/4; term probabilities n/|d|: female 2/10 = 1/5 (doc 1), male 1/4 (doc 3).
    k = 3: GE(f) = 1·1/5 = 1/5, GE(m) = 1/4·1/4 = 1/16, Δ = (1/5 − 1/16)/(1/5 + 1/16) = (11/80)/(21/80) = 11/21,
           RBDF = (1 + 1/4)/(1 + 1/2 + 1/4) = 5/7 (doc 2 has no gendered word), TExFAIR = 1 − 5/7·11/21 = 92/147
    k = 2: GE(m) = 0 → Δ = 1, RBDF = 1/(1 + 1/2) = 2/3, TExFAIR = 1/3
    k = 1: Δ = 1, RBDF = 1, TExFAIR = 0"""
    assert texfair(FEMALE, MALE, LENGTH, 3, patience=0.5) == pytest.approx(92 / 147)
    assert texfair(FEMALE, MALE, LENGTH, 2, patience=0.5) == pytest.approx(1 / 3)
    assert texfair(FEMALE, MALE, LENGTH, 1, patience=0.5) == pytest.approx(0.0)


def test_default_patience_is_point_eight():
    """Documented choice p_o(d_i) = 0.8^(i−1) = 1, 0.8, 0.64:
    GE(f) = 1/5, GE(m) = 0.64·1/4 = 0.16, Δ = 0.04/0.36 = 1/9, RBDF = 1.64/2.44 = 41/61,
    TExFAIR_3 = 1 − 41/61 · 1/9 = 508/549."""
    assert DEFAULT_PATIENCE == 0.8
    assert texfair(FEMALE, MALE, LENGTH, 3) == pytest.approx(508 / 549)


def test_log_discount_as_position_weights():
    """p_o(d_i) = 1/log2(i+1) = 1, D2, 1/2: GE(f) = 1/5, GE(m) = 1/2·1/4 = 1/8, Δ = (3/40)/(13/40) = 3/13,
    RBDF = (1 + 1/2)/(1 + D2 + 1/2), TExFAIR_3 = 1 − RBDF·3/13."""
    d2 = 1 / math.log2(3)
    expected = 1 - (1.5 / (1.5 + d2)) * 3 / 13
    assert texfair(FEMALE, MALE, LENGTH, 3, position_weights=log_discount(3)) == pytest.approx(expected)


def test_a_list_balanced_as_a_whole_is_fair_though_each_document_is_one_sided():
    """(female, male, length) = (2, 0, 20), (0, 2, 10) with patience 1/2: GE(f) = 1·2/20 = 1/10,
    GE(m) = 1/2·2/10 = 1/10, Δ = 0, TExFAIR = 1. Both documents have neutrality 0, so NFaiRR of this list
    against candidates that include one neutral document (ω = 1) is 0 — the disagreement the paper describes."""
    assert texfair([2, 0], [0, 2], [20, 10], 2, patience=0.5) == pytest.approx(1.0)
    omega = document_neutrality(np.array([2, 0]), np.array([0, 2]))
    assert nfairr(omega, 2, candidate_neutrality=np.r_[omega, 1.0]) == 0.0


def test_swapping_the_lists_leaves_texfair_unchanged():
    rng = np.random.default_rng(5)
    female = rng.integers(0, 3, size=(7, 20)).astype(float)
    male = rng.integers(0, 3, size=(7, 20)).astype(float)
    length = female + male + rng.integers(0, 30, size=(7, 20))
    values = texfair_batch(female, male, length, None, (1, 5, 10, 20))
    assert np.all((values >= 0) & (values <= 1)) and np.any(values < 1)
    np.testing.assert_allclose(texfair_batch(male, female, length, None, (1, 5, 10, 20)), values)


def test_edge_cases():
    """No gendered word in the top k: RBDF = 0, TExFAIR = 1 (documented). One document (1, 0, 4): Δ = 1, RBDF = 1,
    TExFAIR = 0; (1, 1, 4): Δ = 0, TExFAIR = 1. A document of length 0 exposes nothing and is not
    representative: (0, 0, 0), (1, 0, 4) with patience 1/2 has Δ = 1, RBDF = (1/2)/(1 + 1/2) = 1/3,
    TExFAIR = 2/3. Empty list: NaN."""
    assert texfair([0, 0], [0, 0], [5, 7], 10) == 1.0
    assert texfair([1], [0], [4], 10) == 0.0
    assert texfair([1], [1], [4], 10) == 1.0
    assert texfair([0, 1], [0, 0], [0, 4], 2, patience=0.5) == pytest.approx(2 / 3)
    assert math.isnan(texfair([], [], [], 5))


def test_batch_with_padding_matches_each_list():
    lists = [(FEMALE, MALE, LENGTH), (np.array([1.0]), np.array([0.0]), np.array([3.0])), (np.array([]),) * 3,
             (np.array([0.0, 3.0, 1.0, 0.0]), np.array([2.0, 0.0, 1.0, 0.0]), np.array([9.0, 6.0, 2.0, 8.0]))]
    female, mask = stack_ranked_lists([f for f, _, _ in lists], fill=4.0)
    male, _ = stack_ranked_lists([m for _, m, _ in lists], fill=4.0)
    length, _ = stack_ranked_lists([n for _, _, n in lists], fill=1.0)
    cutoffs = (1, 2, 3, 10)
    values = texfair_batch(female, male, length, mask, cutoffs)
    for q, (f, m, n) in enumerate(lists):
        for c, cutoff in enumerate(cutoffs):
            np.testing.assert_equal(values[q, c], texfair(f, m, n, cutoff))
    assert values[0, 2] == pytest.approx(508 / 549)


def test_weights_and_bad_inputs():
    np.testing.assert_allclose(geometric_weights(3, 0.5), [1, 0.5, 0.25])
    with pytest.raises(IrfairInputError, match="patience"):
        geometric_weights(3, 0.0)
    with pytest.raises(IrfairInputError, match="at most its length"):
        texfair([3], [2], [4], 1)
    with pytest.raises(IrfairInputError, match="at least 3 positive position weights"):
        texfair(FEMALE, MALE, LENGTH, 3, position_weights=np.ones(2))


def _orders_mean(female, male, length, groups, cutoff):
    """Brute force: the mean of texfair() over every order of each tie (groups: lists of positions)."""
    import itertools

    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for group in orders for i in group]
        values.append(texfair(female[order], male[order], length[order], cutoff))
    return float(np.mean(values))


def test_a_five_document_tie_at_3_is_the_mean_over_its_120_orders():
    """One document with a female word, one with a male word, three with none, all of grade 1 (one tie), |d| = 4:
    the mean over the 120 orders at @3 is 47/61 = 0.770 (F and M both in the top 3 in 6 of the 20 placements of
    the pair, 1 − |w_a − w_b| / 2.44; one of them in 12, 1 − w_a / 2.44; neither in 2, 1). The mean word shares
    per position would give GE_f = GE_m and 1.000, at every cut-off."""
    female, male, length = np.array([1.0, 0, 0, 0, 0]), np.array([0, 1.0, 0, 0, 0]), np.full(5, 4.0)
    shares = [np.array([v]) / 4 for v in (female, male)] + [np.array([(female + male) > 0], dtype=float)]
    mask, ties = np.ones((1, 5), dtype=bool), np.zeros((1, 5), dtype=int)
    values, errors = texfair_over_tie_orders(*shares, mask, ties, [3, 5])
    assert values[0, 0] == pytest.approx(47 / 61, abs=1e-12) == _orders_mean(female, male, length, [range(5)], 3)
    assert values[0, 1] == pytest.approx(_orders_mean(female, male, length, [range(5)], 5), abs=1e-12)
    assert errors.tolist() == [[0.0, 0.0]]
    tie_mean = [np.full((1, 5), s.mean()) for s in shares]
    assert texfair_from_shares(*tie_mean, mask, [3, 5]).tolist() == [[1.0, 1.0]]


def test_several_ties_and_a_list_shorter_than_the_cutoff():
    """Grades 2, 2, 2, 1, 1, 1 (two ties of three): every cut-off equals the brute-force mean over the 36 orders."""
    rng = np.random.default_rng(7)
    female, male = rng.integers(0, 3, 6).astype(float), rng.integers(0, 3, 6).astype(float)
    length = female + male + rng.integers(1, 4, 6)
    shares = [(female / length)[None], (male / length)[None], (((female + male) > 0).astype(float))[None]]
    values, _ = texfair_over_tie_orders(*shares, np.ones((1, 6), bool), np.array([[0, 0, 0, 1, 1, 1]]), [2, 4, 5, 10])
    expected = [_orders_mean(female, male, length, [range(3), range(3, 6)], k) for k in (2, 4, 5, 10)]
    assert values[0] == pytest.approx(expected, abs=1e-12)


def _one_long_tie(n: int = 25):
    """The shares, mask and ties of one list of ``n`` documents all tied (counts drawn from seed 3)."""
    rng = np.random.default_rng(3)
    female, male = rng.integers(0, 3, n).astype(float), rng.integers(0, 2, n).astype(float)
    length = female + male + 5
    shares = [(female / length)[None], (male / length)[None], (((female + male) > 0).astype(float))[None]]
    return shares, np.ones((1, n), bool), np.zeros((1, n), int)


def test_large_ties_are_sampled_with_a_standard_error_and_cutoffs_differ():
    """A tie with more orders than the exact limit is the mean of seeded random orders: within 4 standard
    errors of the exact value, the same on every call, and different at @5, @10 and @20 (the tie-mean values
    were equal at every cut-off)."""
    shares, mask, ties = _one_long_tie()
    values, errors = texfair_over_tie_orders(*shares, mask, ties, [5, 10, 20], samples=4000)
    # documents alike in their shares are interchangeable: @5 has few enough distinct orders to be exact
    assert errors[0, 0] == 0 and np.all(errors[0, 1:] > 0) and len(set(values[0].round(4))) == 3
    again, _ = texfair_over_tie_orders(*shares, mask, ties, [5, 10, 20], samples=4000)
    assert np.array_equal(values, again)
    small = slice(0, 8)  # 8 documents at @5: 6,720 orders at most, exact by default; sampled with a tiny limit
    exact, _ = texfair_over_tie_orders(*(s[:, small] for s in shares), mask[:, small], ties[:, small], [5])
    sampled, error = texfair_over_tie_orders(*(s[:, small] for s in shares), mask[:, small], ties[:, small], [5], exact_limit=10,
                                             samples=20000)
    assert error[0, 0] > 0 and abs(sampled[0, 0] - exact[0, 0]) < 4 * error[0, 0]


def test_expectations_over_tie_orders_are_kept_by_every_input_and_read_back(tmp_path):
    """With the cache's memo, the sampled expectations are computed once and read back (bit for bit) while every
    input is the same; another seed, sample count or document share is another key, computed anew; a kept entry
    whose arrays were damaged is said and computed again (irfair.cache.arrays)."""
    from irfair.cache.arrays import arrays_memo, inputs_key

    shares, mask, ties = _one_long_tie()
    computed = []
    memo = arrays_memo(tmp_path)

    def counting(name, inputs, settings, compute, shapes):  # each computation recorded by the key it is kept under
        return memo(name, inputs, settings, lambda: (computed.append(inputs_key(name, inputs, settings)), compute())[1],
                    shapes)

    plain = texfair_over_tie_orders(*shares, mask, ties, [5, 10], samples=2000)
    first = texfair_over_tie_orders(*shares, mask, ties, [5, 10], samples=2000, memo=counting)
    second = texfair_over_tie_orders(*shares, mask, ties, [5, 10], samples=2000, memo=counting)
    assert len(computed) == 1 and all(np.array_equal(a, b) and np.array_equal(a, c)
                                      for a, b, c in zip(plain, first, second))
    texfair_over_tie_orders(*shares, mask, ties, [5, 10], samples=2000, seed=1, memo=counting)
    texfair_over_tie_orders(*shares, mask, ties, [5, 10], samples=3000, memo=counting)
    changed = [shares[0].copy(), shares[1], shares[2]]
    changed[0][0, 3] += 0.01
    texfair_over_tie_orders(*changed, mask, ties, [5, 10], samples=2000, memo=counting)
    assert len(set(computed)) == len(computed) == 4
    for kept in (tmp_path / "values").glob("texfair-*/0.npy"):  # every entry's values damaged
        np.save(kept, np.zeros(2))
    again = texfair_over_tie_orders(*shares, mask, ties, [5, 10], samples=2000, memo=counting)
    assert all(np.array_equal(a, b) for a, b in zip(plain, again)) and len(computed) == 5  # computed anew


def test_distance_options():
    """L1 (default) and KL from (1/2, 1/2) in bits: exposure shares (3/4, 1/4) give 1/2 and
    3/4·log2(3/2) + 1/4·log2(1/2) = 0.18872; one-sided exposure gives 1 with both; nothing exposed gives 0."""
    female, male = np.array([3.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])
    assert imbalance(female, male).tolist() == [0.5, 1.0, 0.0]
    assert imbalance(female, male, "kl") == pytest.approx([0.75 * math.log2(1.5) - 0.25, 1.0, 0.0])
    one_doc = texfair(np.array([3.0]), np.array([1.0]), np.array([8.0]), 1, distance="kl")
    assert one_doc == pytest.approx(1 - (0.75 * math.log2(1.5) - 0.25))
    with pytest.raises(IrfairInputError, match="expected a distance among l1, kl"):
        imbalance(female, male, "l2")
