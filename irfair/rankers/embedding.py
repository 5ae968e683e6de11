"""Embedding-average rankers (Vulić & Moens, SIGIR 2015, as used by Fabris et al.).

* ``add``: a text's vector is the mean of the unit vectors of its tokens (stopwords removed,
  out-of-vocabulary tokens skipped, repeated tokens counted each time); documents are ranked by the
  cosine similarity of their vector with the query's.
* ``si``: the same with each token weighted by its self-information −log2 p(w), where
  p(w) = (cf(w) + 1) / (total tokens + vocabulary size) from collection term frequencies (add-one, so
  a query term unseen in the collection gets the largest weight).

Document vectors for the whole corpus are computed once with one sparse-dense product over the cached
term store and saved as a float32 ``.npy`` in a cache entry keyed by the term store's content, the
embeddings' fingerprint and the scheme, which later runs memory-map. Ranking is a matrix product plus
top-k selection. Documents without any in-vocabulary token have no vector and are never retrieved
(their number is reported).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..cache import CacheEntry, EntryDamaged, Manifest, entry_key
from ..corpus import TermStore
from ..embeddings import Embeddings, load_embeddings
from ..errors import IrfairInputError
from ..executor import default_jobs, executor, thread_executor, uses_workers
from ..gender.debias import debiased
from ..text import content_tokens
from ..trec import Run, trec_eval_order
from .registry import EMBEDDING, RankerSpec, rankers_of

SCHEMES = rankers_of(EMBEDDING)


SHARD_ROWS = 131_072  # documents scored per task; fixed, so that a result never depends on where it was computed


def _shard_top(task) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` documents of rows ``[a, b)`` for each query vector: ``(row numbers, float32 scores)``, each of
    shape (n_queries, ≤ k); documents without a vector score -inf. It runs where BLAS is on one thread (the
    executors of :mod:`irfair.executor` see to it): for given shapes the product is then the same in any
    process (a split over threads would change the summation order), so a run does not depend on where its
    shards were scored."""
    vectors, source, has_vector, a, b, k = task
    doc_vectors = np.load(source, mmap_mode="r") if isinstance(source, Path) else source
    block = np.asarray(np.asarray(vectors, dtype=np.float32) @ np.asarray(doc_vectors[a:b], dtype=np.float32).T, dtype=np.float32)
    block[:, ~has_vector] = -np.inf
    n = b - a
    top = np.argpartition(block, n - k, axis=1)[:, n - k:] if k < n else np.tile(np.arange(n), (len(block), 1))
    return top + a, np.take_along_axis(block, top, axis=1)


def self_information(store: TermStore) -> np.ndarray:
    """−log2 p(w) for every term of the store, add-one smoothed, shape (n_terms,)."""
    frequencies = np.asarray(store.matrix().sum(axis=0)).ravel()
    return -np.log2((frequencies + 1.0) / (frequencies.sum() + len(frequencies)))


class EmbeddingRanker:
    """Cosine ranking between averaged (or self-information weighted) word vectors."""

    def __init__(self, store: TermStore, embeddings: Embeddings, scheme: str = "add", cache_dir: str | Path | None = None,
                 corpus_key: str = "corpus", progress: bool = False, corpus_name: str = "") -> None:
        if scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}")
        self.store, self.embeddings, self.scheme = store, embeddings, scheme
        self.corpus_name = corpus_name or corpus_key
        vocab_rows = embeddings.token_rows(store.vocab)
        self._known = vocab_rows >= 0
        self._term_rows = vocab_rows
        self.term_weights = self_information(store) if scheme == "si" else np.ones(len(store.vocab))
        total_tokens = float(store.matrix().sum())
        self._unseen_weight = float(-np.log2(1.0 / (total_tokens + len(store.vocab)))) if scheme == "si" else 1.0
        self.doc_vectors = self._document_vectors(cache_dir, corpus_key, progress)
        self.has_vector = np.linalg.norm(self.doc_vectors, axis=1) > 0
        self.n_docs_without_vector = int((~self.has_vector).sum())

    @property
    def name(self) -> str:
        """Ranker name, e.g. ``w2v-gnews-26k_si``."""
        return f"{self.embeddings.name}_{self.scheme}"

    def _entry(self, cache_dir: str | Path | None, corpus_key: str) -> CacheEntry | None:
        if cache_dir is None:
            return None
        key = {"store": self.store.fingerprint(), "documents": len(self.store), "terms": len(self.store.vocab),
               "embeddings": self.embeddings.name, "embeddings_fingerprint": self.embeddings.fingerprint(), "scheme": self.scheme}
        return CacheEntry(cache_dir, "docvectors", f"{corpus_key}-{self.embeddings.name}-{self.scheme}", key)

    def _compute_vectors(self, progress: bool) -> np.ndarray:
        from tqdm.auto import tqdm

        term_vectors = np.zeros((len(self.store.vocab), self.embeddings.dim), dtype=np.float32)
        term_vectors[self._known] = self.embeddings.vectors[self._term_rows[self._known]]
        term_vectors *= self.term_weights[:, None].astype(np.float32)
        matrix = self.store.matrix().astype(np.float32)
        out = np.empty((matrix.shape[0], self.embeddings.dim), dtype=np.float32)
        step = 50_000
        for start in tqdm(range(0, matrix.shape[0], step), desc="document vectors", disable=not progress):
            block = np.asarray(matrix[start : start + step] @ term_vectors)
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            out[start : start + step] = block / norms
        return out

    def _document_vectors(self, cache_dir, corpus_key: str, progress: bool) -> np.ndarray:
        """Unit document vectors, shape (n_docs, dim), float32, rows in the store's order; a cache entry
        keyed by the term store's content, the embeddings and the scheme when there is a cache folder."""
        entry = self._entry(cache_dir, corpus_key)
        if entry is None:
            return self._compute_vectors(progress)
        shape = (len(self.store), self.embeddings.dim)

        def build(staging: Path) -> dict[str, int]:
            with open(staging / "vectors.npy", "wb") as handle:
                np.save(handle, self._compute_vectors(progress))
            return {"documents": shape[0], "dim": shape[1]}

        def load(folder: Path, manifest: Manifest) -> np.ndarray:
            vectors = np.load(folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
            if vectors.shape != shape or vectors.dtype != np.float32:
                raise EntryDamaged(f"vectors.npy holds {vectors.dtype} of shape {vectors.shape}, expected float32 of {shape}")
            return vectors

        return entry.obtain(load, build)

    def query_vector(self, query: str) -> np.ndarray:
        """Unit query vector, shape (dim,); all zeros when no query token is in the vocabulary."""
        tokens = content_tokens(query, self.store.stopwords)
        rows = self.embeddings.token_rows(tokens)
        known = rows >= 0
        if not known.any():
            return np.zeros(self.embeddings.dim, dtype=np.float32)
        vectors = np.asarray(self.embeddings.vectors[rows[known]], dtype=np.float32)
        if self.scheme == "si":
            term_ids = [self.store.term_id.get(t, -1) for t, k in zip(tokens, known) if k]
            weights = np.array([self.term_weights[i] if i >= 0 else self._unseen_weight for i in term_ids], dtype=np.float32)
            vectors = vectors * weights[:, None]
        vector = vectors.sum(axis=0)
        norm = np.linalg.norm(vector)
        return vector / norm if norm > 0 else vector

    def rank(self, queries: Mapping[str, str], depth: int = 1000, batch_size: int = 256, jobs: int = 1,
             scheduler: str | None = None) -> Run:
        """Rank the whole corpus for each query: ``{qid: text}`` → Run (queries with no known token get no list).

        Documents are scored in shards of :data:`SHARD_ROWS` rows: per batch of queries and shard one matrix
        product and a partial sort keep each query's top ``depth``; the shards' tops are merged and sorted by
        score then document id (descending, trec_eval's order). Shards are scored by threads of this process,
        or, with ``jobs`` > 1 or a ``scheduler``, by workers (:mod:`irfair.executor`; with Dask, memory-mapped
        from the cache folder, which the workers must see); the result is the same wherever the shards ran,
        given the same CPU type and BLAS library (see :func:`_shard_top`)."""
        known = {qid: vector for qid in queries if np.any(vector := self.query_vector(queries[qid]))}
        qids = list(known)
        vectors = np.vstack(list(known.values())) if known else np.zeros((0, self.embeddings.dim), dtype=np.float32)
        doc_ids = np.asarray(self.store.doc_ids, dtype=object)
        id_rank = self._doc_id_rank()
        k = min(depth, int(self.has_vector.sum()))
        if k == 0 or not qids:
            return Run(self.name, {}, tag=self.name)
        source = self._vector_source()
        shards = [(start, min(start + SHARD_ROWS, len(doc_ids))) for start in range(0, len(doc_ids), SHARD_ROWS)]
        tasks = [(vectors[start:start + batch_size], source, self.has_vector[a:b], a, b, k)
                 for start in range(0, len(qids), batch_size) for a, b in shards]
        if uses_workers(jobs, scheduler):
            with executor(jobs if jobs > 1 else default_jobs(), scheduler) as ordered_map:
                tops = list(ordered_map(_shard_top, tasks))
        else:  # threads: numpy releases the GIL in the matrix products, each of which runs on one core
            with thread_executor() as ordered_map:
                tops = list(ordered_map(_shard_top, tasks))
        ranking: dict[str, list[tuple[str, float]]] = {}
        for batch, start in enumerate(range(0, len(qids), batch_size)):
            parts = tops[batch * len(shards):(batch + 1) * len(shards)]
            top = np.concatenate([part[0] for part in parts], axis=1)
            scores = np.concatenate([part[1] for part in parts], axis=1)
            order = np.lexsort((-id_rank[top], -scores), axis=-1)[:, :k]
            top, scores = np.take_along_axis(top, order, axis=1), np.take_along_axis(scores, order, axis=1)
            for row, qid in enumerate(qids[start:start + batch_size]):
                keep = np.isfinite(scores[row])
                ranking[qid] = list(zip(doc_ids[top[row][keep]].tolist(), scores[row][keep].tolist()))
        return Run(self.name, ranking, tag=self.name)

    def _vector_source(self):
        """The document vectors as workers get them: the memory-mapped cache file when there is one, else the array."""
        filename = getattr(self.doc_vectors, "filename", None)
        return Path(filename) if filename else np.asarray(self.doc_vectors)

    def _doc_id_rank(self) -> np.ndarray:
        """Each document's position among the store's ids sorted as strings, shape (n_docs,)."""
        rank = np.empty(len(self.store.doc_ids), dtype=np.int64)
        rank[np.argsort(np.asarray(self.store.doc_ids, dtype=object), kind="stable")] = np.arange(len(rank))
        return rank

    def _check_known(self, candidates: Run, qid: str, docs: list[str]) -> None:
        unknown = next((doc for doc in docs if doc not in self.store), None)
        if unknown is not None:
            raise IrfairInputError(candidates.path or candidates.name, candidates.line_of.get((qid, unknown)),
                                   f"document {unknown} is not in the corpus {self.corpus_name}")

    def rerank(self, queries: Mapping[str, str], candidates: Run, depth: int | None = None) -> Run:
        """Re-score the candidate documents of another run for each query (docs without a vector dropped)."""
        ranking: dict[str, list[tuple[str, float]]] = {}
        for qid, hits in candidates.ranking.items():
            if qid not in queries:
                continue
            vector = self.query_vector(queries[qid])
            if not np.any(vector):
                continue
            docs = [doc for doc, _ in hits]
            self._check_known(candidates, qid, docs)
            rows = self.store.doc_rows(docs)
            keep = self.has_vector[rows]
            rows = rows[keep]
            scores = np.asarray(self.doc_vectors[rows] @ vector, dtype=np.float32)
            hits = trec_eval_order((self.store.doc_ids[r], float(score)) for r, score in zip(rows, scores))
            ranking[qid] = hits if depth is None else hits[:depth]
        return Run(self.name, ranking, tag=self.name)


def build(spec: RankerSpec, context, params: dict) -> EmbeddingRanker:
    """The registry's builder: the corpus's complete term store and the (possibly debiased) embeddings."""
    store = context.term_store()
    embeddings = debiased(load_embeddings(context.embeddings, context.cache_dir), context.variant, context.cache_dir)
    return EmbeddingRanker(store, embeddings, spec.name, context.cache_dir, corpus_key=entry_key(context.corpus),
                           progress=context.progress, corpus_name=context.corpus.name)


def naive_cosine_ranking(embeddings: Embeddings, doc_texts: Mapping[str, str], query: str, depth: int,
                         stopwords: frozenset[str] | None = None) -> list[tuple[str, float]]:
    """Reference ``add`` ranking for one query: a Python loop over documents computing each mean vector
    and its cosine (used by tests and ``scripts/bench_rankers.py``)."""

    def mean_vector(text: str) -> np.ndarray | None:
        rows = [r for r in embeddings.token_rows(content_tokens(text, stopwords)) if r >= 0]
        if not rows:
            return None
        vector = np.asarray(embeddings.vectors[rows], dtype=np.float64).sum(axis=0)
        return vector / np.linalg.norm(vector)

    q = mean_vector(query)
    if q is None:
        return []
    scored = []
    for doc_id, text in doc_texts.items():
        d = mean_vector(text)
        if d is not None:
            scored.append((doc_id, float(d @ q)))
    scored.sort(key=lambda s: (-s[1], s[0]))
    return scored[:depth]
