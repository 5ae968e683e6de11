"""Model inputs for (query, document) pairs, built once per collection and settings and kept in the cache (numpy
arrays), moved to the training device once; a batch is a slice of them there.

* DRMM: each pair's matching histograms (pairs × longest query × bins), its query terms' IDF and mask.
* MatchPyramid: local word ids of each query (its first ``query_length`` content tokens, all by default)
  and of each document (its first ``doc_len`` tokens); the matching matrices are computed per batch from
  the words' unit vectors (:func:`.models.matching_matrices`), so memory grows with the number of
  documents, not with pairs × query length × document length.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ...embeddings import Embeddings
from .features import DEFAULT_BINS, LocalVocabulary, matching_histograms


class PairInputs:
    """Inputs of ``model`` ("drmm" or "matchpyramid") for ``pairs``, as named numpy arrays (:meth:`build` computes
    them; the cache keeps them, :mod:`.inputs_cache`), moved to a device once and sliced per batch there."""

    def __init__(self, model: str, pairs: Sequence[tuple[str, str]], arrays: Mapping[str, np.ndarray], matching: str = "cosine") -> None:
        self.model = model
        self.matching = matching
        self.pairs = list(pairs)
        self.row = {pair: i for i, pair in enumerate(self.pairs)}
        self.arrays = dict(arrays)
        self._device: str | None = None
        self._on_device: dict = {}

    @classmethod
    def build(cls, model: str, embeddings: Embeddings, query_tokens: Mapping[str, list[str]],
              doc_tokens: Mapping[str, list[str]], idf: Mapping[str, float], n_docs: int,
              pairs: Sequence[tuple[str, str]], doc_len: int = 300, n_bins: int = DEFAULT_BINS,
              matching: str = "cosine", tick: Callable[[], None] | None = None) -> PairInputs:
        """Compute the inputs; ``idf`` of query terms (ln N / df)."""
        longest_query = max([len(query_tokens[qid]) for qid, _ in pairs] + [1])
        if model == "drmm":
            n = len(pairs)
            histograms = np.zeros((n, longest_query, n_bins), dtype=np.float32)
            idf_array = np.zeros((n, longest_query), dtype=np.float32)
            mask = np.zeros((n, longest_query), dtype=bool)
            mask[:, 0] = True  # a query without content tokens keeps one (empty) term
            for i, (qid, doc) in enumerate(pairs):
                terms = query_tokens[qid]
                if terms:
                    histograms[i, : len(terms)] = matching_histograms(embeddings, terms, doc_tokens[doc], n_bins)
                    idf_array[i, : len(terms)] = [idf[t] for t in terms]
                    mask[i, : len(terms)] = True
                if tick is not None:
                    tick()
            return cls(model, pairs, {"histograms": histograms, "idf": idf_array, "mask": mask}, matching)
        queries = sorted({qid for qid, _ in pairs})
        docs = sorted({doc for _, doc in pairs})
        words = sorted({t for q in queries for t in query_tokens[q]} | {t for d in docs for t in doc_tokens[d][:doc_len]})
        scale = math.log(max(n_docs, 2))
        vocabulary = LocalVocabulary(embeddings, words, {t: value / scale for t, value in idf.items()})
        query_index = {qid: i for i, qid in enumerate(queries)}
        doc_index = {doc: i for i, doc in enumerate(docs)}
        longest_doc = max([min(len(doc_tokens[d]), doc_len) for d in docs] + [1])
        return cls(model, pairs, {
            "query_ids": np.stack([vocabulary.ids(query_tokens[q], longest_query) for q in queries]),
            "doc_ids": np.stack([vocabulary.ids(doc_tokens[d], longest_doc) for d in docs]),
            "pair_query": np.array([query_index[q] for q, _ in pairs], dtype=np.int64),
            "pair_doc": np.array([doc_index[d] for _, d in pairs], dtype=np.int64),
            "vectors": vocabulary.vectors, "known": vocabulary.known, "stem_ids": vocabulary.stem_ids, "word_idf": vocabulary.idf,
        }, matching)

    def _lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """Per pair, its query's and its document's number of words (host arrays, computed once)."""
        if not hasattr(self, "_pair_lengths"):
            a = self.arrays
            self._pair_lengths = ((a["query_ids"] >= 0).sum(axis=1)[a["pair_query"]], (a["doc_ids"] >= 0).sum(axis=1)[a["pair_doc"]])
        return self._pair_lengths

    def to(self, device: str) -> None:
        """Move every array to ``device`` (a normalised device string, :mod:`.device`) once; batches are then
        sliced on the device, with no copy from the host per step."""
        if self._device == device:
            return
        import torch

        self._on_device = {name: torch.from_numpy(np.ascontiguousarray(array)).to(device) for name, array in self.arrays.items()}
        self._device = device

    def batch(self, pairs: Sequence[tuple[str, str]], device: str) -> tuple:
        """The model's arguments for ``pairs``, as tensors on ``device`` (its arrays moved there once)."""
        import torch

        self.to(device)
        tensors = self._on_device
        host_rows = np.fromiter((self.row[p] for p in pairs), dtype=np.int64, count=len(pairs))
        rows = torch.from_numpy(host_rows).to(device)
        if self.model == "drmm":
            return tensors["histograms"][rows], tensors["idf"][rows], tensors["mask"][rows]
        from .models import matching_matrices

        query_ids = tensors["query_ids"][tensors["pair_query"][rows]]
        doc_ids = tensors["doc_ids"][tensors["pair_doc"][rows]]
        query_lengths = (query_ids >= 0).sum(dim=1)
        doc_lengths = (doc_ids >= 0).sum(dim=1)
        # no column that is padding in every pair: the longest lengths are read on the host (no wait for the device)
        lengths = self._lengths()
        query_ids = query_ids[:, : max(1, int(lengths[0][host_rows].max()))]
        doc_ids = doc_ids[:, : max(1, int(lengths[1][host_rows].max()))]
        matrices = matching_matrices(self.matching, query_ids, doc_ids, tensors["vectors"], tensors["known"], tensors["stem_ids"],
                                     tensors["word_idf"])
        return matrices, query_lengths, doc_lengths
