"""Qrels and topics from every shape (see :mod:`irfair.trec`): files, ir_datasets ids, dicts, DataFrames,
ranx Qrels and ir_measures/ir_datasets records."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..errors import IrfairInputError
from . import irdatasets
from .qrels import Qrels, read_qrels
from .shapes import (
    DOC_COLUMNS,
    GRADE_COLUMNS,
    QID_COLUMNS,
    QUERY_COLUMNS,
    check_numeric_column,
    frame_column,
    grade_value,
    is_frame,
    is_ranx,
    is_record,
)
from .topics import Topic, read_topics


def as_qrels(qrels) -> Qrels:
    """Qrels ``{qid: {doc_id: grade}}`` from any shape of the module docstring (a new dict, never the argument)."""
    if isinstance(qrels, (str, Path)):
        return _file_or_dataset(qrels, "qrels", read_qrels, _qrels_from_records)
    if is_ranx(qrels, "Qrels"):
        qrels = qrels.to_dict()
    if isinstance(qrels, Mapping):
        out: Qrels = {}
        for qid, judged in qrels.items():
            if not isinstance(judged, Mapping):
                raise IrfairInputError("qrels", None, f"query {qid}: expected {{doc_id: grade}}, found {type(judged).__name__}")
            out[str(qid)] = {str(doc): grade_value(grade, f"query {qid}, document {doc}") for doc, grade in judged.items()}
        return out
    if is_frame(qrels):
        qid_column = frame_column(qrels, QID_COLUMNS, "query ids", "qrels")
        doc_column = frame_column(qrels, DOC_COLUMNS, "document ids", "qrels")
        grade_column = frame_column(qrels, GRADE_COLUMNS, "relevance grades", "qrels")
        check_numeric_column(qrels, grade_column, "integer relevance grades", "qrels", cast="int")
        rows = zip(qrels[qid_column], qrels[doc_column], qrels[grade_column])
        return _qrels_from_rows("qrels", rows)
    if isinstance(qrels, Iterable):
        records = list(qrels)
        if records and all(is_record(r, "relevance") for r in records):
            return _qrels_from_records("qrels", records)
    raise IrfairInputError("qrels", None, f"cannot read qrels from {type(qrels).__name__}: expected a TREC qrels file, an "
                                          "ir_datasets id, {qid: {doc_id: grade}}, a DataFrame, ranx.Qrels or Qrel records")


def _file_or_dataset(spec: str | Path, what: str, read_file: Callable, from_records: Callable):
    """``read_file(spec)`` for an existing file, else ``from_records`` of the ir_datasets id's ``what`` records."""
    if Path(spec).exists():
        return read_file(spec)
    identifier = irdatasets.dataset_id(spec)
    if identifier is None:
        raise irdatasets.not_found(spec, what)
    return from_records(identifier, irdatasets.dataset_records(identifier, what))


def _qrels_from_records(where: str, records: Iterable) -> Qrels:
    return _qrels_from_rows(where, ((r.query_id, r.doc_id, r.relevance) for r in records))


def _qrels_from_rows(where: str, rows: Iterable[tuple]) -> Qrels:
    qrels: Qrels = {}
    for i, (qid, doc, grade) in enumerate(rows):
        judged = qrels.setdefault(str(qid), {})
        if str(doc) in judged:
            raise IrfairInputError(where, None, f"row {i}: document {doc} judged twice for query {qid}")
        judged[str(doc)] = grade_value(grade, f"row {i}")
    return qrels


def as_topics(topics) -> dict[str, Topic]:
    """Topics ``{qid: Topic}`` from any shape of the module docstring."""
    if isinstance(topics, (str, Path)):
        return _file_or_dataset(topics, "topics", read_topics, _topics_from_records)
    if isinstance(topics, Mapping):
        return {str(q): t if isinstance(t, Topic) else Topic(str(q), str(t)) for q, t in topics.items()}
    if is_frame(topics):
        qid_column = frame_column(topics, QID_COLUMNS, "query ids", "topics")
        text_column = next((c for c in QUERY_COLUMNS if c in topics.columns), None)
        if text_column is None:
            raise IrfairInputError("topics", None, f"expected a column {' or '.join(QUERY_COLUMNS)}; found {list(topics.columns)}")
        descriptions = topics["description"] if "description" in topics.columns else [""] * len(topics)
        rows = zip(topics[qid_column], topics[text_column], descriptions)
        return _unique_topics("topics", (Topic(str(q), " ".join(str(t).split()), " ".join(str(d).split())) for q, t, d in rows))
    if isinstance(topics, Iterable):
        records = list(topics)
        if records and all(hasattr(r, "query_id") for r in records):
            return _topics_from_records("topics", records)
    raise IrfairInputError("topics", None, f"cannot read topics from {type(topics).__name__}: expected a topics file, an "
                                           "ir_datasets id, {qid: text}, a DataFrame (qid, query) or query records")


def _topics_from_records(where: str, records: Iterable) -> dict[str, Topic]:
    """Topics from ir_datasets/ir_measures query records: title from ``title`` (else ``text``, else the
    record's default text), description from ``description``."""
    def topic(record) -> Topic:
        title = getattr(record, "title", None) or getattr(record, "text", None)
        if not isinstance(title, str):
            title = record.default_text() if hasattr(record, "default_text") else ""
        description = getattr(record, "description", "")
        return Topic(str(record.query_id), " ".join(title.split()), " ".join(str(description or "").split()))

    return _unique_topics(where, (topic(r) for r in records))


def _unique_topics(where: str, topics: Iterable[Topic]) -> dict[str, Topic]:
    out: dict[str, Topic] = {}
    for topic in topics:
        if topic.qid in out:
            raise IrfairInputError(where, None, f"topic {topic.qid} appears twice")
        out[topic.qid] = topic
    return out
