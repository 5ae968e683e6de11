"""``report.html``: one self-contained page per audit — the summary table with CIs, the bias measures
beside GSR and their agreement, a scatter plot per system (inline SVG), the per-query table (sortable,
filterable), excluded queries with their reasons, the definitions used and the provenance. CSS and
JavaScript are inlined from ``irfair/data/report/``; nothing is loaded from the network. The building
blocks (:func:`page`, :func:`table`) serve the study's page too.
"""
from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources

from .bias_summary import agreement_footnotes, agreement_rows, bias_footnotes, bias_rows
from .plots import scatter_svg
from .result import AuditResult
from .summary import fmt, footnotes, summary_rows

DEFINITIONS = (
    ("g(w)", "cosine of the word's unit vector with the gender direction (first principal component of the 10 "
             "definitional pairs, oriented so that g(she) > 0): female > 0 > male."),
    ("g(q)", "mean g(w) over the query's tokens without stopwords; tokens without a vector are skipped."),
    ("g_q(d)", "mean g(w) over the document's tokens without stopwords and without the query's terms (matched up to "
               "simple plural inflection)."),
    ("g_q(L)", "Σ w_k g_q(d_k) / Σ w_k with w_k = 1/log2(k+1) over the list cut at the audited depth; documents with no "
               "measurable token are left out and the other weights renormalised."),
    ("gsr", "Gender Stereotype Reinforcement (Fabris et al., IP&M 2020): OLS slope of g_q(L) on g(q) over the used queries, "
            "with a 95% percentile bootstrap CI over queries (gsr_ci_low, gsr_ci_high)."),
    ("perfect run", "per query, every relevant document by grade (equal grades share their rank weight), cut at the depth."),
    ("random run", "per query, K documents drawn without replacement from every document of the corpus, seeded by "
                   "(seed, query id): the same whichever runs are audited."),
    ("delta_gsr", "gsr − gsr(perfect), with the 95% CI and two-sided p of a paired bootstrap over the queries both use."),
    ("relative_gsr_pct", "100 · delta_gsr / gsr(perfect), reported only when the perfect run's GSR is positive and its CI "
                         "excludes 0 (otherwise n/a: a ratio to a value that may be 0 explodes and flips sign)."),
    ("ties", "a run's documents are ranked by score, ties by document id descending (trec_eval's rule)."),
    ("rab_tc@t, rab_bool@t", "RaB (Rekabsaz & Schedl, SIGIR 2020): mean male minus mean female magnitude of the top t documents "
                             "(tc: occurrences of the list's words; bool: 1 if any); > 0 male-leaning."),
    ("arab_tc@t, arab_bool@t", "ARaB: RaB averaged over the cut-offs 1..t."),
    ("nfairr@t", "NFaiRR (Rekabsaz et al., SIGIR 2021): Σ ω(d_i)/log2(i+1) over the top t, divided by its best value over the "
                 "query's candidates (a system's top 100); ω(d) = 1 − |n_f − n_m|/(n_f + n_m), 1 for at most one gendered word."),
    ("texfair@t", "TExFAIR (Abolghasemi et al., ECIR 2024): 1 − RBDF · |GE_f − GE_m|/(GE_f + GE_m), GE_r the rank-biased "
                  "(0.8^(i−1)) exposure of gender r's words, RBDF the share of attention on documents with any of them; the "
                  "browsing model and RBDF are irfair's reading of the paper."),
    ("agreement", "Kendall τ-b between the audited systems' orderings by two measures; Pearson r between their per-query "
                  "values pooled over the systems."),
)


def esc(value) -> str:
    """Text escaped for HTML."""
    return html.escape(str(value), quote=True)


def asset(name: str) -> str:
    """A file of ``irfair/data/report/`` as text."""
    return resources.files("irfair").joinpath(f"data/report/{name}").read_text(encoding="utf-8")


def page(title: str, subtitle: str, sections: Sequence[tuple[str, str, str]]) -> str:
    """A whole page: ``sections`` are ``(anchor id, heading, inner HTML)``."""
    nav = " ".join(f'<a href="#{esc(anchor)}">{esc(heading)}</a>' for anchor, heading, _ in sections)
    body = "\n".join(f'<section id="{esc(anchor)}"><h2>{esc(heading)}</h2>\n{inner}\n</section>' for anchor, heading, inner in sections)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{esc(title)}</title>\n<style>\n{asset('report.css')}</style>\n</head>\n<body>\n"
        f"<h1>{esc(title)}</h1>\n<p class=\"lead\">{esc(subtitle)}</p>\n<nav>{nav}</nav>\n{body}\n"
        f"<script>\n{asset('report.js')}</script>\n</body></html>\n"
    )


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def cell(value, digits: int = 4) -> str:
    """One ``<td>``: numbers right-aligned with their exact value in ``data-value`` for sorting."""
    if _is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            return '<td class="num" data-value="">n/a</td>'
        shown = str(value) if isinstance(value, int) else f"{value:.{digits}f}"
        return f'<td class="num" data-value="{value!r}">{shown}</td>'
    return f"<td>{esc(value)}</td>"


def table(headers: Sequence[str], rows: Iterable[Sequence], *, table_id: str | None = None, sortable: bool = False,
          row_classes: Sequence[str] | None = None, numeric: Sequence[bool] | None = None) -> str:
    """An HTML table; cells that are already strings are shown as they are (``numeric`` right-aligns columns)."""
    attrs = (f' id="{esc(table_id)}"' if table_id else "") + (' class="sortable"' if sortable else "")
    heads = "".join(f'<th class="num">{esc(h)}</th>' if numeric and numeric[i] else f"<th>{esc(h)}</th>" for i, h in enumerate(headers))
    lines = []
    for i, row in enumerate(rows):
        css = f' class="{esc(row_classes[i])}"' if row_classes and row_classes[i] else ""
        cells = "".join(f'<td class="num">{esc(v)}</td>' if isinstance(v, str) and numeric and numeric[j] else cell(v)
                        for j, v in enumerate(row))
        lines.append(f"<tr{css}>{cells}</tr>")
    return f"<table{attrs}><thead><tr>{heads}</tr></thead><tbody>\n" + "\n".join(lines) + "\n</tbody></table>"


def key_values(pairs: Iterable[tuple[str, object]]) -> str:
    """A two-column table of names and values (dicts and lists shown as compact JSON)."""
    rows = []
    for key, value in pairs:
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        css = ' class="mono"' if isinstance(value, (dict, list)) or (isinstance(value, str) and len(value) == 64) else ""
        rows.append(f"<tr><td>{esc(key)}</td><td{css}>{esc(shown)}</td></tr>")
    return '<table class="kv"><tbody>' + "".join(rows) + "</tbody></table>"


def notes(lines: Iterable[str]) -> str:
    """A list of small notes."""
    return '<ul class="notes">' + "".join(f"<li>{esc(line)}</li>" for line in lines) + "</ul>"


def filter_box(table_id: str) -> str:
    """A text box filtering the rows of ``table_id`` (every word must occur in the row)."""
    return (f'<div class="filter"><input type="search" placeholder="filter rows: e.g. bm25 or no relevant" '
            f'aria-label="filter rows" data-table="{esc(table_id)}" data-counter="{esc(table_id)}-count">'
            f'<span id="{esc(table_id)}-count"></span></div>')


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
            fingerprint = item.get("sha256") or item.get("fingerprint") or ""
            where = item.get("path") or item.get("name") or ""
            rows.append((kind, str(where), str(fingerprint)))
    return key_values(settings) + "<h3>Inputs</h3>" + table(["input", "path or name", "fingerprint"], rows)


def summary_section(result: AuditResult) -> str:
    """The summary table with CIs and its footnotes."""
    headers, rows = summary_rows(result)
    numeric = [i > 0 for i in range(len(headers))]
    classes = [result.systems[r[0]].kind for r in rows]
    return ('<div class="wide">' + table(headers, rows, table_id="summary", sortable=True, row_classes=classes, numeric=numeric)
            + "</div>" + notes(footnotes(result)))


def per_query_section(result: AuditResult) -> str:
    """Every system's per-query rows, sortable and filterable."""
    frame = result.per_query()
    heads = [c for m in result.bias.measures if m.per_query is not None for c in m.headlines] if result.bias else []
    columns = ["system", "qid", "query", "query_genderedness", "list_genderedness", "depth", "n_docs", "used", "reason",
               *result.measures, *heads]
    rows = [[_plain(v) for v in values] for values in frame[columns].itertuples(index=False)]
    return filter_box("per-query") + '<div class="scroll">' + table(columns, rows, table_id="per-query", sortable=True) + "</div>"


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
    of_perfect = excluded[excluded["system"] == "perfect"]
    perfect_reasons = dict(zip(of_perfect["qid"], of_perfect["reason"]))
    rows = [["all systems", qid, result.perfect.gsr.per_query.set_index("qid").loc[qid, "query"], reason]
            for qid, reason in perfect_reasons.items()]
    for system, qid, query, reason in excluded[["system", "qid", "query", "reason"]].itertuples(index=False):
        if system != "perfect" and perfect_reasons.get(qid) != reason:
            rows.append([system, qid, query, reason])
    counts = "; ".join(f"{n} {reason}" for reason, n in sorted(result.query_exclusions.items(), key=lambda item: -item[1]))
    head = f"<p>{len(perfect_reasons)} queries are left out of every system's GSR" + (f" ({esc(counts)})" if counts else "") + ".</p>"
    if not rows:
        return head
    return head + '<div class="scroll">' + table(["system", "qid", "query", "reason"], rows, table_id="excluded", sortable=True) + "</div>"


def bias_section(result: AuditResult) -> str:
    """The bias measures per system (mean [CI] per cut-off) and their footnotes."""
    headers, rows = bias_rows(result)
    if not rows:
        return "<p>No bias measure beside GSR was computed.</p>"
    numeric = [i > 1 for i in range(len(headers))]
    classes = [result.systems[r[1]].kind for r in rows]
    return ('<div class="wide">' + table(headers, rows, table_id="bias", sortable=True, row_classes=classes, numeric=numeric)
            + "</div>" + notes(bias_footnotes(result)))


def agreement_section(result: AuditResult) -> str:
    """The agreement of the measures (Kendall τ over systems, Pearson r over queries)."""
    headers, rows = agreement_rows(result)
    if not rows:
        return "<p>Fewer than two measures: nothing to compare.</p>"
    numeric = [i > 1 for i in range(len(headers))]
    return table(headers, rows, table_id="agreement", sortable=True, numeric=numeric) + notes(agreement_footnotes(result))


def audit_page(result: AuditResult, svgs: Mapping[str, str] | None = None) -> str:
    """The whole ``report.html`` of an audit; ``svgs``: scatter plots already drawn, by system (the others are drawn)."""
    svgs = svgs or {}
    plots = "".join(f"<figure>{svgs.get(name) or scatter_svg(result, name)}<figcaption>{esc(name)}: GSR {fmt(audit.gsr.slope, sign=True)}, "
                    f"{audit.gsr.n_queries} queries; dashed: perfect run</figcaption></figure>"
                    for name, audit in result.systems.items())
    warnings = "".join(f'<div class="warning">warning: {esc(w)}</div>' for w in result.warnings)
    created = result.provenance.get("created", "")
    subtitle = (f"GSR of {len(result.systems) - 1} runs beside the perfect run, measured with {result.embeddings}; "
                f"depth {result.depth}, query field {result.query_field}; irfair {result.provenance.get('irfair_version', '')} {created}")
    sections = [
        ("summary", "Summary", warnings + summary_section(result)),
        ("bias-measures", "Bias measures", bias_section(result)),
        ("agreement", "Agreement", agreement_section(result)),
        ("plots", "Scatter plots", f'<div class="plots">{plots}</div>'),
        ("per-query-table", "Per query", per_query_section(result)),
        ("excluded-queries", "Excluded queries", excluded_section(result)),
        ("definitions", "Definitions", definitions()),
        ("provenance", "Provenance", provenance_html(result.provenance)),
    ]
    return page("irfair audit report", subtitle, sections)
