"""Genderedness of queries, documents and ranked lists (Fabris et al., Eqs. 1-2), vectorised.

* g(q): mean of g(w) over the query's tokens, stopwords removed, out-of-vocabulary tokens skipped;
  NaN when no token is left.
* g_q(d): mean of g(w) over the document's tokens with stopwords and query terms (matched by
  inflection key, see :mod:`irfair.text`) removed and out-of-vocabulary tokens skipped; NaN when
  no token is left (an empty document, or one made only of query terms/unknown words).
* g_q(L): sum_k w_k g_q(d_k) / sum_k w_k with w_k = 1/log2(k+1). Documents whose g_q(d) is NaN are
  left out and the remaining weights renormalised (their ranks do not move); NaN when none is left.

Per-document sums S(d) = Σ g(w)·tf(w,d) and counts C(d) = Σ tf(w,d) over in-vocabulary terms come
from one sparse matrix-vector product; a query then only subtracts its own terms' columns, so no
document is re-tokenised per query.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from ..arrays import unique_sorted
from ..cache.arrays import ArraysMemo, inputs_key
from ..corpus.termstore import TermStore
from ..embeddings import Embeddings
from ..text import content_tokens, inflection_key
from .direction import GenderDirection, genderedness_of_rows


def rank_weights(n: int) -> np.ndarray:
    """w_k = 1/log2(k+1) for ranks k = 1..n, shape (n,)."""
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def tied_rank_weights(grades: Sequence[int]) -> np.ndarray:
    """Rank weights where consecutive equal grades share their rank: each tied document gets the
    mean weight of the positions the tie occupies, shape (len(grades),)."""
    weights = rank_weights(len(grades))
    out = np.empty_like(weights)
    start = 0
    for end in range(1, len(grades) + 1):
        if end == len(grades) or grades[end] != grades[start]:
            out[start:end] = weights[start:end].mean()
            start = end
    return out


def list_genderedness(doc_genderedness: np.ndarray, weights: np.ndarray) -> float:
    """g_q(L): weighted mean of per-document genderedness (NaN documents left out); NaN when none is left."""
    values = np.asarray(doc_genderedness, dtype=np.float64)
    valid = ~np.isnan(values)
    if not valid.any():
        return float("nan")
    w = weights[: len(values)][valid]
    return float(np.dot(w, values[valid]) / w.sum())


def tokens_genderedness(embeddings: Embeddings, direction: GenderDirection, tokens: Sequence[str]) -> tuple[float, int, int]:
    """``(mean g(w) over the tokens in the vocabulary, n_tokens_used, n_tokens_oov)``; NaN when none is known."""
    values = genderedness_of_rows(embeddings, direction, embeddings.token_rows(tokens))
    known = ~np.isnan(values)
    value = float(values[known].mean()) if known.any() else float("nan")
    return value, int(known.sum()), int((~known).sum())


def queries_by_genderedness(embeddings: Embeddings, direction: GenderDirection, queries: Mapping[str, str],
                            stopwords: frozenset[str] | None = None) -> tuple[list[tuple[float, str, str]], int]:
    """g(q) of every query ``{qid: text}`` (stopwords removed): ``([(g(q), qid, text), ...] sorted from most male
    to most female, number of queries without an in-vocabulary term)``."""
    scored = []
    for qid, text in queries.items():
        value, _, _ = tokens_genderedness(embeddings, direction, content_tokens(text, stopwords))
        if not np.isnan(value):
            scored.append((value, qid, text))
    scored.sort()
    return scored, len(queries) - len(scored)


def term_columns(term_counts: sp.csr_matrix, term_ids: np.ndarray) -> sp.csr_matrix:
    """The columns ``term_ids`` (ascending array of int64) of a CSR matrix with sorted indices, in that order:
    ``term_counts[:, term_ids]`` without scipy's general column indexing (one look-up per stored entry)."""
    wanted = np.zeros(term_counts.shape[1], dtype=bool)  # a byte a term: stays in the CPU's cache while looked up
    wanted[term_ids] = True
    column = np.zeros(term_counts.shape[1], dtype=np.int32)
    column[term_ids] = np.arange(len(term_ids), dtype=np.int32)
    kept = np.flatnonzero(wanted[term_counts.indices])
    rows = np.searchsorted(term_counts.indptr, kept, side="right") - 1
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=term_counts.shape[0]))]
    return sp.csr_matrix((term_counts.data[kept], column[term_counts.indices[kept]], indptr), shape=(term_counts.shape[0], len(term_ids)))


class GenderednessModel:
    """Word, query, document and list genderedness for one term store, embedding and gender direction.

    Document sums S(d) and counts C(d) are computed for the documents asked about, once each (an audit reads
    a part of a large store); the counts of query-matching terms come from the same documents' rows. With ``memo``
    (the audit's cache, :func:`irfair.cache.arrays.arrays_memo`), the g_q(d) of a set of lists are kept under the
    digest of their rows, their queries' terms, the store's content and the terms' genderedness, and read back by a
    later audit of the same lists (1.2 s of a warm Robust04-sized audit)."""

    def __init__(self, store: TermStore, embeddings: Embeddings, direction: GenderDirection,
                 memo: ArraysMemo | None = None) -> None:
        self.store = store
        self.embeddings = embeddings
        self.direction = direction
        self.memo = memo
        self._state: tuple | None = None
        self._refresh()

    def _refresh(self) -> None:
        """(Re)compute term genderedness and forget document values when the store has changed."""
        state = (self.store.doc_ids, len(self.store.doc_ids), len(self.store.vocab))
        if self._state is not None and self._state[0] is state[0] and self._state[1:] == state[1:]:
            return
        vocab = self.store.vocab
        self.term_genderedness = genderedness_of_rows(self.embeddings, self.direction, self.embeddings.token_rows(vocab))
        known = ~np.isnan(self.term_genderedness)
        self._term_g0 = np.where(known, self.term_genderedness, 0.0)
        self._term_known = known.astype(np.float64)
        self._terms_digest = inputs_key("term genderedness", [self._term_g0, self._term_known], len(vocab))
        n_docs = len(self.store.doc_ids)
        self._doc_sums, self._doc_counts = np.zeros(n_docs), np.zeros(n_docs)
        self._measured = np.zeros(n_docs, dtype=bool)
        self._keys: dict[str, list[int]] = {}
        for term_id, term in enumerate(vocab):
            self._keys.setdefault(inflection_key(term), []).append(term_id)
        self._state = state

    def _document_values(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(S(d), C(d))`` of the store's ``rows``: sums of g(w) and counts of in-vocabulary tokens, arrays of
        shape (len(rows),)."""
        todo = unique_sorted(rows[~self._measured[rows]])
        if len(todo):
            counts = self.store.row_counts(todo)
            self._doc_sums[todo] = counts @ self._term_g0
            self._doc_counts[todo] = counts @ self._term_known
            self._measured[todo] = True
        return self._doc_sums[rows], self._doc_counts[rows]

    def measurable_counts(self, doc_ids: Sequence[str] | np.ndarray) -> np.ndarray:
        """C(d): the tokens of each document with an embedding, shape (len(doc_ids),) (stopwords excluded); the
        documents named by their ids or by their rows in the store (an array of int64)."""
        self._refresh()
        rows = np.asarray(doc_ids if isinstance(doc_ids, np.ndarray) else self.store.doc_rows(doc_ids), dtype=np.int64)
        content = self.store.content_id
        if self.memo is None or content is None or not len(rows):
            return self._document_values(rows)[1]
        return self.memo("measurable", [rows], (content, self._terms_digest), lambda: (self._document_values(rows)[1],),
                         [rows.shape])[0]

    def word_genderedness(self, word: str) -> float:
        """g(w) for one token (NaN when out of vocabulary)."""
        row = self.embeddings.row(word)
        return float("nan") if row < 0 else float(np.asarray(self.embeddings.vectors[row]) @ self.direction.vector)

    def query_tokens(self, query: str) -> list[str]:
        """The query's tokens with stopwords removed (the stoplist of the term store)."""
        return content_tokens(query, self.store.stopwords)

    def query_genderedness(self, query: str) -> tuple[float, int, int]:
        """``(g(q), n_tokens_used, n_tokens_oov)``; g(q) is NaN when no token is in the vocabulary."""
        return tokens_genderedness(self.embeddings, self.direction, self.query_tokens(query))

    def excluded_terms(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Term ids of the store whose inflection key matches a query term (array of int64)."""
        self._refresh()
        ids = [term_id for key in {inflection_key(t) for t in query_tokens} for term_id in self._keys.get(key, ())]
        return np.asarray(sorted(ids), dtype=np.int64)

    def document_genderedness(self, doc_ids: Sequence[str], query_tokens: Sequence[str]) -> np.ndarray:
        """g_q(d) for each document, shape (len(doc_ids),); NaN where no term is left to measure."""
        return self.lists_document_genderedness([doc_ids], [query_tokens])[0]

    def lists_document_genderedness(self, lists: Sequence[Sequence[str] | np.ndarray],
                                    query_tokens: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """g_q(d) of every document of every list (list i measured for the query of ``query_tokens[i]``), one
        array per list; a few sparse products for all lists at once: S(d) and C(d) minus, for each (query,
        document) pair, the counts of the document's terms that match the query's (``excluded``). A list holds
        document ids, or (all lists alike) the documents' rows in the store (arrays of int64)."""
        self._refresh()
        lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        if any(len(docs) and not isinstance(docs, np.ndarray) for docs in lists):
            rows = self.store.doc_rows(itertools.chain.from_iterable(lists))
        else:
            rows = np.concatenate([np.zeros(0, dtype=np.int64), *(np.asarray(docs, dtype=np.int64) for docs in lists)])
        excluded = [self.excluded_terms(tokens) for tokens in query_tokens]
        content = self.store.content_id
        if self.memo is None or content is None or not len(rows):  # a store that is not a published entry: computed
            out = self._lists_values(rows, lengths, excluded)
        else:
            n_excluded = np.fromiter(map(len, excluded), dtype=np.int64, count=len(excluded))
            out, = self.memo("genderedness", [rows, lengths, n_excluded, *excluded], (content, self._terms_digest),
                             lambda: (self._lists_values(rows, lengths, excluded),), [rows.shape])
        return np.split(out, np.cumsum(lengths)[:-1])

    def _lists_values(self, rows: np.ndarray, lengths: np.ndarray, excluded: list[np.ndarray]) -> np.ndarray:
        """:meth:`lists_document_genderedness` of the lists' ``rows`` (concatenated) of ``lengths``, their queries'
        ``excluded`` term ids: one array of shape (len(rows),)."""
        listed, inverse = unique_sorted(rows, return_inverse=True)
        term_counts = self.store.row_counts(listed)  # the listed documents' rows, read once for both uses below
        todo = ~self._measured[listed]
        if todo.any():
            self._doc_sums[listed[todo]] = term_counts[todo] @ self._term_g0
            self._doc_counts[listed[todo]] = term_counts[todo] @ self._term_known
            self._measured[listed[todo]] = True
        sums, counts = self._doc_sums[rows], self._doc_counts[rows]
        n_excluded = np.fromiter(map(len, excluded), dtype=np.int64, count=len(excluded))
        if len(rows) and n_excluded.any():
            terms = unique_sorted(np.concatenate(excluded))
            query_terms = np.zeros((len(lengths), len(terms)), dtype=bool)  # [list, term]: the term matches its query's
            query_terms[np.repeat(np.arange(len(lengths)), n_excluded), np.searchsorted(terms, np.concatenate(excluded))] = True
            pair_counts = term_columns(term_counts, terms)[inverse]  # each listed (query, document) pair's counts of those terms
            pair = np.repeat(np.arange(len(rows)), np.diff(pair_counts.indptr))
            kept = query_terms[np.repeat(np.arange(len(lengths)), lengths)[pair], pair_counts.indices]
            pair, count, term = pair[kept], pair_counts.data[kept], pair_counts.indices[kept]
            # np.bincount adds in input order (each pair's terms in term order, from 0), as a sparse product does
            sums -= np.bincount(pair, weights=count * self._term_g0[terms][term], minlength=len(rows))
            counts -= np.bincount(pair, weights=count * self._term_known[terms][term], minlength=len(rows))
        out = np.full(len(rows), np.nan)
        measurable = counts > 0.5
        out[measurable] = sums[measurable] / counts[measurable]
        return out
