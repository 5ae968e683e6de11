"""What is shown of an audit or a study, read from their finished results: the verdict and tables for the terminal
(:mod:`.verdict`, :mod:`.summary`, :mod:`.bias_summary`, :mod:`.baseline_view`), Markdown, LaTeX and TSV
(:mod:`.formats`), the output files (:mod:`.report`), report.html (:mod:`.html` on :mod:`.html_toolkit`), figures
(:mod:`.svg`, :mod:`.plots`), the study's files and page (:mod:`.study_report`, :mod:`.study_html`,
:mod:`.study_figures`) and ``irfair demo`` (:mod:`.demo`). Nothing here computes a number that is not on the
result; the layers below never import this one (an :class:`~irfair.audit.result.AuditResult` loads it by name to
render itself).
"""
from __future__ import annotations

from ..audit.result import AuditResult
from .formats import format_latex, format_markdown
from .html import verdict_section
from .report import format_text, save_audit


def to_text(result: AuditResult, wide: bool = False) -> str:
    """What ``irfair audit`` prints (``wide``: as ``--wide``)."""
    return format_text(result, wide) + "\n"


def repr_html(result: AuditResult) -> str:
    """A notebook's view of the audit: the verdict's sentences and table, as report.html opens."""
    return f'<div class="irfair-audit">{verdict_section(result)}</div>'


__all__ = ["format_latex", "format_markdown", "format_text", "repr_html", "save_audit", "to_text"]
