"""The pieces every irfair page is built from: escaping, the page frame with its stylesheet and script, tables
(sortable, numbers right-aligned), key-value tables and notes. Pages (the audit's, the study's) assemble these."""
from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from importlib import resources


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


def header(text: str) -> str:
    """A column header that may wrap after its underscores (``delta_gsr_ci95``)."""
    return "_<wbr>".join(esc(part) for part in str(text).split("_"))


def text_cell(value: str, numeric: bool) -> str:
    """A cell already formatted: numbers right-aligned, a CI ``[low, high]`` free to wrap after its comma."""
    if numeric:
        css = "num ci" if "[" in value else "num"
        return f'<td class="{css}">{esc(value)}</td>'
    return f"<td>{esc(value)}</td>"


def table(headers: Sequence[str], rows: Iterable[Sequence], *, table_id: str | None = None, sortable: bool = False,
          row_classes: Sequence[str] | None = None, numeric: Sequence[bool] | None = None) -> str:
    """An HTML table; cells that are already strings are shown as they are (``numeric`` right-aligns columns)."""
    attrs = (f' id="{esc(table_id)}"' if table_id else "") + (' class="sortable"' if sortable else "")
    heads = "".join(f'<th class="num">{header(h)}</th>' if numeric and numeric[i] else f"<th>{header(h)}</th>"
                    for i, h in enumerate(headers))
    lines = []
    for i, row in enumerate(rows):
        css = f' class="{esc(row_classes[i])}"' if row_classes and row_classes[i] else ""
        cells = "".join(text_cell(v, bool(numeric and numeric[j])) if isinstance(v, str) else cell(v)
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
