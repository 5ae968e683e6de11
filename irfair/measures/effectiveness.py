"""Effectiveness as trec_eval 10 computes it, averaged as trec_eval averages (``trec_eval.c``, ``meas_avg.c``).

Measures: a trec_eval name in trec_eval's ``-m`` syntax (``map``, ``P.5,10``, ``ndcg_cut.10``, ``all_trec``,
``official``, ``set``, ``utility.2,-1,0,0``, ``ndcg.1=3,2=9``; see :mod:`.trec_eval_measures`) or a label it
prints (``P_10``, ``ndcg_cut_10``), or any ir_measures name or object (``nDCG@10``, ``RR@10``, ``P(rel=2)@10``,
``Judged@10``; names matched ignoring case), or ``MAP``/``MRR``. A trec_eval name is labelled as trec_eval
prints it (``ndcg_cut.10`` → ``ndcg_cut_10``), an ir_measures name as typed.

Every trec_eval measure, and the ir_measures measures that are trec_eval measures under another name (AP,
P@k, R@k, RR, nDCG, nDCG@k, Rprec, Bpref, infAP, IPrec@r, Success@k, SetP, SetR, SetAP, NumRet, NumRel,
NumQ), are computed by irfair's numpy kernels (:mod:`.trec_kernels`, :mod:`.trec_gains`), written from
trec_eval 10's definitions; every other ir_measures measure by ir_measures' own providers.
trec_eval 10 differs from trec_eval 9 (and pytrec_eval, which embeds 9) in ``iprec_at_recall`` and
``11pt_avg``: the number of relevant documents a recall level needs is rounded (``lround(r·R)``), not
``(long)(r·R + 0.9)``.

Queries that count:

* by default every query that is both in the qrels and in the run, including a judged query with no
  relevant document (it scores 0); a query of the run that the qrels lack is left out. A query of the qrels
  that the run lacks is left out too, as trec_eval 9 did (trec_eval 10 stops with "result qid not found in
  qrels" there);
* with ``complete=True`` (``trec_eval -c``) every query of the qrels: one the run lacks is evaluated, as
  trec_eval 10 does, on a ranking of one unjudged document, then num_ret, utility, unj, rbp_resid and
  relstring are reset — so it scores 0 except num_rel (its relevant documents) and the gm_ measures
  (log 0.00001); the summary num_rel counts every judged document with grade > 0.

``qids`` restricts both to a query set (an audit's topics). ``relevance_level`` is trec_eval's ``-l`` (a
grade at least this is relevant; ir_measures' ``rel=`` of a measure wins); ``max_depth`` its ``-M`` (each
ranking cut at that many documents). The value over all queries is each measure's own: the mean, the sum for
counts (num_ret, num_rel, ...), the geometric mean for gm_map and gm_bpref; added in trec_eval's query order.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..errors import IrfairInputError
from ..trec import Qrels, Run, natural_qid_key
from . import trec_eval_measures as te
from .trec_judged import Judged, QrelsIndex
from .trec_kernels import KERNELS, geometric_mean, relstring

if TYPE_CHECKING:
    import pandas as pd

    from ..cache.arrays import ArraysMemo

DEFAULT_MEASURES = ("MAP", "nDCG@100", "P@10")
MEASURE_HELP = ("a trec_eval name (map, P.5,10, ndcg_cut.10, all_trec, official) or an ir_measures name (AP, nDCG@10, "
                "P@10, RR@10, R@1000, P(rel=2)@10, Judged@10, NumRet, ...)")
# trec_eval's ranking for a query of the qrels that a run lacks, under -c (trec_eval.c)
MISSING_QUERY_RANKING = (("ceci_nest_pas_un_docno", 1.0),)
_MISSING_QUERY_DOCS = [doc for doc, _ in MISSING_QUERY_RANKING]
_RESET_WHEN_MISSING = ("num_ret", "utility", "unj", "rbp_resid")


def parse_measures(measures: str | object | Iterable[str | object]) -> dict[str, object]:
    """``{label: measure}`` for measure names or ir_measures objects, in the order given: a trec_eval name gives
    :class:`~.trec_eval_measures.TrecEvalMeasure` objects (several for ``P.5,10`` or ``all_trec``), an ir_measures
    name its ir_measures object. Raises IrfairInputError for an unknown name or one no installed provider computes."""
    import ir_measures

    items = [measures] if isinstance(measures, str) or not isinstance(measures, Iterable) else list(measures)
    if not items:
        raise IrfairInputError(None, None, f"no measure given: use {MEASURE_HELP}")
    specs: dict[int, te.Spec] = {}
    for i, item in enumerate(items):
        if isinstance(item, str) and (spec := te.read_spec(item.strip())) is not None:
            specs[i] = spec
    expanded = dict(zip(specs, te.expand(specs.values())))
    parsed: dict[str, object] = {}
    for i, item in enumerate(items):
        if i in expanded:
            pairs = [(te.label(m), m) for m in expanded[i]]
        elif isinstance(item, te.TrecEvalMeasure):
            pairs = [(te.label(item), item)]
        elif isinstance(item, str):
            pairs = _parse_name(item.strip())
        elif isinstance(item, ir_measures.measures.Measure):
            pairs = [(str(item), item)]
        else:
            raise IrfairInputError(None, None, f"a measure must be a name or an ir_measures measure, not {type(item).__name__}")
        for label, measure in pairs:
            cutoff = getattr(measure, "params", {}).get("cutoff") if not isinstance(measure, te.TrecEvalMeasure) else None
            if cutoff is not None and not (isinstance(cutoff, int) and 1 <= cutoff <= te.MAX_CUTOFF):
                raise IrfairInputError(None, None, f"{label}: cut-offs must be integers from 1 to {te.MAX_CUTOFF:,}")
            if not isinstance(measure, te.TrecEvalMeasure) and as_trec_eval(measure) is None \
                    and not ir_measures.DefaultPipeline.supports(measure):
                raise IrfairInputError(None, None, f"no installed ir_measures provider computes {label!r}")
            parsed.setdefault(label, measure)
    return parsed


@lru_cache(maxsize=256)
def _parse_name(name: str) -> list[tuple[str, object]]:
    import ir_measures

    try:
        return [(name, ir_measures.parse_measure(_canonical_case(name)))]
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError):
        raise IrfairInputError(None, None, f"unknown measure {name!r}: use {MEASURE_HELP}") from None


def _canonical_case(name: str) -> str:
    """``ndcg@10`` → ``nDCG@10``: the measure's name as ir_measures registers it (names are matched ignoring case)."""
    from ir_measures.measures import registry

    match = re.match(r"[A-Za-z_]+", name)
    if not match or match.group(0) in registry:
        return name
    spelled = {key.lower(): key for key in registry}.get(match.group(0).lower())
    return name if spelled is None else spelled + name[match.end():]


_SAME_AS = {"AP": "map", "P": "P", "R": "recall", "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref",
            "infAP": "infAP", "Success": "success", "SetR": "set_recall", "SetAP": "set_map", "NumRel": "num_rel",
            "NumQ": "num_q"}


def as_trec_eval(measure) -> te.TrecEvalMeasure | None:
    """The trec_eval measure an ir_measures measure is (``AP`` → map, ``P@10`` → P_10, ``nDCG@10`` → ndcg_cut_10,
    ``RR@10`` → irfair's recip_rank_cut_10, ...), keeping its ``rel=``; None when it is none (then ir_measures
    computes it)."""
    if isinstance(measure, te.TrecEvalMeasure):
        return measure
    name = getattr(measure, "NAME", None)
    params = dict(getattr(measure, "params", {}) or {})
    if params.pop("judged_only", False):
        return None
    rel = params.pop("rel", None)
    cutoff = params.pop("cutoff", None)
    if name == "nDCG":
        if params.pop("dcg", "log2") != "log2" or params.pop("gains", None) is not None or params or rel is not None:
            return None
        return te.TrecEvalMeasure("ndcg") if cutoff is None else te.TrecEvalMeasure("ndcg_cut", cutoff=cutoff)
    if name == "IPrec" and cutoff is None and set(params) == {"recall"}:
        return te.TrecEvalMeasure("iprec_at_recall", cutoff=float(params["recall"]), rel=rel)
    if name == "SetP" and cutoff is None and set(params) <= {"relative"}:
        return te.TrecEvalMeasure("set_relative_P" if params.get("relative") else "set_P", rel=rel)
    if name == "NumRet" and cutoff is None and not params:
        return te.TrecEvalMeasure("num_ret") if rel is None else te.TrecEvalMeasure("num_rel_ret", rel=rel)
    family = _SAME_AS.get(name)
    if family is None or params:
        return None
    kind = te.FAMILY[family]
    if name in ("AP", "RR") and cutoff is not None:
        return te.TrecEvalMeasure("map_cut" if name == "AP" else "recip_rank_cut", cutoff=cutoff, rel=rel)
    if (kind.params == "cutoffs") != (cutoff is not None):
        return None
    return te.TrecEvalMeasure(family, cutoff=cutoff, rel=rel)


class EvaluationResult:
    """Per-query values (DataFrame indexed by qid, one column per numeric measure label, one row per evaluated
    query), their aggregate over those queries (``means``; the column means when not given) and the counts
    behind them. ``strings``: per-query text measures (``relstring``), ``{label: {qid: text}}``; ``run_id``:
    the run's tag (trec_eval's ``runid``).

    Made from a DataFrame ``per_query``, or from ``queries`` and ``columns`` (``{label: float64 array}``, one value
    per query): then the DataFrame is made when first read, so that an evaluation that reads its means only does
    not load pandas (a tenth of a second to import and as much to unload at exit)."""

    def __init__(self, system: str, per_query: pd.DataFrame | None = None, n_missing: int = 0, means: dict[str, float] | None = None,
                 complete: bool = False, measures: dict[str, object] | None = None, strings: dict[str, dict[str, str]] | None = None,
                 run_id: str | None = None, *, queries: Sequence[str] = (), columns: dict[str, np.ndarray] | None = None) -> None:
        self.system, self.n_missing, self.complete, self.run_id = system, n_missing, complete, run_id
        self.measures = measures or {}
        self.strings = strings or {}
        self._frame = per_query
        self._queries, self._columns = list(queries), columns or {}
        self.means = means or {c: float(self.per_query[c].mean()) for c in self.per_query.columns}

    @property
    def per_query(self) -> pd.DataFrame:
        """One row per evaluated query (index ``qid``), one column per numeric measure label."""
        if self._frame is None:
            import pandas as pd

            self._frame = pd.DataFrame(self._columns, index=pd.Index(self._queries, name="qid"), dtype=float)
        return self._frame

    @property
    def n_queries(self) -> int:
        """Number of queries evaluated (trec_eval's ``num_q``)."""
        return len(self._queries) if self._frame is None else len(self._frame)

    def __repr__(self) -> str:
        return f"EvaluationResult(system={self.system!r}, n_queries={self.n_queries}, n_missing={self.n_missing}, means={self.means!r})"


def check_options(relevance_level, max_depth) -> None:
    """IrfairInputError unless ``relevance_level`` is an integer >= 0 and ``max_depth`` None or a positive integer."""
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)) or relevance_level < 0:
        raise IrfairInputError(None, None, f"relevance level must be an integer >= 0, not {relevance_level!r}")
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1):
        raise IrfairInputError(None, None, f"maximum depth must be a positive integer, not {max_depth!r}")


def evaluate(run: Run, qrels: Qrels, measures: Sequence[str | object] = DEFAULT_MEASURES, qids: Iterable[str] | None = None,
             complete: bool = False, *, relevance_level: int = 1, max_depth: int | None = None,
             qrels_index: QrelsIndex | None = None, memo: ArraysMemo | None = None) -> EvaluationResult:
    """Evaluate ``run`` against ``qrels`` over the queries trec_eval would count (module docstring; ``complete``
    = ``-c``, ``relevance_level`` = ``-l``, ``max_depth`` = ``-M``; ``qrels_index``: the :class:`QrelsIndex` of these
    ``qrels``, when one is built for several runs). With ``memo`` (an audit's cache,
    :func:`irfair.cache.arrays.arrays_memo`) and ``qrels_index``, the per-query values of a run held as columns are
    kept under the digest of its documents, the judgements and the measures, and read back by a later audit.

    ``n_missing`` counts the queries of the qrels (within ``qids``) that the run lacks: left out by default,
    evaluated as trec_eval -c evaluates them with ``complete``.
    """
    check_options(relevance_level, max_depth)
    parsed = parse_measures(measures)
    allowed = None if qids is None else {str(q) for q in qids}
    judged = {qid: docs for qid, docs in qrels.items() if docs and (allowed is None or qid in allowed)}
    columns = run.columns
    if columns is None:
        retrieved = {qid for qid in run.ranking if qid in judged and run.doc_ids(qid, 1)}
    else:
        retrieved = {qid for qid, (start, end) in columns.bounds.items() if qid in judged and end > start}
    queries = sorted(judged if complete else retrieved, key=natural_qid_key)
    missing = np.array([qid not in retrieved for qid in queries], dtype=bool)
    # the kernels read document ids only: a run read from a file is joined with the qrels by Arrow, in its columns
    if columns is None:
        docs = {qid: _MISSING_QUERY_DOCS if qid not in retrieved else run.doc_ids(qid, max_depth) for qid in queries}

        def judged_at(level: int) -> Judged:
            return Judged(docs, judged, queries, level)
    else:
        spans = [_MISSING_QUERY_DOCS if qid not in retrieved else _span(columns.bounds[qid], max_depth) for qid in queries]
        index = lru_cache(maxsize=None)(lambda: qrels_index or QrelsIndex(judged))  # once for every level

        def judged_at(level: int) -> Judged:
            return Judged.from_columns(columns.doc_array, spans, judged, queries, level, index())
    own = {label: m for label, m in ((label, as_trec_eval(m)) for label, m in parsed.items()) if m is not None}
    numeric = [label for label in parsed if label not in own or own[label].kind.value not in ("string", "runid")]
    if not queries:
        values, strings = {}, {}
    elif memo is not None and qrels_index is not None and columns is not None and \
            not any(m.kind.value == "string" for m in own.values()):
        settings = (queries, [span if isinstance(span, tuple) else list(span) for span in spans], relevance_level,
                    [(label, repr(m)) for label, m in own.items() if m.kind.value != "runid"])
        values, strings = _kept_values(memo, columns.doc_array, qrels_index, missing, settings,
                                       lambda: _own_values(own, judged_at, queries, relevance_level, missing)[0]), {}
    else:
        values, strings = _own_values(own, judged_at, queries, relevance_level, missing)
    others = [label for label in numeric if label not in own]
    if queries and others:
        ranking = {qid: run.ranking[qid][:max_depth] for qid in queries if qid in retrieved}
        values |= _ir_measures_values({label: parsed[label] for label in others}, ranking, judged, queries, retrieved)
    columns = {label: np.asarray(values.get(label, np.zeros(0)), dtype=np.float64) for label in numeric}
    order = sorted(range(len(queries)), key=lambda i: queries[i])  # trec_eval adds in its query order
    counted = _judged_positive(judged, queries) if complete else None
    means = {label: _aggregate(parsed[label], own.get(label), columns[label][order], counted) for label in numeric}
    return EvaluationResult(run.name, n_missing=sum(qid not in retrieved for qid in judged), means=means, complete=complete,
                            measures=parsed, strings=strings, run_id=run.tag or run.name, queries=queries, columns=columns)


def _kept_values(memo: ArraysMemo, doc_array, qrels_index: QrelsIndex, missing: np.ndarray, settings: tuple,
                 compute) -> dict[str, np.ndarray]:
    """``compute()`` (``{label: per-query values}``, labels in the order ``settings`` names them), read from ``memo``
    when the run's documents, the judgements and the ``settings`` (queries, spans, level, measures) are those it was
    computed from (0.4 s of a warm Robust04-sized audit: every run's documents looked up among 311 k judgements)."""
    from ..trec.columns import string_parts

    parts = string_parts(doc_array)
    if parts is None:
        return compute()
    labels = [label for label, _ in settings[-1]]

    def arrays() -> tuple[np.ndarray, ...]:
        found = compute()
        return tuple(found[label] for label in labels)

    return dict(zip(labels, memo("evaluation", [*parts, missing], (qrels_index.digest, settings), arrays,
                                 [(len(settings[0]),)] * len(labels)), strict=True))


def _span(bounds: tuple[int, int], max_depth: int | None) -> tuple[int, int]:
    """A query's rows of a run's columns, its first ``max_depth`` when given."""
    start, end = bounds
    return (start, end) if max_depth is None else (start, min(end, start + max_depth))


def _own_values(own: Mapping[str, te.TrecEvalMeasure], judged_at, queries: list[str], level: int,
                missing: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, dict[str, str]]]:
    """Values of irfair's trec_eval kernels, family by family (cut-offs of a family at once), then trec_eval's
    reset of a query the run lacks (``judged_at(level)``: the run joined with the qrels at that relevance level)."""
    batches: dict[int, Judged] = {}

    def batch(rel: int | None) -> Judged:
        key = level if rel is None else int(rel)
        if key not in batches:
            batches[key] = judged_at(key)
        return batches[key]

    groups: dict[tuple, list[str]] = {}
    for label, m in own.items():
        key = (m.family, m.rel) if m.kind.params in ("none", "cutoffs", "levels") else (m.family, m.params, m.rel)
        groups.setdefault(key, []).append(label)
    values: dict[str, np.ndarray] = {}
    strings: dict[str, dict[str, str]] = {}
    for labels in groups.values():
        family = own[labels[0]]
        if family.kind.value == "runid":
            continue
        if family.kind.value == "string":
            texts = relstring(batch(family.rel), family)
            strings[labels[0]] = {q: "" if gone else text for q, text, gone in zip(queries, texts, missing)}
            continue
        cut = family.kind.params in ("cutoffs", "levels")
        members = sorted({own[label].cutoff for label in labels}) if cut else [family.cutoff]
        computed = KERNELS[family.family](batch(family.rel), [te.TrecEvalMeasure(family.family, c, family.params, family.rel)
                                                                for c in members])
        for label in labels:
            column = computed[:, members.index(own[label].cutoff) if cut else 0]
            values[label] = np.where(missing, 0.0, column) if family.family in _RESET_WHEN_MISSING else column
    return values, strings


def _ir_measures_values(measures: Mapping[str, object], ranking, judged: Qrels, queries: list[str],
                        retrieved: set[str]) -> dict[str, np.ndarray]:
    """Values of the measures ir_measures computes; a query the run lacks gets the measure's default."""
    import ir_measures

    labels_of: dict[object, list[str]] = {}
    for label, measure in measures.items():
        labels_of.setdefault(measure, []).append(label)
    found: dict[str, dict[str, float]] = {label: {} for label in measures}
    scored = {qid: dict(ranking[qid]) for qid in queries if qid in retrieved}
    evaluator = ir_measures.evaluator(list(labels_of), {qid: judged[qid] for qid in queries})
    for metric in evaluator.iter_calc(scored):
        for label in labels_of[metric.measure]:
            found[label][metric.query_id] = float(metric.value)
    return {label: np.array([found[label].get(q, float(measures[label].DEFAULT)) for q in queries]) for label in measures}


def _judged_positive(judged: Qrels, queries: list[str]) -> float:
    """Judged documents with a grade > 0 over ``queries``: trec_eval -c's summary num_rel."""
    return float(sum(1 for q in queries for grade in judged[q].values() if grade > 0))


def _aggregate(measure, own: te.TrecEvalMeasure | None, values: np.ndarray, complete_num_rel: float | None) -> float:
    if len(values) == 0:
        return float("nan")
    if own is None:
        aggregator = measure.aggregator()
        for value in values:
            aggregator.add(value)
        return float(aggregator.result())
    summary = own.kind.summary
    if summary == "geometric":
        return geometric_mean(values)
    if summary == "queries":
        return float(len(values))
    if own.family == "num_rel" and complete_num_rel is not None:
        return complete_num_rel
    total = float(np.cumsum(values)[-1])
    return total if summary == "sum" else total / len(values)


def trec_eval_lines(result: EvaluationResult, per_query: bool = True) -> list[str]:
    """The evaluation as ``trec_eval -q`` prints it (see :func:`irfair.measures.trec_eval_output.trec_eval_lines`)."""
    from .trec_eval_output import trec_eval_lines as lines

    return lines(result, per_query)


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
    """The numeric column labels of ``measures`` (names or ir_measures objects), as :func:`evaluate` names them
    (trec_eval's text measures, ``runid`` and ``relstring``, have no column)."""
    parsed = measures if isinstance(measures, Mapping) else parse_measures(measures)
    return tuple(label for label, m in parsed.items()
                 if not (isinstance(m, te.TrecEvalMeasure) and m.kind.value in ("string", "runid")))
