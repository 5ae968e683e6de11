"""The gender direction of an embedding and the genderedness of words (Fabris et al., Section 3).

Direction: for each definitional pair (female, male) take both unit vectors minus the pair mean,
stack the 2p centred vectors, and take the first principal component (first right singular vector);
it is oriented so that g("she") > 0 (or, without "she", so that female words score higher).
Word genderedness g(w) = cos(w, direction): positive = female, negative = male.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..embeddings import Embeddings
from ..errors import IrfairInputError

DEFINITIONAL_PAIRS: tuple[tuple[str, str], ...] = (
    ("woman", "man"),
    ("girl", "boy"),
    ("she", "he"),
    ("mother", "father"),
    ("daughter", "son"),
    ("gal", "guy"),
    ("female", "male"),
    ("her", "his"),
    ("herself", "himself"),
    ("mary", "john"),
)

MIN_PAIRS = 3
DEGENERATE = 1e-6


def _definitional_vector(embeddings: Embeddings, word: str) -> np.ndarray:
    """The unit vector of a definitional word; IrfairInputError when it is zero or not finite (the
    gender direction would be undefined)."""
    vector = np.asarray(embeddings.vector(word), dtype=np.float64)
    if not np.all(np.isfinite(vector)) or np.linalg.norm(vector) < DEGENERATE:
        raise IrfairInputError(embeddings.path, None, f"embeddings {embeddings.name!r}: the definitional word {word!r} has a zero or "
                                           "non-finite vector, so the gender direction is undefined")
    return vector


@dataclass(frozen=True)
class GenderDirection:
    """Unit gender direction, shape (dim,), with its PCA explained-variance ratio and the pairs used."""

    vector: np.ndarray
    explained_variance_ratio: float
    pairs_used: tuple[tuple[str, str], ...]
    pairs_missing: tuple[tuple[str, str], ...]
    embeddings_name: str

    def word_genderedness(self, embeddings: Embeddings, words: Iterable[str]) -> np.ndarray:
        """g(w) for each word, shape (n_words,); NaN for out-of-vocabulary words."""
        rows = embeddings.token_rows(words)
        return genderedness_of_rows(embeddings, self, rows)


def genderedness_of_rows(embeddings: Embeddings, direction: GenderDirection, rows: np.ndarray) -> np.ndarray:
    """g for embedding rows (array of int, -1 = OOV → NaN), shape (len(rows),), float64."""
    values = np.full(len(rows), np.nan)
    known = rows >= 0
    if known.any():
        values[known] = np.asarray(embeddings.vectors[rows[known]], dtype=np.float64) @ direction.vector
    return values


def gender_direction(
    embeddings: Embeddings, pairs: Sequence[tuple[str, str]] = DEFINITIONAL_PAIRS
) -> GenderDirection:
    """PCA gender direction from definitional (female, male) pairs. IrfairInputError when fewer than 3
    pairs are known, a definitional word's vector is zero or not finite, or a pair's two words share one
    vector: the direction would be undefined (so no NaN variance is ever reported)."""
    used = tuple((f, m) for f, m in pairs if f in embeddings and m in embeddings)
    missing = tuple(pair for pair in pairs if pair not in used)
    if len(used) < MIN_PAIRS:
        absent = sorted({w for pair in missing for w in pair if w not in embeddings})
        raise IrfairInputError(
            embeddings.path,
            None,
            f"embeddings {embeddings.name!r} lack the definitional words {', '.join(absent)}: "
            f"at least {MIN_PAIRS} of the {len(pairs)} pairs are needed for a gender direction",
        )
    centred = []
    for female, male in used:
        f_vec, m_vec = _definitional_vector(embeddings, female), _definitional_vector(embeddings, male)
        if np.linalg.norm(f_vec - m_vec) < DEGENERATE:
            raise IrfairInputError(embeddings.path, None, f"embeddings {embeddings.name!r}: {female!r} and {male!r} have the same vector, "
                                               "so the pair defines no gender direction")
        mean = (f_vec + m_vec) / 2
        centred.extend([f_vec - mean, m_vec - mean])
    matrix = np.vstack(centred)
    _, singular, right = np.linalg.svd(matrix, full_matrices=False)
    direction = right[0] / np.linalg.norm(right[0])
    if "she" in embeddings:
        sign = np.sign(embeddings.vector("she") @ direction)
    else:
        sign = np.sign(sum((embeddings.vector(f) - embeddings.vector(m)) @ direction for f, m in used))
    direction = direction * (sign if sign != 0 else 1.0)
    ratio = float(singular[0] ** 2 / np.sum(singular**2))
    if not (np.all(np.isfinite(direction)) and math.isfinite(ratio)):
        raise IrfairInputError(embeddings.path, None, f"embeddings {embeddings.name!r}: the gender direction is undefined")
    return GenderDirection(direction, ratio, used, missing, embeddings.name)
