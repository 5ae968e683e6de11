"""One audit per embedding, and whether their conclusions agree. GSR is measured through a word embedding, so the
embedding is part of the measurement (docs/how-to-read-an-audit.md): the docs advise auditing with more than one.
Effectiveness and the term-based bias measures do not read the embedding — the same in every audit — so what can
differ is GSR's: each system against the perfect run, and each pair of systems.

A conclusion is a decision with its direction: ``above`` / ``below`` (differs, by the sign of the difference),
``no difference``, or why none was reached (``undecided``, ``cannot differ``, ``not compared``). Two embeddings
agree on a comparison when they reach the same conclusion.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..errors import IrfairInputError
from ..measures.resampling import DIFFERS
from .comparisons import GSR
from .core import audit
from .result import AuditResult

COLUMNS = ("comparison", "embeddings", "conclusion")


def split_embeddings(embeddings: str | Sequence) -> list:
    """``"a,b"`` or a sequence as a list of embeddings (names, paths or loaded ones); IrfairInputError for an empty
    name or one given twice."""
    items = [part.strip() for part in embeddings.split(",")] if isinstance(embeddings, str) else list(embeddings)
    names = [str(getattr(item, "name", item)) for item in items]
    if not items or any(not name for name in names) or len(set(names)) != len(names):
        raise IrfairInputError(None, None, f"expected one or more distinct embeddings, got {', '.join(names) or 'none'}")
    return items


def audit_embeddings(runs, qrels, topics, corpus, embeddings: str | Sequence, **options) -> dict[str, AuditResult]:
    """:func:`irfair.audit` once per embedding of ``embeddings`` (``"w2v-gnews-26k,glove-6b-50d"`` or a sequence),
    the same ``options`` for each: ``{embedding name: result}``."""
    if corpus is None:
        raise IrfairInputError(None, None, "embeddings need a corpus: GSR reads the documents (without one, effectiveness only)")
    found: dict[str, AuditResult] = {}
    for embedding in split_embeddings(embeddings):
        result = audit(runs, qrels, topics, corpus, embedding, **options)
        if result.embeddings in found:
            raise IrfairInputError(None, None, f"embeddings {embedding} are {result.embeddings}, given before: give each once")
        found[result.embeddings] = result
    return found


def _conclusion(decision: str | None, delta: float) -> str:
    if decision == DIFFERS:
        return "above" if delta > 0 else "below"
    return decision or "not compared"


def conclusions(results: Mapping[str, AuditResult]) -> pd.DataFrame:
    """One row per GSR comparison and embedding: ``comparison`` (``bm25 vs perfect``, ``bm25 vs qlm``),
    ``embeddings`` and ``conclusion`` (``above`` means the first is higher)."""
    rows = []
    for name, result in results.items():
        for system in result.audited:
            delta = system.summary()["delta_gsr"]
            rows.append((f"{system.name} vs perfect", name, _conclusion(system.delta_gsr_decision, delta)))
        for r in result.compared(GSR).itertuples(index=False):
            rows.append((f"{r.a} vs {r.b}", name, _conclusion(r.decision, r.delta)))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _by_comparison(results: Mapping[str, AuditResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`conclusions`, and the same as one row per comparison (in the audits' order), one column per embedding."""
    frame = conclusions(results)
    table = frame.pivot(index="comparison", columns="embeddings", values="conclusion").reindex(
        list(dict.fromkeys(frame["comparison"])))[list(results)]
    return frame, table


def agreement_record(results: Mapping[str, AuditResult]) -> dict:
    """For JSON: the embeddings, how many GSR comparisons they agree on, and each comparison's conclusions."""
    frame, table = _by_comparison(results)
    return {"embeddings": list(results), "n_comparisons": len(table), "n_agree": int((table.nunique(axis=1) == 1).sum()),
            "lines": _lines(results, table), "conclusions": frame.to_dict(orient="records")}


def agreement_lines(results: Mapping[str, AuditResult], limit: int = 3) -> list[str]:
    """The verdict across embeddings: on how many GSR comparisons every embedding reaches the same conclusion,
    and the first ``limit`` where they do not (each embedding's conclusion)."""
    return _lines(results, _by_comparison(results)[1], limit) if len(results) >= 2 else []


def _lines(results: Mapping[str, AuditResult], table: pd.DataFrame, limit: int = 3) -> list[str]:
    differ = table[table.nunique(axis=1) > 1]
    names = ", ".join(results)
    head = (f"across embeddings ({names}): GSR's conclusions agree on {len(table) - len(differ)} of {len(table)} comparisons "
            "(each system against the perfect run, each pair)")
    if differ.empty:
        return [head + "; effectiveness and the term-based bias measures do not read the embedding"]
    shown = [f"{comparison}: " + ", ".join(f"{e} {c}" for e, c in row.items()) for comparison, row in differ.head(limit).iterrows()]
    more = f"; and {len(differ) - limit} more" if len(differ) > limit else ""
    return [head + "; they differ on " + "; ".join(shown) + more]
