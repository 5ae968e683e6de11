"""Rankers to audit: the :class:`Ranker` protocol, the :data:`RANKERS` registry (data) and
:func:`make_ranker`, the one dispatch used by ``irfair rank``, ``irfair train`` and ``irfair study``.

Families: lexical (BM25, QLM, tf-idf through Lucene; :mod:`.lexical`), embedding averages (add, si;
:mod:`.embedding`) and neural re-rankers (DRMM, MatchPyramid in torch; :mod:`.neural`). Importing this
package loads only the registry; :func:`make_ranker` and the families load their dependencies (numpy,
pyserini, torch) when first used.
"""
from __future__ import annotations

import importlib

from .registry import EMBEDDING, LEXICAL, NEURAL, RANKERS, Parameter, RankerSpec, rankers_of

__all__ = ["EMBEDDING", "LEXICAL", "NEURAL", "RANKERS", "Parameter", "Ranker", "RankerSpec", "make_ranker", "rankers_of"]


def __getattr__(name: str):
    if name in ("Ranker", "make_ranker"):
        value = getattr(importlib.import_module(f"{__name__}.base"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
