"""Reports of an audit: what is printed (:data:`FORMATS`), ``audit.json``, ``per_query.csv``, ``comparisons.csv``,
``table.txt``/``table.tsv``, ``agreement.csv``, scatter plots and ``report.html``, written all-or-nothing.

The printed text is the verdict first (:mod:`.verdict`, ≤ 100 columns), then with a baseline each system against it
(:mod:`.baseline_view`); ``wide`` adds every column, the
footnotes, the bias measures, their agreement and every pair's GSR comparison (``table.txt`` holds that).
"""
from __future__ import annotations

import json
from pathlib import Path

from ..atomic import unique_filenames, write_outputs
from ..audit.result import AuditResult
from ..cache import refuse_inside_cache
from .baseline_view import baseline_lines
from .beside import made_beside
from .bias_summary import format_bias
from .formats import FORMATTERS, format_latex, format_tsv
from .html import audit_page
from .plots import drawings_ready, scatter_drawings, shared_y_range
from .summary import footnotes, format_table
from .text_table import fixed_width
from .verdict import WIDTH, comparison_table, format_verdict

__all__ = ["FORMATS", "format_json", "format_table", "format_text", "format_tsv", "render", "save_audit"]

FORMATS = ("table", "markdown", "latex", "tsv", "json")


def format_json(result: AuditResult) -> str:
    """``audit.json``'s content."""
    return json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"


def format_text(result: AuditResult, wide: bool = False) -> str:
    """The verdict block; ``wide``: with every column, then the footnotes, the bias-measure and agreement
    tables and every pair's GSR comparison."""
    verdict = format_verdict(result, wide)
    against = baseline_lines(result, None if wide else WIDTH)
    if against:
        verdict += "\n\n" + "\n".join(against)
    if not wide:
        return verdict
    blocks = [verdict, "\n".join(footnotes(result, after_verdict=True))]
    bias = format_bias(result)
    if bias:
        blocks.append(bias)
    headers, rows = comparison_table(result)
    if rows:
        blocks.append("\n".join(["gsr, every pair (delta = gsr(a) - gsr(b), over the queries both use)", "",
                                 *fixed_width(headers, rows)]))
    return "\n\n".join(blocks)


def render(result: AuditResult, form: str = "table", wide: bool = False, latex_label: str = "tab:irfair-audit") -> str:
    """The audit in one of :data:`FORMATS` for stdout (``latex_label``: the LaTeX table's ``\\label``)."""
    if form == "json":
        return format_json(result)
    if form == "latex":
        return format_latex(result, wide, latex_label)
    if form in FORMATTERS:
        return FORMATTERS[form](result)
    return format_text(result, wide) + "\n"


def save_audit(result: AuditResult, out_dir: str | Path, plots: bool = True, html: bool = True,
               cache_dir: Path | None = None) -> list[Path]:
    """Write ``audit.json``, ``per_query.csv``, ``comparisons.csv``, ``table.txt`` (the wide text), ``table.tsv``
    (``table()``), ``agreement.csv``, one ``scatter_<system>.png`` per system and ``report.html``,
    all-or-nothing, never inside the cache folder's entries. ``cache_dir``: a folder where the scatter plots are
    kept by what they show (:mod:`.figure_cache`; None: drawn each time). Returns the paths written."""
    refuse_inside_cache(out_dir, "output folder")
    plots = plots and result.gsr_measured  # the scatter plots are GSR's: none without a corpus
    writers = {
        "audit.json": lambda p: p.write_text(format_json(result), encoding="utf-8"),
        "per_query.csv": lambda p: result.per_query().to_csv(p, index=False),
        "comparisons.csv": lambda p: result.comparisons.to_csv(p, index=False),
        "table.txt": lambda p: p.write_text(format_text(result, wide=True) + "\n", encoding="utf-8"),
        "table.tsv": lambda p: p.write_text(result.table().reset_index().to_csv(sep="\t", index=False, na_rep="", float_format="%.10g"),
                                            encoding="utf-8"),
        "agreement.csv": lambda p: result.agreement().to_csv(p, index=False),
    }
    if not plots and not html:
        return write_outputs(out_dir, writers)
    # each scatter plot is laid out once, for its PNG and for report.html, by worker processes while the files
    # above are written
    with scatter_drawings(result, shared_y_range(result), png=plots, cache_dir=cache_dir) as drawn:
        if plots:
            for name, stem in unique_filenames(result.systems, "scatter plot files").items():
                writers[f"scatter_{stem}.png"] = lambda p, name=name: p.write_bytes(drawn[name]()[0])
        if not html:
            return write_outputs(out_dir, writers)

        def page() -> str:
            return audit_page(result, {name: get()[1] for name, get in drawn.items()})
        # laid out by a forked process while the files above are written, when every plot was read from the cache (one
        # to be drawn, by this process or a worker, and kept in the cache, is not the child's to make)
        with made_beside(page, None if drawings_ready(drawn) else 1) as made:
            writers["report.html"] = lambda p: p.write_text(made(), encoding="utf-8")
            return write_outputs(out_dir, writers)
