"""Integrations with retrieval pipelines."""
from .pyserini import AuditingSearcher, audit_lists

__all__ = ["AuditingSearcher", "audit_lists"]
