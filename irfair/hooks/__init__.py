"""Integrations with retrieval pipelines: :mod:`.pyserini` (``AuditingSearcher``, ``audit_searchers``; importing it prepares
Java 21 for pyserini) and :mod:`.pyterrier` (extra ``pyterrier``). Each is imported on first use, so importing one
never touches the other's Java."""
from __future__ import annotations

import importlib

_EXPORTS = {"AuditingSearcher": ".pyserini", "audit_lists": ".pyserini", "audit_searchers": ".pyserini",
            "Genderedness": ".pyterrier", "gsr_experiment": ".pyterrier", "bias_measures": ".pyterrier",
            "bias_measure_of": ".pyterrier"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
