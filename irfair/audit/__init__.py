"""The GSR audit of rankings: :func:`audit` (core), its result objects (result) and reports (report)."""
from .core import audit
from .result import PERFECT, RANDOM, AuditResult, SystemAudit

__all__ = ["PERFECT", "RANDOM", "AuditResult", "SystemAudit", "audit"]
