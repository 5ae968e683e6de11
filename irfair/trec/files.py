"""TREC run files, and the :class:`Run` type runs are read into: parsed strictly, every bad line reported with
file and line (qrels: :mod:`.qrels`; topics: :mod:`.topics`).

Ordering of a run: documents are ranked by score (descending), ties broken by document id
(descending), which is the order trec_eval uses (``comp_sim_docno`` in its ``form_res_rels.c``); the
rank column is validated but not used, as trec_eval ignores it too.
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import write_text
from ..compression import plain_name
from ..errors import IrfairInputError, IrfairWarning
from .lines import checked_rows, iter_lines, line_hint
from .topics import Topic

if TYPE_CHECKING:
    import numpy as np

@dataclass
class Run:
    """A ranked list per query: ``ranking[qid]`` is a list of ``(doc_id, score)``, best first."""

    name: str
    ranking: dict[str, list[tuple[str, float]]]
    path: str | None = None
    tag: str | None = None
    line_of: Mapping[tuple[str, str], int] = field(default_factory=dict, repr=False)
    sha256: str | None = field(default=None, repr=False)  # of the file's bytes, when read with a cache

    def doc_ids(self, qid: str, depth: int | None = None) -> list[str]:
        """Document ids retrieved for ``qid`` in rank order, cut at ``depth`` when given."""
        if isinstance(self.ranking, RankedColumns):
            return self.ranking.doc_ids(qid, depth)
        hits = self.ranking.get(qid, [])
        return [doc for doc, _ in (hits if depth is None else hits[:depth])]

    @property
    def columns(self) -> RankedColumns | None:
        """The ranking as arrays when the run was read from a file (and its ranking not replaced since), else None."""
        return self.ranking if isinstance(self.ranking, RankedColumns) else None

    def first_line(self, qid: str) -> int | None:
        """First line of ``qid`` in the run file (None for runs not read from a file)."""
        lines = [line for (q, _), line in self.line_of.items() if q == qid]
        return min(lines) if lines else None

    def as_scores(self) -> dict[str, dict[str, float]]:
        """``{qid: {doc_id: score}}`` as pytrec_eval wants it."""
        return {qid: dict(hits) for qid, hits in self.ranking.items()}

    @classmethod
    def from_lists(cls, name: str, lists: Mapping[str, Sequence[str]]) -> Run:
        """A run from ranked doc-id lists ``{qid: [doc, ...]}`` (scores set to decreasing ranks)."""
        ranking = {}
        for qid, docs in lists.items():
            if len(set(docs)) != len(docs):
                raise IrfairInputError(None, None, f"run {name!r}: query {qid} lists a document twice")
            ranking[str(qid)] = [(str(doc), float(len(docs) - i)) for i, doc in enumerate(docs)]
        return cls(name=name, ranking=ranking)


class RankedColumns(Mapping):
    """A run file's ranking as arrays, read as ``{qid: [(doc_id, score), ...]}``: every query's documents one query
    after the other in rank order (``doc_array``: pyarrow strings; ``scores``: float64), ``bounds[qid]`` = ``(start,
    end)`` of its rows. Python strings and pairs are made for the rows a caller asks for, when it asks, and not kept:
    an MS MARCO-sized audit holds 70 M rows, which as Python strings alone would take ~5 GB."""

    def __init__(self, doc_array, scores: np.ndarray, bounds: Mapping[str, tuple[int, int]]) -> None:
        self.doc_array, self.scores, self.bounds = doc_array, scores, bounds

    def doc_ids(self, qid: str, depth: int | None = None) -> list[str]:
        """The document ids of ``qid`` in rank order, the first ``depth`` when given (empty for an unknown query)."""
        start, end = self.bounds.get(qid, (0, 0))
        end = end if depth is None else min(end, start + depth)
        return self.doc_array[start:end].to_pylist() if end > start else []

    def __getitem__(self, qid: str) -> list[tuple[str, float]]:
        start, end = self.bounds[qid]
        return list(zip(self.doc_array[start:end].to_pylist(), self.scores[start:end].tolist()))

    def __contains__(self, qid) -> bool:
        return qid in self.bounds

    def __iter__(self):
        return iter(self.bounds)

    def __len__(self) -> int:
        return len(self.bounds)


class LineIndex(Mapping):
    """``(qid, doc_id) → file line`` of a run read into arrays: each query's lines in rank order
    (``lines[start:end]`` for the ``bounds[qid]`` of a query), turned into a dict one query at a time and
    only when used (error messages and tie reports; most audits never need it)."""

    def __init__(self, ranking: Mapping[str, list[tuple[str, float]]], lines, bounds: Mapping[str, tuple[int, int]]) -> None:
        self._ranking, self._lines, self._bounds = ranking, lines, bounds
        self._queries: dict[str, dict[str, int]] = {}

    @property
    def lines(self) -> np.ndarray:
        """Every row's file line, shape (n_rows,)."""
        return self._lines

    def hit_lines(self, qid: str) -> list[int]:
        """File lines of ``qid``'s documents in rank order (empty for an unknown query)."""
        start, end = self._bounds.get(qid, (0, 0))
        return self._lines[start:end].tolist()

    def _query(self, qid: str) -> dict[str, int]:
        if qid not in self._queries:
            self._queries[qid] = dict(zip((doc for doc, _ in self._ranking.get(qid, [])), self.hit_lines(qid)))
        return self._queries[qid]

    def __getitem__(self, key: tuple[str, str]) -> int:
        return self._query(key[0])[key[1]]

    def __iter__(self):
        for qid in self._bounds:
            for doc in self._query(qid):
                yield qid, doc

    def __len__(self) -> int:
        return len(self._lines)


def trec_eval_order(hits: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """``(doc_id, score)`` pairs in trec_eval's order: score descending, ties by doc id descending."""
    return sorted(hits, key=lambda hit: (hit[1], hit[0]), reverse=True)


def read_run(path: str | Path, name: str | None = None, max_depth: int | None = None, cache_dir: str | Path | None = None) -> Run:
    """Read a TREC run ``qid Q0 doc_id rank score tag`` (plain, gzip, bzip2 or xz, told by its bytes), validating
    every line; text after the tag is ignored, and a line whose first non-blank character is '#' is a comment, as
    trec_eval 10 reads runs. Its name: ``name``, else :func:`run_name`; its ``tag`` is its last line's (trec_eval's
    runid).

    ``max_depth`` (trec_eval's ``-M``): each query keeps its first ``max_depth`` documents in trec_eval's
    order and drops the rest before anything else, so a document listed twice is an error only when both
    lines are kept (as in trec_eval). Well-formed files are parsed into arrays at C speed (:mod:`.columns`);
    any other file is read line by line, which names the line at fault. With ``cache_dir`` (a folder) a regular
    file's columns are kept there under the SHA-256 of its bytes, and read from there next time (:mod:`.run_cache`)."""
    msmarco = _is_msmarco_run(path)
    if msmarco:
        warnings.warn(IrfairWarning(f"{path}: read as 'qid docid rank' lines (MS MARCO, pyserini --output-format msmarco): "
                                    "each document's score is minus its rank"), stacklevel=2)
    if cache_dir is not None and Path(path).is_file():
        from .run_cache import cached_run

        found, digest = cached_run(path, max_depth, msmarco, cache_dir, lambda: _read_run_columns(path, name, max_depth, msmarco))
        if isinstance(found, tuple):
            return _columns_run(path, name, *found, sha256=digest)
        fast = found
    else:
        fast, digest = _read_run_columns(path, name, max_depth, msmarco), None
    run = fast if fast is not None else _read_run_lines(path, name, max_depth, msmarco)
    return dataclasses.replace(run, sha256=digest) if digest is not None else run


_RUN_COLUMNS = ("qid", "q0", "doc_id", "rank", "score", "tag")
_MSMARCO_COLUMNS = ("qid", "doc_id", "rank")


def _is_msmarco_run(path: str | Path) -> bool:
    """Whether the run file ``path`` holds ``qid docid rank`` lines (MS MARCO's and pyserini's msmarco format): its
    first line that is neither blank nor a comment has three fields, the last an integer. Told for regular files
    only (a pipe can be read once: it is read as a TREC run)."""
    if not Path(path).is_file():
        return False
    try:
        for line in iter_lines(path, "run", block=2**16):  # the first lines, not a 16 MB block of them
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                return len(fields) == 3 and fields[2].lstrip("+-").isdigit()
    except IrfairInputError:
        return False  # the reader says what is wrong
    return False


def _read_run_columns(path: str | Path, name: str | None, max_depth: int | None = None, msmarco: bool = False) -> Run | None:
    """The run in trec_eval's order, sorted and checked by Arrow; None when the line reader must decide."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from .columns import arrow_indices, numbers, read_columns

    unique = ("qid", "doc_id") if max_depth is None else None  # a document twice is an error
    if msmarco:
        read = read_columns(path, _MSMARCO_COLUMNS, {"rank": "int64"}, unique=unique)
    else:
        read = read_columns(path, _RUN_COLUMNS, {"rank": "int64", "score": "float64"}, unique=unique)
    if read is None:
        return None
    table, line_numbers = read
    scores = pc.negate(pc.cast(table.column("rank"), pa.float64())) if msmarco else table.column("score")
    if not pc.all(pc.is_finite(scores)).as_py() or pc.any(pc.starts_with(table.column("qid"), "#")).as_py():
        return None  # comment lines: the line reader skips them
    queries = pc.dictionary_encode(table.column("qid")).combine_chunks()  # codes in order of first appearance
    work = pa.table({"q": queries.indices, "s": scores, "d": table.column("doc_id")})
    order = _listed_order(numbers(queries.indices), numbers(work["s"]), work["d"])
    if order is None:
        order = numbers(pc.sort_indices(work, sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")]))
    codes = numbers(queries.indices)[order]
    if max_depth is not None:
        firsts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        keep = np.arange(len(codes)) - np.repeat(firsts, np.diff(np.r_[firsts, len(codes)])) < max_depth
        order, codes = order[keep], codes[keep]
    kept = work.take(arrow_indices(order))
    cuts = (np.flatnonzero(np.diff(codes)) + 1).tolist()
    query_ids = queries.dictionary.to_pylist()
    bounds = {query_ids[codes[start]]: (start, end) for start, end in zip([0, *cuts], [*cuts, len(codes)])}
    doc_array = kept["d"].combine_chunks()
    if _lists_a_document_twice(codes, doc_array):
        return None  # the line reader names both lines
    tag = run_name(path) if msmarco else table.column("tag")[-1].as_py()
    lines = line_numbers[order]
    if len(lines) and lines.max() < 2**31:
        lines = lines.astype(np.int32)  # half the memory of a row's line number
    return _columns_run(path, name, doc_array, numbers(kept["s"]), bounds, lines, tag)


def _columns_run(path: str | Path, name: str | None, doc_array, scores: np.ndarray, bounds: Mapping[str, tuple[int, int]],
                 lines: np.ndarray, tag: str | None, sha256: str | None = None) -> Run:
    """The run of ``path`` held as its columns (parsed now, or read back from the cache)."""
    ranking = RankedColumns(doc_array, scores, bounds)
    return Run(name=name or run_name(path), ranking=ranking, path=str(path), tag=tag,
               line_of=LineIndex(ranking, lines, bounds), sha256=sha256)


def _lists_a_document_twice(codes: np.ndarray, docs) -> bool:
    """Whether a query (``codes``: each row's query code) lists a document (``docs``: pyarrow strings, one per row)
    twice: the distinct (query, document) pairs, counted by Arrow's hash table, are fewer than the rows."""
    import numpy as np
    import pyarrow.compute as pc

    from .columns import arrow_indices, numbers

    encoded = pc.dictionary_encode(docs)
    pairs = codes.astype(np.int64) * len(encoded.dictionary) + numbers(encoded.indices)
    return len(pc.unique(arrow_indices(pairs))) < len(pairs)


def _listed_order(codes: np.ndarray, scores: np.ndarray, docs) -> np.ndarray | None:
    """The rows in trec_eval's order when the file lists its queries one after the other and each query's scores
    from high to low (most runs): the listed order with each run of tied scores put in descending document id order;
    None when the file is otherwise ordered (then it is sorted). ``codes``: query codes in order of first appearance;
    ``docs``: pyarrow strings (ASCII, so that Python orders them as Arrow does)."""
    import numpy as np

    same_query = codes[1:] == codes[:-1]
    if np.any(codes[1:] < codes[:-1]) or np.any(same_query & (scores[1:] > scores[:-1])):
        return None
    order = np.arange(len(codes))
    tied = np.flatnonzero(same_query & (scores[1:] == scores[:-1]))  # row i ties row i + 1
    if len(tied):
        firsts = tied[np.r_[True, tied[1:] != tied[:-1] + 1]]
        lasts = tied[np.r_[tied[1:] != tied[:-1] + 1, True]] + 1
        for first, last in zip(firsts.tolist(), lasts.tolist()):
            ids = docs[first:last + 1].to_pylist()
            order[first:last + 1] = first + np.array(sorted(range(len(ids)), key=ids.__getitem__, reverse=True))
    return order


def _run_rows(path: str | Path, msmarco: bool) -> Iterator[tuple[int, list[str]]]:
    """``(line, [qid, Q0, doc_id, rank, score, tag])`` of a run file: a ``qid docid rank`` line given the score minus
    its rank (as text, so that the TREC checks read it) and the file's name as tag."""
    if not msmarco:
        yield from checked_rows(path, "run", "qid Q0 doc_id rank score tag", trailing=True, comment="blank")
        return
    tag = run_name(path)
    for lineno, (qid, doc_id, rank_text) in checked_rows(path, "run", "qid doc_id rank", comment="blank"):
        score = str(-int(rank_text)) if rank_text.lstrip("+-").isdigit() else "0"  # a bad rank is said by the rank check
        yield lineno, [qid, "Q0", doc_id, rank_text, score, tag]


def _read_run_lines(path: str | Path, name: str | None = None, max_depth: int | None = None, msmarco: bool = False) -> Run:
    listed: dict[str, list[tuple[str, float, int]]] = {}
    first_line: dict[tuple[str, str], int] = {}
    tag = None
    for lineno, fields in _run_rows(path, msmarco):
        qid, _, doc_id, rank_text, score_text, line_tag = fields
        try:
            int(rank_text)
        except ValueError:
            raise IrfairInputError(path, lineno, f"rank must be an integer, found {rank_text!r}"
                                                 + line_hint("run", fields, not listed)) from None
        try:
            score = float(score_text)
        except ValueError:
            raise IrfairInputError(path, lineno, f"score must be a number, found {score_text!r}"
                                                 + line_hint("run", fields, not listed)) from None
        if not math.isfinite(score):
            raise IrfairInputError(path, lineno, f"score must be finite, found {score_text!r}")
        if max_depth is None and (qid, doc_id) in first_line:
            first = first_line[qid, doc_id]
            raise IrfairInputError(path, lineno, f"document {doc_id} retrieved twice for query {qid} (first at line {first})")
        first_line.setdefault((qid, doc_id), lineno)
        listed.setdefault(qid, []).append((doc_id, score, lineno))
        tag = line_tag
    ranking: dict[str, list[tuple[str, float]]] = {}
    line_of: dict[tuple[str, str], int] = {}
    for qid, hits in listed.items():
        kept = sorted(hits, key=lambda hit: (hit[1], hit[0]), reverse=True)[:max_depth]
        for doc_id, _, lineno in sorted(kept, key=lambda hit: hit[2]):
            if (qid, doc_id) in line_of:
                raise IrfairInputError(path, lineno, f"document {doc_id} retrieved twice for query {qid} within its first "
                                                     f"{max_depth} documents (first at line {line_of[qid, doc_id]})")
            line_of[qid, doc_id] = lineno
        ranking[qid] = [(doc_id, score) for doc_id, score, _ in kept]
    return Run(name=name or run_name(path), ranking=ranking, path=str(path), tag=tag, line_of=line_of)


RUN_FILE_ENDINGS = (".run", ".txt")


def run_files(folder: str | Path) -> list[Path]:
    """The run files of ``folder``, sorted by name: its files named ``*.run`` or ``*.txt``, or those names with a
    compression ending (``.gz``, ``.bz2``, ``.xz``). IrfairInputError when there is none, and for an entry named like
    a run file that cannot be read as one: a hidden file, a broken link, a folder (never dropped in silence).
    Entries with other names are not run files (a README, an audit folder)."""
    folder = Path(folder)
    try:
        every = sorted(folder.iterdir())
    except OSError as exc:
        raise IrfairInputError(folder, None, f"cannot list the run folder ({exc.strerror or exc})") from None
    # what is named like a run file is never dropped in silence: a hidden one, a broken link, a folder
    for path in every:
        if not plain_name(path).lower().endswith(RUN_FILE_ENDINGS):
            continue
        if path.name.startswith("."):
            raise IrfairInputError(path, None, "a hidden run file in the run folder: rename it to audit it, or move it out "
                                               "(irfair does not guess whether a hidden file is meant)")
        if not path.is_file():
            kind = "a broken link" if path.is_symlink() and not path.exists() else "not a file"
            raise IrfairInputError(path, None, f"named like a run file in the run folder, but {kind}")
    entries = [p for p in every if not p.name.startswith(".")]
    files = [p for p in entries if p.is_file() and plain_name(p).lower().endswith(RUN_FILE_ENDINGS)]
    if not files:
        other = [p.name for p in entries]
        found = (f"it holds {len(other)} other {'entry' if len(other) == 1 else 'entries'}, e.g. {other[0]}" if other
                 else "it is empty")
        raise IrfairInputError(folder, None, f"no run files in this folder ({found}): expected *.run or *.txt files, "
                                             "plain or compressed (.gz, .bz2, .xz)")
    return files


def run_name(path: str | Path) -> str:
    """The name of the run in file ``path``: its name without a compression ending and extension
    (``bm25.run.gz`` → ``bm25``)."""
    return Path(plain_name(path)).stem


def natural_qid_key(qid: str) -> tuple[int, int, str]:
    """Sort key ordering numeric query ids numerically, before any other id."""
    return (0, int(qid), "") if qid.isascii() and qid.isdigit() else (1, 0, qid)


def check_run_queries(run: Run, topics: Mapping[str, Topic], topics_source=None) -> None:
    """Raise IrfairInputError at the first line of a run query that is not in the topics."""
    for qid in run.ranking:
        if qid not in topics:
            where = f" (see {topics_source})" if isinstance(topics_source, (str, Path)) else ""
            raise IrfairInputError(run.path or run.name, run.first_line(qid), f"query {qid} is not in the topics{where}")


def write_run(path: str | Path, run: Run, tag: str | None = None) -> None:
    """Write ``run`` as a 6-column TREC run file, atomically. Scores are written in full (Python's shortest
    round-trip form), so reading the file back gives the same scores and creates no ties."""
    run_tag = tag or run.tag or run.name
    lines = []
    for qid, hits in run.ranking.items():
        for rank, (doc_id, score) in enumerate(hits, start=1):
            lines.append(f"{qid} Q0 {doc_id} {rank} {float(score)!r} {run_tag}")
    write_text(path, "\n".join(lines) + "\n")
