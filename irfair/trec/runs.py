"""Runs from every shape (see :mod:`irfair.trec`), each ranked by score (descending) with ties broken by
document id (descending), trec_eval's rule, so that every shape of the same run gives the same ranking;
a ``{qid: {doc_id: score}}`` dict's key order is never used. Input that leaves the ranking open (a set of
documents, a rank column that contradicts the scores, a Run whose lists contradict its scores, two id
columns that disagree) raises IrfairInputError."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..errors import IrfairInputError
from .files import Run, read_run, run_files, trec_eval_order
from .shapes import (
    DOC_COLUMNS,
    QID_COLUMNS,
    check_numeric_column,
    frame_column,
    is_doc_list,
    is_frame,
    is_number,
    is_ranx,
    is_record,
    score_value,
)

SHAPES = ("a TREC run file, a Run, {qid: {doc_id: score}}, {qid: [doc_id, ...]}, a DataFrame (qid, docno, score), "
          "a ranx.Run or ir_measures ScoredDoc records")


def as_runs(runs, reserved: Sequence[str] = (), max_depth: int | None = None, cache_dir: str | Path | None = None) -> list[Run]:
    """Runs from any shape of the module docstring, one or several (a list, or ``{name: run}``); a folder (alone or
    in a list) stands for its run files (``*.run``, ``*.txt``, plain or compressed), sorted by name, each a run.

    Unnamed runs are called ``run`` (or their file's stem, or a ranx run's name). Names are made unique: a
    repeated name, or one in ``reserved``, gets ``-2``, ``-3``, ... The arguments are never changed.
    ``max_depth`` (trec_eval's ``-M``) keeps each query's first ``max_depth`` documents (see :func:`read_run`);
    ``cache_dir``: a folder where run files are kept parsed (see :func:`read_run`), None for none.
    """
    named = _named(runs)
    loaded = [_one_run(name, obj, max_depth, cache_dir) for name, obj in named]
    if max_depth is not None:  # run files are cut when read
        loaded = [run if isinstance(obj, (str, Path)) else
                  dataclasses.replace(run, ranking={q: hits[:max_depth] for q, hits in run.ranking.items()})
                  for (_, obj), run in zip(named, loaded)]
    empty = next((run for run in loaded if not any(run.ranking.values())), None)
    if empty is not None:
        raise IrfairInputError(empty.path or f"run {empty.name!r}", None, "the run retrieves no document")
    unprintable = next((run for run in loaded if not run.name.isprintable() or not run.name.strip()), None)
    if unprintable is not None:  # a tab or line break would break every table, TSV column and file name made from it
        raise IrfairInputError(unprintable.path or f"run {unprintable.name!r}", None,
                               f"the system name {unprintable.name!r} is empty or holds a tab, a line break or another "
                               "control character: rename the file, or name the run")
    seen: dict[str, int] = {}
    for i, run in enumerate(loaded):
        if run.name in reserved or run.name in seen:
            seen[run.name] = seen.get(run.name, 1) + 1
            loaded[i] = dataclasses.replace(run, name=f"{run.name}-{seen[run.name]}")
        seen.setdefault(loaded[i].name, 1)
    return loaded


def run_paths(runs) -> list[Path]:
    """The run files that :func:`as_runs` would read from ``runs`` (folders opened), without reading them; [] for
    runs given in memory, and where :func:`as_runs` will say what is wrong. An iterator is not consumed."""
    if not isinstance(runs, (str, Path, Mapping, list, tuple)):
        return []
    try:
        named = _named(runs)
    except IrfairInputError:
        return []
    return [Path(obj) for _, obj in named if isinstance(obj, (str, Path)) and Path(obj).is_file()]


def _named(runs) -> list[tuple[str | None, object]]:
    if _single_run(runs):
        return _folders_opened([(None, runs)])
    if isinstance(runs, Mapping):
        return [(str(name), obj) for name, obj in runs.items()]
    if isinstance(runs, Iterable):
        items = list(runs)
        if items and all(is_record(item, "score") for item in items):
            return [(None, items)]
        if not items:
            raise IrfairInputError(None, None, "no runs given")
        return _folders_opened([(None, item) for item in items])
    raise IrfairInputError(None, None, f"cannot read a run from {type(runs).__name__}: expected {SHAPES}")


def _folders_opened(named: list[tuple[str | None, object]]) -> list[tuple[str | None, object]]:
    """Each folder among the runs replaced by its run files (:func:`.files.run_files`), each a system;
    IrfairInputError when one file comes twice (named twice, or named and inside a folder given too)."""
    out: list[tuple[str | None, object]] = []
    seen: dict[Path, str | Path] = {}
    for name, obj in named:
        files = [(None, path) for path in run_files(obj)] if isinstance(obj, (str, Path)) and Path(obj).is_dir() else [(name, obj)]
        for item in files:
            if isinstance(item[1], (str, Path)) and Path(item[1]).is_file():
                key = Path(item[1]).resolve()
                if key in seen:
                    also = "" if str(seen[key]) == str(item[1]) else f" (also as {seen[key]})"
                    raise IrfairInputError(item[1], None, f"run file given twice{also}: it would be audited as two systems")
                seen[key] = item[1]
            out.append(item)
    return out


def _single_run(obj) -> bool:
    if isinstance(obj, (str, Path, Run)) or is_frame(obj) or is_ranx(obj, "Run"):
        return True
    return isinstance(obj, Mapping) and _mapping_kind(obj) is not None


def _mapping_kind(obj: Mapping) -> str | None:
    """"scores" for ``{qid: {doc: score}}``, "lists" for ``{qid: [doc, ...]}``, None for ``{name: run}``."""
    values = list(obj.values())
    if not values:
        raise IrfairInputError(None, None, "empty run: no queries")
    unordered = next((qid for qid, v in obj.items() if isinstance(v, (set, frozenset))), None)
    if unordered is not None:
        raise IrfairInputError(None, None, f"query {unordered}: a set of documents has no ranking; "
                                           "give a list (best first) or {doc_id: score}")
    if all(isinstance(v, Mapping) for v in values):
        return "scores" if all(is_number(x) for v in values for x in v.values()) else None
    if all(is_doc_list(v) for v in values):
        return "lists"
    return None


def _one_run(name: str | None, obj, max_depth: int | None = None, cache_dir: str | Path | None = None) -> Run:
    if isinstance(obj, (str, Path)):
        return read_run(obj, name, max_depth, cache_dir)
    if isinstance(obj, Run):
        return _checked_run(obj if name is None else dataclasses.replace(obj, name=name))
    label = name or "run"
    if is_frame(obj):
        return _run_from_frame(label, obj)
    if is_ranx(obj, "Run"):
        return run_from_scores(name or getattr(obj, "name", None) or "run", obj.to_dict())
    if isinstance(obj, Mapping):
        kind = _mapping_kind(obj)
        if kind == "scores":
            return run_from_scores(label, obj)
        if kind == "lists":
            return Run.from_lists(label, obj)
    if isinstance(obj, list) and obj and all(is_record(item, "score") for item in obj):
        return _run_from_records(label, obj)
    raise IrfairInputError(f"run {label!r}", None, f"cannot read a run from {type(obj).__name__}: expected {SHAPES}")


def run_from_scores(name: str, scores: Mapping[str, Mapping[str, float]]) -> Run:
    """A run from ``{qid: {doc_id: score}}``, ranked by score with trec_eval's tie rule; queries without
    documents are left out (as a TREC file cannot hold them)."""
    ranking = {}
    for qid, docs in scores.items():
        if not isinstance(docs, Mapping):
            raise IrfairInputError(f"run {name!r}", None, f"query {qid}: expected {{doc_id: score}}, found {type(docs).__name__}")
        hits = [(str(doc), score_value(value, name, qid, doc)) for doc, value in docs.items()]
        if len({doc for doc, _ in hits}) != len(hits):
            raise IrfairInputError(f"run {name!r}", None, f"query {qid} lists a document twice")
        if str(qid) in ranking:
            raise IrfairInputError(f"run {name!r}", None, f"query {qid} appears twice")
        if hits:
            ranking[str(qid)] = trec_eval_order(hits)
    return Run(name=name, ranking=ranking)


def _checked_run(run: Run) -> Run:
    """``run`` with every list in trec_eval's order; an order that contradicts the scores is an error."""
    ranking = {}
    for qid, hits in run.ranking.items():
        for (doc_a, a), (doc_b, b) in zip(hits, hits[1:]):
            if b > a:
                raise IrfairInputError(run.path or f"run {run.name!r}", run.first_line(qid),
                                       f"query {qid}: {doc_a} (score {a:g}) is ranked above {doc_b} (score {b:g}); "
                                       "a Run lists documents by score, best first")
        if len({doc for doc, _ in hits}) != len(hits):
            raise IrfairInputError(run.path or f"run {run.name!r}", run.first_line(qid), f"query {qid} lists a document twice")
        ranking[qid] = trec_eval_order(hits)
    return dataclasses.replace(run, ranking=ranking)


def _run_from_frame(name: str, frame) -> Run:
    where = f"run {name!r}"
    qid_column = frame_column(frame, QID_COLUMNS, "query ids", where)
    doc_column = frame_column(frame, DOC_COLUMNS, "document ids", where)
    if "score" not in frame.columns:
        raise IrfairInputError(where, None, f"expected a 'score' column (irfair ranks by score, as trec_eval); found {list(frame.columns)}")
    check_numeric_column(frame, "score", "numbers", where)
    scores: dict[str, dict[str, float]] = {}
    for row, (qid, doc, value) in enumerate(zip(frame[qid_column], frame[doc_column], frame["score"])):
        docs = scores.setdefault(str(qid), {})
        if str(doc) in docs:
            raise IrfairInputError(where, None, f"row {row}: document {doc} appears twice for query {qid}")
        docs[str(doc)] = score_value(value, name, qid, doc)
    run = run_from_scores(name, scores)
    if "rank" in frame.columns:
        _check_ranks(where, frame[qid_column], frame[doc_column], frame["rank"], run)
    return run


def _check_ranks(where: str, qids, docs, ranks, run: Run) -> None:
    """A rank column must order each query's documents as their scores do (ties may be in any order)."""
    score_of = {qid: dict(hits) for qid, hits in run.ranking.items()}
    by_query: dict[str, list[tuple[float, str]]] = {}
    for qid, doc, rank in zip(qids, docs, ranks):
        by_query.setdefault(str(qid), []).append((float(rank), str(doc)))
    for qid, ranked in by_query.items():
        ranked.sort()
        for (rank_a, doc_a), (rank_b, doc_b) in zip(ranked, ranked[1:]):
            if score_of[qid][doc_b] > score_of[qid][doc_a]:
                raise IrfairInputError(where, None, f"query {qid}: rank {rank_a:g} ({doc_a}) has a lower score than rank "
                                                    f"{rank_b:g} ({doc_b}); the rank and score columns disagree")


def _run_from_records(name: str, records: list) -> Run:
    scores: dict[str, dict[str, float]] = {}
    for i, record in enumerate(records):
        docs = scores.setdefault(str(record.query_id), {})
        if str(record.doc_id) in docs:
            raise IrfairInputError(f"run {name!r}", None, f"record {i}: document {record.doc_id} appears twice for query {record.query_id}")
        docs[str(record.doc_id)] = record.score
    return run_from_scores(name, scores)
