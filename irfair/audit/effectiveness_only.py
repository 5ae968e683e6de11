"""An audit without a corpus: effectiveness only (the job ranx's ``compare`` does), with irfair's CIs, paired
randomization tests, corrections, decisions, the gate and the report. GSR and the bias measures read the
documents' words, so they are not measured: every system's GSR is undefined with the reason ``no corpus``, and
the verdict says so once instead of its GSR and bias lines.

Queries: the topics' when topics are given, else the qrels' (in their natural order); the measures average over
the queries each run shares with the qrels, as trec_eval does (``-c``: over every qrels query).
"""
from __future__ import annotations

import pandas as pd

from ..measures.effectiveness import evaluate
from ..measures.gsr import GSRResult
from ..trec import Run, as_qrels, as_runs, as_topics, check_run_queries, natural_qid_key
from .alerts import Evidence, detect
from .baselines import perfect_run
from .comparisons import GSR, Inference, pairs_of
from .conclusions import conclude
from .inputs import check_relevance_level, check_resample_memory, check_run_memory
from .kinds import SYSTEM
from .per_query import PER_QUERY_COLUMNS
from .provenance import provenance, relative_path, run_fingerprint, source_fingerprint
from .result import PERFECT, RANDOM, AuditResult, SystemAudit
from .ties import tie_report

NO_CORPUS = "no corpus"
#: what the verdict says in place of GSR's lines
NOT_MEASURED = "GSR and the bias measures: not measured (they read the documents: give --corpus)"


def unmeasured_gsr(name: str, qids: list[str]) -> GSRResult:
    """GSR of a system whose documents were not read: undefined, every query excluded for :data:`NO_CORPUS`."""
    nan = float("nan")
    table = pd.DataFrame({"qid": qids, "query": [""] * len(qids), "query_genderedness": nan, "list_genderedness": nan,
                          "depth": nan, "n_docs": nan, "n_docs_unmeasurable": nan, "used": False, "reason": NO_CORPUS},
                         columns=list(PER_QUERY_COLUMNS))
    return GSRResult(name, nan, nan, nan, nan, nan, nan, 0, len(qids), {NO_CORPUS: len(qids)} if qids else {}, table)


def effectiveness_audit(runs, qrels, topics=None, *, measures, labels, complete: bool, relevance_level: int,
                        max_depth: int | None, inference: Inference, depth, query_field: str) -> AuditResult:
    """The audit of ``runs`` against ``qrels`` without a corpus (see the module docstring); arguments as
    :func:`irfair.audit` takes them, already checked."""
    check_run_memory(runs)
    qrel_map = as_qrels(qrels)
    check_relevance_level(qrel_map, relevance_level, qrels)
    topic_map = as_topics(topics) if topics is not None else None
    run_list = as_runs(runs, reserved=(PERFECT, RANDOM), max_depth=max_depth)
    if topic_map is not None:
        for run in run_list:
            check_run_queries(run, topic_map, topics)
    qids = list(topic_map) if topic_map is not None else sorted(qrel_map, key=natural_qid_key)
    pairs_of([run.name for run in run_list], inference.baseline)
    check_resample_memory(inference, len(qids))
    perfect = perfect_run(qids, qrel_map, depth)
    used = list(perfect.depth)

    def audited(name: str, kind: str, run: Run, source) -> SystemAudit:
        evaluation = evaluate(run, qrel_map, measures, qids, complete=complete, relevance_level=relevance_level)
        return SystemAudit(name, kind, unmeasured_gsr(name, used), float("nan"), None, evaluation, relative_path(source))

    systems = {PERFECT: audited(PERFECT, PERFECT, Run.from_lists(PERFECT, perfect.lists), None),
               **{run.name: audited(run.name, SYSTEM, run, run.path) for run in run_list}}
    found = conclude(systems, qids, labels, (), inference)
    ties = [tie_report(run, perfect.depth) for run in run_list]
    evidence = Evidence(
        gsr_queries={name: len(used) for name in found.systems}, judged_share={}, qrels_documents=0,
        qrels_documents_missing=None, n_systems=len(run_list), agreement_measures=0, ties=ties,
        missing_documents={run.name: 0 for run in run_list}, first_missing=None, n_permutations=inference.n_permutations,
        correction=inference.correction, alpha=inference.alpha,
        families={"the pairs of each measure": len(pairs_of([run.name for run in run_list], inference.baseline))},
        n_bootstrap=inference.n_bootstrap, background=None, background_queries=0, audited_queries=len(used),
        shared_queries={(r.a, r.b): int(r.n_queries) for r in found.comparisons.itertuples(index=False)
                        if r.measure == labels[0]} if labels else {},
        own_queries={name: a.evaluation.n_queries for name, a in found.systems.items() if a.kind == SYSTEM})
    counts = {"topics": len(qids), "queries_with_relevant": len(used),
              "qrels_queries_not_in_topics": 0 if topic_map is None else sum(1 for q in qrel_map if q not in topic_map)}
    inputs = {"runs": [run_fingerprint(run) for run in run_list], "qrels": source_fingerprint(qrels, qrel_map),
              "topics": None if topic_map is None else source_fingerprint(
                  topics, {qid: [t.title, t.description] for qid, t in topic_map.items()}),
              "corpus": None, "embeddings": None}
    record = provenance(depth=depth, query_field=query_field, inference=inference.to_dict(), measures=labels,
                        random_pool_size=None, stopwords=None, inputs=inputs)
    comparisons = found.comparisons[found.comparisons["measure"] != GSR].reset_index(drop=True)
    return AuditResult(found.systems, NO_CORPUS, None, depth, query_field, counts, labels, provenance=record,
                       warnings=detect(evidence), ties=[t.to_dict() for t in ties], bias=None, inference=inference, comparisons=comparisons,
                       tradeoff=None, values=found.values)
