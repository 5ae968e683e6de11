"""A run's rankings joined with the qrels as trec_eval joins them (``form_res_rels.c`` of trec_eval 10), laid out
flat for numpy kernels over every query at once.

Each retrieved document gets trec_eval's relevance value: its grade when the qrels judge it with a grade >= 0,
``UNJUDGED`` (-2) when they list it with a negative grade (in the pool, not judged), ``NONPOOL`` (-1) when they
do not list it. A document is relevant when its value is at least the relevance level (``trec_eval -l``,
default 1). Per query: ``num_ret`` documents, ``num_rel`` = judged documents with grade >= level,
``rel_levels[q, g]`` = documents judged with grade g (g >= 0), as trec_eval counts them.

Flat arrays hold every query's documents one query after the other, in rank order (trec_eval's order is the
:class:`~irfair.trec.Run`'s own); ``starts``/``lengths`` delimit the queries, ``query_of``/``rank`` (1-based)
label each document. Sums over a query's documents use ``np.bincount``, which adds in document order as
trec_eval's loops do.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from functools import cached_property

import numpy as np

NONPOOL = -1
UNJUDGED = -2
_ABSENT = np.iinfo(np.int64).min


class QrelsIndex:
    """The judgements ``qrels`` ({qid: {doc: grade}}) as :meth:`Judged.from_columns` looks rows up in them, built once
    and shared by every run an audit evaluates (Robust04's 311 k judgements: 18 runs each rebuilt them, 1.2 s of a
    warm audit): ``doc_ids``, every judged document once (Arrow strings; a document's code is its position),
    ``position`` of each query, and the sorted keys ``position × width + code`` (``keys``, int64) with their ``grades``.
    The qrels must not change while the index is used."""

    def __init__(self, qrels: Mapping[str, Mapping[str, int]]) -> None:
        import pyarrow as pa

        from ..trec.columns import string_array

        self.position = {qid: i for i, qid in enumerate(qrels)}
        code_of: dict[str, int] = {}
        codes = np.array([code_of.setdefault(doc, len(code_of)) for judgements in qrels.values() for doc in judgements],
                         dtype=np.int64)
        grades = [grade for judgements in qrels.values() for grade in judgements.values()]
        self.width = max(1, len(code_of))
        counts = np.fromiter((len(judgements) for judgements in qrels.values()), dtype=np.int64, count=len(qrels))
        flat_keys = np.repeat(np.arange(len(qrels), dtype=np.int64), counts) * self.width + codes
        order = np.argsort(flat_keys, kind="stable")
        self.keys = flat_keys[order]
        self.grades = np.asarray(grades, dtype=np.int64)[order]
        self.doc_ids = string_array(list(code_of)).cast(pa.string())

    @cached_property
    def digest(self) -> str:
        """A digest of every judgement (:func:`irfair.cache.arrays.inputs_key`): the key of values computed from them."""
        from ..cache.arrays import inputs_key
        from ..trec.columns import string_parts

        return inputs_key("qrels index", [self.keys, self.grades, *string_parts(self.doc_ids)], (list(self.position), self.width))


class Judged:
    """The rankings of ``queries`` (``docs[qid]``: document ids in trec_eval's order; every query must have one)
    with the qrels' values at relevance ``level`` (an integer >= 0)."""

    def __init__(self, docs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]],
                 queries: Sequence[str], level: int = 1) -> None:
        self.queries = list(queries)
        self.level = int(level)
        self._qrels = qrels
        listed = [docs[q] for q in self.queries]
        self.lengths = np.fromiter(map(len, listed), dtype=np.int64, count=len(listed))
        grades = np.fromiter(itertools.chain.from_iterable(
            map(qrels[q].get, ids, itertools.repeat(_ABSENT)) for q, ids in zip(self.queries, listed)),
            dtype=np.int64, count=int(self.lengths.sum()))
        self.rel = np.where(grades == _ABSENT, NONPOOL, np.where(grades < 0, UNJUDGED, grades))

    @classmethod
    def from_columns(cls, doc_array, spans: Sequence[tuple[int, int] | Sequence[str]], qrels: Mapping[str, Mapping[str, int]],
                     queries: Sequence[str], level: int = 1, index: QrelsIndex | None = None) -> Judged:
        """As ``Judged(docs, qrels, queries, level)`` for a run held as columns: ``spans[i]`` is query i's rows
        ``(start, end)`` of ``doc_array`` (pyarrow strings, each query's documents in trec_eval's order), or its own
        list of ids (a query the run lacks, under ``-c``). Every row is looked up among the qrels' documents by Arrow
        at once, and matched to its query's judgements by a sorted search, instead of one dict look-up per row
        (MS MARCO's 70 M run lines: 9 s of a warm audit); ``index``: :class:`QrelsIndex` of these ``qrels``, built
        once for every run of an audit (else built here)."""
        import pyarrow.compute as pc

        from ..trec.columns import numbers

        index = QrelsIndex(qrels) if index is None else index
        self = cls.__new__(cls)
        self.queries, self.level, self._qrels = list(queries), int(level), qrels
        ranged = np.array([isinstance(span, tuple) for span in spans], dtype=bool)
        self.lengths = np.array([span[1] - span[0] if isinstance(span, tuple) else len(span) for span in spans], dtype=np.int64)
        firsts = np.array([span[0] if isinstance(span, tuple) else 0 for span in spans], dtype=np.int64)
        judged_keys, judged_grades, width = index.keys, index.grades, index.width
        positions = np.array([index.position[qid] for qid in self.queries], dtype=np.int64)
        total = int(self.lengths.sum())
        offsets = np.cumsum(self.lengths) - self.lengths
        query_of = np.repeat(np.arange(len(self.queries)), self.lengths)
        in_columns = np.repeat(ranged, self.lengths)
        rows = (np.repeat(firsts - offsets, self.lengths) + np.arange(total))[in_columns]
        found = pc.index_in(doc_array, value_set=index.doc_ids)
        codes = np.full(total, -1, dtype=np.int64)
        codes[in_columns] = numbers(found, fill=-1).astype(np.int64)[rows]
        grades = np.full(total, _ABSENT, dtype=np.int64)
        listed = np.flatnonzero(codes >= 0)
        wanted = positions[query_of[listed]] * width + codes[listed]
        at = np.minimum(np.searchsorted(judged_keys, wanted), max(0, len(judged_keys) - 1))
        match = (judged_keys[at] == wanted) if len(judged_keys) else np.zeros(len(wanted), dtype=bool)
        grades[listed[match]] = judged_grades[at[match]]
        for i in np.flatnonzero(~ranged).tolist():  # a query the run lacks: trec_eval's stand-in ranking
            get = qrels[self.queries[i]].get
            grades[offsets[i]:offsets[i] + self.lengths[i]] = [get(doc, _ABSENT) for doc in spans[i]]
        self.rel = np.where(grades == _ABSENT, NONPOOL, np.where(grades < 0, UNJUDGED, grades))
        return self

    @property
    def n(self) -> int:
        """Number of queries."""
        return len(self.queries)

    @cached_property
    def starts(self) -> np.ndarray:
        """Index of each query's first document in the flat arrays, shape (n,)."""
        return np.cumsum(self.lengths) - self.lengths

    @cached_property
    def query_of(self) -> np.ndarray:
        """Query index of every document, shape (N,)."""
        return np.repeat(np.arange(self.n), self.lengths)

    @cached_property
    def rank(self) -> np.ndarray:
        """Rank of every document in its list, from 1, shape (N,)."""
        return np.arange(len(self.rel)) - np.repeat(self.starts, self.lengths) + 1

    @cached_property
    def is_rel(self) -> np.ndarray:
        """True for every relevant document (value >= level)."""
        return self.rel >= self.level

    @cached_property
    def rel_so_far(self) -> np.ndarray:
        """Relevant documents at or above each document's rank, shape (N,)."""
        return self.running_count(self.is_rel)

    def running_count(self, flags: np.ndarray) -> np.ndarray:
        """Per document: how many of its query's documents at or above it have ``flags`` set."""
        total = np.cumsum(flags, dtype=np.int64)
        before = np.r_[0, total][self.starts]
        return total - np.repeat(before, self.lengths)

    def at_depth(self, running: np.ndarray, depth: np.ndarray | int) -> np.ndarray:
        """``running`` (a :meth:`running_count`) at rank min(depth, num_ret) of each query; 0 at depth <= 0."""
        depth = np.minimum(np.asarray(depth, dtype=np.int64), self.lengths)
        if len(running) == 0:
            return np.zeros(self.n, dtype=np.int64)
        return np.where(depth > 0, running[np.clip(self.starts + depth - 1, 0, len(running) - 1)], 0)

    def per_query(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (shape (N,)) over each query's documents, added in rank order, shape (n,)."""
        return np.bincount(self.query_of, weights=values, minlength=self.n)

    @cached_property
    def rel_levels(self) -> np.ndarray:
        """``[q, g]``: documents the qrels judge with grade g >= 0 for query q, shape (n, max grade + 1)."""
        judged = [self._qrels[q] for q in self.queries]
        sizes = np.fromiter(map(len, judged), dtype=np.int64, count=self.n)
        grades = np.fromiter(itertools.chain.from_iterable(j.values() for j in judged), dtype=np.int64, count=int(sizes.sum()))
        owner = np.repeat(np.arange(self.n), sizes)
        keep = grades >= 0
        width = int(grades[keep].max(initial=0)) + 1
        counts = np.bincount(owner[keep] * width + grades[keep], minlength=self.n * width)
        return counts.reshape(self.n, width)

    @cached_property
    def num_rel(self) -> np.ndarray:
        """Judged documents with grade >= level, per query."""
        return self.rel_levels[:, self.level:].sum(axis=1)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """Relevant documents retrieved, per query."""
        return self.per_query(self.is_rel.astype(np.float64)).astype(np.int64)

    @cached_property
    def num_rel_levels(self) -> np.ndarray:
        """1 + the highest grade judged (>= 0) for each query, 0 when none is."""
        present = self.rel_levels > 0
        return np.where(present.any(axis=1), present.shape[1] - np.argmax(present[:, ::-1], axis=1), 0)

    def padded(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """``values`` (shape (N,)) as a (n, longest list) matrix, rank order along each row, ``fill`` beyond a list."""
        out = np.full((self.n, int(self.lengths.max(initial=0))), fill, dtype=np.float64)
        out[self.query_of, self.rank - 1] = values
        return out


def ideal_levels(rel_levels: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's ideal ranking by grade (``ndcg_cut``): ``(query index, grade)`` of its first ``depth``
    positions per query, grades >= 1 only, highest first; flat, one query after the other."""
    n, width = rel_levels.shape
    counts = rel_levels[:, :0:-1]  # grades width-1 .. 1
    totals = counts.sum(axis=1)
    owner = np.repeat(np.arange(n), totals)
    flat = np.repeat(np.broadcast_to(np.arange(width - 1, 0, -1), counts.shape).ravel(), counts.ravel())
    keep = np.arange(len(flat)) - np.repeat(np.cumsum(totals) - totals, totals) < depth
    return owner[keep], flat[keep]


def lround(values: np.ndarray) -> np.ndarray:
    """C's ``lround``: to the nearest integer, halves away from zero (exact, unlike adding 0.5)."""
    values = np.asarray(values, dtype=np.float64)
    magnitude = np.abs(values)
    floor = np.floor(magnitude)
    return (np.sign(values) * np.where(magnitude - floor >= 0.5, floor + 1, floor)).astype(np.int64)
