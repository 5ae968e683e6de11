"""The GSR audit of rankings: :func:`audit` (core), its result objects (result) and reports (report).

``irfair.audit`` is both this package and the function: once the package is imported, the attribute
``irfair.audit`` is the package, so the package itself is callable and calls :func:`audit`.
"""
import sys
import types

from .core import audit
from .report import save_audit
from .result import PERFECT, RANDOM, AuditResult, SystemAudit

# result.save(folder) writes what `irfair audit --out folder` writes (the report module sits above the result's)
AuditResult.save = save_audit

__all__ = ["PERFECT", "RANDOM", "AuditResult", "SystemAudit", "audit"]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args, **kwargs) -> AuditResult:
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
