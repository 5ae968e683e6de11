"""Each audited system against the baseline (``--baseline NAME``), as ranx and PyTerrier print it: per measure the
system's value, its difference from the baseline with the 95% paired CI, the adjusted p, a mark — ▲ significantly
above the baseline, ▼ below, ? undecided — and the queries it wins, ties and loses against the baseline.

The rows are read from the audit's comparisons (pairs (system, baseline), one family per measure) and summary table;
the measures are GSR, the effectiveness measures and the bias measures' headline columns (@10). Renderers: the
terminal and ``table.txt`` (:func:`baseline_lines`), Markdown (:mod:`.formats`), HTML (its report section)
and the dagger marks of the Markdown and LaTeX summary tables (:func:`differs_from_baseline`).
"""
from __future__ import annotations

import textwrap

import pandas as pd

from ..audit.comparisons import GSR
from ..audit.result import AuditResult
from ..measures.resampling import DIFFERS, UNDECIDED
from ..numbers import denoised
from .summary import ci, fmt
from .text_table import fixed_width
from .verdict import WIDTH

UP, DOWN, OPEN = "▲", "▼", "?"
DAGGER = "†"
HEADERS = ("measure", "system", "value", "delta", "95% CI", "p_adjusted", "W/T/L")


def baseline_measures(result: AuditResult) -> list[str]:
    """The measures of the view, in the audit's order: GSR, the effectiveness measures, the bias headlines."""
    present = set(result.comparisons["measure"])
    return [m for m in (GSR, *result.measures, *result.bias_headlines) if m in present]


def mark(decision: str, delta: float) -> str:
    """▲ / ▼ for a difference the test shows (by its sign), ? for an undecided one, nothing otherwise."""
    if decision == DIFFERS and denoised(delta) != 0:
        return UP if delta > 0 else DOWN
    return OPEN if decision == UNDECIDED else ""


def against_baseline(result: AuditResult) -> pd.DataFrame:
    """One row per measure and audited system other than the baseline: ``measure, system, value, baseline_value,
    delta, ci95_low, ci95_high, p_adjusted, decision, mark, wins, ties, losses``; empty without a baseline."""
    baseline = result.inference.baseline
    columns = ["measure", "system", "value", "baseline_value", "delta", "ci95_low", "ci95_high", "p_adjusted", "decision",
               "mark", "wins", "ties", "losses"]
    if baseline is None or result.comparisons.empty:
        return pd.DataFrame(columns=columns)
    table = result.table()
    rows = []
    for measure in baseline_measures(result):
        frame = result.compared(measure, against=baseline)
        for r in frame.itertuples(index=False):
            rows.append({"measure": measure, "system": r.a, "value": table.at[r.a, measure],
                         "baseline_value": table.at[baseline, measure], "delta": r.delta, "ci95_low": r.ci95_low,
                         "ci95_high": r.ci95_high, "p_adjusted": r.p_adjusted, "decision": r.decision,
                         "mark": mark(r.decision, r.delta), "wins": r.wins, "ties": r.ties, "losses": r.losses})
    return pd.DataFrame(rows, columns=columns)


def differs_from_baseline(result: AuditResult) -> dict[str, set[str]]:
    """Per measure, the systems whose difference from the baseline the test shows (the † of the summary tables)."""
    frame = against_baseline(result)
    return {m: set(frame.loc[(frame["measure"] == m) & (frame["decision"] == DIFFERS), "system"]) for m in set(frame["measure"])}


def _wtl(r) -> str:
    return "–" if pd.isna(r.wins) else f"{int(r.wins)}/{int(r.ties)}/{int(r.losses)}"


def baseline_rows(result: AuditResult) -> list[list[str]]:
    """The view's cells (:data:`HEADERS`), the baseline's own value first in each measure's block."""
    frame = against_baseline(result)
    rows = []
    for measure, block in frame.groupby("measure", sort=False):
        rows.append([measure, f"{result.inference.baseline} (baseline)", fmt(block["baseline_value"].iloc[0], sign=measure == GSR),
                     "", "", "", ""])
        for r in block.itertuples(index=False):
            value = fmt(r.value, sign=measure == GSR) + (f" {r.mark}" if r.mark else "")
            rows.append(["", r.system, value, fmt(r.delta, sign=True), ci(r.ci95_low, r.ci95_high), fmt(r.p_adjusted, 4), _wtl(r)])
    return rows


def legend(result: AuditResult) -> str:
    """What the marks and counts mean, with the test's family and α."""
    inference = result.inference
    n = len(result.audited) - 1
    return (f"against {inference.baseline}: {UP}/{DOWN} significantly above/below it, {OPEN} undecided "
            f"({inference.correction} over the {n} systems of each measure, alpha {inference.alpha:g}); delta = system − "
            f"{inference.baseline}; W/T/L: queries where the system is above, equal to, below it (not for gsr)")


def baseline_lines(result: AuditResult, width: int | None = WIDTH) -> list[str]:
    """The view as fixed-width lines for the terminal (empty without a baseline)."""
    rows = baseline_rows(result)
    if not rows:
        return []
    return [*textwrap.wrap(legend(result), width or WIDTH), "", *fixed_width(list(HEADERS), rows, width, 1)]

