"""The exposure measures' inputs in the audit: which group each document is in, and each query's relevant documents
with their grades and groups (the targets), built once and read by every system's lists.

Groups come from a file (``--document-groups``, :mod:`irfair.trec.document_groups`; a document the file does not
list is in ``unknown``) or, without one, from each document's own words by the rule of
:func:`irfair.measures.exposure_batch.groups_from_counts` (female / male / neither, with the exposure measures'
word list, RaB's by default, ``--gender-words`` replacing it); a relevant document the corpus lacks is then in
``unknown``. Grades are the qrels' own: relevant = grade > 0 whatever trec_eval's ``-l`` (judged non-relevant
documents are treated as unjudged, as both reference programs do).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..corpus import TermStore
from ..errors import IrfairInputError
from ..measures.exposure import UNKNOWN, alignment
from ..measures.exposure_batch import RULE_LABELS, RULE_UNGROUPED, QueryTargets, groups_from_counts
from ..measures.gender_counts import word_indicators
from ..measures.gender_words import GenderWords
from ..measures.ranking_bias import EXPOSURE, BiasMeasure
from ..trec.document_groups import DocumentGroups, read_document_groups

RULE = ("female when a document holds more of the list's female words than male ones, male when more male ones, "
        "neither otherwise")


@dataclass(frozen=True)
class ExposureSetup:
    """Labels (the order of every group vector), the groups file (None: the rule on ``words``), and per query
    with relevant documents their grades (> 0) and groups, shape (n_relevant, n_labels)."""

    labels: tuple[str, ...]
    groups: DocumentGroups | None
    words: GenderWords | None
    relevant: dict[str, dict[str, int]]
    targets: dict[str, tuple[np.ndarray, np.ndarray]]

    def query_targets(self, qids: Sequence[str]) -> QueryTargets:
        """The targets of ``qids`` in that order (a query without relevant documents: none)."""
        empty = (np.zeros(0, dtype=np.int64), np.zeros((0, len(self.labels))))
        found = [self.targets.get(qid, empty) for qid in qids]
        return QueryTargets(self.labels, tuple(g for g, _ in found), tuple(m for _, m in found), self.ungrouped)

    @property
    def ungrouped(self) -> tuple[str, ...]:
        """The labels that mean "no group": ``unknown``, and the rule's ``neither``."""
        return (UNKNOWN,) if self.groups is not None else RULE_UNGROUPED

    def document_groups(self, store: TermStore, rows: np.ndarray, female: np.ndarray, male: np.ndarray) -> np.ndarray:
        """The groups of the store's ``rows``, shape (len(rows), n_labels): from the file, else from their word counts."""
        if self.groups is None:
            return _pad(groups_from_counts(female, male), len(self.labels))
        ids = store.doc_ids
        return alignment([ids[row] for row in rows.tolist()], self.groups.of, self.labels)

    def to_dict(self) -> dict:
        """For audit.json: the groups' source (the file, or the rule and its word list) and labels."""
        if self.groups is not None:
            return {"read_from": "file", **self.groups.to_dict()}
        return {"read_from": "documents", "rule": RULE, "labels": list(self.labels),
                "gender_words": None if self.words is None else self.words.source}

    @property
    def described(self) -> str:
        """``groups of FILE, gender: female/male/unknown`` or ``groups read from the documents: female/male/neither``."""
        if self.groups is not None:
            return f"groups of {Path(self.groups.source).name}, {self.groups.attribute}: {'/'.join(self.labels)}"
        return f"groups read from the documents: {'/'.join(self.labels)}"


def exposure_setup(measures: Sequence[BiasMeasure], words: Mapping[str, GenderWords], qrels: Mapping[str, Mapping[str, int]],
                   store: TermStore, document_groups: str | Path | DocumentGroups | None = None,
                   attribute: str | None = None) -> ExposureSetup | None:
    """The exposure inputs when ``measures`` hold one of the exposure family (else None; a groups file or an
    attribute without such a measure is an error the caller raises first, :func:`check_group_options`)."""
    exposure = [m for m in measures if m.family == EXPOSURE]
    if not exposure:
        return None
    groups = document_groups if isinstance(document_groups, DocumentGroups) or document_groups is None else \
        read_document_groups(document_groups, attribute)
    relevant = {qid: {doc: int(g) for doc, g in docs.items() if g > 0} for qid, docs in qrels.items()}
    relevant = {qid: docs for qid, docs in relevant.items() if docs}
    word_list = words.get(exposure[0].name)
    if groups is not None:
        if not any(doc in store for doc in groups.of):
            first = next(iter(groups.of))
            raise IrfairInputError(groups.source, None, f"none of its {len(groups.of)} documents is in the corpus "
                                                        f"(the first: {first}): groups of another collection?")
        labels = groups.labels
        targets = {qid: (np.array(list(docs.values()), dtype=np.int64), alignment(list(docs), groups.of, labels))
                   for qid, docs in relevant.items()}
        return ExposureSetup(labels, groups, None, relevant, targets)
    docs = sorted({doc for judged in relevant.values() for doc in judged if doc in store})
    rows = store.doc_rows(docs)
    order = np.argsort(rows, kind="stable")
    sums = np.zeros((len(docs), 2))
    if len(docs):
        sums[order] = store.term_sums(word_indicators(store.vocab, word_list), rows[order])
    found = dict(zip(docs, groups_from_counts(sums[:, 0], sums[:, 1])))
    labels = RULE_LABELS + ((UNKNOWN,) if any(d not in found for judged in relevant.values() for d in judged) else ())
    unknown = np.eye(len(labels))[-1]  # only used when unknown is among the labels (last)

    def groups_of(judged: dict[str, int]) -> np.ndarray:
        rows = [_pad(found[d][None, :], len(labels))[0] if d in found else unknown for d in judged]
        return np.array(rows).reshape(-1, len(labels))

    targets = {qid: (np.array(list(judged.values()), dtype=np.int64), groups_of(judged)) for qid, judged in relevant.items()}
    return ExposureSetup(labels, None, word_list, relevant, targets)


def check_group_options(measures: Sequence[BiasMeasure], document_groups, attribute) -> None:
    """IrfairInputError when a groups file or an attribute is given but no exposure measure reads it."""
    if (document_groups is not None or attribute is not None) and not any(m.family == EXPOSURE for m in measures):
        given = "document groups" if document_groups is not None else "a group attribute"
        raise IrfairInputError(None, None, f"{given} but no exposure measure: add ee or awrf to the bias measures")
    if attribute is not None and document_groups is None:
        raise IrfairInputError(None, None, f"group attribute {attribute!r} without document groups: it names one of a file's")


def _pad(matrix: np.ndarray, width: int) -> np.ndarray:
    """``matrix`` with zero columns added on the right up to ``width`` (the rule's labels before ``unknown``)."""
    return np.pad(matrix, ((0, 0), (0, width - matrix.shape[1])))
