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

import functools
from collections.abc import Mapping, Sequence

import numpy as np

from ..cache import CacheDir, writable_cache_dir
from ..corpus import Corpus, TermStore, open_corpus
from ..embeddings import Embeddings, load_embeddings
from ..errors import IrfairInputError
from ..gender.direction import gender_direction
from ..gender.genderedness import GenderednessModel, rank_weights
from ..measures.effectiveness import DEFAULT_MEASURES, check_options, evaluate, measure_labels
from ..measures.gsr import GSRResult, fit_gsr
from ..measures.ranking_bias import DEFAULT_BIAS_MEASURES
from ..measures.trec_judged import QrelsIndex
from ..settings import check_environment
from ..trec import Run, as_qrels, as_runs, as_topics, check_run_queries
from .assembly import assemble
from .background import beside, joins_background_work
from .bias import BiasCounter, GenderWordsSource, bias_setup
from .comparisons import Inference, pairs_of
from .documents import distinct_rows, prepare_documents
from .effectiveness_only import effectiveness_audit
from .exposure import check_group_options
from .inputs import (
    background_run,
    check_depth_and_field,
    check_relevance_level,
    check_resample_memory,
    check_run_memory,
    check_without_corpus,
)
from .kinds import SYSTEM
from .per_query import per_query_table, query_genderedness
from .provenance import relative_path
from .result import PERFECT, RANDOM, AuditResult, SystemAudit, relative_gsr_note, relative_gsr_pct
from .stages import AuditConfig, Documents, Inputs, Measured

# the command line's names of audit()'s settings (--bootstrap, --permutations), accepted beside the Python names
CLI_NAMES = {"bootstrap": "n_bootstrap", "permutations": "n_permutations", "level_for_rel": "relevance_level",
             "max_retrieved": "max_depth", "no_random": "random_baseline"}
# a command-line flag that says the opposite of its Python setting: --no-random is random_baseline=False
NEGATED = {"no_random"}


def _cli_names(function):
    """``function`` that also takes the command line's names of its settings (:data:`CLI_NAMES`):
    ``audit(..., bootstrap=100, permutations=1000, level_for_rel=2, max_retrieved=100, no_random=True)`` as
    ``irfair audit --bootstrap 100 --permutations 1000 -l 2 -M 100 --no-random``."""
    @functools.wraps(function)
    def named(*args, **kwargs):
        for cli, python in CLI_NAMES.items():
            if cli in kwargs:
                if python in kwargs:
                    raise IrfairInputError(None, None, f"{cli}= and {python}= name one setting: give one of them")
                value = kwargs.pop(cli)
                kwargs[python] = (not value) if cli in NEGATED else value
        return function(*args, **kwargs)
    return named


@_cli_names
@joins_background_work
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
    """Audit runs for gender stereotype reinforcement beside the perfect (and a random) run; IrfairInputError on bad input.

    ``runs``: run files, :class:`Run` objects, ``{qid: {doc_id: score}}``, PyTerrier/ir_measures frames, ``ranx.Run``,
    one or several (a list, or ``{name: run}``; :mod:`irfair.trec`); ``qrels``/``topics``: files, ir_datasets ids or
    parsed shapes; ``corpus``: what :func:`open_corpus` takes (None: effectiveness only, :mod:`.effectiveness_only`);
    ``embeddings``: a name, a path or :class:`Embeddings`; ``cache_dir``: a folder, None (the default one) or False.
    ``measures``: ir_measures or trec_eval names, averaged as trec_eval does (``complete``, ``relevance_level``,
    ``max_depth``: its ``-c``, ``-l``, ``-M``; ``-l`` for the effectiveness measures only).

    ``bias_measures``: names among gsr, rab, arab, nfairr, texfair, ee, awrf or ``BiasMeasure`` objects (GSR is always
    computed); ``gender_words``: one word list for every term-based measure; ``rab_weighting``: RaB's variants (``tc``,
    ``tf``, ``bool``); ``nfairr_background``: a run whose top ``nfairr_background_depth`` (200) documents normalise
    every NFaiRR, as its authors do; ``document_groups``, ``group_attribute``, ``exposure_model``: the exposure
    measures' groups file (default: read from the documents, :mod:`.exposure`) and EE's browsing model.

    A run document missing from the corpus within the audited depth, or a relevant one, is an error; below it, it
    counts as non-relevant and is warned of (``documents_not_in_corpus``), or an error with ``strict``. Differences
    (:mod:`.comparisons`): ``n_bootstrap`` (``bootstrap``) resamples for every CI, ``n_permutations`` (``permutations``)
    for the paired randomization tests, from ``seed``; ``correction`` (holm, bonferroni, bh, none) over the pairs of
    each measure at ``alpha``; ``baseline``: compare each system with this one only (default: every pair).
    """
    check_environment()
    check_depth_and_field(depth, query_field)
    check_options(relevance_level, max_depth)
    inference = Inference(n_bootstrap, n_permutations, seed, correction, alpha, baseline)
    labels = measure_labels(measures)
    if corpus is None:  # effectiveness only: nothing that reads the documents may be asked for
        check_without_corpus(bias_measures=bias_measures, gender_words=gender_words, rab_weighting=rab_weighting,
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
    background, background_depth = background_run(nfairr_background, nfairr_background_depth, bias, max_depth)
    config = AuditConfig(depth, query_field, inference, tuple(measures), labels, complete, relevance_level, max_depth,
                         random_baseline, progress, strict, bias, background_depth, document_groups, group_attribute)
    inputs = _read(config, runs, qrels, topics, corpus, embeddings, background, writable_cache_dir(cache_dir))
    documents = prepare_documents(config, inputs)
    measured = _measure(config, inputs, documents)
    return assemble(config, inputs, documents, measured)


def _read(config: AuditConfig, runs, qrels, topics, corpus, embeddings, background: Run | None, cache) -> Inputs:
    """Read and check every input; the corpus's term store is loaded (its files' checksums checked: hashing lets go of
    the GIL) on a thread while the runs are read."""
    check_run_memory(runs)
    store_loading = beside(_open_store, corpus, cache)
    topic_map = as_topics(topics)
    qrel_map = as_qrels(qrels)
    check_relevance_level(qrel_map, config.relevance_level, qrels)
    run_list = as_runs(runs, reserved=(PERFECT, RANDOM), max_depth=config.max_depth, cache_dir=cache)
    for run in run_list:
        check_run_queries(run, topic_map, topics)
    pairs_of([run.name for run in run_list], config.inference.baseline)
    check_resample_memory(config.inference, len(topic_map))
    corpus_obj, store = store_loading.result()
    emb: Embeddings = load_embeddings(embeddings, cache)
    if background is not None:
        check_run_queries(background, topic_map, topics)
    return Inputs(topic_map, qrel_map, run_list, background, corpus_obj, store, emb, gender_direction(emb),
                  {"qrels": qrels, "topics": topics, "corpus": corpus}, cache)


def _measure(config: AuditConfig, inputs: Inputs, documents: Documents) -> Measured:
    """GSR, effectiveness and the bias measures of the perfect run, the random run and every system."""
    from tqdm.auto import tqdm

    perfect, bias, seed, n_bootstrap = documents.perfect, documents.bias, config.inference.seed, config.inference.n_bootstrap
    memo = inputs.memo
    model = GenderednessModel(inputs.store, inputs.embeddings, inputs.direction, memo)
    queries = query_genderedness(model, {qid: inputs.topics[qid].text(config.query_field) for qid in inputs.qids},
                                 config.query_field)
    counter = BiasCounter(bias, inputs.store, distinct_rows([documents.random_rows, *documents.system_rows.values(),
                                                              *documents.bias_rows.values(), documents.background_rows]), memo)

    def gsr_of(name: str, lists: Mapping[str, np.ndarray], weights_of) -> GSRResult:
        return fit_gsr(name, per_query_table(model, queries, perfect.depth, lists, weights_of), n_bootstrap, seed)

    qrels_index = functools.cache(lambda: QrelsIndex(inputs.qrels))  # built once, for the runs held as columns

    def evaluation(run: Run):
        return evaluate(run, inputs.qrels, config.measures, inputs.qids, complete=config.complete,
                        relevance_level=config.relevance_level,
                        qrels_index=qrels_index() if run.columns is not None else None, memo=memo)

    perfect_gsr = gsr_of(PERFECT, documents.perfect_rows, lambda qid, n: perfect.weights[qid])
    if perfect_gsr.n_queries == 0:
        reasons = "; ".join(f"{n} {reason}" for reason, n in perfect_gsr.excluded.items())
        raise IrfairInputError(None, None, f"no usable query among the {len(inputs.qids)} topics ({reasons}): GSR needs queries "
                                           "with relevant documents and a query term in the embedding vocabulary")
    perfect_evaluation = evaluation(Run.from_lists(PERFECT, perfect.lists))
    entries = [(run.name, SYSTEM, documents.system_rows[run.name], run, run.path, documents.bias_rows[run.name])
               for run in inputs.runs]
    if documents.random_lists:
        entries.insert(0, (RANDOM, RANDOM, documents.random_rows, Run.from_lists(RANDOM, documents.random_lists), None,
                           documents.random_rows))
    audited = {}
    for name, kind, lists, run, source, ranked in tqdm(entries, desc="auditing", unit="run",
                                                      disable=not config.progress or len(entries) < 2):
        result = gsr_of(name, lists, lambda qid, n: rank_weights(n))
        audited[name] = SystemAudit(
            name=name, kind=kind, gsr=result, relative_gsr=relative_gsr_pct(result.slope, perfect_gsr), vs_perfect=None,
            evaluation=evaluation(run), source=relative_path(source),
            bias=counter.measure(list(perfect.depth), ranked, None, n_bootstrap, seed),
        )
    perfect_relative = 0.0 if relative_gsr_note(perfect_gsr) is None else float("nan")
    systems = {PERFECT: SystemAudit(PERFECT, PERFECT, perfect_gsr, perfect_relative, None, perfect_evaluation,
                                    bias=documents.perfect_bias.result()), **audited}
    needed = distinct_rows([documents.perfect_rows, documents.random_rows, *documents.system_rows.values()])
    return Measured(systems, queries, model, needed)


def _open_store(corpus, cache) -> tuple[Corpus, TermStore]:
    """The corpus and its term store as cached (nothing tokenised yet)."""
    corpus_obj = open_corpus(corpus)
    return corpus_obj, TermStore.for_corpus(corpus_obj, cache)

