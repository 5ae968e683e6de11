"""trec_eval's most used measures as numpy kernels over all queries of a run at once: AP (``map``),
P@k (``P_k``), nDCG@k (``ndcg_cut_k``), RR (``recip_rank``, optionally cut) and R@k (``recall_k``), with
trec_eval's definitions (relevant = grade >= 1; nDCG gains = the grades of the qrels, negative ones 0;
the ideal ranking from the qrels; P@k divides by k). They give what pytrec_eval gives (tested to 1e-12)
and :func:`irfair.measures.effectiveness.evaluate` uses them for these measures, ir_measures for any other.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from operator import itemgetter

import numpy as np


def kernel_name(measure) -> tuple[str, int | None] | None:
    """``(kernel, cutoff)`` for an ir_measures measure these kernels compute with trec_eval's defaults, else None."""
    params = dict(getattr(measure, "params", {}) or {})
    name = getattr(measure, "NAME", None)
    cutoff = params.pop("cutoff", None)
    if params.pop("rel", 1) != 1:
        return None
    if name == "nDCG" and params.pop("dcg", "log2") == "log2" and not params.pop("judged_only", False) \
            and params.pop("gains", None) is None and cutoff is not None:
        return ("ndcg", cutoff) if not params else None
    if params:
        return None
    if name == "AP" and cutoff is None:
        return "ap", None
    if name in ("P", "R") and cutoff is not None:
        return name.lower(), cutoff
    if name == "RR":
        return "rr", cutoff
    return None


def evaluate_kernels(kernels: Mapping[str, tuple[str, int | None]], ranking: Mapping[str, Sequence[tuple[str, float]]],
                     qrels: Mapping[str, Mapping[str, int]], queries: Sequence[str]) -> dict[str, np.ndarray]:
    """``{label: values of shape (len(queries),)}`` for ``kernels`` (``{label: (kernel, cutoff)}``); a query
    the run lacks scores 0. ``ranking[qid]``: ``(doc_id, score)`` in trec_eval's order."""
    lengths = np.array([len(ranking.get(q, ())) for q in queries], dtype=np.int64)
    grades = np.fromiter(itertools.chain.from_iterable(
        map(qrels[q].get, map(itemgetter(0), ranking.get(q, ())), itertools.repeat(0)) for q in queries),
        dtype=np.float64, count=int(lengths.sum()))
    query_of = np.repeat(np.arange(len(queries)), lengths)
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    rank = np.arange(len(grades)) - np.repeat(starts, lengths) + 1
    relevant = grades >= 1
    found = np.cumsum(relevant)
    found_before = np.r_[0, found][np.repeat(starts, lengths)]
    relevant_so_far = found - found_before
    n_relevant = np.array([sum(1 for g in qrels[q].values() if g >= 1) for q in queries], dtype=np.float64)

    def per_query(values: np.ndarray) -> np.ndarray:
        return np.bincount(query_of, weights=values, minlength=len(queries))

    out = {}
    for label, (kernel, cutoff) in kernels.items():
        within = rank <= cutoff if cutoff is not None else np.ones(len(rank), dtype=bool)
        if kernel == "ap":
            total = per_query(np.where(relevant, relevant_so_far / rank, 0.0))
            out[label] = np.divide(total, n_relevant, out=np.zeros(len(queries)), where=n_relevant > 0)
        elif kernel == "p":
            out[label] = per_query((relevant & within).astype(np.float64)) / cutoff
        elif kernel == "r":
            hits = per_query((relevant & within).astype(np.float64))
            out[label] = np.divide(hits, n_relevant, out=np.zeros(len(queries)), where=n_relevant > 0)
        elif kernel == "rr":
            first = relevant & within & (relevant_so_far == 1)
            out[label] = per_query(np.where(first, 1.0 / rank, 0.0))
        elif kernel == "ndcg":
            dcg = per_query(np.where(within, np.maximum(grades, 0) / np.log2(rank + 1), 0.0))
            ideal = np.array([_ideal_dcg(qrels[q], cutoff) for q in queries])
            out[label] = np.divide(dcg, ideal, out=np.zeros(len(queries)), where=ideal > 0)
    return out


def _ideal_dcg(judged: Mapping[str, int], cutoff: int) -> float:
    gains = np.sort(np.maximum(np.fromiter(judged.values(), dtype=np.float64, count=len(judged)), 0))[::-1][:cutoff]
    return float(np.sum(gains / np.log2(np.arange(2, len(gains) + 2))))
