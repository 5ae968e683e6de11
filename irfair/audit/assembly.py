"""The audit's last stage: its conclusions (every comparison), the warnings, the counts and the provenance, in
one :class:`~.result.AuditResult`."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .alerts import Evidence, detect
from .comparisons import GSR, pairs_of
from .conclusions import Conclusions, conclude
from .inputs import judged_share, missing_per_run
from .kinds import SYSTEM
from .provenance import embeddings_fingerprint, provenance, relative_path, run_fingerprint, source_fingerprint
from .result import AuditResult
from .stages import AuditConfig, Documents, Inputs, Measured
from .ties import tie_report


def assemble(config: AuditConfig, inputs: Inputs, documents: Documents, measured: Measured) -> AuditResult:
    """The conclusions (every comparison), the warnings, the counts and the provenance, in one result."""
    found = conclude(measured.systems, inputs.qids, config.labels, tuple(documents.bias.columns), config.inference,
                     inputs.memo)
    ties = [tie_report(run, documents.perfect.depth) for run in inputs.runs]
    return AuditResult(found.systems, inputs.embeddings.name, inputs.direction, config.depth, config.query_field,
                       _counts(inputs, documents, measured), config.labels, provenance=_provenance(config, inputs, documents),
                       warnings=detect(_evidence(config, inputs, documents, found, ties)), ties=[t.to_dict() for t in ties],
                       bias=documents.bias, inference=config.inference, comparisons=found.comparisons, tradeoff=found.tradeoff,
                       values=found.values, memo=inputs.memo)


def _evidence(config: AuditConfig, inputs: Inputs, documents: Documents, found: Conclusions, ties) -> Evidence:
    """What the warnings are detected from (:mod:`.alerts`)."""
    run_list, qrel_map, bias, inference = inputs.runs, inputs.qrels, documents.bias, config.inference
    judged = {doc for judgements in qrel_map.values() for doc in judgements}
    return Evidence(
        gsr_queries={name: a.gsr.n_queries for name, a in found.systems.items()},
        judged_share={run.name: judged_share(run, qrel_map) for run in run_list},
        qrels_documents=len(judged),
        qrels_documents_missing=sum(1 for doc in judged if doc not in inputs.store) if inputs.store.complete else None,
        n_systems=len(run_list), agreement_measures=sum(len(m.headlines) for m in bias.measures), ties=ties,
        missing_documents=missing_per_run(documents.missing, run_list), first_missing=documents.first_missing,
        n_permutations=inference.n_permutations, correction=inference.correction, alpha=inference.alpha,
        families={"the pairs of each measure": len(pairs_of([run.name for run in run_list], inference.baseline)),
                  "the systems against the perfect run": len(run_list)},
        n_bootstrap=inference.n_bootstrap, background=None if bias.background is None else bias.background.name,
        background_queries=0 if bias.background is None else len(bias.background.lists),
        audited_queries=len(documents.perfect.depth),
        shared_queries={(r.a, r.b): int(r.n_queries) for r in found.comparisons.itertuples(index=False) if r.measure == GSR},
        own_queries={name: a.gsr.n_queries for name, a in found.systems.items() if a.kind == SYSTEM})


def _counts(inputs: Inputs, documents: Documents, measured: Measured) -> dict:
    """The audit's counts of topics, queries and documents."""
    qids, needed = inputs.qids, measured.needed
    return {
        "topics": len(qids),
        "queries_with_relevant": len(documents.perfect.depth),
        "qrels_queries_not_in_topics": sum(1 for q in inputs.qrels if q not in inputs.topics),
        "queries_without_genderedness": sum(1 for q in qids if measured.queries[q].reason),
        "documents_in_corpus": documents.corpus_size,
        "documents_measured": len(needed),
        "run_documents_not_in_corpus": len(documents.missing),
        "documents_without_measurable_term": int(np.sum(measured.model.measurable_counts(needed) == 0)) if len(needed) else 0,
    }


def _provenance(config: AuditConfig, inputs: Inputs, documents: Documents) -> dict:
    """The provenance record: settings and a fingerprint of every input."""
    qrels, topics, corpus = inputs.sources["qrels"], inputs.sources["topics"], inputs.sources["corpus"]
    record = {
        "runs": [run_fingerprint(run) for run in inputs.runs],
        "qrels": source_fingerprint(qrels, inputs.qrels),
        "topics": source_fingerprint(topics, {qid: [t.title, t.description] for qid, t in inputs.topics.items()}),
        "corpus": {"name": inputs.corpus.name, "path": relative_path(corpus) if isinstance(corpus, (str, Path)) else None,
                   "fingerprint": inputs.corpus.fingerprint()},
        "embeddings": embeddings_fingerprint(inputs.embeddings),
    }
    if inputs.background is not None:
        record["nfairr_background"] = {**run_fingerprint(inputs.background), "depth": config.background_depth}
    return provenance(depth=config.depth, query_field=config.query_field, inference=config.inference.to_dict(),
                      measures=config.labels, random_pool_size=documents.corpus_size, stopwords=inputs.store.stopwords,
                      inputs=record)
