"""The lists an audit measures, as rows of the corpus's term store: the perfect and random runs', every system's,
NFaiRR's background; every listed document found in (or read into) the store, and the ones the corpus lacks
said where they are. The perfect run's bias measures start on a thread as soon as its documents are stored."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from ..arrays import unique_sorted
from ..cache.arrays import ArraysMemo
from ..corpus import TermStore
from ..measures.ranking_bias import EXPOSURE
from .background import beside
from .baselines import PerfectRun, perfect_run, random_run
from .bias import BiasCounter, BiasSetup, NfairrBackground
from .exposure import exposure_setup
from .inputs import below_depth_missing, raise_missing
from .rows import StoreRows
from .stages import AuditConfig, Documents, Inputs


def prepare_documents(config: AuditConfig, inputs: Inputs) -> Documents:
    """The perfect and random runs' lists, every listed document found in (or read into) the term store, and the
    documents the corpus lacks: an error within the audited depth, else counted (``strict``: an error)."""
    store, qrel_map = inputs.store, inputs.qrels
    perfect = perfect_run(inputs.qids, qrel_map, config.depth)
    random_lists: dict[str, list[str]] = {}
    corpus_size = None
    if config.random_baseline:
        store.ensure(inputs.corpus, None, progress=config.progress)
        corpus_size = len(store)
        random_lists = random_run(perfect.depth, sorted(store.doc_ids), config.inference.seed)
    bias = config.bias
    if inputs.background is not None:
        run = inputs.background
        bias = dataclasses.replace(bias, background=NfairrBackground(
            run.name, config.background_depth,
            {qid: run.doc_ids(qid, config.background_depth) for qid in perfect.depth if qid in run.ranking}))
    judged_unstored = {doc for docs in perfect.lists.values() for doc in docs if doc not in store}
    background_unstored = set() if bias.background is None else {doc for docs in bias.background.lists.values() for doc in docs
                                                                   if doc not in store}
    # the exposure measures' groups of the relevant documents: read from their words once they are in the store
    exposure_unstored = set() if not _reads_exposure(bias) or config.document_groups is not None else \
        {doc for docs in qrel_map.values() for doc, grade in docs.items() if grade > 0 and doc not in store}
    # a complete store holding the perfect run's documents changes no more: its bias measures can start now
    early = None
    if store.complete and not judged_unstored and not background_unstored and not exposure_unstored:
        bias = _with_exposure(config, inputs, bias)
        early = _start_perfect_bias(config, inputs, perfect, bias)
    # every run document's row in the store (the runs' lists are read as arrays of rows from here on)
    listed = StoreRows(inputs.runs, store, inputs.cache)
    missing = store.ensure(inputs.corpus, listed.unstored | judged_unstored | background_unstored | exposure_unstored,
                           progress=config.progress)
    # a relevant document the corpus lacks that no list holds: the exposure measures put it in group unknown
    missing -= exposure_unstored - listed.unstored - judged_unstored - background_unstored
    bias = _with_exposure(config, inputs, bias)
    if listed.unstored:
        listed.update()
    first_missing = _check_missing(config, inputs, perfect, random_lists, bias, missing) if missing else None
    perfect_rows, background_rows, perfect_bias = early or _start_perfect_bias(config, inputs, perfect, bias)
    return Documents(perfect, random_lists, corpus_size, bias, perfect_rows, background_rows,
                     {qid: store.doc_rows(docs) for qid, docs in random_lists.items()},
                     {run.name: listed.lists(run, perfect.depth) for run in inputs.runs},
                     {run.name: listed.lists(run, dict.fromkeys(perfect.depth, bias.depth)) for run in inputs.runs},
                     perfect_bias, missing, first_missing)


def _check_missing(config: AuditConfig, inputs: Inputs, perfect: PerfectRun, random_lists, bias: BiasSetup,
                   missing: set[str]) -> str:
    """Documents the corpus lacks: an error when a list the audit measures holds one, else where the first one below
    the audited depth is (for the ``documents_not_in_corpus`` warning)."""
    run_list = inputs.runs
    system_lists = {run.name: {qid: run.doc_ids(qid, k) for qid, k in perfect.depth.items() if qid in run.ranking} for run in run_list}
    bias_lists = {run.name: {qid: run.doc_ids(qid, bias.depth) for qid in perfect.depth if qid in run.ranking} for run in run_list}
    if bias.background is not None:
        bias_lists["NFaiRR background"] = bias.background.lists
    all_needed = {doc for lists in [perfect.lists, random_lists, *system_lists.values(), *bias_lists.values()]
                  for docs in lists.values() for doc in docs}
    corpus = inputs.sources["corpus"]
    if missing & all_needed:
        raise_missing(missing & all_needed, [*run_list, *([inputs.background] if inputs.background else [])], perfect.lists,
                      inputs.sources["qrels"], corpus)
    return below_depth_missing(missing, run_list, corpus, config.strict)


def _with_exposure(config: AuditConfig, inputs: Inputs, bias: BiasSetup) -> BiasSetup:
    """``bias`` with the exposure measures' groups and targets, once (none without an exposure measure)."""
    if not _reads_exposure(bias) or bias.exposure is not None:
        return bias
    return dataclasses.replace(bias, exposure=exposure_setup(bias.measures, bias.words, inputs.qrels, inputs.store,
                                                             config.document_groups, config.group_attribute))


def _start_perfect_bias(config: AuditConfig, inputs: Inputs, perfect: PerfectRun, bias: BiasSetup):
    """The perfect run's bias measures (its TExFAIR over the orders of its ties is mostly numpy, which lets go of the
    GIL) started on a thread beside the rest of the audit; a document's counts are the same in any counter. Returns
    the perfect run's rows, the background's rows and the future."""
    store = inputs.store
    rows = {qid: store.doc_rows(docs) for qid, docs in perfect.lists.items()}
    background = {} if bias.background is None else {qid: store.doc_rows(docs) for qid, docs in bias.background.lists.items()}
    grades = {qid: [inputs.qrels[qid][doc] for doc in docs] for qid, docs in perfect.lists.items()}
    return rows, background, beside(_perfect_bias, bias, store, rows, background, list(perfect.depth), grades,
                                    config.inference.n_bootstrap, config.inference.seed, inputs.memo)


def _reads_exposure(bias: BiasSetup) -> bool:
    return any(m.family == EXPOSURE for m in bias.measures)


def _perfect_bias(bias, store: TermStore, rows: Mapping[str, np.ndarray], background_rows: Mapping[str, np.ndarray],
                  qids: list[str], grades, n_bootstrap: int, seed: int, memo: ArraysMemo | None = None):
    """The perfect run's bias measures, its documents of equal grade unordered (see :meth:`BiasCounter.measure`); the
    expectations over their orders kept in ``memo`` (the cache) when there is one."""
    counter = BiasCounter(bias, store, distinct_rows([rows, background_rows]), memo)
    return counter.measure(qids, rows, grades, n_bootstrap, seed)


def distinct_rows(lists: Sequence[Mapping[str, np.ndarray]]) -> np.ndarray:
    """The distinct store rows of every list of ``lists`` (each ``{key: rows}``), ascending."""
    return unique_sorted(np.concatenate([np.zeros(0, dtype=np.int64), *(rows for group in lists for rows in group.values())]))

