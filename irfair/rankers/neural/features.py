"""Inputs of the neural rankers, built from frozen unit word vectors (numpy; no torch here).

* **Matching words.** Two tokens *match* when they are the same word or share a Porter stem
  (:func:`stem`; the DRMM paper stems with Krovetz, the BM25 candidates of Anserini with Porter).
  Matching on the stem lets the models see the exact-match signal their BM25 candidates see: DRMM's
  MAP on Vaswani went from 0.224 (same word only) to 0.253 (BM25: 0.261), on TIME from 0.644 to 0.620
  (Porter also joins words apart in meaning: communist and community are both "commun"); irfair's
  plural-only key (:func:`irfair.text.inflection_key`) gave 0.241 / 0.625. With the same-word bin split
  from the same-stem bin (below) TIME is back at 0.635 (5-fold CV, 3 seeds; ``docs/rankers/neural.md``).
* **Matching histograms** (DRMM, Guo et al. 2016, eq. 2 and its LCH variant): for each query term,
  every document token falls into one of ``n_bins`` bins: ``n_bins − 2`` equal bins of the cosine
  similarity over [−1, 1], one bin for tokens with the query term's stem that are another word, and one
  for the query term itself; the counts are log-transformed, log(1 + count) ("LCH"). The paper's 30 bins
  are 29 similarity bins and one exact-match bin; irfair keeps the 29 and splits the exact-match bin in
  two ("same word", "same stem"), 31 bins: the split raised TIME's MAP from 0.620 to 0.635 and left
  Vaswani's unchanged (0.253); 28 similarity bins instead of 29 gave Vaswani 0.249. Tokens missing from
  the embeddings count only in the two matching bins.
* **Query-term IDF** for DRMM's term gating: ln(N / df), df counting the documents that hold any word
  with the term's stem.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from ...embeddings import Embeddings

DEFAULT_BINS = 31


@lru_cache(maxsize=1)
def _porter():
    from gensim.parsing.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=1_000_000)
def stem(token: str) -> str:
    """The Porter stem of a lower-case token (``liquids`` → ``liquid``, ``techniques`` → ``techniqu``)."""
    return _porter().stem(token)


def histogram_bin(similarity: np.ndarray, n_bins: int = DEFAULT_BINS) -> np.ndarray:
    """Similarity bin of each cosine: [−1, 1] split into ``n_bins − 2`` equal bins (a cosine of 1 falls
    in the last of them); array of int64 in 0 … n_bins − 3, shape of ``similarity``."""
    n_similarity = n_bins - 2
    bins = np.floor((np.asarray(similarity, dtype=np.float64) + 1.0) * n_similarity / 2.0).astype(np.int64)
    return np.clip(bins, 0, n_similarity - 1)


def matching_histograms(embeddings: Embeddings, query_tokens: Sequence[str], doc_tokens: Sequence[str],
                        n_bins: int = DEFAULT_BINS, log_counts: bool = True) -> np.ndarray:
    """DRMM input for one (query, document) pair, shape (len(query_tokens), n_bins): per query term the
    counts of document tokens in the similarity bins, the same-stem bin (``n_bins − 2``) and the same-word
    bin (``n_bins − 1``), as log(1 + count) unless ``log_counts`` is False."""
    if n_bins < 3:
        raise ValueError("a matching histogram needs at least 3 bins")
    out = np.zeros((len(query_tokens), n_bins))
    if not doc_tokens:
        return out
    codes: dict[str, int] = {}  # each distinct document word → a code; its stem → a code
    doc_codes = np.fromiter((codes.setdefault(token, len(codes)) for token in doc_tokens), np.int64, len(doc_tokens))
    stem_codes: dict[str, int] = {}
    word_stems = np.fromiter((stem_codes.setdefault(stem(word), len(stem_codes)) for word in codes), np.int64, len(codes))
    doc_stems = word_stems[doc_codes]
    doc_rows = embeddings.token_rows(codes)[doc_codes]
    known = doc_rows >= 0
    doc_vectors = np.asarray(embeddings.vectors[doc_rows[known]], dtype=np.float64)
    n_similarity = n_bins - 2
    for i, (token, row) in enumerate(zip(query_tokens, embeddings.token_rows(query_tokens))):
        same_word = doc_codes == codes.get(token, -1)
        same_stem = (doc_stems == stem_codes.get(stem(token), -1)) & ~same_word
        out[i, n_bins - 1] = np.count_nonzero(same_word)
        out[i, n_bins - 2] = np.count_nonzero(same_stem)
        if row < 0 or not known.any():
            continue
        similarity = doc_vectors @ np.asarray(embeddings.vectors[row], dtype=np.float64)
        other = ~(same_word | same_stem)[known]
        out[i, :n_similarity] += np.bincount(histogram_bin(similarity[other], n_bins), minlength=n_similarity)
    return np.log1p(out) if log_counts else out


def stem_idf(query_terms: Sequence[str], vocabulary: Sequence[str], doc_frequency_of_terms) -> dict[str, float]:
    """ln(N / df) of each query term, df the number of documents holding any vocabulary word with the term's
    stem. ``doc_frequency_of_terms(term_ids: list[list[int]]) -> (N, [df of each group])`` counts documents
    holding any term of each group; a stem absent from the collection gets ln(N) (as if in one document)."""
    stems = sorted({stem(term) for term in query_terms})
    position = {s: i for i, s in enumerate(stems)}
    groups: list[list[int]] = [[] for _ in stems]
    for term_id, word in enumerate(vocabulary):
        i = position.get(stem(word))
        if i is not None:
            groups[i].append(term_id)
    n_docs, frequencies = doc_frequency_of_terms(groups)
    n = max(1, n_docs)
    idf_of_stem = {s: math.log(n / df) if df > 0 else math.log(n) for s, df in zip(stems, frequencies)}
    return {term: idf_of_stem[stem(term)] for term in query_terms}


class LocalVocabulary:
    """The words of the queries and candidate documents: unit vectors (zero rows for words without one),
    which words have a vector, their stem ids, and their IDF (0 for document-only words)."""

    def __init__(self, embeddings: Embeddings, words: Sequence[str], idf: Mapping[str, float]) -> None:
        self.words = list(words)
        self.index = {word: i for i, word in enumerate(self.words)}
        rows = embeddings.token_rows(self.words)
        self.known = rows >= 0
        self.vectors = np.zeros((len(self.words), embeddings.dim), dtype=np.float32)
        self.vectors[self.known] = embeddings.vectors[rows[self.known]]
        stem_id: dict[str, int] = {}
        self.stem_ids = np.array([stem_id.setdefault(stem(word), len(stem_id)) for word in self.words], dtype=np.int64)
        self.idf = np.array([idf.get(word, 0.0) for word in self.words], dtype=np.float32)

    def ids(self, tokens: Sequence[str], length: int) -> np.ndarray:
        """Local ids of ``tokens``, padded with −1 (or cut) to ``length``; array of int64."""
        out = np.full(length, -1, dtype=np.int64)
        kept = tokens[:length]
        out[: len(kept)] = [self.index[token] for token in kept]
        return out
