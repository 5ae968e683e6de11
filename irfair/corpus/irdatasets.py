"""Documents of an ir_datasets id (e.g. ``disks45/nocr/trec-robust-2004``), read from the user's own copy
(extra ``datasets``)."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator

from ..errors import IrfairInputError, MissingExtraError


class IrDatasetsCorpus:
    """Documents of an ir_datasets id (e.g. ``disks45/nocr/trec-robust-2004``), read from the user's own copy."""

    def __init__(self, dataset_id: str) -> None:
        try:
            import ir_datasets
        except ImportError:
            raise MissingExtraError("ir_datasets", "datasets") from None
        try:
            self.dataset = ir_datasets.load(dataset_id)
        except KeyError:
            raise IrfairInputError(None, None, f"unknown ir_datasets id {dataset_id!r}") from None
        if not self.dataset.has_docs():
            raise IrfairInputError(None, None, f"ir_datasets id {dataset_id!r} has no documents")
        self.dataset_id = dataset_id
        self.name = dataset_id.replace("/", "_")

    def fingerprint(self) -> str:
        return hashlib.sha1(f"ir_datasets:{self.dataset_id}".encode()).hexdigest()[:16]

    @staticmethod
    def _text(doc) -> str:
        if hasattr(doc, "default_text"):
            return doc.default_text()
        fields = [getattr(doc, name) for name in ("title", "text", "body") if isinstance(getattr(doc, name, None), str)]
        return "\n".join(fields)

    def iter_docs(self, wanted: set[str] | None = None) -> Iterator[tuple[str, str]]:
        if wanted is not None:
            store = self.dataset.docs_store()
            for doc_id, doc in store.get_many(sorted(wanted)).items():
                yield doc_id, self._text(doc)
            return
        for doc in self.dataset.docs_iter():
            yield doc.doc_id, self._text(doc)
