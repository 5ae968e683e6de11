"""Reports of an audit: the printed tables (text, TSV or JSON), ``audit.json``, ``per_query.csv``,
``table.txt``/``table.tsv``, ``agreement.csv``, scatter plots and ``report.html``, written all-or-nothing."""
from __future__ import annotations

import json
from pathlib import Path

from ..atomic import safe_filename, write_outputs
from .bias_summary import format_bias
from .html import audit_page
from .plots import scatter_plot
from .result import AuditResult
from .summary import format_table

__all__ = ["FORMATS", "format_json", "format_table", "format_text", "format_tsv", "render", "save_audit"]

FORMATS = ("table", "tsv", "json")


def format_tsv(result: AuditResult) -> str:
    """``table()`` as tab-separated values with a header line (empty cell = undefined)."""
    return result.table().reset_index().to_csv(sep="\t", index=False, na_rep="", float_format="%.10g")


def format_json(result: AuditResult) -> str:
    """``audit.json``'s content."""
    return json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"


def format_text(result: AuditResult) -> str:
    """The GSR table, then the bias-measure table and the agreement table, each with its footnotes."""
    bias = format_bias(result)
    return format_table(result) + ("\n\n" + bias if bias else "")


def render(result: AuditResult, form: str = "table") -> str:
    """The audit in one of :data:`FORMATS` for stdout."""
    if form == "tsv":
        return format_tsv(result)
    if form == "json":
        return format_json(result)
    return format_text(result) + "\n"


def save_audit(result: AuditResult, out_dir: str | Path, plots: bool = True, html: bool = True) -> list[Path]:
    """Write ``audit.json``, ``per_query.csv``, ``table.txt``, ``table.tsv``, ``agreement.csv``, one
    ``scatter_<system>.png`` per system and ``report.html``, all-or-nothing. Returns the paths written."""
    writers = {
        "audit.json": lambda p: p.write_text(format_json(result), encoding="utf-8"),
        "per_query.csv": lambda p: result.per_query().to_csv(p, index=False),
        "table.txt": lambda p: p.write_text(format_text(result) + "\n", encoding="utf-8"),
        "table.tsv": lambda p: p.write_text(format_tsv(result), encoding="utf-8"),
        "agreement.csv": lambda p: result.agreement().to_csv(p, index=False),
    }
    svgs: dict[str, str] = {}  # each scatter plot is laid out once, for its PNG and for report.html
    if plots:
        for name in result.systems:
            writers[f"scatter_{safe_filename(name)}.png"] = lambda p, name=name: svgs.__setitem__(name, scatter_plot(result, name, p))
    if html:
        writers["report.html"] = lambda p: p.write_text(audit_page(result, svgs), encoding="utf-8")
    return write_outputs(out_dir, writers)
