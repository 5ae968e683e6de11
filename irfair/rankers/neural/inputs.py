"""Model inputs for (query, document) pairs, built once before training (numpy arrays; tensors per batch).

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
    """Inputs of ``model`` ("drmm" or "matchpyramid") for ``pairs``; ``idf`` of query terms (ln N / df)."""

    def __init__(self, model: str, embeddings: Embeddings, query_tokens: Mapping[str, list[str]],
                 doc_tokens: Mapping[str, list[str]], idf: Mapping[str, float], n_docs: int,
                 pairs: Sequence[tuple[str, str]], doc_len: int = 300, n_bins: int = DEFAULT_BINS,
                 matching: str = "cosine", tick: Callable[[], None] | None = None) -> None:
        self.model = model
        self.matching = matching
        self.row = {pair: i for i, pair in enumerate(pairs)}
        longest_query = max([len(query_tokens[qid]) for qid, _ in pairs] + [1])
        if model == "drmm":
            n = len(pairs)
            self.histograms = np.zeros((n, longest_query, n_bins), dtype=np.float32)
            self.idf = np.zeros((n, longest_query), dtype=np.float32)
            self.mask = np.zeros((n, longest_query), dtype=bool)
            self.mask[:, 0] = True  # a query without content tokens keeps one (empty) term
            for i, (qid, doc) in enumerate(pairs):
                terms = query_tokens[qid]
                if terms:
                    self.histograms[i, : len(terms)] = matching_histograms(embeddings, terms, doc_tokens[doc], n_bins)
                    self.idf[i, : len(terms)] = [idf[t] for t in terms]
                    self.mask[i, : len(terms)] = True
                if tick is not None:
                    tick()
            return
        queries = sorted({qid for qid, _ in pairs})
        docs = sorted({doc for _, doc in pairs})
        words = sorted({t for q in queries for t in query_tokens[q]} | {t for d in docs for t in doc_tokens[d][:doc_len]})
        scale = math.log(max(n_docs, 2))
        self.vocabulary = LocalVocabulary(embeddings, words, {t: value / scale for t, value in idf.items()})
        query_index = {qid: i for i, qid in enumerate(queries)}
        doc_index = {doc: i for i, doc in enumerate(docs)}
        self.query_ids = np.stack([self.vocabulary.ids(query_tokens[q], longest_query) for q in queries])
        longest_doc = max([min(len(doc_tokens[d]), doc_len) for d in docs] + [1])
        self.doc_ids = np.stack([self.vocabulary.ids(doc_tokens[d], longest_doc) for d in docs])
        self.pair_query = np.array([query_index[q] for q, _ in pairs], dtype=np.int64)
        self.pair_doc = np.array([doc_index[d] for _, d in pairs], dtype=np.int64)
        self._tensors = None

    def batch(self, pairs: Sequence[tuple[str, str]], device) -> tuple:
        """The model's arguments for ``pairs``, as tensors on ``device``."""
        import torch

        rows = np.array([self.row[p] for p in pairs], dtype=np.int64)
        if self.model == "drmm":
            return (torch.from_numpy(self.histograms[rows]).to(device), torch.from_numpy(self.idf[rows]).to(device),
                    torch.from_numpy(self.mask[rows]).to(device))
        from .models import matching_matrices

        if self._tensors is None or self._tensors[0].device != torch.device(device):
            v = self.vocabulary
            self._tensors = tuple(torch.from_numpy(a).to(device) for a in (v.vectors, v.known, v.stem_ids, v.idf))
        query_ids = self.query_ids[self.pair_query[rows]]
        doc_ids = self.doc_ids[self.pair_doc[rows]]
        query_lengths = (query_ids >= 0).sum(axis=1)
        doc_lengths = (doc_ids >= 0).sum(axis=1)
        query_ids = query_ids[:, : max(1, int(query_lengths.max()))]  # no column that is padding in every pair
        doc_ids = doc_ids[:, : max(1, int(doc_lengths.max()))]
        q, d = torch.from_numpy(query_ids).to(device), torch.from_numpy(doc_ids).to(device)
        matrices = matching_matrices(self.matching, q, d, *self._tensors)
        return matrices, torch.from_numpy(query_lengths).to(device), torch.from_numpy(doc_lengths).to(device)
