"""The study's ``report.html``: one self-contained page with every study table, the figures (inline SVG),
each measuring embedding's audit summary with CIs, the definitions used and the provenance. Built from
the audit page's blocks (:mod:`irfair.audit.html`)."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import pandas as pd

from .html import definitions, provenance_html, summary_section
from .html_toolkit import esc, key_values, notes, page, table
from .plots import figure_svg
from .study_figures import figures


def frame_table(frame: pd.DataFrame, table_id: str) -> str:
    """A DataFrame (index already turned into columns) as a sortable HTML table."""
    rows = [[value.item() if hasattr(value, "item") else value for value in row] for row in frame.itertuples(index=False)]
    numeric = [pd.api.types.is_numeric_dtype(frame[column]) for column in frame.columns]
    return '<div class="scroll">' + table([str(c) for c in frame.columns], rows, table_id=table_id, sortable=True,
                                          numeric=numeric) + "</div>"


def study_page(result, tables: Mapping[str, pd.DataFrame], svgs: Mapping[str, Callable[[], str]] | None = None) -> str:
    """The whole page; ``tables`` maps each table's title to its (flat) DataFrame, in order; ``svgs`` maps each
    figure's file stem to a function giving its SVG (by default the figures are drawn here)."""
    if svgs is None:
        svgs = {stem: (lambda make=make: figure_svg(make())) for stem, make in figures(result).items()}
    table_html = "".join(f"<h3>{esc(title)}</h3>{frame_table(frame, f'table-{i}')}" for i, (title, frame) in enumerate(tables.items()))
    relative = [f"{emb}: {audit.relative_gsr_note}" for emb, audit in result.audits.items() if audit.relative_gsr_note]
    plots = "".join(f"<figure>{svg()}<figcaption>{esc(stem.removeprefix('plots/'))}</figcaption></figure>"
                    for stem, svg in svgs.items())
    audits = "".join(f"<h3>measured with {esc(emb)}</h3>{summary_section(audit)}" for emb, audit in result.audits.items())
    first = next(iter(result.audits.values()))
    config = dataclasses.asdict(result.config) if result.config else {}
    provenance = key_values((k, list(v) if isinstance(v, tuple) else v) for k, v in config.items())
    sections = [
        ("tables", "Study tables", table_html + (notes(relative) if relative else "")),
        ("figures", "Figures", f'<div class="study-plots">{plots}</div>'),
        ("audits", "Audits with CIs", audits),
        ("definitions", "Definitions", definitions()),
        ("provenance", "Provenance", "<h3>Study settings</h3>" + provenance + "<h3>Audit</h3>" + provenance_html(first.provenance)),
    ]
    subtitle = (f"{len(result.specs)} runs audited with {', '.join(result.audits)}; "
                f"irfair {first.provenance.get('irfair_version', '')} {first.provenance.get('created', '')}")
    return page("irfair study report", subtitle, sections)
