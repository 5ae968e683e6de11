"""The GSR audit: runs + qrels + topics + corpus + embeddings → GSR beside the perfect and random runs,
with effectiveness. ``audit(...)`` is the Python twin of ``irfair audit``.

Depth: with ``depth="auto"`` each query's lists are cut at K = its number of relevant documents, the
length of the perfect run; with an integer N every list is cut at N (the perfect run at min(N, K)).
The random run draws, per query, K documents from every document of the corpus, seeded by query
(see :mod:`.baselines`): the first audit of a corpus therefore tokenises all of it into the cache.
The result records its provenance (:mod:`.provenance`) and a warning when tied scores were re-ordered
(:mod:`.ties`).

Beside GSR, the ranking-bias measures RaB/ARaB, NFaiRR and TExFAIR (``bias_measures``; :mod:`.bias` says
which documents each reads) are computed for every system, the perfect and the random run. Then every pair
of systems is compared on every measure, each system's GSR with the perfect run's (:mod:`.conclusions`),
and what makes the numbers mean less is collected as warnings (:mod:`.alerts`).
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextvars import ContextVar
from pathlib import Path

import numpy as np

from ..bounds import fits_in_memory
from ..cache import CacheDir, writable_cache_dir
from ..corpus import Corpus, TermStore, open_corpus
from ..embeddings import Embeddings, load_embeddings
from ..errors import IrfairInputError, one_line
from ..gender.direction import gender_direction
from ..gender.genderedness import GenderednessModel, rank_weights
from ..measures.effectiveness import DEFAULT_MEASURES, check_options, evaluate, measure_labels
from ..measures.gsr import fit_gsr
from ..measures.ranking_bias import DEFAULT_BIAS_MEASURES, EXPOSURE, NFAIRR
from ..settings import check_environment
from ..trec import QUERY_FIELDS, Run, as_qrels, as_runs, as_topics, check_run_queries
from ..trec.lines import read_lines
from .alerts import JUDGED_DEPTH, Evidence, detect
from .baselines import perfect_run, random_run
from .bias import DEFAULT_BACKGROUND_DEPTH, BiasCounter, GenderWordsSource, NfairrBackground, bias_setup
from .comparisons import GSR, Inference, pairs_of
from .conclusions import conclude
from .effectiveness_only import effectiveness_audit
from .exposure import check_group_options, exposure_setup
from .per_query import per_query_table, query_genderedness
from .provenance import embeddings_fingerprint, provenance, relative_path, run_fingerprint, source_fingerprint
from .result import PERFECT, RANDOM, AuditResult, SystemAudit, relative_gsr_note, relative_gsr_pct
from .rows import StoreRows
from .ties import tie_report


def _check_options(depth, query_field: str) -> None:
    if depth != "auto" and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        raise IrfairInputError(None, None, f"depth must be 'auto' or a positive integer, not {depth!r}")
    if query_field not in QUERY_FIELDS:
        raise IrfairInputError(None, None, f"query field must be one of {', '.join(QUERY_FIELDS)}, not {query_field!r}")


# the futures of the work one audit started on threads beside it (see _joins_background_work)
_STARTED: ContextVar[list[Future] | None] = ContextVar("irfair_audit_background", default=None)


def _joins_background_work(function):
    """``function`` that, when it ends in an error (bad input, Ctrl-C), first waits for the work it started beside
    itself (:func:`_beside`): no thread is then left inside numpy, Arrow or a file while the process exits (which
    ended in "terminate called without an active exception", exit 134, after the error line)."""
    @functools.wraps(function)
    def joining(*args, **kwargs):
        started: list[Future] = []
        token = _STARTED.set(started)
        try:
            return function(*args, **kwargs)
        except BaseException:
            wait(started)
            raise
        finally:
            _STARTED.reset(token)
    return joining


# the command line's names of audit()'s settings (--bootstrap, --permutations), accepted beside the Python names
CLI_NAMES = {"bootstrap": "n_bootstrap", "permutations": "n_permutations"}


def _cli_names(function):
    """``function`` that also takes the command line's names of its settings (:data:`CLI_NAMES`):
    ``audit(..., bootstrap=100, permutations=1000)`` as ``irfair audit --bootstrap 100 --permutations 1000``."""
    @functools.wraps(function)
    def named(*args, **kwargs):
        for cli, python in CLI_NAMES.items():
            if cli in kwargs:
                if python in kwargs:
                    raise IrfairInputError(None, None, f"{cli}= and {python}= name one setting: give one of them")
                kwargs[python] = kwargs.pop(cli)
        return function(*args, **kwargs)
    return named


@_cli_names
@_joins_background_work
def audit(
    runs,
    qrels,
    topics=None,
    corpus=None,
    embeddings="w2v-gnews-26k",
    *,
    depth: str | int = "auto",
    query_field: str = "title",
    n_bootstrap: int = 1000,
    seed: int = 0,
    random_baseline: bool = True,
    measures: Sequence[object] = DEFAULT_MEASURES,
    complete: bool = False,
    cache_dir: CacheDir = None,
    progress: bool = False,
    bias_measures: Sequence[object] | str | None = DEFAULT_BIAS_MEASURES,
    gender_words: GenderWordsSource = None,
    strict: bool = False,
    relevance_level: int = 1,
    max_depth: int | None = None,
    n_permutations: int = 10_000,
    correction: str = "holm",
    alpha: float = 0.05,
    baseline: str | None = None,
    rab_weighting: str | Sequence[str] | None = None,
    nfairr_background=None,
    nfairr_background_depth: int | None = None,
    document_groups=None,
    group_attribute: str | None = None,
    exposure_model: str | None = None,
) -> AuditResult:
    """Audit runs for gender stereotype reinforcement beside the perfect (and a random) run.

    ``runs``: run files, :class:`Run` objects, ``{qid: {doc_id: score}}`` dicts, PyTerrier/ir_measures frames,
    ``ranx.Run`` objects, one or several (a list, or ``{name: run}``; see :mod:`irfair.trec`);
    ``qrels``/``topics``: files, ir_datasets ids or parsed shapes; ``corpus``: anything :func:`open_corpus` takes;
    ``measures``: ir_measures names or objects, or trec_eval names, averaged as trec_eval averages (``complete``:
    as ``trec_eval -c``, see :mod:`irfair.measures.effectiveness`; ``relevance_level``: trec_eval's ``-l``, for
    the effectiveness measures only; ``max_depth``: trec_eval's ``-M``, each run cut when read);
    ``embeddings``: a name, a path or loaded :class:`Embeddings`; ``cache_dir``: a folder, ``None`` for
    the default cache folder (as ``irfair audit``), ``False`` for none. Raises IrfairInputError on bad input.
    ``bias_measures``: names among ``gsr, rab, arab, nfairr, texfair`` or :class:`~irfair.measures.ranking_bias.BiasMeasure`
    objects (GSR itself is always computed; naming it puts it in the agreement table); ``gender_words``: a shipped
    list's name, a file or :class:`~irfair.measures.gender_words.GenderWords` for every term-based measure;
    ``rab_weighting``: RaB's and ARaB's magnitude variants (any of ``tc``, ``tf``, ``bool``; default ``tc,bool``;
    the authors report ``tf,bool``); ``nfairr_background``: one run (any run shape) whose top
    ``nfairr_background_depth`` (default 200) documents per query normalise every system's NFaiRR, as its authors do
    (default None: each system's own top 100; an error when NFaiRR is not measured, as is a depth without a run)
    (None: each measure's own list). The exposure measures ``ee`` and ``awrf`` (:mod:`.exposure`) read each
    document's groups from ``document_groups`` (a TSV/JSONL file, its ``group_attribute``) or, without one, from its
    words; ``exposure_model``: EE's browsing model (``trec2022``, ``gerr``, ``rbp``).

    Every document of every run is looked up in the corpus. One missing within the audited depth (GSR's
    lists and the bias measures' lists), or a relevant one, is an error; one missing below it only counts
    as non-relevant in the effectiveness measures: it is counted (``counts["run_documents_not_in_corpus"]``) and reported in
    ``warnings`` (kind ``documents_not_in_corpus``, per-run counts), or raised as an error with ``strict=True`` (``--strict``).

    Differences (:mod:`.comparisons`): ``n_bootstrap`` (or ``bootstrap``, the command line's name) resamples for
    every CI, ``n_permutations`` (or ``permutations``) for the paired
    randomization tests, both from ``seed``; p-values corrected by ``correction`` (holm, bonferroni, bh, none)
    over the pairs of each measure; ``alpha`` the level :meth:`AuditResult.check` and the reports use;
    ``baseline``: compare each system with this one only (default: every pair).
    """
    check_environment()
    _check_options(depth, query_field)
    check_options(relevance_level, max_depth)
    inference = Inference(n_bootstrap, n_permutations, seed, correction, alpha, baseline)
    labels = measure_labels(measures)
    if corpus is None:  # effectiveness only: nothing that reads the documents may be asked for
        _check_without_corpus(bias_measures=bias_measures, gender_words=gender_words, rab_weighting=rab_weighting,
                              nfairr_background=nfairr_background, nfairr_background_depth=nfairr_background_depth,
                              document_groups=document_groups, group_attribute=group_attribute, exposure_model=exposure_model)
        return effectiveness_audit(runs, qrels, topics, measures=measures, labels=labels, complete=complete,
                                   relevance_level=relevance_level, max_depth=max_depth, inference=inference, depth=depth,
                                   query_field=query_field)
    if topics is None:
        raise IrfairInputError(None, None, "topics are needed with a corpus: GSR reads each query's words (without a corpus, "
                                           "the audit is of effectiveness only)")
    bias = bias_setup(bias_measures, gender_words, rab_weighting, exposure_model)
    check_group_options(bias.measures, document_groups, group_attribute)
    background_run, nfairr_background_depth = _background_run(nfairr_background, nfairr_background_depth, bias, max_depth)
    cache = writable_cache_dir(cache_dir)
    # the corpus's term store is loaded (its files' checksums checked: hashing lets go of the GIL) while the runs are read
    store_loading = _beside(_open_store, corpus, cache)
    topic_map = as_topics(topics)
    qrel_map = as_qrels(qrels)
    _check_relevance_level(qrel_map, relevance_level, qrels)
    run_list = as_runs(runs, reserved=(PERFECT, RANDOM), max_depth=max_depth)
    for run in run_list:
        check_run_queries(run, topic_map, topics)
    pairs_of([run.name for run in run_list], baseline)
    _check_resample_memory(inference, len(topic_map))
    corpus_obj, store = store_loading.result()
    emb: Embeddings = load_embeddings(embeddings, cache)
    direction = gender_direction(emb)

    qids = list(topic_map)
    perfect = perfect_run(qids, qrel_map, depth)
    random_lists: dict[str, list[str]] = {}
    corpus_size = None
    if random_baseline:
        store.ensure(corpus_obj, None, progress=progress)
        corpus_size = len(store)
        random_lists = random_run(perfect.depth, sorted(store.doc_ids), seed)
    if background_run is not None:
        check_run_queries(background_run, topic_map, topics)
        background = NfairrBackground(background_run.name, nfairr_background_depth,
                                      {qid: background_run.doc_ids(qid, nfairr_background_depth) for qid in perfect.depth
                                       if qid in background_run.ranking})
        bias = dataclasses.replace(bias, background=background)
    judged_unstored = {doc for docs in perfect.lists.values() for doc in docs if doc not in store}
    background_unstored = set() if background_run is None else {doc for docs in bias.background.lists.values() for doc in docs
                                                                  if doc not in store}
    grades = {qid: [qrel_map[qid][doc] for doc in docs] for qid, docs in perfect.lists.items()}
    # the exposure measures' groups of the relevant documents: read from their words once they are in the store
    exposure_unstored = set() if not _reads_exposure(bias) or document_groups is not None else \
        {doc for docs in qrel_map.values() for doc, grade in docs.items() if grade > 0 and doc not in store}

    def with_exposure() -> None:
        nonlocal bias
        if _reads_exposure(bias) and bias.exposure is None:
            bias = dataclasses.replace(bias, exposure=exposure_setup(bias.measures, bias.words, qrel_map, store, document_groups,
                                                                     group_attribute))

    def start_perfect_bias() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], Future]:
        """The perfect run's bias measures (its TExFAIR over the orders of its ties is mostly numpy, which lets go of
        the GIL) started on a thread beside the rest of the audit; a document's counts are the same in any counter."""
        rows = {qid: store.doc_rows(docs) for qid, docs in perfect.lists.items()}
        background = {} if bias.background is None else {qid: store.doc_rows(docs) for qid, docs in bias.background.lists.items()}
        return rows, background, _beside(_perfect_bias, bias, store, rows, background, list(perfect.depth), grades, n_bootstrap, seed)

    # a complete store holding the perfect run's documents changes no more: its bias measures can start now
    early = None
    if store.complete and not judged_unstored and not background_unstored and not exposure_unstored:
        with_exposure()
        early = start_perfect_bias()
    # every run document's row in the store (the runs' lists are read as arrays of rows from here on)
    listed = StoreRows(run_list, store)
    missing = store.ensure(corpus_obj, listed.unstored | judged_unstored | background_unstored | exposure_unstored, progress=progress)
    # a relevant document the corpus lacks that no list holds: the exposure measures put it in group unknown
    missing -= exposure_unstored - listed.unstored - judged_unstored - background_unstored
    with_exposure()
    first_missing = None
    if listed.unstored:
        listed.update()
    if missing:
        system_lists = {run.name: {qid: run.doc_ids(qid, k) for qid, k in perfect.depth.items() if qid in run.ranking} for run in run_list}
        bias_lists = {run.name: {qid: run.doc_ids(qid, bias.depth) for qid in perfect.depth if qid in run.ranking} for run in run_list}
        if bias.background is not None:
            bias_lists["NFaiRR background"] = bias.background.lists
        all_needed = {doc for lists in [perfect.lists, random_lists, *system_lists.values(), *bias_lists.values()]
                      for docs in lists.values() for doc in docs}
        if missing & all_needed:
            _raise_missing(missing & all_needed, [*run_list, *([background_run] if background_run else [])], perfect.lists, qrels, corpus)
        first_missing = _below_depth_missing(missing, run_list, corpus, strict)
    perfect_rows, background_rows, perfect_bias = early or start_perfect_bias()
    random_rows = {qid: store.doc_rows(docs) for qid, docs in random_lists.items()}
    system_rows = {run.name: listed.lists(run, perfect.depth) for run in run_list}
    bias_rows = {run.name: listed.lists(run, dict.fromkeys(perfect.depth, bias.depth)) for run in run_list}
    needed = _distinct_rows([perfect_rows, random_rows, *system_rows.values()])
    model = GenderednessModel(store, emb, direction)
    queries = query_genderedness(model, {qid: topic_map[qid].text(query_field) for qid in qids}, query_field)
    counter = BiasCounter(bias, store, _distinct_rows([random_rows, *system_rows.values(), *bias_rows.values(), background_rows]))

    def bias_of(lists: Mapping[str, np.ndarray]):
        return counter.measure(list(perfect.depth), lists, None, n_bootstrap, seed)

    def gsr_of(name: str, lists: Mapping[str, np.ndarray], weights_of):
        return fit_gsr(name, per_query_table(model, queries, perfect.depth, lists, weights_of), n_bootstrap, seed)

    def evaluation(run: Run):
        return evaluate(run, qrel_map, measures, qids, complete=complete, relevance_level=relevance_level)

    entries = [(run.name, "system", system_rows[run.name], run, run.path, bias_rows[run.name]) for run in run_list]
    if random_lists:
        entries.insert(0, (RANDOM, "random", random_rows, Run.from_lists(RANDOM, random_lists), None, random_rows))
    from tqdm.auto import tqdm

    perfect_gsr = gsr_of(PERFECT, perfect_rows, lambda qid, n: perfect.weights[qid])
    if perfect_gsr.n_queries == 0:
        reasons = "; ".join(f"{n} {reason}" for reason, n in perfect_gsr.excluded.items())
        raise IrfairInputError(None, None, f"no usable query among the {len(qids)} topics ({reasons}): GSR needs queries "
                                           "with relevant documents and a query term in the embedding vocabulary")
    perfect_evaluation = evaluation(Run.from_lists(PERFECT, perfect.lists))
    audited = {}
    for name, kind, lists, run, source, ranked in tqdm(entries, desc="auditing", unit="run", disable=not progress or len(entries) < 2):
        result = gsr_of(name, lists, lambda qid, n: rank_weights(n))
        audited[name] = SystemAudit(
            name=name, kind=kind, gsr=result, relative_gsr=relative_gsr_pct(result.slope, perfect_gsr), vs_perfect=None,
            evaluation=evaluation(run), source=relative_path(source), bias=bias_of(ranked),
        )
    perfect_relative = 0.0 if relative_gsr_note(perfect_gsr) is None else float("nan")
    systems = {PERFECT: SystemAudit(PERFECT, "perfect", perfect_gsr, perfect_relative, None, perfect_evaluation,
                                    bias=perfect_bias.result()), **audited}
    found = conclude(systems, qids, labels, tuple(bias.columns), inference)

    ties = [tie_report(run, perfect.depth) for run in run_list]
    judged = {doc for judgements in qrel_map.values() for doc in judgements}
    evidence = Evidence(
        gsr_queries={name: a.gsr.n_queries for name, a in found.systems.items()},
        judged_share={run.name: judged_share(run, qrel_map) for run in run_list},
        qrels_documents=len(judged), qrels_documents_missing=sum(1 for doc in judged if doc not in store) if store.complete else None,
        n_systems=len(run_list), agreement_measures=sum(len(m.headlines) for m in bias.measures), ties=ties,
        missing_documents=_missing_per_run(missing, run_list), first_missing=first_missing,
        n_permutations=inference.n_permutations, correction=inference.correction, alpha=inference.alpha,
        families={"the pairs of each measure": len(pairs_of([run.name for run in run_list], baseline)),
                  "the systems against the perfect run": len(run_list)},
        n_bootstrap=inference.n_bootstrap, background=None if bias.background is None else bias.background.name,
        background_queries=0 if bias.background is None else len(bias.background.lists), audited_queries=len(perfect.depth),
        shared_queries={(r.a, r.b): int(r.n_queries) for r in found.comparisons.itertuples(index=False) if r.measure == GSR},
        own_queries={name: a.gsr.n_queries for name, a in found.systems.items() if a.kind == "system"})
    counts = {
        "topics": len(qids),
        "queries_with_relevant": len(perfect.depth),
        "qrels_queries_not_in_topics": sum(1 for q in qrel_map if q not in topic_map),
        "queries_without_genderedness": sum(1 for q in qids if queries[q].reason),
        "documents_in_corpus": corpus_size,
        "documents_measured": len(needed),
        "run_documents_not_in_corpus": len(missing),
        "documents_without_measurable_term": int(np.sum(model.measurable_counts(needed) == 0)) if len(needed) else 0,
    }
    inputs = {
        "runs": [run_fingerprint(run) for run in run_list],
        "qrels": source_fingerprint(qrels, qrel_map),
        "topics": source_fingerprint(topics, {qid: [t.title, t.description] for qid, t in topic_map.items()}),
        "corpus": {"name": corpus_obj.name, "path": relative_path(corpus) if isinstance(corpus, (str, Path)) else None,
                   "fingerprint": corpus_obj.fingerprint()},
        "embeddings": embeddings_fingerprint(emb),
    }
    if background_run is not None:
        inputs["nfairr_background"] = {**run_fingerprint(background_run), "depth": nfairr_background_depth}
    record = provenance(depth=depth, query_field=query_field, inference=inference.to_dict(), measures=labels,
                        random_pool_size=corpus_size, stopwords=store.stopwords, inputs=inputs)
    return AuditResult(found.systems, emb.name, direction, depth, query_field, counts, labels, provenance=record,
                       warnings=detect(evidence), ties=[t.to_dict() for t in ties], bias=bias, inference=inference,
                       comparisons=found.comparisons, tradeoff=found.tradeoff, values=found.values)


def _check_without_corpus(**options) -> None:
    """IrfairInputError when an option that reads the documents is given to an audit without a corpus."""
    given = [name for name, value in options.items()
             if value is not None and not (name == "bias_measures" and tuple(value) == DEFAULT_BIAS_MEASURES)]
    if given:
        raise IrfairInputError(None, None, f"{given[0]} needs a corpus (the documents' words): give one, or leave it out "
                                           "for an audit of effectiveness only")


def _reads_exposure(bias) -> bool:
    return any(m.family == EXPOSURE for m in bias.measures)


def _check_resample_memory(inference: Inference, n_queries: int) -> None:
    """Before the corpus is read: the resamples are held as (resamples × queries) matrices — sign flips as int8 and
    float64 (9 bytes a cell), bootstrap draws as indices, offsets, counts and weights (32 bytes a cell)."""
    fits_in_memory(f"{inference.n_permutations:,} permutations of {n_queries:,} queries", 9 * inference.n_permutations * n_queries,
                   "ask for fewer with --permutations")
    fits_in_memory(f"{inference.n_bootstrap:,} bootstrap resamples of {n_queries:,} queries", 32 * inference.n_bootstrap * n_queries,
                   "ask for fewer with --bootstrap")


def _check_relevance_level(qrels: Mapping[str, Mapping[str, int]], level: int, source) -> None:
    """IrfairInputError when some judgement is relevant but none reaches ``level`` (trec_eval's -l): every
    effectiveness measure would be 0, the perfect run's included. (Qrels without any relevant judgement leave no
    usable query: the audit says so, naming each query's reason.)"""
    highest = max((grade for docs in qrels.values() for grade in docs.values()), default=0)
    if 0 < highest < level:
        raise IrfairInputError(source if isinstance(source, (str, Path)) else None, None,
                               f"no judgement reaches relevance level {level} (-l): the highest grade is {highest}, so every "
                               "effectiveness measure would be 0")


def _background_run(source, depth: int | None, bias, max_depth: int | None) -> tuple[Run | None, int]:
    """NFaiRR's background run (None without ``source``) and its depth; IrfairInputError for a depth that is not a
    positive integer, a depth or a background that nothing uses (no run; NFaiRR not measured), or a source holding
    other than one run (a folder of several: which one would normalise?)."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise IrfairInputError(None, None, f"nfairr_background_depth must be a positive integer, not {depth!r}")
    if source is None:
        if depth is not None:
            raise IrfairInputError(None, None, f"nfairr_background_depth {depth} without an NFaiRR background run: nothing to cut")
        return None, DEFAULT_BACKGROUND_DEPTH
    if not any(m.name == NFAIRR.name for m in bias.measures):
        names = ", ".join(m.name for m in bias.measures)
        raise IrfairInputError(None, None, f"an NFaiRR background run, but nfairr is not among the bias measures ({names})")
    runs = as_runs(source, max_depth=max_depth)
    if len(runs) != 1:
        raise IrfairInputError(source if isinstance(source, (str, Path)) else None, None,
                               f"the NFaiRR background must be one run, found {len(runs)} ({', '.join(r.name for r in runs)})")
    return runs[0], DEFAULT_BACKGROUND_DEPTH if depth is None else depth


def _beside(function, *args) -> Future:
    """``function(*args)`` started now on a thread of its own (which ends with the call); its future."""
    pool = ThreadPoolExecutor(1)
    try:
        future = pool.submit(function, *args)
    finally:
        pool.shutdown(wait=False)
    started = _STARTED.get()
    if started is not None:
        started.append(future)
    return future


def _open_store(corpus, cache) -> tuple[Corpus, TermStore]:
    """The corpus and its term store as cached (nothing tokenised yet)."""
    corpus_obj = open_corpus(corpus)
    return corpus_obj, TermStore.for_corpus(corpus_obj, cache)


def _perfect_bias(bias, store: TermStore, rows: Mapping[str, np.ndarray], background_rows: Mapping[str, np.ndarray],
                  qids: list[str], grades, n_bootstrap: int, seed: int):
    """The perfect run's bias measures, its documents of equal grade unordered (see :meth:`BiasCounter.measure`)."""
    counter = BiasCounter(bias, store, _distinct_rows([rows, background_rows]))
    return counter.measure(qids, rows, grades, n_bootstrap, seed)


def _distinct_rows(lists: Sequence[Mapping[str, np.ndarray]]) -> np.ndarray:
    """The distinct store rows of every list of ``lists`` (each ``{key: rows}``), ascending."""
    return np.unique(np.concatenate([np.zeros(0, dtype=np.int64), *(rows for group in lists for rows in group.values())]))


def judged_share(run: Run, qrels) -> float:
    """Share of the run's top-10 documents that the qrels judge, over the queries both have (0 when none)."""
    listed = judged_count = 0
    for qid in run.ranking:
        judgements = qrels.get(qid)
        if judgements is None:
            continue
        top = run.doc_ids(qid, JUDGED_DEPTH)
        listed += len(top)
        judged_count += sum(1 for doc in top if doc in judgements)
    return judged_count / listed if listed else 0.0


def _first_line(missing: set[str], runs: list[Run]) -> tuple[Run, int | None, str, str]:
    """The run, line, query and document of the first run entry whose document is in ``missing``."""
    for run in runs:
        for (qid, doc_id), line in sorted(run.line_of.items(), key=lambda item: item[1]):
            if doc_id in missing:
                return run, line, qid, doc_id
        for qid, hits in run.ranking.items():
            for doc_id, _ in hits:
                if doc_id in missing:
                    return run, None, qid, doc_id
    raise ValueError("no run holds a missing document")


def _missing_per_run(missing: set[str], runs: list[Run]) -> dict[str, int]:
    """How many distinct documents of each run the corpus lacks (every run: 0 when nothing is missing)."""
    if not missing:
        return {run.name: 0 for run in runs}
    return {run.name: len(missing.intersection(doc for qid in run.ranking for doc in run.doc_ids(qid))) for run in runs}


def _below_depth_missing(missing: set[str], runs: list[Run], corpus, strict: bool) -> str:
    """Run documents below the audited depth that the corpus lacks: an error when ``strict``, else where the first
    one is (``DOC, query Q, FILE:LINE``) for the ``documents_not_in_corpus`` warning."""
    run, line, qid, doc_id = _first_line(missing, runs)
    where = run.path or run.name
    if strict:
        raise IrfairInputError(where, line, f"document {doc_id} (query {qid}) is not in the corpus {_corpus_label(corpus)} "
                                            f"({len(missing)} such documents below the audited depth)")
    return one_line(f"{doc_id}, query {qid}, {where}:{line}" if line is not None else f"{doc_id}, query {qid}, {where}", 160)


def _corpus_label(corpus) -> str:
    if isinstance(corpus, (str, Path)):
        return str(corpus)
    return getattr(corpus, "name", None) or "given in memory"


def _raise_missing(missing: set[str], runs: list[Run], perfect_lists: Mapping[str, list[str]], qrels, corpus) -> None:
    """Raise IrfairInputError at the first run line (else qrels line) naming a document the corpus lacks."""
    label = _corpus_label(corpus)
    try:
        run, line, qid, doc_id = _first_line(missing, runs)
    except ValueError:
        pass
    else:
        raise IrfairInputError(run.path or run.name, line, f"document {doc_id} (query {qid}) is not in the corpus {label}")
    doc_id = sorted(missing)[0]
    qid = next(q for q, docs in perfect_lists.items() if doc_id in docs)
    line = None
    if isinstance(qrels, (str, Path)) and Path(qrels).is_file():  # not an ir_datasets id; read as it was read (compressed, BOM)
        for number, text in enumerate(read_lines(qrels, "qrels"), start=1):
            parts = text.split()
            if len(parts) == 4 and parts[0] == qid and parts[2] == doc_id:
                line = number
                break
    raise IrfairInputError(qrels if isinstance(qrels, (str, Path)) else "qrels", line,
                           f"relevant document {doc_id} (query {qid}) is not in the corpus {label}")
