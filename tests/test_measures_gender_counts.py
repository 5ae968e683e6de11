"""Per-document female/male/total counts from a term-count matrix (irfair.measures.gender_counts)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from irfair.errors import IrfairInputError
from irfair.measures.gender_counts import gendered_word_counts
from irfair.measures.gender_words import GenderWords

VOCABULARY = ["he", "she", "nurse", "him", "her", "doctor"]
WORDS = GenderWords(female=frozenset({"she", "her", "queen"}), male=frozenset({"he", "him"}), source="test")


def test_counts_per_document():
    """Rows (term counts over he, she, nurse, him, her, doctor):
    doc 0: he×2, nurse×1, him×1      → female 0, male 2+1 = 3, length 4
    doc 1: she×1, her×3, doctor×2    → female 1+3 = 4, male 0, length 6
    doc 2: nurse×5                   → female 0, male 0, length 5
    "queen" is not in the vocabulary and counts nothing."""
    dense = np.array([[2, 0, 1, 1, 0, 0], [0, 1, 0, 0, 3, 2], [0, 0, 5, 0, 0, 0]], dtype=np.float64)
    matrix = sp.csr_matrix(dense)
    counts = gendered_word_counts(matrix, VOCABULARY, WORDS)
    np.testing.assert_array_equal(counts.female, [0, 4, 0])
    np.testing.assert_array_equal(counts.male, [3, 0, 0])
    np.testing.assert_array_equal(counts.length, [4, 6, 5])
    np.testing.assert_array_equal(matrix.toarray(), dense)


def test_integer_matrix_and_empty_collection():
    matrix = sp.csr_matrix(np.array([[1, 1, 0, 0, 0, 0]], dtype=np.int32))
    counts = gendered_word_counts(matrix, VOCABULARY, WORDS)
    assert (counts.female.dtype, counts.female[0], counts.male[0], counts.length[0]) == (np.float64, 1.0, 1.0, 2.0)
    empty = gendered_word_counts(sp.csr_matrix((0, 6)), VOCABULARY, WORDS)
    assert empty.female.shape == empty.male.shape == empty.length.shape == (0,)


def test_vocabulary_must_match_the_columns():
    with pytest.raises(IrfairInputError, match="expected 6 vocabulary terms"):
        gendered_word_counts(sp.csr_matrix((2, 6)), VOCABULARY[:5], WORDS)
    with pytest.raises(IrfairInputError, match="sparse matrix"):
        gendered_word_counts(np.zeros((2, 6)), VOCABULARY, WORDS)
