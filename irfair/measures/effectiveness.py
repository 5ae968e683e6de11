"""Effectiveness through ir_measures (with pytrec_eval, trec_eval's own code, as the provider of every measure
it supports), averaged exactly as trec_eval averages.

Queries that count (trec_eval 9 and 10, ``trec_eval.c`` and ``meas_avg.c``):

* by default every query that is both in the qrels and in the run, including a judged query with no
  relevant document (it scores 0); a query of the qrels that the run lacks is left out, and so is a
  query of the run that the qrels lack;
* with ``complete=True`` (``trec_eval -c``) every query of the qrels: those the run lacks score the
  measure's default, 0.

``qids`` restricts both to a query set (an audit's topics). The value over all queries is each measure's
own aggregate, as trec_eval's ``all`` line: the mean, or the sum for counts (NumRet, NumRel, NumQ).

AP, P@k, nDCG@k, RR and R@k with trec_eval's defaults are computed by numpy kernels over the whole run
(:mod:`.trec_kernels`, equal to pytrec_eval's values); every other measure by ir_measures.

Measures: any ir_measures name or object (``nDCG@10``, ``RR@10``, ``P(rel=2)@10``, ``Judged@10``,
``NumRet``; names are matched ignoring case), a trec_eval name (``map``, ``ndcg_cut.10``, ``P_10``,
``recip_rank``), or ``MAP``/``MRR``. Each keeps the label it was given as its column name.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from ..errors import IrfairInputError
from ..trec import Qrels, Run, natural_qid_key
from .trec_kernels import evaluate_kernels, kernel_name

DEFAULT_MEASURES = ("MAP", "nDCG@100", "P@10")
MEASURE_HELP = ("an ir_measures name (AP, nDCG@10, P@10, RR@10, R@1000, P(rel=2)@10, Judged@10, NumRet, ...) "
                "or a trec_eval name (map, ndcg_cut.10, P_10, recip_rank)")


def parse_measures(measures: str | object | Iterable[str | object]) -> dict[str, object]:
    """``{label: ir_measures measure}`` for measure names or ir_measures objects, in the order given.

    A trec_eval name may stand for several measures (``P.5,10``); they are labelled as ir_measures prints
    them. Raises IrfairInputError for an unknown name or one no installed provider computes.
    """
    import ir_measures

    items = [measures] if isinstance(measures, str) or not isinstance(measures, Iterable) else list(measures)
    if not items:
        raise IrfairInputError(None, None, f"no measure given: use {MEASURE_HELP}")
    parsed: dict[str, object] = {}
    for item in items:
        if isinstance(item, str):
            pairs = _parse_name(item.strip())
        elif isinstance(item, ir_measures.measures.Measure):
            pairs = [(str(item), item)]
        else:
            raise IrfairInputError(None, None, f"a measure must be a name or an ir_measures measure, not {type(item).__name__}")
        for label, measure in pairs:
            if not ir_measures.DefaultPipeline.supports(measure):
                raise IrfairInputError(None, None, f"no installed ir_measures provider computes {label!r}")
            parsed.setdefault(label, measure)
    return parsed


@lru_cache(maxsize=256)
def _parse_name(name: str) -> list[tuple[str, object]]:
    import ir_measures

    try:
        return [(name, ir_measures.parse_measure(_canonical_case(name)))]
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError):
        pass
    try:
        found = ir_measures.parse_trec_measure(name)
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError, KeyError):
        raise IrfairInputError(None, None, f"unknown measure {name!r}: use {MEASURE_HELP}") from None
    return [(name, found[0])] if len(found) == 1 else [(str(m), m) for m in found]


def _canonical_case(name: str) -> str:
    """``ndcg@10`` → ``nDCG@10``: the measure's name as ir_measures registers it (names are matched ignoring case)."""
    from ir_measures.measures import registry

    match = re.match(r"[A-Za-z_]+", name)
    if not match or match.group(0) in registry:
        return name
    spelled = {key.lower(): key for key in registry}.get(match.group(0).lower())
    return name if spelled is None else spelled + name[match.end():]


@dataclass(frozen=True)
class EvaluationResult:
    """Per-query values (DataFrame indexed by qid, one column per measure label, one row per evaluated
    query), their aggregate over those queries (``means``; the column means when not given) and the counts
    behind them."""

    system: str
    per_query: pd.DataFrame
    n_missing: int
    means: dict[str, float] = field(default_factory=dict)
    complete: bool = False
    measures: dict[str, object] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.means:
            object.__setattr__(self, "means", {c: float(self.per_query[c].mean()) for c in self.per_query.columns})

    @property
    def n_queries(self) -> int:
        """Number of queries evaluated (trec_eval's ``num_q``)."""
        return len(self.per_query)


def evaluate(run: Run, qrels: Qrels, measures: Sequence[str | object] = DEFAULT_MEASURES, qids: Iterable[str] | None = None,
             complete: bool = False) -> EvaluationResult:
    """Evaluate ``run`` against ``qrels`` over the queries trec_eval would count (``complete`` = ``-c``).

    ``n_missing`` counts the queries of the qrels (within ``qids``) that the run lacks: left out by default,
    scored 0 with ``complete``.
    """
    import ir_measures

    parsed = parse_measures(measures)
    allowed = None if qids is None else {str(q) for q in qids}
    judged = {qid: docs for qid, docs in qrels.items() if docs and (allowed is None or qid in allowed)}
    retrieved = {qid for qid, hits in run.ranking.items() if hits and qid in judged}
    queries = sorted(judged if complete else retrieved, key=natural_qid_key)
    labels_of: dict[object, list[str]] = {}
    for label, measure in parsed.items():
        labels_of.setdefault(measure, []).append(label)
    kernels = {label: kernel for label, measure in parsed.items() if (kernel := kernel_name(measure)) is not None}
    fast = evaluate_kernels(kernels, run.ranking, judged, queries) if kernels and queries else {}
    others = {measure: labels for measure, labels in labels_of.items() if any(label not in kernels for label in labels)}
    values: dict[str, dict[str, float]] = {label: {} for label in parsed}
    if queries and others:
        scored = {qid: dict(run.ranking[qid]) for qid in queries if qid in retrieved}
        evaluator = ir_measures.evaluator(list(others), {qid: judged[qid] for qid in queries})
        for metric in evaluator.iter_calc(scored):
            for label in labels_of[metric.measure]:
                values[label][metric.query_id] = float(metric.value)
    columns = {label: fast[label] if label in fast else [values[label].get(qid, float(parsed[label].DEFAULT)) for qid in queries]
               for label in parsed}
    table = pd.DataFrame(columns, index=pd.Index(queries, name="qid"), dtype=float)
    means = {label: _aggregate(parsed[label], table[label]) for label in parsed}
    return EvaluationResult(run.name, table, n_missing=sum(qid not in retrieved for qid in judged), means=means,
                            complete=complete, measures=parsed)


def _aggregate(measure, values: pd.Series) -> float:
    if values.empty:
        return float("nan")
    aggregator = measure.aggregator()
    for value in values:
        aggregator.add(value)
    return float(aggregator.result())


def trec_eval_lines(result: EvaluationResult, per_query: bool = True) -> list[str]:
    """The evaluation as ``trec_eval -q`` prints it: ``label<TAB>qid<TAB>value`` per query (when ``per_query``),
    then ``runid``, ``num_q`` and every measure over ``all``; values with 4 decimals, counts as integers."""
    def line(label: str, qid: str, value: float) -> str:
        count = getattr(result.measures.get(label), "NAME", "").startswith("Num") and float(value).is_integer()
        return f"{label:<22}\t{qid}\t{int(value) if count else f'{value:6.4f}'}"

    lines = []
    if per_query:
        for qid, row in result.per_query.iterrows():
            lines += [line(label, str(qid), row[label]) for label in result.per_query.columns]
    lines += [f"{'runid':<22}\tall\t{result.system}", f"{'num_q':<22}\tall\t{result.n_queries}"]
    lines += [line(label, "all", value) for label, value in result.means.items()]
    return lines


def paired_t_test(a: EvaluationResult, b: EvaluationResult, measure: str) -> tuple[float, float]:
    """Two-sided paired t-test of ``measure`` between two runs over their common queries: ``(t, p)``."""
    common = a.per_query.index.intersection(b.per_query.index)
    x = a.per_query.loc[common, measure].to_numpy()
    y = b.per_query.loc[common, measure].to_numpy()
    if len(common) < 2 or np.allclose(x, y):
        return 0.0, 1.0
    from scipy import stats

    result = stats.ttest_rel(x, y)
    return float(result.statistic), float(result.pvalue)


def measure_labels(measures: Mapping[str, object] | Sequence[str | object]) -> tuple[str, ...]:
    """The column labels of ``measures`` (names or ir_measures objects), as :func:`evaluate` names them."""
    return tuple(measures if isinstance(measures, Mapping) else parse_measures(measures))
