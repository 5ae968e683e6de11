"""The straightforward reference implementation of list genderedness: re-tokenises every document
for every query and loops in Python. Slow on purpose; tests and ``scripts/bench_gsr.py`` compare the
vectorised, cached path of :mod:`irfair.genderedness` against it."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..embeddings import Embeddings
from ..text import content_tokens, without_query_terms
from .direction import GenderDirection


def naive_word_genderedness(embeddings: Embeddings, direction: GenderDirection, word: str) -> float | None:
    """g(w) = w · direction for one word; None when out of vocabulary."""
    row = embeddings.row(word)
    if row < 0:
        return None
    return float(np.dot(np.asarray(embeddings.vectors[row], dtype=np.float64), direction.vector))


def naive_list_genderedness(
    embeddings: Embeddings,
    direction: GenderDirection,
    query: str,
    doc_texts: Mapping[str, str],
    ranked_doc_ids: Sequence[str],
    weights: Sequence[float] | None = None,
) -> float:
    """g_q(L) computed from raw text, document by document; NaN when no document is measurable."""
    query_tokens = content_tokens(query)
    total = weight_sum = 0.0
    for rank, doc_id in enumerate(ranked_doc_ids, start=1):
        tokens = without_query_terms(content_tokens(doc_texts[doc_id]), query_tokens)
        values = [v for v in (naive_word_genderedness(embeddings, direction, t) for t in tokens) if v is not None]
        if not values:
            continue
        weight = weights[rank - 1] if weights is not None else 1.0 / math.log2(rank + 1)
        total += weight * sum(values) / len(values)
        weight_sum += weight
    return total / weight_sum if weight_sum else float("nan")
