"""An audit's inputs checked before any work, and the documents the corpus lacks, said where they are: each check
raises IrfairInputError with one line (the file and line when there is one)."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..bounds import available_memory, fits_in_memory
from ..compression import plain_name
from ..errors import IrfairInputError, one_line
from ..measures.ranking_bias import DEFAULT_BIAS_MEASURES, NFAIRR
from ..numbers import byte_size, counted
from ..trec import QUERY_FIELDS, Run, as_runs
from ..trec.lines import read_lines
from ..trec.runs import run_paths
from .alerts import JUDGED_DEPTH
from .bias import DEFAULT_BACKGROUND_DEPTH
from .comparisons import Inference


def check_depth_and_field(depth, query_field: str) -> None:
    """IrfairInputError for a depth that is neither "auto" nor a positive integer, or an unknown query field."""
    if depth != "auto" and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        raise IrfairInputError(None, None, f"depth must be 'auto' or a positive integer, not {depth!r}")
    if query_field not in QUERY_FIELDS:
        raise IrfairInputError(None, None, f"query field must be one of {', '.join(QUERY_FIELDS)}, not {query_field!r}")


def check_without_corpus(**options) -> None:
    """IrfairInputError when an option that reads the documents is given to an audit without a corpus."""
    given = [name for name, value in options.items()
             if value is not None and not (name == "bias_measures" and tuple(value) == DEFAULT_BIAS_MEASURES)]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise IrfairInputError(None, None, f"{flag} ({given[0]}=) needs a corpus: it reads the documents")


def check_resample_memory(inference: Inference, n_queries: int) -> None:
    """Before the corpus is read: the resamples are held as (resamples × queries) matrices — sign flips as int8 and
    float64 (9 bytes a cell), bootstrap draws as indices, offsets, counts and weights (32 bytes a cell)."""
    fits_in_memory(f"{inference.n_permutations:,} permutations of {n_queries:,} queries", 9 * inference.n_permutations * n_queries,
                   "ask for fewer with --permutations")
    fits_in_memory(f"{inference.n_bootstrap:,} bootstrap resamples of {n_queries:,} queries", 32 * inference.n_bootstrap * n_queries,
                   "ask for fewer with --bootstrap")


# an audit's peak memory per byte of plain run text: MS MARCO's size (10 runs, 70 M lines, 2.7 GB of text) peaked at
# 5.8 GiB with its term store (8.8 M passages), embeddings and every measure; Robust04's (4.5 M lines) at 1.7 GiB
MEMORY_PER_RUN_BYTE = 2.3
COMPRESSED_TEXT = 5  # a compressed run file holds about this many bytes of text per byte (gzip of TREC runs: 4-6)


def check_run_memory(runs) -> None:
    """Before anything is read: IrfairInputError when the run files given (files, or folders of them) would need more
    memory than is available now, :data:`MEMORY_PER_RUN_BYTE` per byte of their text, with the size they would need.
    Runs given in memory are already held."""
    text = 0
    paths = run_paths(runs)
    for path in paths:
        try:
            size = path.stat().st_size
        except OSError:
            continue  # the reader says what is wrong with it
        text += size * (COMPRESSED_TEXT if plain_name(path) != path.name else 1)
    needed = int(MEMORY_PER_RUN_BYTE * text)
    available = available_memory()
    if needed > available:
        raise IrfairInputError(None, None, f"{counted(len(paths), 'run file')} ({byte_size(text)} of text) would need about "
                                           f"{byte_size(needed)} of memory to audit, more than the {byte_size(available)} "
                                           "available: audit fewer runs at once, or keep each query's first documents "
                                           "with --max-retrieved")


def check_relevance_level(qrels: Mapping[str, Mapping[str, int]], level: int, source) -> None:
    """IrfairInputError when some judgement is relevant but none reaches ``level`` (trec_eval's -l): every
    effectiveness measure would be 0, the perfect run's included. (Qrels without any relevant judgement leave no
    usable query: the audit says so, naming each query's reason.)"""
    highest = max((grade for docs in qrels.values() for grade in docs.values()), default=0)
    if 0 < highest < level:
        raise IrfairInputError(source if isinstance(source, (str, Path)) else None, None,
                               f"no judgement reaches relevance level {level} (-l): the highest grade is {highest}, so every "
                               "effectiveness measure would be 0")


def background_run(source, depth: int | None, bias, max_depth: int | None) -> tuple[Run | None, int]:
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


def missing_per_run(missing: set[str], runs: list[Run]) -> dict[str, int]:
    """How many distinct documents of each run the corpus lacks (every run: 0 when nothing is missing)."""
    if not missing:
        return {run.name: 0 for run in runs}
    return {run.name: _missing_count(missing, run) for run in runs}


def _missing_count(missing: set[str], run: Run) -> int:
    """How many distinct documents of ``run`` are in ``missing`` (a run read into arrays: looked up by Arrow)."""
    if run.columns is None:
        return len(missing.intersection(doc for qid in run.ranking for doc in run.doc_ids(qid)))
    import pyarrow as pa
    import pyarrow.compute as pc

    listed = run.columns.doc_array
    return len(pc.unique(listed.filter(pc.is_in(listed, value_set=pa.array(sorted(missing), type=pa.string())))))


def below_depth_missing(missing: set[str], runs: list[Run], corpus, strict: bool) -> str:
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


def raise_missing(missing: set[str], runs: list[Run], perfect_lists: Mapping[str, list[str]], qrels, corpus) -> None:
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
