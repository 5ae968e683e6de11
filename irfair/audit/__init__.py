"""The GSR audit of rankings: :func:`audit` (core), its result objects (result) and reports (report).

``irfair.audit`` is both this package and the function: once the package is imported, the attribute
``irfair.audit`` is the package, so the package itself is callable and calls :func:`audit`.
"""
import sys
import types

from .core import audit
from .formats import format_latex, format_markdown
from .html import verdict_section
from .report import format_text, save_audit
from .result import PERFECT, RANDOM, AuditResult, SystemAudit


def _to_text(result: AuditResult, wide: bool = False) -> str:
    """What ``irfair audit`` prints (``wide``: as ``--wide``)."""
    return format_text(result, wide) + "\n"


def _repr_html(result: AuditResult) -> str:
    """A notebook's view of the audit: the verdict's sentences and table, as report.html opens."""
    return f'<div class="irfair-audit">{verdict_section(result)}</div>'


# the renderings, attached to the result here (the presentation modules sit above the result's): result.save(folder)
# writes what `irfair audit --out folder` writes; to_text / to_markdown / to_latex return what --format prints
AuditResult.save = save_audit
AuditResult.to_text = _to_text
AuditResult.to_markdown = format_markdown
AuditResult.to_latex = format_latex
AuditResult._repr_html_ = _repr_html

__all__ = ["PERFECT", "RANDOM", "AuditResult", "SystemAudit", "audit"]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args, **kwargs) -> AuditResult:
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
