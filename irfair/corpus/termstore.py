"""Bag-of-words store of documents (stopwords removed), tokenised once and cached on disk.

A cached store is one cache entry (:mod:`irfair.cache.entry`) ``terms/<corpus>-<digest>/``, keyed by the
corpus (name and fingerprint), the stoplist and the tokenizer version. It holds ``vocab.txt`` (one term a
line, in term-id order), shards ``shard-NNNNN/`` (``doc_ids.txt``, ``indptr.npy``, ``indices.npy``,
``counts.npy``: a CSR block of term counts, columns sorted), ``absent.txt`` (ids looked up and not found
in the corpus) and the manifest (counts of documents, terms, shards, absent ids; whether the whole
corpus is stored).

A store grows as one unit: the process adding documents takes the entry's lock, re-reads the published
store (another process may have grown it), adds what is still missing and republishes the whole store
by one rename; unchanged shards are hard links, so a republish costs only the new shard. While a large
corpus is tokenised the store is republished every ``shard_size`` documents, so a killed run resumes
from its last shard. Every shard is checked when loaded (offsets, term ids within the vocabulary, no
document twice). Arrays load memory-mapped.
"""
from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..cache import CacheEntry, EntryDamaged, Manifest
from ..cache.entry import load_checked
from ..errors import IrfairInputError
from ..text import TOKENIZER_VERSION, default_stopwords
from .base import Corpus
from .counting import ShardCutter, TermCounter, count_in_parallel, count_pieces, select_rows
from .pieces import cut_pieces
from .termstore_disk import Block, Contents, link_shard, read_contents, write_shard

DEFAULT_SHARD_SIZE = 50_000
BATCH_DOCUMENTS = 2_000  # documents counted per task
WHOLE_SHARD_SHARE = 4  # term_sums multiplies a whole shard when at least a quarter of its documents are asked for


class TermStore:
    """Term counts per document over a growing vocabulary; persisted as a cache entry when given one."""

    def __init__(self, entry: CacheEntry | None = None, stopwords: frozenset[str] | None = None) -> None:
        self.entry = entry
        self.stopwords = default_stopwords() if stopwords is None else stopwords
        self._set(Contents([], [], set(), False), None)
        if entry is not None:
            self._refresh()

    @classmethod
    def for_corpus(cls, corpus: Corpus, cache_dir: str | Path | None, stopwords: frozenset[str] | None = None) -> TermStore:
        """The cached store of ``corpus`` under ``cache_dir`` (in memory when ``cache_dir`` is None)."""
        stop = default_stopwords() if stopwords is None else stopwords
        if cache_dir is None:
            return cls(None, stop)
        stop_key = hashlib.sha256("\n".join(sorted(stop)).encode()).hexdigest()[:16]
        key = {"corpus": corpus.name, "fingerprint": corpus.fingerprint(), "stopwords": stop_key, "tokenizer": TOKENIZER_VERSION}
        return cls(CacheEntry(cache_dir, "terms", corpus.name, key), stop)

    @property
    def folder(self) -> Path | None:
        """The published entry's folder (None for an in-memory store)."""
        return None if self.entry is None else self.entry.folder

    @property
    def complete(self) -> bool:
        """True once the whole corpus has been stored."""
        return self._complete

    @property
    def content_id(self) -> str | None:
        """The published entry's content id when this store holds exactly it, else None."""
        return self._content_id if not self._dirty else None

    def fingerprint(self) -> str:
        """16 hex digits that change whenever the stored documents, their order or the vocabulary change:
        the published entry's content id, or a digest of the contents for an in-memory store."""
        if self.content_id is not None:
            return self.content_id
        digest = hashlib.sha256("\n".join(self.vocab).encode())
        for ids, block in self._shards:
            digest.update("\n".join(ids).encode())
            for array in block:
                digest.update(np.ascontiguousarray(array).tobytes())
        return digest.hexdigest()[:16]

    def _set(self, contents: Contents, manifest: Manifest | None) -> None:
        self.vocab = contents.vocab
        self.term_id = {term: i for i, term in enumerate(self.vocab)}
        self.doc_ids: list[str] = []
        self.doc_row: dict[str, int] = {}
        self._shards: list[tuple[list[str], Block]] = []
        self._matrix: sp.csr_matrix | None = None
        for ids, block in contents.shards:
            self._append_block(ids, block)
        self.absent = contents.absent
        self._complete = contents.complete
        self._content_id = None if manifest is None else manifest.content_id
        self._known = {} if manifest is None else manifest.files
        self._published_shards = len(self._shards) if manifest is not None else 0
        self._dirty = False

    def _refresh_once(self) -> None:
        manifest = self.entry.manifest()
        if manifest is None:
            self._published_shards, self._content_id, self._known = 0, None, {}
            self._dirty = self._dirty or bool(self._shards or self.absent)
            return
        if manifest.content_id == self._content_id:
            return
        contents = load_checked(read_contents, self.entry.folder, manifest)
        again = self.entry.manifest()
        if again is None or again.content_id != manifest.content_id:
            raise EntryDamaged("it changed while being read")
        self._set(contents, manifest)

    def _refresh(self) -> None:
        """Load the published store if another process changed it; a damaged one is reported, discarded
        and rebuilt from nothing (decided under the lock)."""
        try:
            self._refresh_once()
        except EntryDamaged:
            with self.entry.locked():
                self._refresh_locked()

    def _refresh_locked(self) -> None:
        try:
            self._refresh_once()
        except EntryDamaged as damage:
            self.entry.discard_damaged(damage.reason)
            self._set(Contents([], [], set(), False), None)

    def _append_block(self, ids: list[str], block: Block) -> None:
        self.doc_row.update(zip(ids, range(len(self.doc_ids), len(self.doc_ids) + len(ids))))
        self.doc_ids.extend(ids)
        self._shards.append((ids, block))
        self._matrix = None

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self.doc_row

    def _publish(self) -> None:
        """Write the whole store to a staging folder (published shards as hard links) and publish it."""
        if self.entry is None or not self._dirty:
            return
        with self.entry.staging() as staging:
            for number, (ids, block) in enumerate(self._shards):
                name = f"shard-{number:05d}"
                (staging / name).mkdir()
                if number >= self._published_shards or not link_shard(self.entry.folder / name, staging / name):
                    write_shard(staging / name, ids, block)
            (staging / "vocab.txt").write_text("".join(term + "\n" for term in self.vocab), encoding="utf-8")
            if self.absent:
                (staging / "absent.txt").write_text("".join(d + "\n" for d in sorted(self.absent)), encoding="utf-8")
            counts = {"documents": len(self.doc_ids), "terms": len(self.vocab), "shards": len(self._shards),
                      "absent": len(self.absent), "complete": int(self._complete)}
            manifest = self.entry.publish(staging, counts, known=self._known)
        self._content_id, self._known, self._published_shards, self._dirty = manifest.content_id, manifest.files, len(self._shards), False

    def _grow(self, work: Callable[[], None]) -> None:
        """Run ``work`` (which adds documents) as one unit: under the lock, on the freshly re-read store,
        then publish."""
        if self.entry is None:
            work()
            return
        with self.entry.locked():
            self._refresh_locked()
            self.entry.clean_leftovers()
            work()
            self._publish()

    def add(self, docs: Iterable[tuple[str, str]], shard_size: int = DEFAULT_SHARD_SIZE) -> int:
        """Tokenise and store ``(doc_id, text)`` pairs not stored yet; returns how many were added."""
        added = []
        self._grow(lambda: added.append(self._add(docs, shard_size)))
        return added[0]

    def _add(self, docs: Iterable[tuple[str, str]], shard_size: int) -> int:
        """Count the documents not stored yet in batches (:mod:`.counting`: in this process, worker processes
        or on Dask, as ``$IRFAIR_JOBS``/``$IRFAIR_SCHEDULER`` say), a shard at a time."""
        pending: set[str] = set()
        batch_ids: deque[list[str]] = deque()

        def batches() -> Iterator[list[str]]:
            ids: list[str] = []
            texts: list[str] = []
            for doc_id, text in docs:
                if doc_id in self.doc_row or doc_id in pending:
                    continue
                if "\n" in doc_id or not doc_id:
                    raise IrfairInputError(None, None, f"document id {doc_id!r} is empty or holds a line break")
                pending.add(doc_id)
                ids.append(doc_id)
                texts.append(text)
                if len(ids) >= BATCH_DOCUMENTS:
                    batch_ids.append(ids)
                    yield texts
                    ids, texts = [], []
            if ids:
                batch_ids.append(ids)
                yield texts

        counter = TermCounter(self.stopwords, self.vocab, self.term_id)
        shards = ShardCutter(self._flush, self._publish, shard_size)
        for block in count_in_parallel(batches(), counter):
            shards.add(batch_ids.popleft(), block)
        return shards.finish()

    def _add_pieces(self, corpus, shard_size: int, progress: bool) -> int:
        """:meth:`_add` of every document of a corpus of files whose class reads pieces of them
        (``piece_documents``): ids checked as :meth:`.base.FileCorpus.iter_docs` and :meth:`_add` check them;
        each piece's block is merged whole (so that a resumed pass gives the vocabulary of an unbroken one),
        and the rows of documents stored before are left out."""
        from tqdm.auto import tqdm

        counter = TermCounter(self.stopwords, self.vocab, self.term_id)
        pieces: deque = deque()

        def tasks() -> Iterator[tuple]:
            for piece in cut_pieces(corpus.paths):
                pieces.append(piece)
                yield corpus.piece_documents, piece, self.stopwords

        seen: dict[str, tuple[str, int]] = {}
        shards = ShardCutter(self._flush, self._publish, shard_size)
        with tqdm(desc=f"tokenising {corpus.name}", unit="doc", disable=not progress) as bar:
            for lines, ids, terms, block, error in count_pieces(tasks()):
                path = pieces.popleft().path
                block = counter.merge(terms, block)
                keep = []
                for row, (line, doc_id) in enumerate(zip(lines, ids)):
                    if doc_id in seen:
                        first = seen[doc_id]
                        raise IrfairInputError(path, line, f"document id {doc_id} appears twice (first at {first[0]}:{first[1]})")
                    seen[doc_id] = (path, line)
                    if doc_id in self.doc_row:
                        continue
                    if "\n" in doc_id or not doc_id:
                        raise IrfairInputError(None, None, f"document id {doc_id!r} is empty or holds a line break")
                    keep.append(row)
                if error is not None:
                    raise IrfairInputError(*error)
                bar.update(len(ids))
                if len(keep) < len(ids):
                    ids = [ids[row] for row in keep]
                    block = select_rows(block, keep)
                shards.add(ids, block)
        return shards.finish()

    def _flush(self, ids: list[str], block: Block) -> None:
        self._append_block(list(ids), block)
        self.absent.difference_update(ids)
        self._dirty = True

    def ensure(self, corpus: Corpus, wanted: set[str] | None = None, progress: bool = True) -> set[str]:
        """Store the ``wanted`` documents (all when None) that are not stored yet.

        Returns the wanted ids the corpus does not have (remembered, so the corpus is not searched
        for them again).
        """
        from tqdm.auto import tqdm

        if wanted is None:
            if not self.complete:
                def read_all() -> None:
                    if not self._complete:
                        if hasattr(corpus, "piece_documents"):
                            self._add_pieces(corpus, DEFAULT_SHARD_SIZE, progress)
                        else:
                            self._add(tqdm(corpus.iter_docs(None), desc=f"tokenising {corpus.name}", unit="doc",
                                           disable=not progress), DEFAULT_SHARD_SIZE)
                        self._complete, self._dirty = True, True
                self._grow(read_all)
            return set()

        def unknown() -> set[str]:
            return {doc_id for doc_id in wanted if doc_id not in self.doc_row and doc_id not in self.absent}

        if not self.complete and unknown():
            def read_missing() -> None:
                missing = unknown()
                if missing and not self._complete:
                    docs = corpus.iter_docs(missing)
                    self._add(tqdm(docs, total=len(missing), desc=f"tokenising {corpus.name}", unit="doc", disable=not progress),
                              DEFAULT_SHARD_SIZE)
                    # remembered (ids that cannot be written one a line are simply looked up again next time)
                    self.absent |= {doc_id for doc_id in missing if doc_id not in self.doc_row and "\n" not in doc_id}
                    self._dirty = True
            self._grow(read_missing)
        return {doc_id for doc_id in wanted if doc_id not in self.doc_row}

    def matrix(self) -> sp.csr_matrix:
        """Term counts, shape (n_docs, n_terms), float64 CSR, rows in ``doc_ids`` order."""
        if self._matrix is None:
            n_terms = len(self.vocab)
            if not self._shards:
                self._matrix = sp.csr_matrix((0, n_terms))
            else:
                parts = []
                for _, part in self._shard_parts():
                    part = part.astype(np.float64)
                    part.has_sorted_indices = True  # written sorted, checked when loaded
                    part.has_canonical_format = True
                    parts.append(part)
                self._matrix = parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr")
        return self._matrix

    def _shard_parts(self) -> Iterator[tuple[int, sp.csr_matrix]]:
        """``(first row, shard)`` of each shard as a CSR of its stored integer counts (memory-mapped, not copied)."""
        first, n_terms = 0, len(self.vocab)
        for _, (indptr, indices, counts) in self._shards:
            yield first, sp.csr_matrix((counts, indices, indptr), shape=(len(indptr) - 1, n_terms))
            first += len(indptr) - 1

    def row_counts(self, rows: np.ndarray) -> sp.csr_matrix:
        """Term counts of ``rows`` (array of int64, in any order), shape (len(rows), n_terms), float64 CSR: the
        rows are read from their shards, without assembling :meth:`matrix` (an audit reads a part of the store)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == 0:
            return sp.csr_matrix((0, len(self.vocab)))
        if self._matrix is not None or not self._shards:
            return self.matrix()[rows]
        order = np.argsort(rows, kind="stable")
        ordered = rows[order]
        pieces = []
        for first, part in self._shard_parts():
            low, high = np.searchsorted(ordered, [first, first + part.shape[0]])
            if high > low:
                pieces.append(part[ordered[low:high] - first])
        stacked = pieces[0] if len(pieces) == 1 else sp.vstack(pieces, format="csr")
        if not np.array_equal(order, np.arange(len(order))):  # back to the order asked for
            inverse = np.empty_like(order)
            inverse[order] = np.arange(len(order))
            stacked = stacked[inverse]
        return sp.csr_matrix(stacked, dtype=np.float64)

    def term_sums(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Σ_t count(t, d) · weights[t, j] for each document d of ``rows`` (array of int64, ascending) and column j
        of ``weights`` (shape (n_terms, n_columns)): array of shape (len(rows), n_columns), float64. Each sum runs
        over the document's terms in term-id order, as a product of :meth:`row_counts` with ``weights`` sums.
        A shard of which at least a quarter of the documents are asked for is multiplied whole, without copying
        its rows out (an audit asks for most of a store whose runs draw from all of it)."""
        rows = np.asarray(rows, dtype=np.int64)
        weights = np.asarray(weights, dtype=np.float64)
        if len(rows) and np.any(rows[1:] < rows[:-1]):
            raise ValueError("rows must be ascending")
        if self._matrix is not None or not self._shards:
            return np.asarray(self.matrix()[rows] @ weights).reshape(len(rows), weights.shape[1])
        parts = [np.zeros((0, weights.shape[1]))]
        for first, part in self._shard_parts():
            low, high = np.searchsorted(rows, [first, first + part.shape[0]])
            if high == low:
                continue
            local = rows[low:high] - first
            if (high - low) * WHOLE_SHARD_SHARE >= part.shape[0]:
                parts.append((part @ weights)[local])
            else:
                parts.append(part[local] @ weights)
        return np.concatenate(parts)

    def column_counts(self, term_ids: np.ndarray) -> sp.csr_matrix:
        """Counts of the terms ``term_ids`` (array of int64) in every document, shape (n_docs, len(term_ids)), float64
        CSR: one vectorised pass over the shards' term ids, reading no count of any other term."""
        term_ids = np.asarray(term_ids, dtype=np.int64)
        column = np.full(len(self.vocab), -1, dtype=np.int64)
        column[term_ids] = np.arange(len(term_ids))
        rows, columns, values = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
        for first, part in self._shard_parts():
            where = np.flatnonzero(column[part.indices] >= 0)
            rows.append(np.searchsorted(part.indptr, where, side="right") - 1 + first)
            columns.append(column[part.indices[where]])
            values.append(part.data[where].astype(np.float64))
        return sp.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
                             shape=(len(self.doc_ids), len(term_ids)))

    def doc_rows(self, doc_ids: Iterable[str]) -> np.ndarray:
        """Row numbers of ``doc_ids`` in :meth:`matrix` (array of int64); KeyError for an unknown id."""
        row = self.doc_row
        return np.fromiter(map(row.__getitem__, doc_ids), dtype=np.int64)
