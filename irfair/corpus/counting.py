"""Term counting near the hardware: a batch of documents → a CSR block of term counts, with exactly the
tokens of :func:`irfair.text.tokenize` and the same stoplist, and no Python loop over tokens.

ASCII documents (nearly every document of a TREC collection) are joined into one byte buffer and
tokenised with numpy: a 256-entry table lower-cases letters and digits and turns every other byte into a
separator; token boundaries are where the buffer switches between the two; a token with a digit or of
one letter is dropped. Each token of at most 16 letters is packed into 16 bytes (read as two unaligned
little-endian words) that pandas factorises by hashing, in order of first occurrence; the rare longer
tokens and every non-ASCII document go through :func:`irfair.text.tokenize` itself, so Unicode letters,
case and digits are treated exactly as everywhere else in irfair. Counts are summed by scipy's CSR
builder.

:func:`count_in_parallel` spreads batches over workers (:mod:`irfair.executor`); a batch's vocabulary
is merged into the global one in batch order, so columns do not depend on where a batch was counted.
:func:`count_pieces` does the same for pieces of corpus files (:mod:`.pieces`), each read by the worker
that counts it, so that only a file name and two offsets travel to a worker.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..errors import IrfairInputError
from ..executor import default_jobs, executor, uses_workers
from ..text import tokenize

Block = tuple[np.ndarray, np.ndarray, np.ndarray]

# byte → its lower-case form for ASCII letters and digits, 0 (a separator) for every other byte
_LOWER_ALNUM = np.array([ord(chr(c).lower()) if c < 128 and chr(c).isalnum() else 0 for c in range(256)], dtype=np.uint8)
_IS_DIGIT = np.zeros(256, dtype=bool)
_IS_DIGIT[48:58] = True
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_PACKED = 16  # letters packed into one 16-byte key


@dataclass
class _Tokens:
    """Tokens of a batch: their row (document), and a code per token into ``words`` (first occurrence order)."""

    rows: np.ndarray
    codes: np.ndarray
    words: list[str]


def _ascii_tokens(texts: Sequence[str], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[tuple[int, str]]]:
    """Packed keys (complex128 view of two uint64) and rows of the short tokens of ASCII ``texts``
    (document ``rows[i]`` for ``texts[i]``), and ``(row, token)`` of the tokens longer than 16 letters."""
    data = "\n".join(texts).encode("ascii")
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    offsets = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=offsets[1:])
    buffer = np.zeros(len(data) + 2 + _PACKED, dtype=np.uint8)
    buffer[1:len(data) + 1] = _LOWER_ALNUM[np.frombuffer(data, dtype=np.uint8)]
    change = np.diff((buffer != 0).view(np.int8))
    starts = np.flatnonzero(change == 1) + 1
    ends = np.flatnonzero(change == -1) + 1
    with_digit = np.zeros(len(starts), dtype=bool)
    digits = np.flatnonzero(_IS_DIGIT[buffer])
    with_digit[np.searchsorted(starts, digits, side="right") - 1] = True
    keep = (ends - starts >= 2) & ~with_digit
    starts, size = starts[keep], (ends - starts)[keep]
    token_rows = rows[np.searchsorted(offsets, starts - 1, side="right") - 1]
    long = size > _PACKED
    long_tokens = [(int(r), data[s - 1:s - 1 + n].decode().lower()) for r, s, n in
                   zip(token_rows[long], starts[long], size[long])]
    starts, size, token_rows = starts[~long], size[~long], token_rows[~long]
    words64 = np.ndarray((len(buffer) - 7,), dtype="<u8", buffer=buffer, strides=(1,))
    keys = np.empty(len(starts), dtype=np.complex128)
    halves = keys.view(np.uint64).reshape(-1, 2)
    halves[:, 0] = words64[starts] & _LOW_BYTES[np.minimum(size, 8)]
    halves[:, 1] = words64[starts + 8] & _LOW_BYTES[np.clip(size - 8, 0, 8)]
    return keys, token_rows, long_tokens


def _batch_tokens(texts: Sequence[str]) -> _Tokens:
    """Every token of ``texts`` (no stoplist yet), coded by first occurrence: packed ASCII tokens first."""
    is_ascii = np.fromiter((text.isascii() for text in texts), dtype=bool, count=len(texts))
    ascii_rows = np.flatnonzero(is_ascii)
    keys, rows, others = _ascii_tokens([texts[i] for i in ascii_rows], ascii_rows) if len(ascii_rows) else (
        np.zeros(0, np.complex128), np.zeros(0, np.int64), [])
    codes, uniques = pd.factorize(keys)
    packed = np.ascontiguousarray(uniques).view(np.uint64).reshape(-1, 2).astype("<u8")
    words = [key.rstrip(b"\0").decode() for key in packed.view(f"S{_PACKED}").ravel()]
    for row in np.flatnonzero(~is_ascii):
        others.extend((int(row), token) for token in tokenize(texts[row]))
    if others:
        code_of = {word: i for i, word in enumerate(words)}
        extra = np.empty(len(others), dtype=np.int64)
        for i, (_, token) in enumerate(others):
            code = code_of.get(token)
            if code is None:
                code = code_of[token] = len(words)
                words.append(token)
            extra[i] = code
        codes = np.concatenate([codes, extra])
        rows = np.concatenate([rows, np.fromiter((r for r, _ in others), dtype=np.int64, count=len(others))])
    return _Tokens(rows, codes, words)


def count_batch(texts: Sequence[str], stopwords: frozenset[str]) -> tuple[list[str], Block]:
    """``(terms, (indptr, indices, counts))``: the batch's own vocabulary (stopwords left out) and its
    CSR block over it, one row per text, columns sorted within each row."""
    tokens = _batch_tokens(texts)
    column = np.full(len(tokens.words), -1, dtype=np.int64)
    terms = [word for word in tokens.words if word not in stopwords]
    column[[i for i, word in enumerate(tokens.words) if word not in stopwords]] = np.arange(len(terms))
    columns = column[tokens.codes]
    keep = columns >= 0
    matrix = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int32), (tokens.rows[keep], columns[keep])),
                           shape=(len(texts), max(len(terms), 1)))
    matrix.sum_duplicates()
    return terms, (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32), matrix.data.astype(np.int32))


def concatenate_blocks(blocks: Sequence[Block]) -> Block:
    """One CSR block of the rows of ``blocks`` in order."""
    if len(blocks) == 1:
        return blocks[0]
    offsets = np.cumsum([0] + [int(indptr[-1]) for indptr, _, _ in blocks[:-1]])
    indptr = np.concatenate([blocks[0][0][:1]] + [indptr[1:] + offset for (indptr, _, _), offset in zip(blocks, offsets)])
    return (indptr.astype(np.int64), np.concatenate([b[1] for b in blocks]).astype(np.int32),
            np.concatenate([b[2] for b in blocks]).astype(np.int32))


def slice_block(block: Block, start: int, stop: int) -> Block:
    """Rows ``[start, stop)`` of a CSR block, as a block of their own."""
    indptr, indices, counts = block
    first, last = int(indptr[start]), int(indptr[stop])
    return (indptr[start:stop + 1] - first).astype(np.int64), indices[first:last], counts[first:last]


def _count_task(args: tuple[frozenset[str], list[str]]) -> tuple[list[str], Block]:
    stopwords, texts = args
    return count_batch(texts, stopwords)


@dataclass
class TermCounter:
    """Counts terms of documents into CSR blocks over a growing vocabulary (``vocab``, ``term_id``)."""

    stopwords: frozenset[str]
    vocab: list[str]
    term_id: dict[str, int]

    def count(self, texts: Sequence[str]) -> Block:
        """``(indptr int64 (n+1,), indices int32, counts int32)``: one row per text, columns sorted."""
        return self.merge(*count_batch(texts, self.stopwords))

    def merge(self, terms: list[str], block: Block) -> Block:
        """A batch's block re-expressed in this counter's columns (new terms appended in batch order)."""
        indptr, indices, counts = block
        to_global = np.fromiter((self._column(term) for term in terms), dtype=np.int32, count=len(terms))
        merged = sp.csr_matrix((counts, to_global[indices], indptr), shape=(len(indptr) - 1, max(len(self.vocab), 1)))
        merged.sort_indices()
        return indptr, merged.indices.astype(np.int32), merged.data.astype(np.int32)

    def _column(self, term: str) -> int:
        column = self.term_id.get(term)
        if column is None:
            column = self.term_id[term] = len(self.vocab)
            self.vocab.append(term)
        return column


def count_in_parallel(batches: Iterable[Sequence[str]], counter: TermCounter, jobs: int | None = None,
                      scheduler: str | None = None) -> Iterator[Block]:
    """Count each batch of texts in a worker (a local process, or a Dask worker with ``scheduler``; see
    :mod:`irfair.executor`) and yield its block in ``counter``'s columns, batch by batch in order, exactly
    as :meth:`TermCounter.count` would."""
    jobs = default_jobs() if jobs is None else jobs
    batches = iter(batches)
    first = next(batches, None)
    second = next(batches, None)
    if second is None or not uses_workers(jobs, scheduler):
        # one batch (or one job): counted here, without starting workers
        for batch in itertools.chain([first, second], batches):
            if batch is not None:
                yield counter.count(batch)
        return
    with executor(jobs, scheduler) as ordered_map:
        work = ((counter.stopwords, list(batch)) for batch in itertools.chain([first, second], batches))
        for terms, block in ordered_map(_count_task, work):
            yield counter.merge(terms, block)


PieceCount = tuple[list[int], list[str], list[str], Block, tuple | None]


def count_piece(task: tuple) -> PieceCount:
    """``(lines, doc_ids, terms, block, error)`` of one piece: ``task`` is ``(documents, piece, stopwords)``
    where ``documents(piece)`` yields ``(line, doc_id, text)``; the documents read before an input error
    are counted, and the error is returned as ``(path, line, expected)`` (raised where the results are
    used, in order)."""
    documents, piece, stopwords = task
    lines: list[int] = []
    ids: list[str] = []
    texts: list[str] = []
    error = None
    try:
        for line, doc_id, text in documents(piece):
            lines.append(line)
            ids.append(doc_id)
            texts.append(text)
    except IrfairInputError as failure:
        error = (failure.path, failure.line, failure.expected)
    terms, block = count_batch(texts, stopwords)
    return lines, ids, terms, block, error


def count_pieces(tasks: Iterable[tuple], jobs: int | None = None, scheduler: str | None = None) -> Iterator[PieceCount]:
    """:func:`count_piece` of each task in order: in this process, in worker processes or on Dask (see
    :mod:`irfair.executor`); a single task is counted here, without starting workers."""
    jobs = default_jobs() if jobs is None else jobs
    tasks = iter(tasks)
    first = list(itertools.islice(tasks, 2))
    if len(first) < 2 or not uses_workers(jobs, scheduler):
        yield from map(count_piece, itertools.chain(first, tasks))
        return
    with executor(jobs, scheduler) as ordered_map:
        yield from ordered_map(count_piece, itertools.chain(first, tasks))


def select_rows(block: Block, rows: list[int]) -> Block:
    """The CSR block of ``rows`` of ``block``, in that order."""
    indptr, indices, counts = block
    selected = sp.csr_matrix((counts, indices, indptr), shape=(len(indptr) - 1, int(indices.max(initial=-1)) + 1))[rows]
    return selected.indptr.astype(np.int64), selected.indices.astype(np.int32), selected.data.astype(np.int32)


class ShardCutter:
    """Counted documents cut into shards of exactly ``size`` rows as they arrive: each full shard is handed to
    ``flush`` (ids, block), then ``publish`` is called (a killed pass resumes from there); :meth:`finish` hands over
    the rest."""

    def __init__(self, flush: Callable[[list[str], Block], None], publish: Callable[[], None], size: int) -> None:
        self.flush, self.publish, self.size = flush, publish, size
        self.ids: list[str] = []
        self.blocks: list[Block] = []
        self.added = 0

    def add(self, ids: list[str], block: Block) -> None:
        self.ids += ids
        self.blocks.append(block)
        self.added += len(ids)
        while len(self.ids) >= self.size:
            rows = concatenate_blocks(self.blocks)
            self.flush(self.ids[:self.size], slice_block(rows, 0, self.size))
            self.ids, self.blocks = self.ids[self.size:], [slice_block(rows, self.size, len(self.ids))]
            self.publish()

    def finish(self) -> int:
        """Hand over what is left as a last, shorter shard; returns how many documents were added in all."""
        if self.ids:
            self.flush(self.ids, concatenate_blocks(self.blocks))
        return self.added
