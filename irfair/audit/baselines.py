"""The two reference runs every audited system is read against.

Perfect run: for each query, all relevant documents (grade > 0) by grade, equal grades sharing their
rank weight; cut at K = the number of relevant documents (``depth="auto"``) or at min(N, K).
Random run: for each query, K documents drawn uniformly without replacement from the pool of *every
document of the corpus* (sorted by id), with a generator seeded by (seed, query id). Neither the pool
nor a query's draw depends on which runs are audited or on the other queries, so the random run's
lists — and its GSR — are the same whether a run is audited alone or with others. (The judged
documents are in that pool too: a relevant document missing from the corpus is an input error.)
Queries without relevant documents have no perfect run and are not audited.
"""
from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..gender.genderedness import tied_rank_weights
from ..trec import Qrels, relevant_docs


@dataclass(frozen=True)
class PerfectRun:
    """Per query: the cut-off depth, the perfect ranked list and its (tie-shared) rank weights."""

    depth: dict[str, int]
    lists: dict[str, list[str]]
    weights: dict[str, np.ndarray]


def perfect_run(qids: Iterable[str], qrels: Qrels, depth: str | int = "auto") -> PerfectRun:
    """The perfect run of ``qids`` (queries without relevant documents left out)."""
    cut: dict[str, int] = {}
    lists: dict[str, list[str]] = {}
    weights: dict[str, np.ndarray] = {}
    for qid in qids:
        relevant = relevant_docs(qrels, qid)
        if not relevant:
            continue
        k = len(relevant) if depth == "auto" else min(depth, len(relevant))
        cut[qid] = len(relevant) if depth == "auto" else depth
        lists[qid] = [doc for doc, _ in relevant[:k]]
        weights[qid] = tied_rank_weights([grade for _, grade in relevant[:k]])
    return PerfectRun(cut, lists, weights)


def query_seed(seed: int, qid: str) -> list[int]:
    """The entropy of query ``qid``'s generator: the audit's seed and a CRC-32 of the query id."""
    return [int(seed), zlib.crc32(qid.encode("utf-8"))]


def random_run(depth: dict[str, int], pool: Sequence[str], seed: int) -> dict[str, list[str]]:
    """Per query, ``depth[qid]`` documents (at most the pool's size) drawn without replacement from
    ``pool``, each query with its own generator (:func:`query_seed`), so a query's draw does not depend
    on the other queries. Pass the pool sorted: the draw picks positions."""
    lists: dict[str, list[str]] = {}
    if not pool:
        return lists
    for qid, k in depth.items():
        rng = np.random.default_rng(query_seed(seed, qid))
        size = min(k, len(pool))
        lists[qid] = [pool[i] for i in rng.choice(len(pool), size=size, replace=False)]
    return lists
