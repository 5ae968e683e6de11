"""Rankers to audit: the :class:`Ranker` protocol, the :data:`RANKERS` registry (data) and
:func:`make_ranker`, the one dispatch used by ``irfair rank``, ``irfair train`` and ``irfair study``.

Families: lexical (BM25, QLM, tf-idf through Lucene; :mod:`.lexical`), embedding averages (add, si;
:mod:`.embedding`) and neural re-rankers (DRMM, MatchPyramid in torch; :mod:`.neural`). Heavy
dependencies (pyserini, torch) are imported only when a ranker of that family is made.
"""
from .base import Ranker, make_ranker
from .registry import EMBEDDING, LEXICAL, NEURAL, RANKERS, Parameter, RankerSpec, rankers_of

__all__ = ["EMBEDDING", "LEXICAL", "NEURAL", "RANKERS", "Parameter", "Ranker", "RankerSpec", "make_ranker", "rankers_of"]
