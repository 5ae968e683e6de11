"""The answer first: what an audit concludes, in a few sentences and one table, shared by the terminal,
``table.txt`` and ``report.html``.

Sentences: which systems have GSR significantly above (or below) the perfect run's, which pairs of systems
differ significantly in GSR, how many pairs differ on each effectiveness and bias measure, the query that
moves a GSR most, then the warnings one line per kind (:mod:`.alerts`).

Table: one row per system (the perfect and random runs first, as reference rows); each audited system has a
letter, and the ``gsr>`` / ``MAP>`` columns list the letters of the systems it is significantly *higher*
than (adjusted p < α), as IR papers mark significant differences; ``*`` marks a ΔGSR to the perfect run
with adjusted p < α. ``wide`` adds every other column of :meth:`AuditResult.table`.
"""
from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..audit.comparisons import GSR, detectable
from ..audit.effectiveness_only import NOT_MEASURED
from ..audit.kinds import PERFECT
from ..audit.result import AuditResult
from ..measures.ranking_bias import BIAS, EXPOSURE
from ..measures.resampling import CANNOT_DIFFER, DIFFERS, NO_DIFFERENCE, NOT_COMPARED, UNDECIDED
from ..numbers import counted, denoised, fixed, settled
from .bias_summary import attention
from .summary import ci, fmt
from .text_table import fixed_width

WIDTH = 100
BIAS_LABEL = "bias @10"
# what "depth auto" in the verdict's first line means, said once under its table
DEPTH_AUTO = "; depth auto = each query's number of relevant documents"
EXPOSURE_LABEL = "exposure @10"
MARK = "*"


def higher_than(result: AuditResult, measure: str) -> dict[str, str]:
    """Per audited system, the letters of the systems it is significantly higher than on ``measure``."""
    letters = result.letters
    found: dict[str, set[str]] = {name: set() for name in letters}
    rows = result.compared(measure, differing=True)
    for r in rows.itertuples(index=False):
        high, low = (r.a, r.b) if r.delta > 0 else (r.b, r.a)
        if high in found and low in letters:
            found[high].add(letters[low])
    return {name: "".join(sorted(marks)) for name, marks in found.items()}


def _counts(result: AuditResult, measures: Sequence[str], short: bool = False) -> str:
    """``MAP 35, P@10 34``: per measure, the pairs that differ (with ``--baseline``, ``MAP 2 above, 6 below``: the
    systems above and below the baseline), and those that could not decide (``short``: names without @t)."""
    frame = result.comparisons
    baseline = result.inference.baseline
    parts = []
    for measure in measures:
        rows = frame[frame["measure"] == measure]
        if not rows.empty:
            open_ = _open_decisions(rows)
            differ = rows[rows["decision"] == DIFFERS]
            # against a baseline (pairs are (system, baseline)), which way each difference goes
            count = (f"{int((differ['delta'] > 0).sum())} above/{int((differ['delta'] < 0).sum())} below" if baseline
                     else str(len(differ)))
            parts.append(f"{measure.split('@')[0] if short else measure} {count}" + (f" ({open_})" if open_ else ""))
    return ", ".join(parts)


def _open_decisions(rows) -> str:
    """``1 undecided, 2 cannot differ``: the comparisons of ``rows`` that decided neither way, by reason."""
    counts = rows["decision"].value_counts()
    return ", ".join(f"{int(counts[d])} {d}" for d in (UNDECIDED, CANNOT_DIFFER, NOT_COMPARED) if counts.get(d, 0))


def _pair(r, numbers: bool = True) -> str:
    """``high > low (+delta, p_adjusted p)`` of one comparison row."""
    if denoised(r.delta) == 0:  # two systems with the same values: no order to state
        return f"{r.a} = {r.b}" + (f" (p_adjusted {r.p_adjusted:.3f})" if numbers else "")
    high, low, delta = (r.a, r.b, r.delta) if r.delta > 0 else (r.b, r.a, -r.delta)
    return f"{high} > {low}" + (f" (+{fixed(delta)}, p_adjusted {r.p_adjusted:.3f})" if numbers else "")


def sentences(result: AuditResult, limit: int = 4, warnings: bool = True) -> list[str]:
    """The verdict in sentences (see the module docstring), each one line; ``warnings``: end with one line per
    warning kind."""
    if not result.gsr_measured:
        return _effectiveness_sentences(result, warnings)
    inference = result.inference
    alpha = inference.alpha
    audited = result.audited
    # the queries the audited systems' GSR rests on (the perfect run's when no system is audited)
    n_queries = max((a.gsr.n_queries for a in audited), default=result.perfect.gsr.n_queries)
    field = "" if result.query_field == "title" else f", query field {result.query_field}"
    lines = [f"irfair audit: {len(audited)} system{'s' if len(audited) != 1 else ''}, {counted(n_queries, 'query', 'queries')}, "
             f"{result.embeddings}, "
             f"depth {result.depth}{field}, {inference.correction} correction, alpha {alpha:g}"]
    above = [a for a in audited if _significant_delta(a) and a.summary()["delta_gsr"] > 0]
    below = [a for a in audited if _significant_delta(a) and a.summary()["delta_gsr"] < 0]
    if not math.isfinite(result.perfect.gsr.slope) or not audited:
        lines.append("GSR against the perfect run: not tested")
    elif inference.n_permutations == 0:
        lines.append("GSR against the perfect run: not tested (--permutations 0)")
    else:
        def names(group):
            return ", ".join(f"{a.name} ({fixed(a.summary()['delta_gsr'], sign=True)})" for a in group) or "none"
        groups = {d: [a.name for a in audited if a.delta_gsr_decision == d] for d in (UNDECIDED, CANNOT_DIFFER, NOT_COMPARED)}
        if len(groups[CANNOT_DIFFER]) == len(audited):
            n = max(a.gsr.n_queries for a in audited)
            lines.append(f"GSR against the perfect run: no system can differ with {n} queries "
                         f"(the smallest p is {2.0 / 2 ** n:.3g} before the correction)")
        else:
            rest = "".join(f"; {d}: {', '.join(group)}" for d, group in groups.items() if group)
            if not above and not below and not rest:  # what "none" can mean with these queries (each test decided)
                smallest = detectable([a.summary()["delta_gsr_ci_low"] for a in audited],
                                      [a.summary()["delta_gsr_ci_high"] for a in audited], alpha, inference.correction)
                rest += (f"; a difference of about {fixed(smallest, 3)} would be found 80% of the time"
                         if math.isfinite(smallest) else "")
            lines.append(f"GSR against the perfect run: significantly above: {names(above)}; below: {names(below)}{rest}")
    gsr_rows = result.compared(GSR)
    if len(audited) >= 2 and inference.n_permutations > 0 and not gsr_rows.empty:
        found = result.compared(GSR, differing=True).sort_values("p_adjusted", kind="stable")
        open_ = _open_decisions(gsr_rows)
        if found.empty and (gsr_rows["decision"] == CANNOT_DIFFER).all():
            lines.append(f"GSR between systems: no pair can differ with these queries and permutations ({_floor_note(gsr_rows)})")
        elif found.empty and not (gsr_rows["decision"] == NO_DIFFERENCE).any():  # nothing decided either way
            lines.append(f"GSR between systems: no pair could be compared or decided ({open_})")
        elif found.empty:
            tested = gsr_rows[gsr_rows["p"].notna()]
            best = (tested if not tested.empty else gsr_rows).sort_values("p", kind="stable").iloc[0]  # closest by raw p
            none = "the 1 pair does not differ" if len(gsr_rows) == 1 else f"none of {len(gsr_rows)} pairs differs"
            smallest = detectable(gsr_rows["ci95_low"], gsr_rows["ci95_high"], alpha, inference.correction)  # what "none" means
            power = (f"; a difference of about {fixed(smallest, 3)} would be found 80% of the time with these "
                     f"{int(gsr_rows['n_queries'].max())} queries" if math.isfinite(smallest) and not open_ else "")
            lines.append(f"GSR between systems: {none}{' (' + open_ + ')' if open_ else ''} (closest: {_pair(best, numbers=False)}, "
                         f"p_adjusted {best['p_adjusted']:.3f}){power}")
            seen = _gendered_coverage(result)
            if seen:
                lines.append(seen)
        else:
            shown = "; ".join(_pair(r) for r in found.head(limit).itertuples(index=False))
            more = f"; and {len(found) - limit} more" if len(found) > limit else ""
            lines.append(f"GSR between systems: {len(found)} of {len(gsr_rows)} pairs differ: {shown}{more}")
        exposure = result.bias.exposure if result.bias is not None else None
        for label, part in (("effectiveness", _counts(result, list(result.measures))),
                            (BIAS_LABEL, _counts(result, result.headlines_of(BIAS), short=True)),
                            (f"{EXPOSURE_LABEL} ({exposure.described if exposure else ''})",
                             _counts(result, result.headlines_of(EXPOSURE), short=True))):
            if part:
                lines.append(_family_line(result, label, part, len(gsr_rows)))
    seen = _attention(result)
    if seen:
        lines.append(seen)
    moved = _most_influential(result)
    if moved:
        lines.append(moved)
    if warnings:
        lines += [w.line() for w in result.warnings]
    return lines


def _effectiveness_sentences(result: AuditResult, warnings: bool) -> list[str]:
    """The verdict of an audit without a corpus: its header, that GSR was not measured, the effectiveness counts."""
    inference = result.inference
    audited = result.audited
    n_queries = max((a.evaluation.n_queries for a in audited if a.evaluation is not None), default=0)
    lines = [f"irfair audit: {len(audited)} system{'s' if len(audited) != 1 else ''}, {counted(n_queries, 'query', 'queries')}, "
             f"effectiveness only, depth {result.depth}, {inference.correction} correction, alpha {inference.alpha:g}",
             NOT_MEASURED]
    first = result.compared(result.measures[0] if result.measures else None)
    part = _counts(result, list(result.measures))
    if len(audited) >= 2 and inference.n_permutations > 0 and part:
        lines.append(_family_line(result, "effectiveness", part, len(first)))
    return lines + ([w.line() for w in result.warnings] if warnings else [])


def _family_line(result: AuditResult, label: str, counts: str, n: int) -> str:
    """``MAP, pairs differing (of 45): …`` — or, with ``--baseline``, ``against bm25 (of 9 systems)``."""
    baseline = result.inference.baseline
    return f"{label}, {f'against {baseline} (of {n} systems)' if baseline else f'pairs differing (of {n})'}: {counts}"


def _attention(result: AuditResult) -> str | None:
    """``who gets seen @10 (female/male/neither, % of the attention): perfect 0.0/0.2/99.8; bm25 ...``: each system's
    mean share of the top 10's attention by group (AWRF's distribution), beside the perfect run's; None without AWRF."""
    found = attention(result)
    if found is None:
        return None
    cutoff, shares = found
    return f"who gets seen @{cutoff} ({'/'.join(result.bias.exposure.labels)}, % of the attention): {shares}"


def _gendered_coverage(result: AuditResult) -> str | None:
    """``what GSR could see: ...``: per audited system, on how many queries its top 10 holds any word of the first
    term-based bias measure's list (from its ``n_no_gendered_word`` at @10) — few such queries leave little to measure."""
    column = next((c for c in result.headlines_of(BIAS)
                   if c.endswith("@10") and any(a.bias and c in a.bias.no_gendered_word for a in result.audited)), None)
    if column is None:
        return None
    counts = [(a.bias.summaries[column].n_queries, a.bias.summaries[column].n_queries - a.bias.no_gendered_word[column])
              for a in result.audited if a.bias and column in a.bias.no_gendered_word]
    total = max(n for n, _ in counts)
    low, high = min(k for _, k in counts), max(k for _, k in counts)
    span = str(low) if low == high else f"{low}-{high}"
    return (f"what GSR could see: each system's top 10 holds a gendered word ({column.split('@')[0]}'s list) "
            f"on {span} of {total} queries")


def _significant_delta(audit) -> bool:
    return audit.delta_gsr_decision == DIFFERS


def _floor_note(rows) -> str:
    """``smallest p 0.25 with 3 queries``: why no comparison of ``rows`` can reach α."""
    exact = rows[rows["p_se"] == 0]
    if not exact.empty:
        n = int(exact["n_queries"].max())
        return f"{n} queries: the smallest p is {2.0 / 2 ** n:.3g} before the correction over {len(rows)}"
    return f"{int(rows['n_permutations'].max()):,} permutations: the smallest p is {1 / (1 + rows['n_permutations'].max()):.2g}"


def _most_influential(result: AuditResult) -> str | None:
    best = None
    for audit in result.audited:
        frame = audit.influence
        if frame.empty or not math.isfinite(frame["change"].iloc[0]):
            continue
        row = frame.iloc[0]
        if best is None or settled(abs(row["change"])) > settled(abs(best[1]["change"])):  # equal: the first system
            best = (audit, row)
    if best is None:
        return None
    audit, row = best
    pct = f", {row['change_pct']:+.0f}%" if math.isfinite(row["change_pct"]) else ""
    return (f"largest one-query effect: {audit.name}'s GSR {fixed(audit.gsr.slope, sign=True)} becomes "
            f"{fixed(row['gsr_without'], sign=True)} without query {row['qid']}{pct}")


@dataclass(frozen=True)
class VerdictTable:
    """Headers and cells of the verdict table, which columns are numbers, and each row's kind."""

    headers: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    kinds: list[str]


def verdict_table(result: AuditResult, wide: bool = False, measures: Sequence[str] | None = None) -> VerdictTable:
    """The verdict table: letter, system, gsr, gsr_ci95, gsr>, delta_gsr (with ``*``), p_adjusted, the first
    effectiveness measure (or ``measures``) and its letters; ``wide``: every measure and the other columns of
    ``table()``."""
    if not result.gsr_measured:
        return _effectiveness_table(result, wide)
    table = result.table()
    letters = result.letters
    measures = list(result.measures) if wide else list(result.measures[:1] if measures is None else measures)
    marks = {m: higher_than(result, m) for m in [GSR, *measures]}
    headers = ["", "system", "gsr", "gsr_ci95", "gsr>", "delta_gsr", "p_adjusted"]
    if wide:
        headers[6:6] = ["delta_gsr_ci95", "delta_gsr_p"]
        headers += ["relative_gsr_pct", "n_queries", "n_evaluated"]
    for m in measures:
        headers += [m, f"{m}>"] + ([f"{m}_ci95"] if wide else [])
    rows, kinds = [], []
    compared = len(letters) >= 2  # letters mark differences between 2 to 26 systems
    for name, row in table.iterrows():
        kind = row["kind"]
        perfect = kind == PERFECT
        delta = "-" if perfect else fmt(row["delta_gsr"], sign=True) + (MARK if _significant_delta(result.systems[name]) else " ")
        cells = [letters.get(name, ""), str(name), fmt(row["gsr"], sign=True), ci(row["gsr_ci_low"], row["gsr_ci_high"]),
                 marks[GSR].get(name, ""), delta, "-" if perfect else fmt(row["delta_gsr_p_adjusted"], 3)]
        if wide:
            cells[6:6] = ["-" if perfect else ci(row["delta_gsr_ci_low"], row["delta_gsr_ci_high"]),
                          "-" if perfect else fmt(row["delta_gsr_p"], 3)]
            relative = "-" if perfect else ("n/a" if not math.isfinite(row["relative_gsr_pct"]) else f"{row['relative_gsr_pct']:+.1f}%")
            cells += [relative, str(int(row["n_queries"])), str(int(row["n_evaluated"]))]
        for m in measures:
            cells += [fmt(row[m]), marks[m].get(name, "")] + ([ci(row[f"{m}_ci_low"], row[f"{m}_ci_high"])] if wide else [])
        rows.append(cells)
        kinds.append(kind)
    return _table(headers, rows, kinds, compared)


def _effectiveness_table(result: AuditResult, wide: bool) -> VerdictTable:
    """The verdict table without GSR (an audit without a corpus): each measure, its letters (and CI with ``wide``)."""
    table = result.table()
    letters = result.letters
    measures = list(result.measures)
    marks = {m: higher_than(result, m) for m in measures}
    headers = ["", "system", *(h for m in measures for h in ([m, f"{m}>"] + ([f"{m}_ci95"] if wide else [])))]
    headers += ["n_evaluated"] if wide else []
    rows = []
    for name, row in table.iterrows():
        cells = [letters.get(name, ""), str(name)]
        for m in measures:
            cells += [fmt(row[m]), marks[m].get(name, "")] + ([ci(row[f"{m}_ci_low"], row[f"{m}_ci_high"])] if wide else [])
        rows.append(cells + ([str(int(row["n_evaluated"]))] if wide else []))
    return _table(headers, rows, list(table["kind"]), len(letters) >= 2)


def _table(headers: list[str], rows: list[list[str]], kinds: list[str], compared: bool) -> VerdictTable:
    """The verdict table of these cells, without the letter columns when fewer than 2 systems are compared."""
    if not compared:
        keep = [i for i, h in enumerate(headers) if h != "" and not h.endswith(">")]
        headers, rows = [headers[i] for i in keep], [[r[i] for i in keep] for r in rows]
    numeric = [h not in ("", "system") and not h.endswith(">") for h in headers]
    return VerdictTable(headers, rows, numeric, kinds)


def legend(result: AuditResult) -> list[str]:
    """The lines under the verdict table: what the marks mean and how they were tested (the family: the pairs of
    GSR, or without GSR of the first measure)."""
    first = result.measures[0] if result.measures else "MAP"
    measured = result.gsr_measured
    n_pairs = len(result.compared(GSR if measured else first))
    family = "the pair" if n_pairs == 1 else f"the {n_pairs} pairs of each measure" if n_pairs else \
        "the systems" if measured else ""
    depth = [DEPTH_AUTO.removeprefix("; ")] if measured and result.depth == "auto" else []
    tested = [*result.inference.describe_lines(family), *depth]
    lettered = len(result.letters) >= 2
    if not measured:
        return ([f"{', '.join(m + '>' for m in result.measures)}: significantly higher than these letters"] if lettered else []) + tested
    marks = f"; gsr>, {first}>: significantly higher than these letters" if lettered else ""
    return [f"{MARK}: delta_gsr = gsr - gsr(perfect) significant{marks}", *tested]


LONGEST_WORD = 96  # a longer word of a sentence (a long system name) is cut: wrapped with its indent, it fits WIDTH


def elide_long_words(text: str, longest: int = LONGEST_WORD) -> str:
    """``text`` with every word longer than ``longest`` cut to ``longest`` characters ending in ``~`` (as the
    table cuts names), so that wrapped lines stay within :data:`WIDTH`."""
    return " ".join(word if len(word) <= longest else word[:longest - 1] + "~" for word in text.split(" "))


def format_verdict(result: AuditResult, wide: bool = False) -> str:
    """The verdict block: sentences, table, legend and a pointer to the rest (≤ 100 columns unless ``wide``)."""
    table = verdict_table(result, wide)
    said = [part for line in sentences(result) for part in textwrap.wrap(elide_long_words(line), WIDTH, subsequent_indent="    ",
                                                                            break_long_words=False, break_on_hyphens=False)]
    shrink = table.headers.index("system")
    lines = said + [""] + fixed_width(table.headers, table.rows, None if wide else WIDTH, shrink) + [""] + legend(result)
    if not wide:
        lines.append("every column: --wide; every comparison: comparisons.csv or --format tsv|json; details: audit.json")
    return "\n".join(lines)


def comparison_table(result: AuditResult, measure: str = GSR) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of one measure's comparisons (every pair): a, b, delta, ci95, p, p_adjusted, n_queries."""
    frame: pd.DataFrame = result.compared(measure)
    rows = [[r.a, r.b, fmt(r.delta, sign=True), ci(r.ci95_low, r.ci95_high), fmt(r.p, 4), fmt(r.p_adjusted, 4), str(r.n_queries)]
            for r in frame.itertuples(index=False)]
    return ["a", "b", "delta", "ci95", "p", "p_adjusted", "n_queries"], rows
