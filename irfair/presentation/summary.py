"""The audit's summary for people: the fixed-width table with CIs and the footnotes under it (which
relative values are n/a and why, exclusions per reason, documents, warnings). Shared by the printed
table, ``table.txt`` and ``report.html``.

Column names are those of :meth:`AuditResult.table` (see :mod:`.result`); the text table joins each CI
into one ``[low, high]`` column named ``gsr_ci95`` / ``delta_gsr_ci95``.
"""
from __future__ import annotations

import math

from ..audit.kinds import PERFECT
from ..audit.result import AuditResult
from ..numbers import fixed
from .text_table import fixed_width

CI_NOTE = ("gsr_ci95, delta_gsr_ci95: 95% CIs, every slope the wild bootstrap / randomization test keeps; "
           "delta_gsr = gsr - gsr(perfect), delta_gsr_p: paired randomization test")
EFFECTIVENESS_CI_NOTE = "_ci95: 95% BCa bootstrap CIs of the means over queries; letters: paired randomization tests"

fmt = fixed  # a number for people: n/a for None/NaN, fixed digits, noise printed as 0 (irfair.numbers)


def ci(low, high, digits: int = 4) -> str:
    """``[low, high]`` or ``n/a``."""
    if any(v is None or not math.isfinite(v) for v in (low, high)):
        return "n/a"
    return f"[{fixed(low, digits, sign=True)}, {fixed(high, digits, sign=True)}]"


def summary_rows(result: AuditResult) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted cells of the summary table (shared by the text table and the HTML report)."""
    headers = ["system", "gsr", "gsr_ci95", "delta_gsr", "delta_gsr_ci95", "delta_gsr_p", "p_adjusted", "relative_gsr_pct",
               "n_queries", "n_evaluated", *result.measures]
    note = result.relative_gsr_note
    rows = []
    for name, row in result.table().iterrows():
        perfect = row["kind"] == PERFECT
        relative = "n/a*" if note else (f"{row['relative_gsr_pct']:+.1f}%" if math.isfinite(row["relative_gsr_pct"]) else "n/a")
        rows.append([
            str(name), fmt(row["gsr"], sign=True), ci(row["gsr_ci_low"], row["gsr_ci_high"]),
            "-" if perfect else fmt(row["delta_gsr"], sign=True),
            "-" if perfect else ci(row["delta_gsr_ci_low"], row["delta_gsr_ci_high"]),
            "-" if perfect else fmt(row["delta_gsr_p"], 3),
            "-" if perfect else fmt(row["delta_gsr_p_adjusted"], 3),
            "-" if perfect else relative,
            str(int(row["n_queries"])),
            str(int(row["n_evaluated"])),
            *[fmt(row[m]) for m in result.measures],
        ])
    return headers, rows


def footnotes(result: AuditResult, after_verdict: bool = False) -> list[str]:
    """The lines under the table: CIs, relative GSR, setting, exclusions per reason, documents, warnings
    (``after_verdict``: without the test setting and the warnings, which the verdict already says)."""
    if not result.gsr_measured:  # an audit without a corpus: effectiveness only
        return _effectiveness_footnotes(result, after_verdict)
    lines = [CI_NOTE] if after_verdict else [CI_NOTE, *result.inference.describe_lines()]
    if result.relative_gsr_note:  # after the verdict, * marks significance: the note stands alone
        lines.append(result.relative_gsr_note if after_verdict else f"* {result.relative_gsr_note}")
    direction = result.direction
    lines.append(f"embeddings {result.embeddings}: gender direction from {len(direction.pairs_used)} pairs, explained variance "
                 f"{direction.explained_variance_ratio:.3f}; depth {result.depth}; query field {result.query_field}")
    counts = result.counts
    excluded = result.query_exclusions
    total = counts.get("topics", result.perfect.gsr.n_queries + result.perfect.gsr.n_excluded)
    reasons = "; ".join(f"{n} {reason}" for reason, n in sorted(excluded.items(), key=lambda item: -item[1]))
    lines.append(f"queries: {total} topics, {result.perfect.gsr.n_queries} used by the perfect run"
                 + (f"; excluded from every system: {reasons}" if reasons else ""))
    extra = []
    for name, audit in result.systems.items():
        more = {r: n - excluded.get(r, 0) for r, n in audit.gsr.excluded.items() if n > excluded.get(r, 0)}
        extra += [f"{name} {n} {reason}" for reason, n in more.items()]
    if extra:
        lines.append("also excluded: " + "; ".join(extra))
    complete = any(a.evaluation is not None and getattr(a.evaluation, "complete", False) for a in result.systems.values())
    lines.append("n_queries: queries GSR uses; n_evaluated: queries the measures average over, "
                 + ("every query of the qrels, 0 where the run has none (trec_eval -c)" if complete
                    else "those both in the run and in the qrels (as trec_eval averages)"))
    if "documents_measured" in counts:
        in_corpus = counts.get("documents_in_corpus")
        lines.append(("" if in_corpus is None else f"documents: {in_corpus} in the corpus, ")
                     + f"{counts['documents_measured']} measured, {counts['documents_without_measurable_term']} without a measurable term")
    if not after_verdict:
        lines += [w.line() for w in result.warnings]
    return lines


def _effectiveness_footnotes(result: AuditResult, after_verdict: bool) -> list[str]:
    """The footnotes of an audit without a corpus: CIs, queries, how the measures average, warnings."""
    complete = any(a.evaluation is not None and getattr(a.evaluation, "complete", False) for a in result.systems.values())
    source = "topics" if result.provenance.get("inputs", {}).get("topics") else "qrels queries"
    lines = [EFFECTIVENESS_CI_NOTE] if after_verdict else [EFFECTIVENESS_CI_NOTE, *result.inference.describe_lines()]
    lines.append(f"queries: {result.counts.get('topics', 0)} {source}, {result.counts.get('queries_with_relevant', 0)} with a "
                 "relevant document; n_evaluated: queries the measures average over, "
                 + ("every query of the qrels (trec_eval -c)" if complete
                    else "those both in the run and in the qrels (as trec_eval averages)"))
    return lines + ([] if after_verdict else [w.line() for w in result.warnings])


def format_table(result: AuditResult) -> str:
    """The audit as a fixed-width text table (one line per system, perfect and random included) with footnotes."""
    headers, rows = summary_rows(result)
    return "\n".join(fixed_width(headers, rows) + [""] + footnotes(result))
