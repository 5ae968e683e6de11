"""The GSR audit of rankings: :func:`audit` (core) and its result objects (result); what is shown of them is
:mod:`irfair.presentation`'s, which the result loads to render itself (``save``, ``to_text``, ``to_markdown``,
``to_latex``, a notebook's view).

``irfair.audit`` is both this package and the function: once the package is imported, the attribute
``irfair.audit`` is the package, so the package itself is callable and calls :func:`audit`.
"""
import sys
import types

from .core import audit
from .result import PERFECT, RANDOM, AuditResult, SystemAudit

__all__ = ["PERFECT", "RANDOM", "AuditResult", "SystemAudit", "audit"]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args, **kwargs) -> AuditResult:
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
