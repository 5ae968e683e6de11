"""TREC qrels files ``qid iter doc_id grade``, and the :data:`Qrels` type they are read into: parsed strictly, every
bad line reported with file and line."""
from __future__ import annotations

from pathlib import Path

from ..atomic import write_text
from ..errors import IrfairInputError
from .lines import checked_rows, line_hint

Qrels = dict[str, dict[str, int]]


def read_qrels(path: str | Path) -> Qrels:
    """Read TREC qrels ``qid iter doc_id grade`` (grade an integer; > 0 means relevant; plain, gzip, bzip2 or xz);
    a line whose first character is '#' is a comment, as trec_eval 10 reads qrels.

    Returns ``{qid: {doc_id: grade}}`` (queries and documents in file order). Well-formed files are parsed
    at C speed (:mod:`.columns`); any other is read line by line, which names the line at fault.
    """
    fast = _read_qrels_columns(path)
    return fast if fast is not None else _read_qrels_lines(path)


def _read_qrels_columns(path: str | Path) -> Qrels | None:
    import numpy as np
    import pyarrow.compute as pc

    from .columns import numbers, read_columns

    read = read_columns(path, ("qid", "iter", "doc_id", "grade"), {"grade": "int64"})
    if read is None:
        return None
    table = read[0]
    if pc.any(pc.starts_with(table.column("qid"), "#")).as_py():
        return None  # comment lines: the line reader skips them
    queries = pc.dictionary_encode(table.column("qid")).combine_chunks()
    order = pc.sort_indices(queries.indices)  # stable: file order within each query
    codes = numbers(pc.take(queries.indices, order))
    docs = pc.take(table.column("doc_id"), order).to_pylist()
    grades = pc.take(table.column("grade"), order).to_pylist()
    bounds = (np.flatnonzero(np.diff(codes)) + 1).tolist()
    query_ids = queries.dictionary.to_pylist()
    qrels: Qrels = {}
    for start, end in zip([0, *bounds], [*bounds, len(codes)]):
        judged = dict(zip(docs[start:end], grades[start:end]))
        if len(judged) != end - start:
            return None  # a document judged twice: the line reader names the line
        qrels[query_ids[codes[start]]] = judged
    return qrels


def _read_qrels_lines(path: str | Path) -> Qrels:
    qrels: Qrels = {}
    for lineno, fields in checked_rows(path, "qrels", "qid iter doc_id grade", comment="first"):
        qid, _, doc_id, grade_text = fields
        try:
            grade = int(grade_text)
        except ValueError:
            raise IrfairInputError(path, lineno, f"relevance grade must be an integer, found {grade_text!r}"
                                                 + line_hint("qrels", fields, not qrels)) from None
        judged = qrels.setdefault(qid, {})
        if doc_id in judged:
            raise IrfairInputError(path, lineno, f"document {doc_id} judged twice for query {qid}")
        judged[doc_id] = grade
    return qrels


def relevant_docs(qrels: Qrels, qid: str) -> list[tuple[str, int]]:
    """Relevant ``(doc_id, grade)`` pairs of ``qid``, grade descending then doc id ascending."""
    judged = qrels.get(qid, {})
    return sorted(((doc, grade) for doc, grade in judged.items() if grade > 0), key=lambda x: (-x[1], x[0]))


def write_qrels(path: str | Path, qrels: Qrels) -> None:
    """Write ``qrels`` as a TREC qrels file, atomically."""
    lines = [f"{qid} 0 {doc} {grade}" for qid, judged in qrels.items() for doc, grade in judged.items()]
    write_text(path, "\n".join(lines) + "\n")
