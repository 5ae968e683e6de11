"""Term counting at C speed: documents → a CSR block of term counts, the same tokens as
:func:`irfair.text.tokenize` and the same stoplist, without a Python loop over tokens.

An ASCII document (nearly every document of a TREC collection) is lower-cased and split in one
``str.translate`` + ``str.split`` (every character that is not a letter or digit becomes a space);
pieces with a digit or of one letter are then dropped through their column, decided once per distinct
piece. Any other document goes through :func:`irfair.text.tokenize` itself, so Unicode letters,
case and digits are treated exactly as everywhere else in irfair. Pieces are mapped to columns with
one dictionary look-up each (in C, through ``map``), and counts are summed by scipy's CSR builder.

:func:`count_in_parallel` spreads batches over worker processes; columns are assigned in order of
first occurrence in the corpus, exactly as one process would assign them.
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..executor import SCHEDULER_ENV, default_jobs, executor
from ..text import tokenize

_ASCII_TO_SPACED = str.maketrans({chr(c): (chr(c).lower() if chr(c).isalnum() else " ") for c in range(128)})

Block = tuple[np.ndarray, np.ndarray, np.ndarray]


def pieces(text: str) -> list[str]:
    """Lower-case alphanumeric pieces of ``text`` (ASCII fast path) or its exact tokens (otherwise)."""
    return text.translate(_ASCII_TO_SPACED).split() if text.isascii() else tokenize(text)


class _Columns(dict):
    """piece → column of the vocabulary, or -1 for a piece that is no term (digits, one letter, stopword)."""

    def __init__(self, counter: TermCounter) -> None:
        super().__init__()
        self.counter = counter

    def __missing__(self, piece: str) -> int:
        counter = self.counter
        if len(piece) < 2 or not piece.isalpha() or piece in counter.stopwords:
            column = -1
        else:
            column = counter.term_id.get(piece, -1)
            if column < 0:
                column = counter.term_id[piece] = len(counter.vocab)
                counter.vocab.append(piece)
        self[piece] = column
        return column


@dataclass
class TermCounter:
    """Counts terms of documents into CSR blocks over a growing vocabulary (``vocab``, ``term_id``)."""

    stopwords: frozenset[str]
    vocab: list[str]
    term_id: dict[str, int]

    def __post_init__(self) -> None:
        self._columns = _Columns(self)

    def count(self, texts: Sequence[str]) -> Block:
        """``(indptr int64 (n+1,), indices int32, counts int32)``: one row per text, columns sorted."""
        split = [pieces(text) for text in texts]
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        columns = np.fromiter(map(self._columns.__getitem__, itertools.chain.from_iterable(split)),
                              dtype=np.int64, count=int(lengths.sum()))
        rows = np.repeat(np.arange(len(split), dtype=np.int64), lengths)
        keep = columns >= 0
        matrix = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int32), (rows[keep], columns[keep])),
                               shape=(len(split), max(len(self.vocab), 1)))
        matrix.sum_duplicates()
        return (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32), matrix.data.astype(np.int32))


def _count_batch(args: tuple[frozenset[str], list[str]]) -> tuple[list[str], Block]:
    stopwords, texts = args
    counter = TermCounter(stopwords, [], {})
    return counter.vocab, counter.count(texts)


def count_in_parallel(batches: Iterable[Sequence[str]], counter: TermCounter, jobs: int | None = None,
                      scheduler: str | None = None) -> Iterator[Block]:
    """Count each batch of texts in a worker (a local process, or a Dask worker with ``scheduler``; see
    :mod:`irfair.executor`) and yield its block in ``counter``'s columns, batch by batch in order (the
    vocabulary grows exactly as :meth:`TermCounter.count` would grow it)."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs <= 1 and scheduler is None and not os.environ.get(SCHEDULER_ENV):
        for batch in batches:
            yield counter.count(batch)
        return
    with executor(jobs, scheduler) as ordered_map:
        work = ((counter.stopwords, list(batch)) for batch in batches)
        for local_vocab, (indptr, indices, counts) in ordered_map(_count_batch, work):
            to_global = np.fromiter((_global_column(counter, term) for term in local_vocab), dtype=np.int32,
                                    count=len(local_vocab))
            block = sp.csr_matrix((counts, to_global[indices], indptr), shape=(len(indptr) - 1, max(len(counter.vocab), 1)))
            block.sort_indices()
            yield indptr, block.indices.astype(np.int32), block.data.astype(np.int32)


def _global_column(counter: TermCounter, term: str) -> int:
    column = counter.term_id.get(term)
    if column is None:
        column = counter.term_id[term] = len(counter.vocab)
        counter.vocab.append(term)
    return column
