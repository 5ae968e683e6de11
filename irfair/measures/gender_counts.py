"""Per-document counts of female and male words, from a document-term count matrix.

The term-based measures need three numbers per document: how many of its tokens are female words,
how many are male words (summed over the words of each list, each occurrence counted), and how many
tokens it has. All three come from one sparse matrix–vector product each.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import IrfairInputError
from .gender_words import GenderWords


@dataclass(frozen=True)
class GenderedCounts:
    """Arrays of shape (n_docs,), float64, in the matrix's row order.

    ``female``/``male``: occurrences of female/male words; ``length``: all tokens of the document as
    the matrix counts them (the row sum, so after whatever stopword removal built the matrix).
    """

    female: np.ndarray
    male: np.ndarray
    length: np.ndarray


def word_indicators(vocabulary: Sequence[str], gender_words: GenderWords) -> np.ndarray:
    """Shape (n_terms, 2), float64: 1 where a vocabulary term is a female word (column 0) or a male word (column 1)."""
    female = np.fromiter((term in gender_words.female for term in vocabulary), dtype=np.float64, count=len(vocabulary))
    male = np.fromiter((term in gender_words.male for term in vocabulary), dtype=np.float64, count=len(vocabulary))
    return np.stack([female, male], axis=1)


def gendered_word_counts(term_counts: sp.csr_matrix, vocabulary: Sequence[str], gender_words: GenderWords) -> GenderedCounts:
    """Female, male and total token counts per document.

    ``term_counts``: CSR matrix of shape (n_docs, n_terms), term occurrences per document (float64);
    ``vocabulary``: the n_terms lower-case terms of its columns. Words of the lists that are not in
    the vocabulary count zero. The matrix is not modified.
    """
    if not sp.issparse(term_counts) or term_counts.ndim != 2:
        raise IrfairInputError(None, None, "expected a 2-D scipy sparse matrix of term counts")
    n_terms = term_counts.shape[1]
    if len(vocabulary) != n_terms:
        raise IrfairInputError(None, None, f"expected {n_terms} vocabulary terms (one per column), got {len(vocabulary)}")
    female, male = word_indicators(vocabulary, gender_words).T
    matrix = sp.csr_matrix(term_counts, dtype=np.float64)
    return GenderedCounts(
        female=np.asarray(matrix @ female, dtype=np.float64),
        male=np.asarray(matrix @ male, dtype=np.float64),
        length=np.asarray(matrix.sum(axis=1), dtype=np.float64).ravel(),
    )
