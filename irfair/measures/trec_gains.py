"""trec_eval 10's gain-based measures — ``ndcg``, ``dcg``, ``ideal_dcg``, ``ndcg_rel``, ``Rndcg``, ``G``, ``rbp``,
``rbp_resid`` — over every query at once (definitions from trec_eval's ``gain_init.c`` and ``m_<name>.c``).

Gains (``setup_gains``): a grade g has gain g unless a parameter ``g=value`` gives it another (``ndcg.1=3,2=9``;
a parameter name that is not an integer, such as rbp's ``p``, is no gain). trec_eval sorts the gains ascending
comparing ``(int)(gain1 - gain2)``, so two gains less than 1 apart count as equal and keep their order (a
stable sort, as glibc's merge sort). A document's gain is that of its grade's first entry in the sorted list;
a document the qrels do not list, or list with a negative grade, gains 0 unless a parameter names -1 or -2.

The ideal ranking walks the sorted gains from the largest down, each repeated as many times as the qrels
hold documents of its grade; grades with no document are passed over, and the walk ends at the first gain
<= 0 it lands on (at once when the largest gain is <= 0).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from .trec_eval_measures import TrecEvalMeasure, pairs
from .trec_judged import Judged


@dataclass(frozen=True)
class Gains:
    """Gains of one measure for every query: ``of_doc`` (shape (N,)) the gain of each retrieved document;
    the ideal ranking as flat arrays ``ideal_owner``, ``ideal_position``, ``ideal_gain`` (query by query,
    position order); per query ``top`` (the largest gain of its list), ``terminal`` (the gain that ends the
    walk, 0 when it runs out) and ``length`` (positions of the ideal ranking)."""

    of_doc: np.ndarray
    ideal_owner: np.ndarray
    ideal_position: np.ndarray
    ideal_gain: np.ndarray
    top: np.ndarray
    terminal: np.ndarray
    length: np.ndarray

    def ideal_padded(self, n: int, width: int) -> np.ndarray:
        """The ideal gains as a (n, width) matrix (0 beyond a query's ideal ranking or ``width``)."""
        out = np.zeros((n, width))
        keep = self.ideal_position < width
        out[self.ideal_owner[keep], self.ideal_position[keep]] = self.ideal_gain[keep]
        return out

    def ideal_cumulative(self, n: int) -> np.ndarray:
        """Running ideal DCG per position, (n, longest ideal ranking) matrix, added in position order."""
        width = int(self.length.max(initial=0))
        terms = np.zeros((n, width))
        terms[self.ideal_owner, self.ideal_position] = self.ideal_gain / np.log2(self.ideal_position + 2.0)
        return np.cumsum(terms, axis=1)


def _is_int(name: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", name) is not None


@functools.lru_cache(maxsize=256)
def gain_entries(params: tuple[tuple[str, float], ...], n_levels: int) -> tuple[tuple[int, float, int], ...]:
    """trec_eval's sorted gain list for a query whose highest grade is ``n_levels - 1``: ``(grade, gain,
    grade whose document count it takes, -1 for none)``, ascending as trec_eval sorts it."""
    entries = [[int(name), float(value), -1] for name, value in params if _is_int(name)]
    for grade in range(n_levels):
        match = next((e for e in entries if e[0] == grade), None)
        if match is None:
            entries.append([grade, float(grade), grade])
        else:
            match[2] = grade
    ordered = sorted(entries, key=functools.cmp_to_key(lambda a, b: int(a[1] - b[1])))
    return tuple((grade, gain, source) for grade, gain, source in ordered)


def setup(judged: Judged, params: tuple[tuple[str, float], ...], normalise: bool = False) -> Gains:
    """The gains of ``judged``'s queries for parameter pairs ``params``; ``normalise`` (rbp) rescales a gain
    list reaching below 0 or above 1 to [0, 1] by its minimum and maximum."""
    n = judged.n
    width = judged.rel_levels.shape[1]
    lookup = np.zeros((n, width + 2))  # column v + 2: the gain of relevance value v (-2 .. width - 1)
    top, terminal, length = np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64)
    owners, positions, ideal = [], [], []
    levels = judged.num_rel_levels
    for n_levels in np.unique(levels):
        queries = np.flatnonzero(levels == n_levels)
        entries = gain_entries(params, int(n_levels))
        if not entries:  # no grade judged >= 0 and no gain given: every gain 0, no ideal ranking
            continue
        gains = np.array([g for _, g, _ in entries])
        if normalise and (gains.min() < 0 or gains.max() > 1):
            with np.errstate(divide="ignore", invalid="ignore"):  # one gain only: NaN, as trec_eval's 0/0
                gains = (gains - gains.min()) / (gains.max() - gains.min())
        for index in range(len(entries) - 1, -1, -1):  # the first entry of a grade wins: fill from the last
            grade = entries[index][0]
            if -2 <= grade < width:
                lookup[queries, grade + 2] = gains[index]
        walk = gains[::-1]  # largest first
        sources = [s for _, _, s in entries][::-1]
        counts = np.stack([judged.rel_levels[queries, s] if 0 <= s < width else np.zeros(len(queries), dtype=np.int64)
                           for s in sources], axis=1)
        ends = (counts > 0) & (walk <= 0)
        counts = np.where((np.cumsum(ends, axis=1) > 0) | (walk[0] <= 0), 0, counts)
        top[queries] = walk[0]
        terminal[queries] = np.where(ends.any(axis=1), walk[np.argmax(ends, axis=1)], 0.0)
        length[queries] = counts.sum(axis=1)
        owner = np.repeat(np.repeat(queries, len(walk)), counts.ravel())
        owners.append(owner)
        ideal.append(np.repeat(np.tile(walk, len(queries)), counts.ravel()))
        starts = np.repeat(np.cumsum(counts.sum(axis=1)) - counts.sum(axis=1), counts.sum(axis=1))
        positions.append(np.arange(len(owner)) - starts)
    owner, position, gain = (np.concatenate(parts) if parts else np.zeros(0) for parts in (owners, positions, ideal))
    order = np.lexsort((position, owner))
    return Gains(lookup[judged.query_of, judged.rel + 2], owner[order].astype(np.int64), position[order].astype(np.int64),
                 gain[order].astype(np.float64), top, terminal, length)


def _discounted(judged: Judged, gains: Gains) -> np.ndarray:
    """Each document's gain / log2(rank + 1), 0 where its gain is 0."""
    return np.where(gains.of_doc != 0, gains.of_doc / np.log2(judged.rank + 1.0), 0.0)


def _ideal_dcg(judged: Judged, gains: Gains) -> np.ndarray:
    return np.bincount(gains.ideal_owner, weights=gains.ideal_gain / np.log2(gains.ideal_position + 2.0), minlength=judged.n)


def _ratio(numerator: np.ndarray, denominator: np.ndarray, where: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(where, numerator / np.where(where, denominator, 1.0), 0.0)


def dcg(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """DCG of the ranking with the measure's gains, 1/log2(rank + 1) discount (``dcg``)."""
    return judged.per_query(_discounted(judged, setup(judged, pairs(measure))))


def ideal_dcg(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """DCG of the ideal ranking (``ideal_dcg``)."""
    return _ideal_dcg(judged, setup(judged, pairs(measure)))


def ndcg(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """DCG / ideal DCG over the whole ranking, 0 when the ideal is 0 (``ndcg``)."""
    gains = setup(judged, pairs(measure))
    ideal = _ideal_dcg(judged, gains)
    return _ratio(judged.per_query(_discounted(judged, gains)), ideal, ideal > 0)


def _running(judged: Judged, values: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` (shape (N,)) along each list, added in rank order, as a (n, longest list) matrix."""
    return np.cumsum(judged.padded(values), axis=1)


def _last(matrix: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``matrix[q, length[q] - 1]``, 0 where length is 0."""
    if matrix.shape[1] == 0:
        return np.zeros(matrix.shape[0])
    return np.where(length > 0, matrix[np.arange(matrix.shape[0]), np.maximum(length - 1, 0)], 0.0)


def ndcg_rel(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """``ndcg_rel``: the mean, over the ideal ranking's positions, of nDCG at each relevant document retrieved
    (the ideal DCG taken at the same rank, at most the ideal's length), the missing ones counted at the
    list's final nDCG."""
    gains = setup(judged, pairs(measure))
    results = _running(judged, _discounted(judged, gains))
    ideal = gains.ideal_cumulative(judged.n)
    positive = gains.of_doc > 0
    q, i = judged.query_of, judged.rank - 1
    known = gains.length[q] > 0
    denominator = np.where(known, ideal[q, np.clip(np.minimum(i, gains.length[q] - 1), 0, max(ideal.shape[1] - 1, 0))]
                           if ideal.shape[1] else 0.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, results[q, i] / denominator, 0.0)
        total = judged.per_query(terms)
        found = judged.per_query(positive.astype(np.float64))
        final = (gains.length - found) * _last(results, judged.lengths) / _last(ideal, gains.length)
        total = total + final
        return np.where(total > 0, total / gains.length, 0.0)


def rndcg(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """``Rndcg``: the mean of nDCG taken at every rank where the ideal gain changes (and at the end of a list
    longer than the ideal); 0 for a query without relevant document."""
    gains = setup(judged, pairs(measure))
    n = judged.n
    results = _running(judged, _discounted(judged, gains))
    ideal = gains.ideal_cumulative(n)
    owner, position = gains.ideal_owner, gains.ideal_position
    previous = np.where(position == 0, gains.top[owner], np.r_[0.0, gains.ideal_gain[:-1]])
    inner = (position >= 1) & (gains.ideal_gain != previous)
    owner, position = owner[inner], position[inner]
    inner_value = results[owner, np.minimum(position, judged.lengths[owner]) - 1] / ideal[owner, position - 1]
    with_ideal = gains.length >= 1
    queries = np.arange(n)
    at_end = np.where(with_ideal, _last(results, np.minimum(gains.length, judged.lengths)), 0.0)
    full_ideal = _last(ideal, gains.length)
    with np.errstate(divide="ignore", invalid="ignore"):
        end_value = _ratio(at_end, full_ideal, with_ideal)
        extra = (gains.top > 0) & (judged.lengths > gains.length + 1) & (full_ideal > 0)
        extra_value = _ratio(_last(results, judged.lengths), full_ideal, extra)
        owners = np.concatenate([owner, queries[with_ideal], queries[extra]])
        values = np.concatenate([inner_value, end_value[with_ideal], extra_value[extra]])
        total = np.bincount(owners, weights=values, minlength=n)
        count = np.bincount(owners, minlength=n)
        return np.where(judged.num_rel == 0, 0.0, total / count)


def g_measure(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """``G``: each gain discounted by log2(2 + ideal cost so far − gain so far), over the ideal's total gain;
    the cost of a rank is the ideal gain there, at least 1."""
    gains = setup(judged, pairs(measure))
    width = int(judged.lengths.max(initial=0))
    gained = _running(judged, gains.of_doc)
    cost = np.cumsum(np.maximum(gains.ideal_padded(judged.n, width), 1.0), axis=1)
    q, i = judged.query_of, judged.rank - 1
    with np.errstate(divide="ignore", invalid="ignore"):  # negative gains can make the logarithm's argument <= 1
        terms = np.where(gains.of_doc != 0, gains.of_doc / np.log2(2.0 + cost[q, i] - gained[q, i]), 0.0)
    total_ideal = np.bincount(gains.ideal_owner, weights=gains.ideal_gain, minlength=judged.n)
    return _ratio(judged.per_query(terms), total_ideal, total_ideal > 0)


def _persistence(measure: TrecEvalMeasure) -> float:
    p = 0.9
    for name, value in pairs(measure):
        if name == "p":
            p = value
    return p


def _powers(p: float, length: int) -> np.ndarray:
    """p^0 .. p^length by repeated multiplication, as trec_eval's loop forms them."""
    out = np.ones(length + 1)
    out[1:] = np.cumprod(np.full(length, p))
    return out


def rbp(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """Rank-biased precision (1 − p) Σ gain(d_i) p^(i−1), gains rescaled to [0, 1] (default p = 0.9)."""
    p = _persistence(measure)
    gains = setup(judged, pairs(measure), normalise=True)
    powers = _powers(p, int(judged.lengths.max(initial=0)))
    return (1.0 - p) * judged.per_query(np.where(gains.of_doc != 0, gains.of_doc * powers[judged.rank - 1], 0.0))


def rbp_resid(judged: Judged, measure: TrecEvalMeasure) -> np.ndarray:
    """RBP's residual: p^n + (1 − p) Σ p^(i−1) over the unjudged documents i; 0 when every document is judged."""
    p = _persistence(measure)
    powers = _powers(p, int(judged.lengths.max(initial=0)))
    unjudged = judged.rel < 0
    weight = judged.per_query(np.where(unjudged, powers[judged.rank - 1], 0.0))
    return np.where(judged.per_query(unjudged.astype(np.float64)) > 0, powers[judged.lengths] + (1.0 - p) * weight, 0.0)


GAIN_KERNELS = {"dcg": dcg, "ideal_dcg": ideal_dcg, "ndcg": ndcg, "ndcg_rel": ndcg_rel, "Rndcg": rndcg, "G": g_measure,
                "rbp": rbp, "rbp_resid": rbp_resid}
