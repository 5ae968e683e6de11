"""The two reference runs every audited system is read against.

Perfect run: for each query, all relevant documents (grade > 0) by grade, equal grades sharing their
rank weight; cut at K = the number of relevant documents (``depth="auto"``) or at min(N, K).
Random run: for each query, K documents drawn without replacement (seeded) from a document pool.
Queries without relevant documents have no perfect run and are not audited.
"""
from __future__ import annotations

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


def random_run(depth: dict[str, int], pool: Sequence[str], seed: int) -> dict[str, list[str]]:
    """Per query, ``depth[qid]`` documents (at most the pool's size) drawn without replacement from ``pool``."""
    lists: dict[str, list[str]] = {}
    if not pool:
        return lists
    rng = np.random.default_rng(seed)
    for qid, k in depth.items():
        size = min(k, len(pool))
        lists[qid] = [pool[i] for i in rng.choice(len(pool), size=size, replace=False)]
    return lists
