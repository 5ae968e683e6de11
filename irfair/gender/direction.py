"""The gender direction of an embedding and the genderedness of words (Fabris et al., Section 3).

Direction: for each definitional pair (female, male) take both unit vectors minus the pair mean,
stack the 2p centred vectors, and take the first principal component (first right singular vector);
it is oriented so that g("she") > 0 (or, without "she", so that female words score higher).
Word genderedness g(w) = cos(w, direction): positive = female, negative = male.
"""
from __future__ import annotations

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
    """PCA gender direction from definitional (female, male) pairs; raises when fewer than 3 pairs are known."""
    used = tuple((f, m) for f, m in pairs if f in embeddings and m in embeddings)
    missing = tuple(pair for pair in pairs if pair not in used)
    if len(used) < MIN_PAIRS:
        absent = sorted({w for pair in missing for w in pair if w not in embeddings})
        raise IrfairInputError(
            None,
            None,
            f"embeddings {embeddings.name!r} lack the definitional words {', '.join(absent)}: "
            f"at least {MIN_PAIRS} of the {len(pairs)} pairs are needed for a gender direction",
        )
    centred = []
    for female, male in used:
        f_vec = np.asarray(embeddings.vector(female), dtype=np.float64)
        m_vec = np.asarray(embeddings.vector(male), dtype=np.float64)
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
    return GenderDirection(direction, ratio, used, missing, embeddings.name)
