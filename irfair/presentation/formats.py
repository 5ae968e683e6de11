"""The summary and the comparisons in the shapes people paste elsewhere: Markdown, LaTeX (as IR papers print
a results table: booktabs, superscript letters for significant differences, a caption naming the test) and
tab-separated values. Every format is one function of :data:`FORMATTERS`.

In Markdown and LaTeX each audited system has a letter and each value carries, as a superscript, the letters
of the systems it is significantly higher than (adjusted p < α); ``*`` marks a ΔGSR to the perfect run with
adjusted p < α. The perfect and random runs are reference rows above a rule.
"""
from __future__ import annotations

from ..audit.comparisons import GSR
from ..audit.kinds import PERFECT, SYSTEM
from ..audit.result import AuditResult
from ..measures.resampling import DIFFERS
from .baseline_view import DAGGER, baseline_rows, differs_from_baseline
from .baseline_view import HEADERS as BASELINE_HEADERS
from .baseline_view import legend as baseline_legend
from .summary import ci, fmt
from .verdict import comparison_table, higher_than

LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Text safe inside LaTeX."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in str(text))


def caption(result: AuditResult, latex: bool = False) -> str:
    """What the table shows and how differences were tested: test, permutations, correction, α, resamples, seed."""
    inference = result.inference
    measured = result.gsr_measured
    family_measure = GSR if measured else (result.measures[0] if result.measures else GSR)
    n_pairs = len(result.compared(family_measure))
    alpha = f"$\\alpha = {inference.alpha:g}$" if latex else f"α = {inference.alpha:g}"
    delta = "$\\Delta$" if latex else "Δ"
    minus = "$-$" if latex else "−"
    family = f" over the {n_pairs} pairs of each measure" if n_pairs > 1 else ""
    correction = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "none": "no"}[inference.correction]
    dagger = "$^\\dagger$" if latex else DAGGER
    baseline = f" {dagger}: significantly different from {inference.baseline}." if inference.baseline else ""
    flips = inference.n_permutations
    tests = (f"two-sided paired randomization tests (all 2^n sign flips where they number at most {flips:,}, else {flips:,} "
             f"random ones), {correction} correction{family}, "
             f"{alpha}, seed {inference.seed}; CIs of means from {inference.n_bootstrap:,} bootstrap resamples of the queries, "
             f"of GSR and of differences by inverting the tests")
    if not measured:
        n_queries = max((a.evaluation.n_queries for a in result.audited if a.evaluation is not None), default=0)
        systems = f"{len(result.audited)} system{'s' if len(result.audited) != 1 else ''}"
        return (f"Effectiveness of {systems} on {n_queries} queries (depth {result.depth}; no corpus, so no "
                f"GSR or bias measure), with the perfect run for reference. Superscript letters: significantly higher than the "
                f"systems with these letters ({tests}).{baseline}")
    return (f"GSR and effectiveness of {len(result.audited)} systems on {result.perfect.gsr.n_queries} queries "
            f"(embeddings {result.embeddings}, depth {result.depth}), with the perfect and random runs for reference. "
            f"GSR with its 95% CI; {delta}: GSR {minus} GSR(perfect), * significant. Superscript letters: "
            f"significantly higher than the systems with these letters ({tests}).{baseline}")


def _rows(result: AuditResult):
    """Per system: letter, name, kind, GSR cell parts, Δ cell, and per measure (value, letters)."""
    table = result.table()
    letters = result.letters
    marks = {m: higher_than(result, m) for m in [GSR, *result.measures]}
    daggers = differs_from_baseline(result)

    def dagger(measure: str, name: str) -> str:
        return DAGGER if name in daggers.get(measure, ()) else ""

    for name, row in table.iterrows():
        perfect = row["kind"] == PERFECT
        star = "*" if result.systems[name].delta_gsr_decision == DIFFERS else ""
        yield {
            "letter": letters.get(name, ""), "name": str(name), "kind": row["kind"],
            "gsr": (fmt(row["gsr"], sign=True) + dagger(GSR, name), marks[GSR].get(name, "")),
            "ci": ci(row["gsr_ci_low"], row["gsr_ci_high"]),
            "delta": "–" if perfect else fmt(row["delta_gsr"], sign=True) + star,
            "measures": [(fmt(row[m]) + dagger(m, name), marks[m].get(name, "")) for m in result.measures],
            "measure_cis": [ci(row[f"{m}_ci_low"], row[f"{m}_ci_high"]) for m in result.measures],
        }


def format_markdown(result: AuditResult) -> str:
    """The summary as a Markdown table (letters as ``<sup>``), its caption, then every pair's GSR comparison."""
    measured = result.gsr_measured
    headers = ["", "system", *(["gsr", "gsr_ci95", "delta_gsr"] if measured else []), *result.measures]

    def sup(value: str, letters: str) -> str:
        return f"{value}<sup>{letters}</sup>" if letters else value

    rows = [[r["letter"], r["name"], *([sup(*r["gsr"]), r["ci"], r["delta"]] if measured else []),
             *(sup(v, m) for v, m in r["measures"])] for r in _rows(result)]
    lines = markdown_table(headers, rows, ("llrlr" if measured else "ll") + "r" * len(result.measures))
    lines += ["", caption(result)]
    against = baseline_rows(result)
    if against:
        lines += ["", f"Against {markdown_escape(result.inference.baseline)}:", "",
                  *markdown_table(BASELINE_HEADERS, against, "llrrlrr"), "", baseline_legend(result)]
    headers, rows = comparison_table(result)
    if rows:
        lines += ["", "GSR, every pair (delta = gsr(a) − gsr(b)):", "", *markdown_table(headers, rows, "llrlrrr")]
    return "\n".join(lines) + "\n"


def markdown_table(headers, rows, align: str) -> list[str]:
    """A Markdown table's lines: the header, the rule (``align``: one ``l`` or ``r`` per column) and the rows, every
    cell through :func:`markdown_escape`."""
    rule = "|" + "|".join("--:" if a == "r" else "---" for a in align) + "|"
    return ["| " + " | ".join(headers) + " |", rule, *("| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows)]


def markdown_escape(text: str) -> str:
    """A table cell's text for Markdown: ``|`` (it would end the cell) and backslashes escaped, line breaks as spaces."""
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.splitlines())


def format_latex(result: AuditResult, wide: bool = False, label: str = "tab:irfair-audit") -> str:
    """The summary as a LaTeX ``table`` with booktabs rules, ``\\textsuperscript`` letters and a caption; ``wide``: a
    ``table*`` (both columns of a two-column paper) with each measure's 95% CI beside it; ``label``: its ``\\label``."""
    measures = list(result.measures)
    measured = result.gsr_measured
    spec = "ll" + "r" * (3 if measured else 0) + ("rl" if wide else "r") * len(measures)
    head = ["", "System", *(["GSR", "95\\% CI", "$\\Delta$ perfect"] if measured else []),
            *(h for m in measures for h in ([latex_escape(m)] + (["95\\% CI"] if wide else [])))]
    environment = "table*" if wide else "table"

    def cell(value: str, letters: str = "") -> str:
        text = value.replace("-", "$-$") if value not in ("–", "n/a") else ("--" if value == "–" else value)
        text = text.replace("*", "$^{*}$").replace(DAGGER, "$^\\dagger$")
        return text + (f"\\textsuperscript{{{letters}}}" if letters else "")

    lines = ["% irfair audit table: needs \\usepackage{booktabs} in the preamble",
             f"\\begin{{{environment}}}[t]", "\\centering", f"\\caption{{{latex_escape_caption(caption(result, latex=True))}}}",
             f"\\label{{{label}}}", f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(head) + " \\\\", "\\midrule"]
    rows = list(_rows(result))
    references = [r for r in rows if r["kind"] != SYSTEM]
    systems = [r for r in rows if r["kind"] == SYSTEM]
    for group in (references, systems):
        for r in group:
            cells = [r["letter"], latex_escape(r["name"]), *([cell(*r["gsr"]), cell(r["ci"]), cell(r["delta"])] if measured else []),
                     *(c for (v, m), interval in zip(r["measures"], r["measure_cis"])
                       for c in ([cell(v, m)] + ([cell(interval)] if wide else [])))]
            lines.append(" & ".join(cells) + " \\\\")
        if group is references and references and systems:
            lines.append("\\midrule")
    lines += ["\\bottomrule", "\\end{tabular}", f"\\end{{{environment}}}"]
    return "\n".join(lines) + "\n"


def latex_escape_caption(text: str) -> str:
    """The caption escaped for LaTeX, keeping its ``$...$`` math."""
    parts = text.split("$")
    return "$".join(part if i % 2 else latex_escape(part) for i, part in enumerate(parts))


def format_tsv(result: AuditResult) -> str:
    """``table()`` as tab-separated values with a header line (empty cell = undefined), then a blank line and
    the comparisons (every pair, every measure) the same way."""
    summary = result.table().reset_index().to_csv(sep="\t", index=False, na_rep="", float_format="%.10g")
    if result.comparisons.empty:
        return summary
    return summary + "\n" + result.comparisons.to_csv(sep="\t", index=False, na_rep="", float_format="%.10g")


FORMATTERS = {"markdown": format_markdown, "latex": format_latex, "tsv": format_tsv}
