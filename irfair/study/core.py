"""The full GSR study (Fabris et al., Section 4) on one collection: every ranker × {regular, hard, strong}
embeddings, audited with GSR under each measuring embedding; effectiveness, each debiased run against its regular one
as the audit compares them (paired randomization tests, Holm);
reliability across measuring embeddings; rank changes after debiasing against |g(q)|; direct
stereotypes; intrinsic validation. Resumable: run files already in ``<out>/runs/`` are reused.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..audit import PERFECT, AuditResult, audit
from ..cache import CacheDir, writable_cache_dir
from ..corpus import TermStore, open_corpus
from ..embeddings import load_embeddings
from ..paths import writable_folder
from ..settings import check_environment
from ..trec import as_qrels, as_topics, read_run, relevant_docs
from .plan import StudyConfig, SystemSpec, plan
from .runs import build_runs
from .tables import (
    TAU_DEPTH,
    direct_stereotype_tables,
    effectiveness_table,
    gsr_table,
    query_genderedness_table,
    rank_change_tables,
    reliability_table,
    validation_table,
)


@dataclass
class StudyResult:
    """The tables of a study (DataFrames) and the audits they came from, one per measuring embedding."""

    specs: list[SystemSpec]
    audits: dict[str, AuditResult]
    gsr: pd.DataFrame
    effectiveness: pd.DataFrame
    reliability: pd.DataFrame
    rank_changes: pd.DataFrame
    rank_changes_per_query: pd.DataFrame
    direct_stereotype: pd.DataFrame
    favour: pd.DataFrame
    validation: pd.DataFrame
    query_genderedness: pd.DataFrame
    files: list[Path] = field(default_factory=list)
    config: StudyConfig | None = None

    @property
    def tau_depth(self) -> int:
        """The depth of the lists whose Kendall τ distance is measured: the top 100, or the run depth when shorter."""
        return min(TAU_DEPTH, self.config.depth) if self.config else TAU_DEPTH


def run_study(corpus, topics, qrels, out_dir: str | Path, config: StudyConfig | None = None,
              cache_dir: CacheDir = None, progress: bool = False, log: Callable[[str], None] = print) -> StudyResult:
    """Run (or resume) the study: its run files are kept under ``out_dir``/runs (a resumed study reuses them); the
    tables, figures and page are written by :func:`irfair.presentation.study_report.write_study` (as ``irfair study``
    does).

    ``cache_dir``: a folder, ``None`` for the default cache folder, ``False`` for none (the lexical
    rankers need one for their Lucene index)."""
    check_environment()
    config = config or StudyConfig()
    out = writable_folder(out_dir, "study folder")
    cache = writable_cache_dir(cache_dir)
    corpus_obj = open_corpus(corpus)
    topic_map, qrel_map = as_topics(topics), as_qrels(qrels)
    specs = plan(config)
    measuring = {emb: load_embeddings(emb, cache) for emb in config.measure_embeddings}  # bad names fail before any run
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    store = TermStore.for_corpus(corpus_obj, cache)
    paths = build_runs(specs, corpus_obj, store, topic_map, qrel_map, config, runs_dir, cache_dir, progress, log)
    runs = {s.name: read_run(paths[s.name], name=s.name) for s in specs}

    audits = {}
    for emb, vectors in measuring.items():
        log(f"auditing {len(runs)} runs with {emb}")
        audits[emb] = audit(list(runs.values()), qrel_map, topic_map, corpus_obj, vectors, n_bootstrap=config.n_bootstrap,
                            seed=config.seed, query_field=config.query_field, cache_dir=cache_dir, progress=progress)
    query_g = query_genderedness_table(audits)
    rank_changes, changes_per_query = rank_change_tables(specs, runs, list(topic_map), query_g)

    cut = {qid: len(relevant_docs(qrel_map, qid)) for qid in topic_map if relevant_docs(qrel_map, qid)}
    lists = {PERFECT: {q: [d for d, _ in relevant_docs(qrel_map, q)] for q in cut}}
    lists.update({name: {q: run.doc_ids(q, cut[q]) for q in cut if q in run.ranking} for name, run in runs.items()})
    store.ensure(corpus_obj, {d for per in lists.values() for docs in per.values() for d in docs}, progress=progress)
    direct, favour = direct_stereotype_tables(lists, store, query_g.iloc[:, 0])

    result = StudyResult(
        specs, audits, gsr_table(specs, audits, config.n_bootstrap, config.seed),
        effectiveness_table(specs, audits[config.measure_embeddings[0]]),
        reliability_table(audits, query_g), rank_changes, changes_per_query, direct, favour, validation_table(measuring), query_g,
    )
    result.config = config
    return result
