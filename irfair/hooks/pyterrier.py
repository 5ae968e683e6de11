"""PyTerrier (extra ``pyterrier``): document genderedness as a transformer, the per-query ranking-bias measures
as ``pt.Experiment`` measures, and GSR beside effectiveness for result frames, compared as ``pt.Experiment``
compares systems.

    import pyterrier as pt
    from irfair.hooks.pyterrier import Genderedness, bias_measures, gsr_experiment

    bm25 >> Genderedness("docs.jsonl")          # adds query_genderedness g(q) and doc_genderedness g_q(d)
    pt.Experiment([bm25, mine], topics, qrels, ["map", *bias_measures("docs.jsonl")], baseline=0, correction="holm")
    gsr_experiment([bm25, mine], topics, qrels, "docs.jsonl", ["MAP", "nDCG@10"], names=["BM25", "mine"], baseline=0)

RaB, ARaB, NFaiRR and TExFAIR have a value per query, so they are ir_measures measures (``ir_measures.define``)
that ``pt.Experiment`` averages and tests as it does its own. GSR is one slope over queries (the OLS slope of
g_q(L) on g(q), Fabris et al. Eq. 3), not a mean of per-query values, so it cannot be one of them:
``gsr_experiment`` reports it, with the perfect run's GSR and the relative GSR, beside the measures (averaged as
trec_eval averages), and with a baseline the audit's own paired randomization tests. Systems are result frames
(``qid, docno, score[, rank]``) or transformers applied to the topics.
"""
from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from ..audit import PERFECT, audit
from ..audit.bias import BiasCounter, BiasSetup, GenderWordsSource, bias_setup
from ..audit.kinds import SYSTEM
from ..cache import CacheDir, resolve_cache_dir
from ..corpus import Corpus, TermStore, open_corpus
from ..embeddings import load_embeddings
from ..errors import IrfairInputError, IrfairWarning, MissingExtraError
from ..gender.direction import gender_direction
from ..gender.genderedness import GenderednessModel
from ..measures.effectiveness import DEFAULT_MEASURES
from ..measures.ranking_bias import BIAS_MEASURES, BiasMeasure
from ..trec import as_runs, as_topics

if TYPE_CHECKING:
    from ir_measures import Measure

try:
    import pyterrier as pt
except ImportError:
    raise MissingExtraError("python-terrier", "pyterrier") from None


class Genderedness(pt.Transformer):
    """Adds ``query_genderedness`` (g(q)) and ``doc_genderedness`` (g_q(d): the document's mean g(w) without
    stopwords and the query's terms; NaN when no term is left) to a result frame with ``qid``, ``query`` and
    ``docno``. Documents are read from ``corpus`` (anything :func:`irfair.open_corpus` takes)."""

    def __init__(self, corpus, embeddings="w2v-gnews-26k", *, cache_dir: CacheDir = None) -> None:
        self.corpus = open_corpus(corpus)
        cache = resolve_cache_dir(cache_dir)
        self.embeddings = load_embeddings(embeddings, cache)
        self.store = TermStore.for_corpus(self.corpus, cache)
        self.model = GenderednessModel(self.store, self.embeddings, gender_direction(self.embeddings))

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        """``results`` with the two columns added (a new frame; rows and their order kept)."""
        absent = [c for c in ("qid", "query", "docno") if c not in results.columns]
        if absent:
            raise IrfairInputError("result frame", None, f"expected columns qid, query and docno; missing {', '.join(absent)}")
        docs = [str(d) for d in results["docno"]]
        missing = self.store.ensure(self.corpus, set(docs), progress=False)
        if missing:
            raise IrfairInputError("result frame", None, f"document {sorted(missing)[0]} is not in the corpus {self.corpus.name}")
        query_g = pd.Series(float("nan"), index=results.index)
        doc_g = pd.Series(float("nan"), index=results.index)
        for (_, query), rows in results.groupby(["qid", "query"], sort=False):
            tokens = self.model.query_tokens(str(query))
            query_g[rows.index] = self.model.query_genderedness(str(query))[0]
            doc_g[rows.index] = self.model.document_genderedness([str(d) for d in rows["docno"]], tokens)
        return results.assign(query_genderedness=query_g.to_numpy(), doc_genderedness=doc_g.to_numpy())


# the measures with a value per query that reads nothing but the lists' words (EE and AWRF need groups and grades)
PER_QUERY_BIAS = ("rab", "arab", "nfairr", "texfair")
DEFAULT_BIAS_COLUMNS = ("rab_tc@10", "nfairr@10", "texfair@10")
_COLUMN = re.compile(r"(?P<name>[a-z]+)(?:_(?P<variant>[a-z]+))?@(?P<cutoff>[0-9]+)")


def bias_measure_of(column: str) -> BiasMeasure:
    """The ranking-bias measure that fills the audit's per-query column ``column`` alone (``rab_tc@10``: RaB, term
    count, cut-off 10; ``nfairr@10``, ``texfair@5``, ``arab_bool@20``; any cut-off). IrfairInputError otherwise."""
    match = _COLUMN.fullmatch(str(column).strip())
    name = match["name"] if match else None
    if name not in PER_QUERY_BIAS:
        raise IrfairInputError(None, None, f"expected a bias column such as rab_tc@10, arab_bool@10, nfairr@10 or texfair@10 "
                                           f"(rab, arab, nfairr, texfair), got {column!r}")
    measure = BIAS_MEASURES[name]
    variant = match["variant"]
    if (variant is None) != (not measure.variants) or (variant and variant not in measure.variant_choices):
        spelled = f"{name}_<{'|'.join(measure.variant_choices)}>@k" if measure.variants else f"{name}@k"
        raise IrfairInputError(None, None, f"bias column {column!r}: expected {spelled}")
    return measure.with_options(cutoffs=(int(match["cutoff"]),), variants=(variant,) if variant else ())


def bias_measures(corpus, names: Sequence[str] = DEFAULT_BIAS_COLUMNS, *, gender_words: GenderWordsSource = None,
                  cache_dir: CacheDir = None) -> list[Measure]:
    """ir_measures measures for ``pt.Experiment(..., eval_metrics=[...])``, one per audit column of ``names``
    (:func:`bias_measure_of`), named as that column (``rab_tc@10``).

    A query's value is what :meth:`irfair.AuditResult.per_query` gives for the same run: the run's list in
    trec_eval's order (score descending, then document id descending), its documents' words read from ``corpus``
    (anything :func:`irfair.open_corpus` takes); NFaiRR normalised by the run's own top 100 documents. As in the
    audit, a query of the qrels without a relevant document, or without a document in the run, is NaN (not 0:
    no documents is not no bias), and so is ``pt.Experiment``'s mean then. ``gender_words``: one word list for
    every measure (default each measure's own); ``cache_dir``: where the corpus's words are cached (None: the
    default cache folder, False: in memory). A run document the corpus lacks raises IrfairInputError.
    """
    import ir_measures

    chosen = [bias_measure_of(column) for column in names]
    columns = [m.column(m.variants[0] if m.variants else None, m.cutoffs[0]) for m in chosen]
    if not columns or len(set(columns)) != len(columns):
        raise IrfairInputError(None, None, f"expected one or more distinct bias columns, got {', '.join(columns) or 'none'}")
    opened = open_corpus(corpus)
    store = TermStore.for_corpus(opened, resolve_cache_dir(cache_dir))
    measures = []
    for column, measure in zip(columns, chosen):
        setup = bias_setup([measure], gender_words)
        values = _bias_values(column, setup, opened, store)
        measures.append(ir_measures.define(values, name=column, support_cutoff=False, qrel_inputs=["query_id", "relevance"]))
    return measures


def _bias_values(column: str, setup: BiasSetup, corpus: Corpus,
                 store: TermStore) -> Callable[[pd.DataFrame, pd.DataFrame], Iterator[tuple[str, float]]]:
    """The ``impl`` of ir_measures' runtime measure: ``(qrels, run)`` frames to ``(qid, value)`` for every query of
    the qrels (ir_measures' ``query_id, doc_id, score`` and ``query_id, relevance`` columns)."""

    def values(qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[tuple[str, float]]:
        judged = dict.fromkeys(str(q) for q in qrels["query_id"])
        relevant = {str(q) for q in qrels.loc[qrels["relevance"] > 0, "query_id"]}
        lists = {}
        if len(run):
            [ranked] = as_runs(run[["query_id", "doc_id", "score"]])
            lists = {qid: ranked.doc_ids(qid, setup.depth) for qid in ranked.ranking if qid in relevant}
        found = _per_query(column, setup, corpus, store, lists)
        for qid in judged:
            yield qid, found.get(qid, float("nan"))

    return values


def _per_query(column: str, setup: BiasSetup, corpus: Corpus, store: TermStore, lists: Mapping[str, list[str]]) -> dict[str, float]:
    """``{qid: value of column}`` for ``lists`` (``{qid: doc ids in rank order}``), by the audit's :class:`BiasCounter`."""
    if not lists:
        return {}
    documents = {doc for docs in lists.values() for doc in docs}
    missing = store.ensure(corpus, documents, progress=False)
    if missing:
        raise IrfairInputError("run", None, f"document {sorted(missing)[0]} is not in the corpus {corpus.name}")
    bias = BiasCounter(setup, store, documents).measure(list(lists), lists, None, n_bootstrap=0)
    return dict(zip(bias.per_query["qid"], bias.per_query[column].astype(float)))


def gsr_experiment(retr_systems: Sequence | Mapping, topics, qrels, corpus, eval_metrics: Sequence = DEFAULT_MEASURES,
                   names: Sequence[str] | None = None, embeddings="w2v-gnews-26k", baseline: int | str | None = None,
                   correction: str = "holm", **audit_options) -> pd.DataFrame:
    """One row per system, the perfect run first: ``name``, ``gsr`` (one slope over queries) with its 95% CI
    (``gsr_ci_low``, ``gsr_ci_high``), ``delta_gsr`` (GSR − GSR(perfect)), ``relative_gsr_pct`` (n/a unless the
    perfect run's GSR is clearly positive), ``n_queries`` (queries GSR uses), ``n_evaluated`` (queries the measures
    average over) and one column per measure — the names of :meth:`irfair.AuditResult.table`.

    When relative GSR is n/a (the perfect run's GSR is not clearly positive, or no bootstrap CI shows it),
    ``relative_gsr_pct`` is NaN on every row, and the reason is given once: an :class:`IrfairWarning` and
    ``table.attrs["relative_gsr_note"]`` (None when relative GSR is given).

    ``baseline``: a system, by its index in ``retr_systems`` (as ``pt.Experiment``'s) or its name; None (default)
    for no tests. With one, each other system's row gets ``gsr_p``, ``gsr_p_adjusted`` and ``gsr_decision``, and per
    measure ``<measure>_p``, ``<measure>_p_adjusted``, ``<measure>_decision``: the audit's paired randomization test
    of that system against the baseline (:attr:`irfair.AuditResult.comparisons`), corrected by ``correction``
    (holm, bonferroni, bh, none) over the systems compared with the baseline; missing (NaN) in the baseline's and
    the perfect run's rows.

    ``retr_systems``: result frames or transformers (applied to the topics), a list (named by ``names``) or
    ``{name: system}``; ``topics``: a frame ``qid, query`` or any shape :func:`irfair.trec.as_topics` takes;
    ``qrels``: a frame ``qid, docno, label`` or any qrels shape; ``audit_options``: :func:`irfair.audit`'s
    keywords (``depth``, ``n_bootstrap``, ``seed``, ``complete``, ``cache_dir``, ...).
    """
    if isinstance(retr_systems, Mapping):
        systems = dict(retr_systems)
    else:
        systems = list(retr_systems)
        labels = list(names) if names is not None else [f"system {i + 1}" for i in range(len(systems))]
        if len(labels) != len(systems) or len(set(labels)) != len(labels):
            raise IrfairInputError(None, None, f"give {len(systems)} distinct names for {len(systems)} systems")
        systems = dict(zip(labels, systems))
    compared_with = _baseline_name(baseline, list(systems))
    topic_map = as_topics(topics)
    topic_frame = pd.DataFrame({"qid": list(topic_map), "query": [t.title for t in topic_map.values()]})
    results = {name: system if isinstance(system, pd.DataFrame) else system.transform(topic_frame) for name, system in systems.items()}
    result = audit(results, qrels, topic_map, corpus, embeddings, measures=eval_metrics, random_baseline=False,
                   baseline=compared_with, correction=correction, **audit_options)
    table = result.table()
    rows = []
    for name in [n for n, audited in result.systems.items() if audited.kind in (PERFECT, SYSTEM)]:
        row = table.loc[name]
        rows.append({"name": name, **{c: row[c] for c in ("gsr", "gsr_ci_low", "gsr_ci_high", "delta_gsr", "relative_gsr_pct")},
                     "n_queries": int(row["n_queries"]), "n_evaluated": int(row["n_evaluated"]), **{m: row[m] for m in result.measures}})
    frame = pd.DataFrame(rows)
    if compared_with is not None:
        frame = frame.assign(**_baseline_tests(result.comparisons, list(frame["name"]), compared_with, ["gsr", *result.measures]))
    frame.attrs["relative_gsr_note"] = result.relative_gsr_note
    if result.relative_gsr_note:
        warnings.warn(IrfairWarning(f"relative_gsr_pct is NaN: {result.relative_gsr_note}"), stacklevel=2)
    return frame


def _baseline_name(baseline: int | str | None, names: Sequence[str]) -> str | None:
    """The name of the system ``baseline`` stands for: an index into ``names`` (as ``pt.Experiment``'s ``baseline``),
    one of ``names``, or None for none. IrfairInputError for anything else."""
    if baseline is None:
        return None
    if isinstance(baseline, str) and baseline in names:
        return baseline
    if isinstance(baseline, numbers.Integral) and not isinstance(baseline, bool) and 0 <= baseline < len(names):
        return names[int(baseline)]
    raise IrfairInputError(None, None, f"baseline {baseline!r}: expected an index from 0 to {len(names) - 1} or a system name "
                                       f"({', '.join(names)})")


def _baseline_tests(comparisons: pd.DataFrame, rows: Sequence[str], baseline: str, measures: Sequence[str]) -> dict[str, list]:
    """Per measure ``<measure>_p``, ``<measure>_p_adjusted`` and ``<measure>_decision`` for each of ``rows`` (system
    names), read from the audit's ``comparisons`` (the pair of the row's system and ``baseline``, either way round);
    missing where no pair has the row (the baseline, the perfect run)."""
    pairs = {}
    for record in comparisons.itertuples(index=False):
        if baseline in (record.a, record.b) and record.a != record.b:
            other = record.b if record.a == baseline else record.a
            pairs[(other, record.measure)] = record
    columns: dict[str, list] = {}
    for measure in measures:
        found = [pairs.get((name, measure)) for name in rows]
        columns[f"{measure}_p"] = [float("nan") if r is None else float(r.p) for r in found]
        columns[f"{measure}_p_adjusted"] = [float("nan") if r is None else float(r.p_adjusted) for r in found]
        columns[f"{measure}_decision"] = [None if r is None else r.decision for r in found]
    return columns
