"""Reports of an audit: the printed table, JSON, per-query CSV and scatter plots (matplotlib, lazily)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ..atomic import safe_filename, write_outputs
from .result import PERFECT, AuditResult


def _fmt(value: float, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def format_table(result: AuditResult) -> str:
    """The audit as a fixed-width text table (one line per system, perfect and random included)."""
    table = result.table()
    headers = ["system", "GSR", "95% CI", "rel. GSR", "p vs perf.", "queries", "evaluated", *result.measures]
    rows = []
    for name, row in table.iterrows():
        rows.append([
            str(name),
            _fmt(row["GSR"]),
            f"[{_fmt(row['CI low'])}, {_fmt(row['CI high'])}]",
            "-" if name == PERFECT else _fmt(row["rel. GSR"], 3),
            "-" if name == PERFECT else _fmt(row["p vs perfect"], 3),
            f"{int(row['queries'])}/{int(row['queries'] + row['excluded'])}",
            str(int(row["evaluated"])),
            *[_fmt(row[m]) for m in result.measures],
        ])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    direction = result.direction
    notes = [
        f"embeddings {result.embeddings}: gender direction from {len(direction.pairs_used)} pairs, "
        f"explained variance {direction.explained_variance_ratio:.3f}; depth {result.depth}; query field {result.query_field}",
    ]
    perfect = result.perfect.gsr
    if perfect.excluded:
        notes.append("excluded queries: " + "; ".join(f"{n} {reason}" for reason, n in perfect.excluded.items()))
    if math.isfinite(perfect.slope) and abs(perfect.slope) < 1e-12:
        notes.append("relative GSR is n/a: the perfect run's GSR is 0")
    complete = any(a.evaluation is not None and a.evaluation.complete for a in result.systems.values())
    notes.append("measures over " + ("every query of the qrels, 0 where the run has none (trec_eval -c)" if complete
                                     else "the queries both in the run and in the qrels (as trec_eval averages)"))
    counts = result.counts
    notes.append(
        f"documents read {counts.get('documents_read', 0)}, without a measurable term "
        f"{counts.get('documents_without_measurable_term', 0)}"
    )
    return "\n".join(lines + [""] + notes)


def scatter_plot(result: AuditResult, system: str, path: str | Path) -> None:
    """g(q) against g_q(L) for ``system`` with its fitted line and the perfect run's line dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    audit = result.systems[system]
    frame = audit.gsr.per_query[audit.gsr.per_query["used"]]
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    ax.scatter(frame["query_genderedness"], frame["list_genderedness"], s=14, alpha=0.7, label="queries")
    x = frame["query_genderedness"].to_numpy()
    if len(x) >= 2 and np.ptp(x) > 0:
        grid = np.linspace(x.min(), x.max(), 50)
        g = audit.gsr
        ax.plot(grid, g.intercept + g.slope * grid, color="C3", label=f"{system}: GSR = {g.slope:.3f}")
        p = result.perfect.gsr
        if system != PERFECT and math.isfinite(p.slope):
            ax.plot(grid, p.intercept + p.slope * grid, "k--", label=f"perfect: GSR = {p.slope:.3f}")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("query genderedness g(q)  (female > 0 > male)")
    ax.set_ylabel("list genderedness g_q(L)")
    ax.set_title(f"{system} ({result.embeddings}, {audit.gsr.n_queries} queries)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, format=Path(path).suffix.lstrip(".") or "png", dpi=120, bbox_inches="tight")
    plt.close(fig)


def save_audit(result: AuditResult, out_dir: str | Path, plots: bool = True) -> list[Path]:
    """Write ``audit.json``, ``per_query.csv``, ``table.txt`` and one ``scatter_<system>.png`` per system,
    all-or-nothing. Returns the paths written."""
    writers = {
        "audit.json": lambda p: p.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8"),
        "per_query.csv": lambda p: result.per_query().to_csv(p, index=False),
        "table.txt": lambda p: p.write_text(format_table(result) + "\n", encoding="utf-8"),
    }
    if plots:
        for name in result.systems:
            writers[f"scatter_{safe_filename(name)}.png"] = lambda p, name=name: scatter_plot(result, name, p)
    return write_outputs(out_dir, writers)
