"""trec_eval 10's measures as numpy kernels over every query of a run at once (:class:`.Judged`), each written
from trec_eval's definition (``m_<name>.c``) and checked against trec_eval's own test outputs.

A kernel takes the judged rankings and the measures of one family (several cut-offs at once) and returns
their values, shape (n_queries, n_measures). Relevant = relevance value >= the level (``trec_eval -l``).
With R = num_rel (relevant judged documents), n = num_ret and rel@k = relevant documents in the top min(k, n):

* ``map`` Σ_{relevant i} rel@i / i / R; ``map_cut_k`` the same over the top k; ``gm_map`` as ``map`` (its
  mean is geometric); ``Rprec`` rel@min(n, R) / R; ``recip_rank`` 1 / rank of the first relevant;
* ``P_k`` rel@k / k (k, not n: missing documents count as non-relevant); ``recall_k`` rel@k / R;
  ``relative_P_k`` rel@k / min(k, R); ``success_k`` rel@k > 0; ``unj_k`` unjudged in the top k / k;
* ``iprec_at_recall_r``: the highest precision at or below the rank of the c-th relevant document,
  c = lround(r·R) (trec_eval 10; trec_eval 9 and pytrec_eval take (long)(r·R + 0.9)), 0 when c > rel@n;
  ``11pt_avg`` the mean of these at its levels; ``Rprec_mult_m`` rel@c / c with c = (long)(m·R + 0.9);
* ``bpref``, ``gm_bpref``, ``infAP``, ``binG``, ``utility``, ``yaap``, ``set_*``, ``num_*`` as in trec_eval;
* gain-based measures (``ndcg``, ``G``, ``rbp``, ...) in :mod:`.trec_gains`; ``ndcg_cut_k``: gains = grades,
  the ideal ranking from the qrels' grades >= 1.

``recip_rank_cut_k`` (ir_measures' RR@k, not a trec_eval measure): recip_rank counting the top k only.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .trec_eval_measures import TrecEvalMeasure, numbers
from .trec_gains import GAIN_KERNELS
from .trec_judged import NONPOOL, UNJUDGED, Judged, ideal_levels, lround

Kernel = Callable[[Judged, Sequence[TrecEvalMeasure]], np.ndarray]
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


def _divide(numerator, denominator, where) -> np.ndarray:
    """numerator / denominator where ``where``, else 0 (no warning for the rest)."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, dtype=np.float64), np.asarray(denominator, dtype=np.float64))
    return np.divide(numerator, denominator, out=np.zeros(numerator.shape), where=np.broadcast_to(where, numerator.shape))


def _cutoffs(measures: Sequence[TrecEvalMeasure]) -> np.ndarray:
    return np.array([m.cutoff for m in measures])


def _per_cutoff(measures: Sequence[TrecEvalMeasure], value: Callable[[int], np.ndarray]) -> np.ndarray:
    return np.stack([value(int(m.cutoff)) for m in measures], axis=1)


def _column(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)[:, None]


def average_precision(judged: Judged) -> np.ndarray:
    """AP per query: Σ over relevant documents of rel@rank / rank, over R (0 when none is retrieved)."""
    total = judged.per_query(np.where(judged.is_rel, judged.rel_so_far / judged.rank, 0.0))
    return _divide(total, judged.num_rel, judged.num_rel_ret > 0)


def bpref(judged: Judged) -> np.ndarray:
    """bpref per query: Σ over judged relevant documents of 1 − min(N_above, R) / min(N, R), over R, with
    N_above the judged non-relevant documents above it and N all judged non-relevant of the query."""
    judged_doc = judged.rel >= 0
    relevant = judged_doc & judged.is_rel
    nonrelevant_above = judged.running_count(judged_doc & ~judged.is_rel)
    n_nonrelevant = judged.rel_levels[:, :judged.level].sum(axis=1)
    r = judged.num_rel[judged.query_of]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(nonrelevant_above > 0,
                         1.0 - np.minimum(nonrelevant_above, r) / np.minimum(n_nonrelevant, judged.num_rel)[judged.query_of], 1.0)
    total = judged.per_query(np.where(relevant, terms, 0.0))
    return np.where(judged.num_rel > 0, _divide(total, judged.num_rel, judged.num_rel > 0), total)


def inferred_ap(judged: Judged) -> np.ndarray:
    """infAP per query (Yilmaz & Aslam 2006, trec_eval's ``m_infap.c``), unjudged pool documents (negative
    grades) sampled out."""
    judged_doc = judged.rel >= 0
    relevant = judged_doc & judged.is_rel
    r = judged.running_count(relevant)
    nonrelevant = judged.running_count(judged_doc & ~judged.is_rel)
    unjudged = judged.running_count(judged.rel == UNJUDGED)
    j = (judged.rank - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r - 1 + nonrelevant + unjudged) / j) \
            * ((r - 1 + INFAP_EPSILON) / (r - 1 + nonrelevant + 2 * INFAP_EPSILON))
    total = judged.per_query(np.where(relevant, np.where(j == 0, 1.0, later), 0.0))
    return np.where(judged.num_rel > 0, _divide(total, judged.num_rel, judged.num_rel > 0), total)


def interpolated_precision(judged: Judged, levels: Sequence[float]) -> np.ndarray:
    """trec_eval 10's interpolated precision at recall ``levels`` (``m_iprec_at_recall.c``, ``m_11pt_avg.c``),
    shape (n_queries, len(levels)): level r needs c = lround(r·R) relevant documents; its value is the highest
    precision at or below the rank of the c-th one (c = 0: of the first), 0 when fewer are retrieved. trec_eval
    fills the levels from the last one down; a level out of order (11pt_avg takes them as given) stops that,
    and it and every earlier level get the highest precision of the list."""
    cuts = lround(np.outer(judged.num_rel, np.asarray(levels, dtype=np.float64)))
    found = judged.num_rel_ret
    relevant = np.flatnonzero(judged.is_rel)
    precision = judged.rel_so_far[relevant] / judged.rank[relevant]
    first = np.cumsum(found) - found

    def best_from(count: np.ndarray) -> np.ndarray:
        """Highest precision at relevant documents count.. of each query (count from 1)."""
        valid = (count >= 1) & (count <= found)
        if not valid.any():
            return np.zeros(judged.n)
        begin = np.where(valid, first + count - 1, 0)
        end = np.where(valid, first + found, 1)
        bounds = np.empty(2 * judged.n, dtype=np.int64)
        bounds[0::2], bounds[1::2] = begin, np.minimum(end, len(precision))
        best = np.maximum.reduceat(np.r_[precision, 0.0], bounds)[0::2]
        return np.where(valid, best, 0.0)

    overall = best_from(np.ones(judged.n, dtype=np.int64))
    out = np.zeros(cuts.shape)
    skipping = np.ones(judged.n, dtype=bool)
    blocked = np.zeros(judged.n, dtype=bool)
    previous = np.full(judged.n, np.iinfo(np.int64).max)
    for index in range(cuts.shape[1] - 1, -1, -1):
        cut = cuts[:, index]
        skipping &= cut > found
        assign = ~skipping & ~blocked & (cut >= 1) & (cut <= previous)
        blocked |= ~skipping & ~assign
        out[:, index] = np.where(skipping, 0.0, np.where(assign, best_from(cut), overall))
        previous = np.where(assign, cut, previous)
    return out


def _iprec(judged: Judged, measures: Sequence[TrecEvalMeasure]) -> np.ndarray:
    return interpolated_precision(judged, _cutoffs(measures))


def _eleven_point(judged: Judged, measures: Sequence[TrecEvalMeasure]) -> np.ndarray:
    levels = numbers(measures[0])
    values = interpolated_precision(judged, levels)
    total = np.zeros(judged.n)
    for index in range(values.shape[1] - 1, -1, -1):  # trec_eval adds them from the last level down
        total = total + values[:, index]
    return _column(total / len(levels))


def _rprec_mult(judged: Judged, measures: Sequence[TrecEvalMeasure]) -> np.ndarray:
    cuts = np.trunc(np.outer(judged.num_rel, _cutoffs(measures)) + 0.9).astype(np.int64)
    hits = np.stack([judged.at_depth(judged.rel_so_far, cuts[:, i]) for i in range(cuts.shape[1])], axis=1)
    return _divide(hits, cuts, cuts >= 1)


def _rprec(judged: Judged, measures) -> np.ndarray:
    depth = np.minimum(judged.lengths, judged.num_rel)
    return _column(_divide(judged.at_depth(judged.rel_so_far, depth), judged.num_rel, depth > 0))


def _recip_rank(judged: Judged, measures) -> np.ndarray:
    first = judged.is_rel & (judged.rel_so_far == 1)
    return _column(judged.per_query(np.where(first, 1.0 / judged.rank, 0.0)))


def _recip_rank_cut(judged: Judged, measures) -> np.ndarray:
    first = judged.is_rel & (judged.rel_so_far == 1)
    return _per_cutoff(measures, lambda k: judged.per_query(np.where(first & (judged.rank <= k), 1.0 / judged.rank, 0.0)))


def _precision(judged: Judged, measures) -> np.ndarray:
    return _per_cutoff(measures, lambda k: judged.at_depth(judged.rel_so_far, k) / k)


def _recall(judged: Judged, measures) -> np.ndarray:
    return _per_cutoff(measures, lambda k: _divide(judged.at_depth(judged.rel_so_far, k), judged.num_rel, judged.num_rel > 0))


def _relative_p(judged: Judged, measures) -> np.ndarray:
    return _per_cutoff(measures, lambda k: _divide(judged.at_depth(judged.rel_so_far, k), np.minimum(k, judged.num_rel),
                                                           judged.num_rel > 0))


def _success(judged: Judged, measures) -> np.ndarray:
    return _per_cutoff(measures, lambda k: (judged.at_depth(judged.rel_so_far, k) > 0).astype(np.float64))


def _unjudged(judged: Judged, measures) -> np.ndarray:
    unjudged = judged.running_count(judged.rel < 0)
    return _per_cutoff(measures, lambda k: judged.at_depth(unjudged, k) / k)


def _map_cut(judged: Judged, measures) -> np.ndarray:
    precision = np.where(judged.is_rel, judged.rel_so_far / judged.rank, 0.0)
    return _per_cutoff(measures, lambda k: _divide(judged.per_query(np.where(judged.rank <= k, precision, 0.0)),
                                                           judged.num_rel, judged.num_rel > 0))


def _ndcg_cut(judged: Judged, measures) -> np.ndarray:
    gains = np.where(judged.rel > 0, judged.rel / np.log2(judged.rank + 1.0), 0.0)
    owner, grades = ideal_levels(judged.rel_levels, int(max(m.cutoff for m in measures)))
    position = np.arange(len(owner)) - np.searchsorted(owner, owner)
    ideal_gains = grades / np.log2(position + 2.0)

    def value(k: int) -> np.ndarray:
        dcg = judged.per_query(np.where(judged.rank <= k, gains, 0.0))
        ideal = np.bincount(owner, weights=np.where(position < k, ideal_gains, 0.0), minlength=judged.n)
        return np.where(ideal > 0, _divide(dcg, ideal, ideal > 0), dcg)
    return _per_cutoff(measures, value)


def _yaap(judged: Judged, measures) -> np.ndarray:
    """Robertson's yet another AP: log((1 + S) / (1 + R − S)), S = Σ over relevant documents of rel@rank / rank."""
    total = judged.per_query(np.where(judged.is_rel, judged.rel_so_far / judged.rank, 0.0))
    return _column(np.log((1.0 + total) / (1.0 + judged.num_rel - total)))


def _bin_g(judged: Judged, measures) -> np.ndarray:
    with np.errstate(divide="ignore"):
        terms = np.where(judged.is_rel, 1.0 / np.log2(2.0 + judged.rank - judged.rel_so_far), 0.0)
    return _column(_divide(judged.per_query(terms), judged.num_rel, judged.num_rel_ret > 0))


def _utility(judged: Judged, measures) -> np.ndarray:
    a, b, c, d = numbers(measures[0])
    found, retrieved, relevant = judged.num_rel_ret, judged.lengths, judged.num_rel
    return _column(a * found + b * (retrieved - found) + c * (relevant - found) + d * (0 + found - retrieved - relevant))


def _set_f(judged: Judged, measures) -> np.ndarray:
    beta = numbers(measures[0])[0]
    found = judged.num_rel_ret
    with np.errstate(divide="ignore", invalid="ignore"):
        precision, recall = found / judged.lengths, found / judged.num_rel
        value = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return _column(np.where(found > 0, value, 0.0))


def _counted(values: Callable[[Judged], np.ndarray]) -> Kernel:
    return lambda judged, measures: _column(values(judged))


def _each(kernel) -> Kernel:
    """A kernel of one measure at a time (number and pair families: each parameter text on its own)."""
    return lambda judged, measures: np.stack([kernel(judged, m) for m in measures], axis=1)


KERNELS: dict[str, Kernel] = {
    "num_q": _counted(lambda j: np.ones(j.n)),
    "num_ret": _counted(lambda j: j.lengths),
    "num_rel": _counted(lambda j: j.num_rel),
    "num_rel_ret": _counted(lambda j: j.num_rel_ret),
    "map": _counted(average_precision),
    "gm_map": _counted(average_precision),
    "Rprec": _rprec,
    "bpref": _counted(bpref),
    "recip_rank": _recip_rank,
    "iprec_at_recall": _iprec,
    "P": _precision,
    "recall": _recall,
    "infAP": _counted(inferred_ap),
    "gm_bpref": _counted(bpref),
    "Rprec_mult": _rprec_mult,
    "utility": _utility,
    "11pt_avg": _eleven_point,
    "binG": _bin_g,
    "ndcg_cut": _ndcg_cut,
    "map_cut": _map_cut,
    "relative_P": _relative_p,
    "success": _success,
    "set_P": _counted(lambda j: _divide(j.num_rel_ret, j.lengths, j.lengths > 0)),
    "set_relative_P": _counted(lambda j: _divide(j.num_rel_ret, np.minimum(j.lengths, j.num_rel), (j.lengths > 0) & (j.num_rel > 0))),
    "set_recall": _counted(lambda j: _divide(j.num_rel_ret, j.num_rel, j.num_rel > 0)),
    "set_map": _counted(lambda j: _divide(j.num_rel_ret.astype(np.float64) * j.num_rel_ret, j.lengths.astype(np.float64) * j.num_rel,
                                          (j.lengths > 0) & (j.num_rel > 0))),
    "set_F": _set_f,
    "num_nonrel_judged_ret": _counted(lambda j: j.lengths - j.per_query((j.rel == NONPOOL) | (j.rel == UNJUDGED)) - j.num_rel_ret),
    "unj": _unjudged,
    "yaap": _yaap,
    "recip_rank_cut": _recip_rank_cut,
    **{name: _each(kernel) for name, kernel in GAIN_KERNELS.items()},
}


def relstring(judged: Judged, measure: TrecEvalMeasure) -> list[str]:
    """trec_eval's ``relstring``: the relevance values of the first N documents (default 10) as characters —
    the grade 0-9, '>' above 9, '-' not in the qrels, '.' listed with a negative grade."""
    length = int(numbers(measure)[0])
    codes = {NONPOOL: "-", UNJUDGED: "."}
    out = []
    for start, n in zip(judged.starts.tolist(), judged.lengths.tolist()):
        values = judged.rel[start:start + max(0, min(length, n))].tolist()
        out.append("".join(codes.get(v, ">" if v > 9 else str(v) if v >= 0 else "<") for v in values))
    return out


def geometric_mean(values: np.ndarray) -> float:
    """trec_eval's gm_ mean: exp of the mean of log(max(value, 0.00001)), added in the order given."""
    logs = np.log(np.maximum(np.asarray(values, dtype=np.float64), MIN_GEO_MEAN))
    return float(np.exp(np.cumsum(logs)[-1] / len(logs))) if len(logs) else float("nan")
