"""Bag-of-words store of documents (stopwords removed), tokenised once and cached on disk.

A store lives in ``<cache_dir>/terms/v1-<corpus>-<corpus fingerprint>-<stoplist hash>/``: an
append-only ``vocab.txt`` and shards ``shard-NNNNN/`` (``doc_ids.txt``, ``indptr.npy``,
``indices.npy``, ``counts.npy``: a CSR block of term counts, columns sorted). Shards are written every
``shard_size`` documents, so an interrupted run resumes where it stopped; an audit adds only the
documents it is missing. Arrays of a single-shard store load memory-mapped.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..atomic import atomic_path, write_text
from ..cache import entry_key
from ..text import content_tokens, default_stopwords
from .base import Corpus

DEFAULT_SHARD_SIZE = 50_000


class TermStore:
    """Term counts per document over a growing vocabulary; persisted when given a folder."""

    def __init__(self, folder: Path | None = None, stopwords: frozenset[str] | None = None) -> None:
        self.folder = folder
        self.stopwords = default_stopwords() if stopwords is None else stopwords
        self.vocab: list[str] = []
        self.term_id: dict[str, int] = {}
        self.doc_ids: list[str] = []
        self.doc_row: dict[str, int] = {}
        self._blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._matrix: sp.csr_matrix | None = None
        self._saved_vocab = 0
        self._n_shards = 0
        if folder is not None and (folder / "vocab.txt").is_file():
            self._load()

    @classmethod
    def for_corpus(cls, corpus: Corpus, cache_dir: str | Path | None, stopwords: frozenset[str] | None = None) -> TermStore:
        """The cached store of ``corpus`` under ``cache_dir`` (in memory when ``cache_dir`` is None)."""
        stop = default_stopwords() if stopwords is None else stopwords
        if cache_dir is None:
            return cls(None, stop)
        stop_key = hashlib.sha1("\n".join(sorted(stop)).encode()).hexdigest()[:8]
        folder = Path(cache_dir) / "terms" / f"v1-{entry_key(corpus)}-{stop_key}"
        folder.mkdir(parents=True, exist_ok=True)
        return cls(folder, stop)

    @property
    def complete(self) -> bool:
        """True once the whole corpus has been stored."""
        return self.folder is not None and (self.folder / "COMPLETE").is_file()

    def _load(self) -> None:
        assert self.folder is not None
        self.vocab = (self.folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
        self.term_id = {term: i for i, term in enumerate(self.vocab)}
        self._saved_vocab = len(self.vocab)
        shards = sorted(p for p in self.folder.glob("shard-*") if (p / "counts.npy").is_file())
        for shard in shards:
            ids = (shard / "doc_ids.txt").read_text(encoding="utf-8").split("\n")[:-1]
            block = tuple(np.load(shard / f"{part}.npy", mmap_mode="r") for part in ("indptr", "indices", "counts"))
            self._append_block(ids, block)
        self._n_shards = len(shards)

    def _append_block(self, ids: list[str], block: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        for doc_id in ids:
            self.doc_row[doc_id] = len(self.doc_ids)
            self.doc_ids.append(doc_id)
        self._blocks.append(block)
        self._matrix = None

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self.doc_row

    def add(self, docs: Iterable[tuple[str, str]], shard_size: int = DEFAULT_SHARD_SIZE) -> int:
        """Tokenise and store ``(doc_id, text)`` pairs not stored yet; returns how many were added."""
        ids: list[str] = []
        pending: set[str] = set()
        indptr = [0]
        indices: list[int] = []
        counts: list[int] = []
        added = 0
        for doc_id, text in docs:
            if doc_id in self.doc_row or doc_id in pending:
                continue
            bag = Counter(content_tokens(text, self.stopwords))
            row = []
            for term, count in bag.items():
                term_id = self.term_id.get(term)
                if term_id is None:
                    term_id = self.term_id[term] = len(self.vocab)
                    self.vocab.append(term)
                row.append((term_id, count))
            row.sort()  # canonical CSR (sorted, unique columns) so that memory-mapped shards are never rewritten
            indices.extend(term_id for term_id, _ in row)
            counts.extend(count for _, count in row)
            indptr.append(len(indices))
            ids.append(doc_id)
            pending.add(doc_id)
            added += 1
            if len(ids) >= shard_size:
                self._flush(ids, indptr, indices, counts)
                ids, indptr, indices, counts = [], [0], [], []
        if ids:
            self._flush(ids, indptr, indices, counts)
        return added

    def _flush(self, ids: list[str], indptr: list[int], indices: list[int], counts: list[int]) -> None:
        block = (
            np.asarray(indptr, dtype=np.int64),
            np.asarray(indices, dtype=np.int32),
            np.asarray(counts, dtype=np.int32),
        )
        if self.folder is not None:
            # vocabulary first: it only grows, so older shards stay valid if we stop in between
            if len(self.vocab) > self._saved_vocab:
                write_text(self.folder / "vocab.txt", "\n".join(self.vocab) + "\n")
                self._saved_vocab = len(self.vocab)
            shard = self.folder / f"shard-{self._n_shards:05d}"
            shard.mkdir(exist_ok=True)
            for part, array in zip(("indptr", "indices", "counts"), block):
                with atomic_path(shard / f"{part}.npy") as tmp:
                    with open(tmp, "wb") as handle:
                        np.save(handle, array)
            write_text(shard / "doc_ids.txt", "\n".join(ids) + "\n")
            self._n_shards += 1
        self._append_block(list(ids), block)

    def mark_complete(self) -> None:
        """Record that every document of the corpus is stored."""
        if self.folder is not None:
            write_text(self.folder / "COMPLETE", "")

    def ensure(self, corpus: Corpus, wanted: set[str] | None = None, progress: bool = True) -> set[str]:
        """Store the ``wanted`` documents (all when None) that are not stored yet.

        Returns the wanted ids the corpus does not have.
        """
        from tqdm.auto import tqdm

        if wanted is None:
            if not self.complete:
                docs = tqdm(corpus.iter_docs(None), desc=f"tokenising {corpus.name}", unit="doc", disable=not progress)
                self.add(docs)
                self.mark_complete()
            return set()
        missing = {doc_id for doc_id in wanted if doc_id not in self.doc_row}
        if missing and not self.complete:
            docs = tqdm(
                corpus.iter_docs(missing), total=len(missing), desc=f"tokenising {corpus.name}", unit="doc", disable=not progress
            )
            self.add(docs)
        return {doc_id for doc_id in missing if doc_id not in self.doc_row}

    def matrix(self) -> sp.csr_matrix:
        """Term counts, shape (n_docs, n_terms), float64 CSR, rows in ``doc_ids`` order."""
        if self._matrix is None:
            n_terms = len(self.vocab)
            if not self._blocks:
                self._matrix = sp.csr_matrix((0, n_terms))
            else:
                parts = []
                for indptr, indices, counts in self._blocks:
                    part = sp.csr_matrix((counts.astype(np.float64), indices, indptr), shape=(len(indptr) - 1, n_terms))
                    part.has_sorted_indices = True
                    part.has_canonical_format = True
                    parts.append(part)
                self._matrix = parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr")
        return self._matrix

    def doc_rows(self, doc_ids: Iterable[str]) -> np.ndarray:
        """Row numbers of ``doc_ids`` in :meth:`matrix` (array of int64); KeyError for an unknown id."""
        row = self.doc_row
        return np.fromiter((row[doc_id] for doc_id in doc_ids), dtype=np.int64)
