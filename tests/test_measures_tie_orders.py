"""The expectation over the orders of ties (irfair.measures.tie_orders), against brute force."""
import itertools

import numpy as np
import pytest

from irfair.measures.tie_orders import _first_in_order, distinct_sequences, expected_over_tie_orders


@pytest.mark.parametrize(("items", "length"), [("FMNNN", 3), ("FMNNN", 5), ("AABBBC", 4), ("ABCDEFG", 3), ("AAAA", 2),
                                               ("ABCDDE", 6), ("ABC", 0)])
def test_distinct_sequences_counts_what_permutations_give(items, length):
    expected = len(set(itertools.permutations(items, length)))
    counts = [items.count(kind) for kind in sorted(set(items))]
    assert distinct_sequences(counts, length) == expected


def test_exact_expectation_of_a_nonlinear_measure_equals_brute_force():
    """Features of 7 documents in two ties (4 and 3) and a singleton, depth 5, a measure of the ratio of the sums:
    the mean over every order of both ties (4!·3!) is the exact expectation; alike documents count once."""
    features = np.array([[1.0, 0], [1.0, 0], [0, 2.0], [0.5, 0.5], [0, 1.0], [3.0, 0], [0, 1.0], [2.0, 2.0]])
    ties = np.array([0, 0, 0, 0, 1, 1, 1, 2])
    weights = 0.8 ** np.arange(5)

    def measure(sums):
        return sums[:, 0] / (sums[:, 0] + sums[:, 1])

    brute = []
    for first in itertools.permutations(range(4)):
        for second in itertools.permutations(range(4, 7)):
            order = list(first) + list(second) + [7]
            brute.append(measure((weights @ features[order][:5])[None])[0])
    found = expected_over_tie_orders(features, ties, weights, measure)
    assert found.exact and found.standard_error == 0
    assert found.value == pytest.approx(np.mean(brute), abs=1e-13)
    # tie 1: 4!/2! = 12 orders (two alike documents); tie 2: one position above depth 5, two kinds of document for it
    assert found.n_orders == 12 * 2


class _Draws:
    """A stand-in generator that hands out fixed keys (the same again after its state is restored)."""

    def __init__(self, keys):
        self.keys, self.drawn = keys, 0
        self.bit_generator = self

    @property
    def state(self):
        return self.drawn

    @state.setter
    def state(self, drawn):
        self.drawn = drawn

    def random(self, shape):
        self.drawn += 1
        return self.keys.copy().reshape(shape)


@pytest.mark.parametrize(("n", "k"), [(1, 1), (3, 2), (70, 5), (70, 68), (70, 69), (70, 70), (300, 20)])
def test_first_in_order_is_argsort_of_the_same_draws(n, k):
    found = _first_in_order(np.random.default_rng(n), 500, n, k)
    expected = np.argsort(np.random.default_rng(n).random((500, n)), axis=1)[:, :k]
    assert found.shape == (500, k) and np.array_equal(found, expected)


def test_first_in_order_falls_back_to_argsort_for_keys_equal_but_for_their_lowest_bits():
    """Row 0: two equal keys among the first three; row 1: keys one unit in the last place apart, in reverse column
    order (packed with their columns they would sort by column); both need argsort itself, and get it."""
    low = 0.25
    keys = np.array([[0.9, 0.5, 0.5, 0.7], [0.9, np.nextafter(low, 1), low, 0.7]])
    draws = _Draws(keys)
    found = _first_in_order(draws, 2, 4, 3)
    assert np.array_equal(found, np.argsort(keys, axis=1)[:, :3])
    assert found[1].tolist() == [2, 1, 3]
    assert draws.drawn == 1  # drawn again after the state was restored: one draw, as argsort alone
