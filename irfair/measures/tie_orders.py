"""The expectation of a ranked-list measure over the orders of its ties: documents of equal grade in the
perfect run have no order, and every order of each tie is equally likely (ties independent of each other).

The measure must be a function of position-weighted sums S_f = Σ_{i<depth} w_i · x_f(d_i) of per-document
features x (TExFAIR: the female and male word shares and the representative flag). For a measure linear in
the sums (RaB, ARaB, FaiRR) the expectation is the measure of the tie-averaged features; for any other
(TExFAIR's ratio) it is computed here:

* **exactly** when the orders that can differ number at most ``exact_limit``: each tie contributes the
  distinct sequences of its documents that can fill its positions above the depth (documents with equal
  features are interchangeable, so a tie of 5 documents with 3 alike at depth 3 has 5·4·3 − … = 13 of them,
  not 60), each with its probability; the ties' sequences are combined (Cartesian product) and the
  measure averaged with those probabilities. A tie below the depth, or of alike documents, is constant;
* otherwise by the mean over ``samples`` random orders (a generator seeded per list), with its standard
  error: computing the exact expectation of a ratio of weighted sums over all permutations is #P-hard in
  general (it counts permutations by weighted sums, as for the permanent), and a tie of 14 documents at
  depth 10 already has 3.6·10⁹ orders.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

EXACT_LIMIT = 200_000
SAMPLES = 10_000


@dataclass(frozen=True)
class TieExpectation:
    """The expected value over the orders of the ties, ``standard_error`` (0 when ``exact``), and how many
    distinct orders there are (``n_orders``; an int, possibly huge)."""

    value: float
    standard_error: float
    exact: bool
    n_orders: int


def distinct_sequences(counts: list[int], length: int) -> int:
    """Number of distinct sequences of ``length`` items drawn without replacement from a multiset with
    ``counts`` items of each kind (exact integer)."""
    # kinds of one item first, all at once: n of them in a row are an ordered choice, singles!/(singles - n)!
    singles = sum(1 for count in counts if count == 1)
    ways = [math.perm(singles, n) for n in range(length + 1)]
    for count in counts:
        if count != 1:
            ways = [sum(ways[n - j] * math.comb(n, j) for j in range(min(count, n) + 1)) for n in range(length + 1)]
    return ways[length]


def _sequences(counts: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct sequence of kinds (shape (n_sequences, length)) and its probability under a uniform
    random order of the multiset."""
    total = int(counts.sum())
    sequences = np.zeros((1, 0), dtype=np.int64)
    remaining = counts[None, :].astype(np.int64)
    probability = np.ones(1)
    for step in range(length):
        rows, kinds = np.nonzero(remaining > 0)
        probability = probability[rows] * remaining[rows, kinds] / (total - step)
        sequences = np.column_stack([sequences[rows], kinds])
        remaining = remaining[rows]
        remaining[np.arange(len(rows)), kinds] -= 1
    return sequences, probability


def _first_in_order(rng: np.random.Generator, n_rows: int, n: int, k: int) -> np.ndarray:
    """``np.argsort(rng.random((n_rows, n)), axis=1)[:, :k]``, about 3 times faster: each key's bits as an integer
    (ordered as the float, the keys being in [0, 1)) with its column in the lowest bits, the k + 1 smallest found by a
    partition and sorted as integers (a whole sort of long ties cost 1.6 s of a Robust04-sized audit). Keys
    equal but for those bits (or equal) among a row's first k + 1 would be ordered by column, not as argsort
    orders them: then the same keys are drawn again and argsort itself is used."""
    state = rng.bit_generator.state
    packed = rng.random((n_rows, n)).view(np.int64)
    bits = max(1, (n - 1).bit_length())
    packed &= np.int64(-(1 << bits))
    packed |= np.arange(n, dtype=np.int64)
    if k + 1 < n:  # the k + 1 smallest keys (all distinct: each ends in its column), then sorted: the sort's first k + 1
        first = np.partition(packed, k, axis=1)[:, :k + 1]
        first.sort(axis=1)
    else:
        packed.sort(axis=1)
        first = packed[:, :k + 1]
    high = first >> bits
    if np.any(high[:, 1:] == high[:, :-1]):
        rng.bit_generator.state = state
        return np.argsort(rng.random((n_rows, n)), axis=1)[:, :k]
    return first[:, :k] & np.int64((1 << bits) - 1)


def expected_over_tie_orders(features: np.ndarray, ties: np.ndarray, weights: np.ndarray, measure: Callable[[np.ndarray], np.ndarray],
                             *, exact_limit: int = EXACT_LIMIT, samples: int = SAMPLES, seed: int | tuple = 0) -> TieExpectation:
    """E[measure(S)] over the orders of the ties of one ranked list.

    ``features``: shape (n_docs, n_features) in rank order; ``ties``: shape (n_docs,), equal labels on
    adjacent positions mark a tie; ``weights``: w_i of the positions that count (shape (depth,), depth <=
    n_docs); ``measure`` maps sums of shape (n, n_features) to values of shape (n,).
    """
    features = np.asarray(features, dtype=np.float64)
    depth = len(weights)
    ties = np.asarray(ties)
    starts = np.flatnonzero(np.r_[True, ties[1:] != ties[:-1]]) if len(ties) else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(ties)]
    fixed = np.zeros(features.shape[1])
    shuffled = []
    for start, end in zip(starts.tolist(), ends.tolist()):
        slots = min(end, depth) - start
        if slots <= 0:
            break
        rows = features[start:end]
        kinds, kind_of, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
        if len(kinds) == 1:
            fixed += weights[start:start + slots] @ rows[:slots]
        else:
            shuffled.append((weights[start:start + slots], kinds, np.asarray(kind_of).ravel(), counts))
    n_orders = math.prod(distinct_sequences(counts.tolist(), len(w)) for w, _, _, counts in shuffled)
    if n_orders <= exact_limit:
        sums, probability = fixed[None, :], np.ones(1)
        for slot_weights, kinds, _, counts in shuffled:
            sequences, p = _sequences(counts, len(slot_weights))
            partial = np.einsum("j,sjf->sf", slot_weights, kinds[sequences])
            sums = (sums[:, None, :] + partial[None, :, :]).reshape(-1, features.shape[1])
            probability = np.outer(probability, p).ravel()
        return TieExpectation(float(probability @ measure(sums)), 0.0, True, n_orders)
    rng = np.random.default_rng(seed)
    sums = np.broadcast_to(fixed, (samples, features.shape[1])).copy()
    for slot_weights, kinds, kind_of, _ in shuffled:
        order = _first_in_order(rng, samples, len(kind_of), len(slot_weights))
        sums += np.einsum("j,sjf->sf", slot_weights, np.take(kinds[kind_of], order, axis=0))
    values = measure(sums)
    return TieExpectation(float(values.mean()), float(values.std(ddof=1) / math.sqrt(samples)), False, n_orders)


def tie_groups(grades: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Tie labels from grades in rank order (shape (n_queries, depth)): a new label wherever the grade changes."""
    grades = np.asarray(grades)
    if grades.shape[1] == 0:
        return np.zeros(grades.shape, dtype=np.int64)
    change = np.concatenate([np.zeros((grades.shape[0], 1), dtype=bool), grades[:, 1:] != grades[:, :-1]], axis=1)
    return np.where(mask, np.cumsum(change, axis=1), 0)
