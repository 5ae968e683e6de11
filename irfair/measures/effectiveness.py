"""Effectiveness through pytrec_eval: MAP, nDCG@100, P@10 or any trec_eval measure, per query and mean.

Queries evaluated: every query of the qrels with at least one relevant document (and, when a query
set is given, only those). A query missing from the run scores 0 on every measure (as
``trec_eval -c``) and is counted in ``EvaluationResult.n_missing``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import IrfairInputError
from ..trec import Qrels, Run, natural_qid_key

DEFAULT_MEASURES = ("MAP", "nDCG@100", "P@10")

_CUTOFF = {"ndcg": "ndcg_cut", "p": "P", "r": "recall", "recall": "recall", "ap": "map_cut", "map": "map_cut", "success": "success"}
_PLAIN = {"map": "map", "ap": "map", "ndcg": "ndcg", "rr": "recip_rank", "mrr": "recip_rank", "rprec": "Rprec", "bpref": "bpref"}


def pytrec_measure(name: str) -> tuple[str, str]:
    """``(pytrec_eval measure to request, key in its output)`` for a name such as ``nDCG@100``,
    ``P@10``, ``MAP``, ``RR`` or a raw trec_eval name (``ndcg_cut.100``, ``P_10``)."""
    import pytrec_eval

    match = re.fullmatch(r"([A-Za-z]+)@(\d+)", name)
    if match:
        family = _CUTOFF.get(match.group(1).lower())
        if family is None:
            raise IrfairInputError(None, None, f"unknown measure {name!r}")
        return f"{family}.{match.group(2)}", f"{family}_{match.group(2)}"
    if name.lower() in _PLAIN:
        measure = _PLAIN[name.lower()]
        return measure, measure
    raw = re.fullmatch(r"([A-Za-z_0-9]+?)[._](\d+)", name)
    if raw and raw.group(1) in pytrec_eval.supported_measures:
        return f"{raw.group(1)}.{raw.group(2)}", f"{raw.group(1)}_{raw.group(2)}"
    if name in pytrec_eval.supported_measures:
        return name, name
    raise IrfairInputError(None, None, f"unknown measure {name!r}: use MAP, nDCG@k, P@k, R@k, RR or a trec_eval name")


@dataclass(frozen=True)
class EvaluationResult:
    """Per-query values (DataFrame indexed by qid, one column per measure) and their means."""

    system: str
    per_query: pd.DataFrame
    n_missing: int

    @property
    def means(self) -> dict[str, float]:
        """Mean of each measure over the evaluated queries."""
        return {column: float(self.per_query[column].mean()) for column in self.per_query.columns}


def evaluated_queries(qrels: Qrels, qids: Iterable[str] | None = None) -> list[str]:
    """Queries with at least one relevant document (restricted to ``qids`` when given), sorted."""
    allowed = None if qids is None else set(qids)
    return sorted(
        (qid for qid, judged in qrels.items() if any(g > 0 for g in judged.values()) and (allowed is None or qid in allowed)),
        key=natural_qid_key,
    )


def evaluate(run: Run, qrels: Qrels, measures: Sequence[str] = DEFAULT_MEASURES, qids: Iterable[str] | None = None) -> EvaluationResult:
    """Evaluate ``run`` against ``qrels``; one column per measure name, one row per evaluated query."""
    import pytrec_eval

    queries = evaluated_queries(qrels, qids)
    requested = {name: pytrec_measure(name) for name in measures}
    evaluator = pytrec_eval.RelevanceEvaluator(
        {qid: qrels[qid] for qid in queries}, {measure for measure, _ in requested.values()}
    )
    scores = {qid: hits for qid, hits in run.as_scores().items() if qid in set(queries) and hits}
    results = evaluator.evaluate(scores)
    table = pd.DataFrame(
        {name: [results.get(qid, {}).get(key, 0.0) for qid in queries] for name, (_, key) in requested.items()},
        index=pd.Index(queries, name="qid"),
    )
    return EvaluationResult(system=run.name, per_query=table, n_missing=sum(qid not in scores for qid in queries))


def paired_t_test(a: EvaluationResult, b: EvaluationResult, measure: str) -> tuple[float, float]:
    """Two-sided paired t-test of ``measure`` between two runs over their common queries: ``(t, p)``."""
    common = a.per_query.index.intersection(b.per_query.index)
    x = a.per_query.loc[common, measure].to_numpy()
    y = b.per_query.loc[common, measure].to_numpy()
    if len(common) < 2 or np.allclose(x, y):
        return 0.0, 1.0
    result = stats.ttest_rel(x, y)
    return float(result.statistic), float(result.pvalue)
