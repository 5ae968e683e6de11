"""Inputs of the neural rankers, built from frozen unit word vectors.

* Matching histograms (DRMM, Guo et al. 2016): for each query term, the cosine similarities with every
  document token fall into ``n_bins`` bins: ``n_bins − 1`` equal bins over [−1, 1) and one bin for exact
  matches (cosine 1, i.e. the same word); counts are log-transformed, log(1 + count) ("LCH").
  A query or document token missing from the embeddings still counts in the exact-match bin when the
  two tokens are the same word, and nowhere else.
* Similarity matrices (MatchPyramid, Pang et al. 2016): cosine of every query token with every
  document token, zero for padding and out-of-vocabulary tokens, shape (query_len, doc_len).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...embeddings import Embeddings

DEFAULT_BINS = 30


def histogram_bin(similarity: np.ndarray, n_bins: int = DEFAULT_BINS) -> np.ndarray:
    """Bin index of each cosine: [−1, 1) split into n_bins − 1 equal bins, exact match (≥ 1 − 1e-6) last."""
    width = 2.0 / (n_bins - 1)
    bins = np.floor((np.asarray(similarity) + 1.0) / width).astype(np.int64)
    bins = np.clip(bins, 0, n_bins - 2)
    return np.where(np.asarray(similarity) >= 1 - 1e-6, n_bins - 1, bins)


def matching_histograms(embeddings: Embeddings, query_tokens: Sequence[str], doc_tokens: Sequence[str],
                        n_bins: int = DEFAULT_BINS, log_counts: bool = True) -> np.ndarray:
    """DRMM input for one (query, document) pair, shape (len(query_tokens), n_bins)."""
    out = np.zeros((len(query_tokens), n_bins))
    if not doc_tokens:
        return out
    q_rows = embeddings.token_rows(query_tokens)
    d_rows = embeddings.token_rows(doc_tokens)
    d_known = d_rows >= 0
    doc_vectors = np.asarray(embeddings.vectors[d_rows[d_known]], dtype=np.float64)
    doc_array = np.asarray(doc_tokens)
    for i, (token, row) in enumerate(zip(query_tokens, q_rows)):
        exact = doc_array == token
        out[i, n_bins - 1] += exact.sum()
        if row < 0 or not d_known.any():
            continue
        similarity = doc_vectors @ np.asarray(embeddings.vectors[row], dtype=np.float64)
        bins = histogram_bin(similarity, n_bins)
        # exact matches are already counted; a different word with cosine 1 is counted in the top bin
        not_same = ~exact[d_known]
        np.add.at(out[i], bins[not_same], 1)
    return np.log1p(out) if log_counts else out


def similarity_matrix(embeddings: Embeddings, query_tokens: Sequence[str], doc_tokens: Sequence[str],
                      query_len: int, doc_len: int) -> np.ndarray:
    """MatchPyramid input for one pair, shape (query_len, doc_len): cosines, zero-padded/truncated."""
    out = np.zeros((query_len, doc_len), dtype=np.float32)
    q = list(query_tokens)[:query_len]
    d = list(doc_tokens)[:doc_len]
    q_rows, d_rows = embeddings.token_rows(q), embeddings.token_rows(d)
    q_vectors = np.zeros((len(q), embeddings.dim), dtype=np.float32)
    d_vectors = np.zeros((len(d), embeddings.dim), dtype=np.float32)
    q_vectors[q_rows >= 0] = embeddings.vectors[q_rows[q_rows >= 0]]
    d_vectors[d_rows >= 0] = embeddings.vectors[d_rows[d_rows >= 0]]
    out[: len(q), : len(d)] = q_vectors @ d_vectors.T
    for i, token in enumerate(q):  # same word, even out of vocabulary, is an exact match
        out[i, : len(d)][np.asarray(d) == token] = 1.0
    return out
