"""``report.html``: one self-contained page per audit, read from the top — the verdict (``#verdict``, inside
the first screen), the forest plot of ΔGSR to the perfect run (``#forest``), the trade-off of GSR against
the first effectiveness measure with its Pareto front (``#tradeoff``), the pairwise comparisons as matrices
(``#comparisons``), the bias measures at @10 (other cut-offs folded), the warnings (folded), the queries that
move each GSR most, the scatter plots on one y range, then folded details: the full summary, the measures'
agreement, the per-query table (sortable, filterable), excluded queries, definitions and provenance.
Everything fits 1280 px without a horizontal scrollbar. CSS and JavaScript are inlined from
``irfair/data/report/``; nothing is loaded from the network. The building blocks (:func:`page`,
:func:`table`) serve the study's page too.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np

from ..audit.comparisons import GSR
from ..audit.result import PERFECT, RANDOM, AuditResult
from ..measures.resampling import DIFFERS
from .baseline_view import HEADERS as BASELINE_HEADERS
from .baseline_view import baseline_rows
from .baseline_view import legend as baseline_legend
from .bias_summary import agreement_footnotes, agreement_rows, bias_footnotes, bias_rows
from .html_toolkit import esc, filter_box, header, key_values, notes, page, table
from .plots import scatter_svg, shared_y_range
from .summary import ci, fmt, footnotes, summary_rows
from .svg import forest_svg, tradeoff_svg
from .verdict import MARK, legend, sentences, verdict_table

MATRIX_MAX_SYSTEMS = 16

DEFINITIONS = (
    ("g(w)", "cosine of the word's unit vector with the gender direction (first principal component of the 10 "
             "definitional pairs, oriented so that g(she) > 0): female > 0 > male."),
    ("g(q)", "mean g(w) over the query's tokens without stopwords; tokens without a vector are skipped."),
    ("g_q(d)", "mean g(w) over the document's tokens without stopwords and without the query's terms (matched up to "
               "simple plural inflection)."),
    ("g_q(L)", "Σ w_k g_q(d_k) / Σ w_k with w_k = 1/log2(k+1) over the list cut at the audited depth; documents with no "
               "measurable token are left out and the other weights renormalised."),
    ("gsr", "Gender Stereotype Reinforcement (Fabris et al., IP&M 2020): OLS slope of g_q(L) on g(q) over the used queries, "
            "with a 95% CI over queries (gsr_ci_low, gsr_ci_high): every slope δ that the wild bootstrap test of "
            "\"the slope is δ\" (Rademacher signs on the restricted residuals, scaled by √(n/(n − 1))) does not reject."),
    ("perfect run", "per query, every relevant document by grade (equal grades share their rank weight), cut at the depth."),
    ("random run", "per query, K documents drawn without replacement from every document of the corpus, seeded by "
                   "(seed, query id): the same whichever runs are audited."),
    ("delta_gsr", "gsr − gsr(perfect) over the queries both use, with its 95% CI (the δ the paired test does not reject) "
                  "and the two-sided p of the "
                  "paired randomization test (swapping the two runs' g_q(L) per query); p_adjusted: corrected over the audited systems."),
    ("comparisons", "for each pair of audited systems and each measure: delta = value(a) − value(b) over the queries both have, "
                    "its 95% CI (every δ the paired test, on its own permutations, does not reject: it excludes 0 exactly when p < α), "
                    "the paired randomization p ((count + 1)/(B + 1), or exact over all 2^n sign flips) and p_adjusted, corrected over "
                    "the pairs of that measure. Overlapping CIs are not a test: only p_adjusted says whether two systems differ."),
    ("Pareto front", "the audited systems that no other system beats on both lower GSR and higher effectiveness; a system's share is "
                     "the fraction of bootstrap resamples of the queries in which it is on the front."),
    ("influence", "GSR recomputed without each query in turn (leave one out); a large change means one query carries the result."),
    ("relative_gsr_pct", "100 · delta_gsr / gsr(perfect), reported only when the perfect run's GSR is positive and its CI "
                         "excludes 0 (otherwise n/a: a ratio to a value that may be 0 explodes and flips sign)."),
    ("ties", "a run's documents are ranked by score, ties by document id descending (trec_eval's rule)."),
    ("rab_tc@t, rab_bool@t", "RaB (Rekabsaz & Schedl, SIGIR 2020): mean male minus mean female magnitude of the top t documents "
                             "(tc: occurrences of the list's words; bool: 1 if any); > 0 male-leaning."),
    ("arab_tc@t, arab_bool@t", "ARaB: RaB averaged over the cut-offs 1..t."),
    ("nfairr@t", "NFaiRR (Rekabsaz et al., SIGIR 2021): Σ ω(d_i)/log2(i+1) over the top t, divided by its best value over the "
                 "query's candidates (a system's top 100, or a background run's top documents); "
                 "ω(d) = 1 − |n_f − n_m|/(n_f + n_m), 1 for at most one gendered word."),
    ("texfair@t", "TExFAIR (Abolghasemi et al., ECIR 2024): 1 − RBDF · |GE_f − GE_m|/(GE_f + GE_m), GE_r the rank-biased "
                  "(0.8^(i−1)) exposure of gender r's words, RBDF the share of attention on documents with any of them; the "
                  "browsing model and RBDF are irfair's reading of the paper."),
    ("agreement", "Kendall τ-b between the audited systems' orderings by two measures; Pearson r between their per-query "
                  "values pooled over the systems."),
)


def definitions(items: Sequence[tuple[str, str]] = DEFINITIONS) -> str:
    """The definitions used, as a description list."""
    return '<dl class="defs">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items) + "</dl>"


def provenance_html(record: dict) -> str:
    """The provenance record: settings first, then one row per input with its fingerprint."""
    settings = [(k, v) for k, v in record.items() if k != "inputs"]
    inputs = record.get("inputs", {})
    rows = []
    for kind, value in inputs.items():
        for item in value if isinstance(value, list) else [value]:
            if item is None:  # not given (an audit without a corpus has no topics, corpus or embeddings)
                continue
            fingerprint = item.get("sha256") or item.get("fingerprint") or ""
            where = item.get("path") or item.get("name") or ""
            rows.append((kind, str(where), str(fingerprint)))
    return key_values(settings) + "<h3>Inputs</h3>" + table(["input", "path or name", "fingerprint"], rows)


def summary_section(result: AuditResult) -> str:
    """The summary table with CIs and its footnotes."""
    headers, rows = summary_rows(result)
    numeric = [i > 0 for i in range(len(headers))]
    classes = [result.systems[r[0]].kind for r in rows]
    return table(headers, rows, table_id="summary", sortable=True, row_classes=classes, numeric=numeric) + notes(footnotes(result))


PAGE_ROWS = 10_000  # per-query rows above which report.html points to per_query.csv instead of holding them


def per_query_section(result: AuditResult) -> str:
    """Every system's per-query rows, sortable and filterable; above :data:`PAGE_ROWS` rows (MS MARCO's 12 × 6,980:
    31 MB of HTML that a browser cannot sort), a note naming per_query.csv."""
    frame = result.per_query()
    if len(frame) > PAGE_ROWS:
        return notes([f"{len(frame):,} per-query rows ({frame['system'].nunique():,} systems × {frame['qid'].nunique():,} "
                      f"queries) are more than a page can sort (at most {PAGE_ROWS:,} here): they are in per_query.csv"])
    heads = list(result.bias_headlines)
    columns = ["system", "qid", "query", "query_genderedness", "list_genderedness", "depth", "reason", *result.measures]
    rows = [[_plain(v) for v in values] for values in frame[columns].itertuples(index=False)]
    return (filter_box("per-query") + '<div class="scroll">' + table(columns, rows, table_id="per-query", sortable=True) + "</div>"
            + notes([f"the bias measures per query ({', '.join(heads)}, every cut-off) are in per_query.csv"] if heads else []))


def _plain(value):
    """numpy scalars as Python numbers, booleans as yes/no."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if hasattr(value, "item"):
        return value.item()
    return value


def excluded_section(result: AuditResult) -> str:
    """Queries left out of GSR, with the reason, per system (the query-level ones once)."""
    frame = result.per_query()
    excluded = frame[~frame["used"]]
    of_perfect = excluded[excluded["system"] == PERFECT]
    perfect_reasons = dict(zip(of_perfect["qid"], of_perfect["reason"]))
    rows = [["all systems", qid, result.perfect.gsr.per_query.set_index("qid").loc[qid, "query"], reason]
            for qid, reason in perfect_reasons.items()]
    for system, qid, query, reason in excluded[["system", "qid", "query", "reason"]].itertuples(index=False):
        if system != PERFECT and perfect_reasons.get(qid) != reason:
            rows.append([system, qid, query, reason])
    counts = "; ".join(f"{n} {reason}" for reason, n in sorted(result.query_exclusions.items(), key=lambda item: -item[1]))
    head = f"<p>{len(perfect_reasons)} queries are left out of every system's GSR" + (f" ({esc(counts)})" if counts else "") + ".</p>"
    if not rows:
        return head
    return head + '<div class="scroll">' + table(["system", "qid", "query", "reason"], rows, table_id="excluded", sortable=True) + "</div>"


def bias_section(result: AuditResult) -> str:
    """The bias measures: systems × headline columns (@10) with CIs; every cut-off folded below."""
    headers, rows = bias_rows(result)
    if not rows or result.bias is None:
        return "<p>No bias measure beside GSR was computed.</p>"
    heads = result.bias_headlines
    body = []
    for name, audit in result.systems.items():
        if audit.bias is None:
            continue
        cells = "".join(f'<td class="num" data-value="{s.mean!r}">{esc(fmt(s.mean, sign=True))}<br><small>{esc(ci(s.ci_low, s.ci_high))}'
                        "</small></td>" for s in (audit.bias.summaries[c] for c in heads))
        body.append(f'<tr class="{esc(audit.kind)}"><td>{esc(name)}</td>{cells}</tr>')
    head = "<th>system</th>" + "".join(f'<th class="num">{header(c)}</th>' for c in heads)
    compact_html = (f'<table id="bias-compact" class="sortable"><thead><tr>{head}</tr></thead><tbody>' + "".join(body)
                    + "</tbody></table>")
    numeric = [i > 1 for i in range(len(headers))]
    every = table(headers, rows, table_id="bias", sortable=True, row_classes=[result.systems[r[1]].kind for r in rows], numeric=numeric)
    return (compact_html + notes([f"{m.name}: larger = {m.larger}" for m in result.bias.measures if m.per_query is not None])
            + f"<details><summary>every cut-off, with counts</summary>{every}{notes(bias_footnotes(result))}</details>")


def agreement_section(result: AuditResult) -> str:
    """The agreement of the measures (Kendall τ over systems, Pearson r over queries), or why there is none."""
    headers, rows = agreement_rows(result)
    if not rows:
        reason = next((w.message for w in result.warnings if w.kind == "few_systems"), "fewer than two measures: nothing to compare")
        return f"<p>Not computed: {esc(reason)}.</p>"
    numeric = [i > 1 for i in range(len(headers))]
    return (f"<details><summary>{len(rows)} pairs of measures: Kendall tau over the {len(result.audited)} systems, Pearson r over "
            "queries</summary>" + table(headers, rows, table_id="agreement", sortable=True, numeric=numeric)
            + notes(agreement_footnotes(result)) + "</details>")


def verdict_section(result: AuditResult) -> str:
    """The answer first: the verdict's sentences, its table (letters as superscripts) and the legend."""
    said = sentences(result, warnings=False)
    n_warnings = sum(1 for w in result.warnings if w.level == "warning")
    n_notes = len(result.warnings) - n_warnings
    if result.warnings:
        said.append(f"{n_warnings} warning{'s' if n_warnings != 1 else ''} and {n_notes} note{'s' if n_notes != 1 else ''}: "
                    + ", ".join(w.kind for w in result.warnings) + " (see Warnings)")
    letter_note = "; superscript letters: significantly higher than the systems with these letters" if len(result.letters) >= 2 else ""
    verdict = verdict_table(result, measures=result.measures)
    headers = [h for h in verdict.headers if not h.endswith(">")]
    keep = [i for i, h in enumerate(verdict.headers) if not h.endswith(">")]
    marks = {i - 1: i for i, h in enumerate(verdict.headers) if h.endswith(">")}
    body = []
    for kind, row in zip(verdict.kinds, verdict.rows):
        cells = []
        for i in keep:
            value = esc(row[i])
            if i in marks and row[marks[i]]:
                value += f"<sup>{esc(row[marks[i]])}</sup>"
            css = ' class="num"' if verdict.numeric[i] else ""
            cells.append(f"<td{css}>{value}</td>")
        body.append(f'<tr class="{esc(kind)}">' + "".join(cells) + "</tr>")
    heads = "".join(f'<th class="num">{header(h)}</th>' if verdict.numeric[i] else f"<th>{header(h)}</th>" for i, h in zip(keep, headers))
    return ('<ul class="verdict">' + "".join(f"<li>{esc(line)}</li>" for line in said) + "</ul>"
            + f'<table id="verdict-table"><thead><tr>{heads}</tr></thead><tbody>' + "".join(body) + "</tbody></table>"
            + notes([f"{MARK} after delta_gsr (= gsr − gsr(perfect)): significant" + letter_note, *legend(result)[1:]]
                    if result.gsr_measured else [n for n in (letter_note.removeprefix("; "), *legend(result)[-2:]) if n]))


def forest_section(result: AuditResult) -> str:
    """The forest plot of ΔGSR to the perfect run."""
    return f'<figure class="figure">{forest_svg(result)}</figure>'


def tradeoff_section(result: AuditResult) -> str:
    """The trade-off plot and its table: GSR and the first measure with CIs, front membership and share."""
    frame = result.tradeoff
    if frame is None or frame.empty:
        return "<p>No audited system with an effectiveness measure to place.</p>"
    measure = result.measures[0]
    letters = result.letters
    rows = []
    for name, row in frame.iterrows():
        audit = result.systems[name]
        low, high = audit.measure_ci.get(measure, (float("nan"), float("nan")))
        rows.append([letters.get(name, ""), name, fmt(audit.gsr.slope, sign=True), ci(audit.gsr.ci_low, audit.gsr.ci_high),
                     fmt(row.measure), ci(low, high), "yes" if row.on_front else "no",
                     "n/a" if not np.isfinite(row.front_share) else f"{100 * row.front_share:.0f}%"])
    references = [f"{a.name} run: GSR {fmt(a.gsr.slope, sign=True)}, {measure} "
                  + (fmt(a.evaluation.means[measure]) if a.evaluation else "n/a")
                  for a in result.systems.values() if a.kind in (PERFECT, RANDOM)]
    n = int(frame["n_queries"].iloc[0])
    return (f'<figure class="figure">{tradeoff_svg(result)}</figure>'
            + table(["", "system", "gsr", "gsr_ci95", measure, f"{measure}_ci95", "on_front", "front_share"], rows,
                    table_id="tradeoff-table", sortable=True, numeric=[False, False, True, True, True, True, False, True])
            + notes(references + [f"front_share: share of {result.inference.n_bootstrap} bootstrap resamples of the {n} queries every "
                                  "system has in which the system is on the Pareto front"]))


def matrix(result: AuditResult, measure: str) -> str:
    """One measure's comparisons as a matrix: row − column, Δ over adjusted p; significant cells marked."""
    names = [a.name for a in result.audited]
    letters = result.letters
    frame = result.compared(measure)
    cells = {}
    for r in frame.itertuples(index=False):
        cells[(r.a, r.b)] = (r.delta, r.p_adjusted, r.decision)
        cells[(r.b, r.a)] = (-r.delta, r.p_adjusted, r.decision)
    head = "".join(f'<th class="num" title="{esc(n)}">{esc(letters.get(n, n))}</th>' for n in names)
    body = []
    for row in names:
        tds = []
        for column in names:
            if row == column or (row, column) not in cells:
                tds.append('<td class="num muted">–</td>')
                continue
            delta, p, decision = cells[(row, column)]
            hit = decision == DIFFERS
            css = "num sig-up" if hit and delta > 0 else ("num sig-down" if hit else "num")
            shown_p = "n/a" if not np.isfinite(p) else f"{p:.3f}"
            tds.append(f'<td class="{css}" title="{esc(row)} − {esc(column)}">{esc(fmt(delta, 3, sign=True))}<br>'
                       f'<small>p {esc(shown_p)}</small></td>')
        body.append(f"<tr><th>{esc(letters.get(row, ''))} {esc(row)}</th>" + "".join(tds) + "</tr>")
    return (f'<table class="matrix" data-measure="{esc(measure)}"><thead><tr><th>{esc(measure)}: row − column</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def pair_list(result: AuditResult, measure: str) -> str:
    """One measure's comparisons as a list (many systems, or pairs with one baseline)."""
    frame = result.compared(measure)
    rows = [[r.a, r.b, fmt(r.delta, sign=True), ci(r.ci95_low, r.ci95_high), fmt(r.p, 4), fmt(r.p_adjusted, 4), str(r.n_queries)]
            for r in frame.itertuples(index=False)]
    return '<div class="scroll">' + table(["a", "b", "delta", "ci95", "p", "p_adjusted", "n_queries"], rows, sortable=True,
                                          numeric=[False, False, True, True, True, True, True]) + "</div>"


def comparisons_section(result: AuditResult) -> str:
    """Every pair of audited systems: GSR's matrix open, the other measures folded."""
    if result.comparisons.empty:
        return "<p>One audited system: no pair to compare (its GSR is compared with the perfect run's above).</p>"
    measures = list(dict.fromkeys(result.comparisons["measure"]))
    as_matrix = len(result.audited) <= MATRIX_MAX_SYSTEMS and result.inference.baseline is None
    render = matrix if as_matrix else pair_list
    up = "green: row significantly higher than column; red: lower" if as_matrix else "one row per pair"
    intro = notes([f"delta = value(row system) − value(column system) over the queries both have, with p_adjusted ({up}); "
                   f"{result.inference.describe()}", "every pair and measure with CIs: comparisons.csv and audit.json"])
    options = "".join(f'<option value="{esc(m)}"{" selected" if m == GSR else ""}>{esc(m)}: '
                      f"{len(result.compared(m, differing=True))} of {len(result.compared(m))} pairs differ</option>"
                      for m in measures)
    chooser = ('<div class="chooser"><label for="comparison-measure">measure </label>'
               f'<select id="comparison-measure" data-panels="comparison-panel">{options}</select></div>')
    panels = "".join(f'<div class="comparison-panel" data-measure="{esc(m)}"{"" if m == GSR else " hidden"}>{render(result, m)}</div>'
                     for m in measures)
    return chooser + panels + intro


def baseline_section(result: AuditResult) -> str:
    """Each audited system against the baseline (:mod:`.baseline_view`)."""
    rows = baseline_rows(result)
    return (table(list(BASELINE_HEADERS), rows, table_id="baseline-table", numeric=[False, False, True, True, True, True, True])
            + notes([baseline_legend(result)]))


def warnings_section(result: AuditResult) -> str:
    """The warnings, folded: one line per kind, its details below."""
    if not result.warnings:
        return "<p>None.</p>"
    items = []
    for w in result.warnings:
        details = {k: v for k, v in w.to_dict().items() if k not in ("kind", "level", "message")}
        items.append(f'<details class="{esc(w.level)}"><summary>{esc(w.line())}</summary>'
                     f'<pre class="details">{esc(json.dumps(details, indent=1, ensure_ascii=False))}</pre></details>')
    return "".join(items)


def influence_section(result: AuditResult) -> str:
    """Per system, the queries whose removal changes its GSR most."""
    def rows(top: int) -> list[list]:
        out = []
        for audit in result.systems.values():
            for r in audit.influence.head(top).itertuples(index=False):
                pct = "n/a" if not np.isfinite(r.change_pct) else f"{r.change_pct:+.1f}%"
                out.append([audit.name, r.qid, r.query, fmt(audit.gsr.slope, sign=True), fmt(r.gsr_without, sign=True),
                            fmt(r.change, sign=True), pct])
        return out

    headers = ["system", "qid", "query", "gsr", "gsr_without", "change", "change_pct"]
    numeric = [False, False, False, True, True, True, True]
    first = rows(1)
    if not first:
        return "<p>Too few queries to leave one out.</p>"
    return (table(headers, first, table_id="influence", sortable=True, numeric=numeric)
            + notes(["per system, the query whose removal moves GSR most: gsr_without is GSR computed without it; change_pct "
                     "is relative to |gsr| (large when gsr is near 0)"])
            + f"<details><summary>three queries per system (five in audit.json)</summary>"
            f"{table(headers, rows(3), sortable=True, numeric=numeric)}</details>")


def audit_page(result: AuditResult, svgs: Mapping[str, str] | None = None) -> str:
    """The whole ``report.html`` of an audit; ``svgs``: scatter plots already drawn, by system (the others are drawn
    on the audit's shared y range)."""
    if not result.gsr_measured:
        return _effectiveness_page(result)
    svgs = svgs or {}
    y_range = shared_y_range(result) if len(svgs) < len(result.systems) else None
    plots = "".join(f"<figure>{svgs.get(name) or scatter_svg(result, name, y_range)}<figcaption>{esc(name)}: GSR "
                    f"{fmt(audit.gsr.slope, sign=True)}, {audit.gsr.n_queries} queries; dashed: perfect run</figcaption></figure>"
                    for name, audit in result.systems.items())
    created = result.provenance.get("created", "")
    n = len(result.audited)
    references = "the perfect and random runs" if RANDOM in result.systems else "the perfect run"
    subtitle = (f"GSR of {n} system{'s' if n != 1 else ''} beside {references}, measured with {result.embeddings}; "
                f"depth {result.depth}, query field {result.query_field}; irfair {result.provenance.get('irfair_version', '')} {created}")

    def folded(title: str, inner: str) -> str:
        return f"<details><summary>{esc(title)}</summary>{inner}</details>"

    sections = [
        ("verdict", "Verdict", verdict_section(result)),
        ("forest", "GSR against the perfect run", forest_section(result)),
        ("tradeoff", "Bias against effectiveness", tradeoff_section(result)),
        *([("baseline", f"Against {result.inference.baseline}", baseline_section(result))] if result.inference.baseline else []),
        ("comparisons", "System against system", comparisons_section(result)),
        ("bias-measures", "Bias measures at @10", bias_section(result)),
        ("warnings", "Warnings", warnings_section(result)),
        ("influence", "Queries that carry a result", influence_section(result)),
        ("plots", "Scatter plots (one y range)", f'<div class="plots">{plots}</div>'),
        ("summary-table", "Every column", folded("the full summary table with footnotes", summary_section(result))),
        ("agreement", "Agreement of the bias measures", agreement_section(result)),
        ("per-query-table", "Per query", folded("every system's per-query values", per_query_section(result))),
        ("excluded-queries", "Excluded queries", excluded_section(result)),
        ("definitions", "Definitions", folded("the definitions used", definitions())),
        ("provenance", "Provenance", folded("settings and input fingerprints", provenance_html(result.provenance))),
    ]
    return page("irfair audit report", subtitle, sections)


def _effectiveness_page(result: AuditResult) -> str:
    """``report.html`` of an audit without a corpus: the verdict, the comparisons, warnings and provenance (no GSR)."""
    n = len(result.audited)
    subtitle = (f"effectiveness of {n} system{'s' if n != 1 else ''} beside the perfect run (no corpus: GSR and the bias "
                f"measures not measured); irfair {result.provenance.get('irfair_version', '')} {result.provenance.get('created', '')}")
    sections = [
        ("verdict", "Verdict", verdict_section(result)),
        *([("baseline", f"Against {result.inference.baseline}", baseline_section(result))] if result.inference.baseline else []),
        ("comparisons", "System against system", comparisons_section(result)),
        ("warnings", "Warnings", warnings_section(result)),
        ("provenance", "Provenance", f"<details><summary>settings and input fingerprints</summary>{provenance_html(result.provenance)}"
                                     "</details>"),
    ]
    return page("irfair audit report", subtitle, sections)
