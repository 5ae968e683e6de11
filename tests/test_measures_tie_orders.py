"""The expectation over the orders of ties (irfair.measures.tie_orders), against brute force."""
import itertools

import numpy as np
import pytest

from irfair.measures.tie_orders import distinct_sequences, expected_over_tie_orders


@pytest.mark.parametrize(("items", "length"), [("FMNNN", 3), ("FMNNN", 5), ("AABBBC", 4), ("ABCDEFG", 3), ("AAAA", 2)])
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
