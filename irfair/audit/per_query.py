"""The per-query table of one system: g(q), g_q(L) at the audited depth, and why a query is excluded.

A query is excluded from GSR with exactly one reason, checked in this order:

* ``no <field> field`` — the topic has no text in the requested field (``--query-field``), e.g. a
  topic without a description when ``desc`` is asked for;
* ``empty query`` — the field has text but no token (only digits, punctuation or 1-letter pieces);
* ``only stopwords`` — every token is on the stoplist;
* ``no term in the embedding vocabulary`` — no content token has a vector, so g(q) is undefined;
* ``no relevant documents`` — the qrels judge no document relevant, so no perfect run exists;
* ``query not in run`` — the system returned nothing for it;
* ``no document with a measurable term`` — every listed document is empty or made only of query
  terms, stopwords and unknown words, so g_q(L) is undefined.

The first four depend on the query alone and are the same for every system.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..gender.genderedness import GenderednessModel, list_genderedness
from ..text import tokenize

REASON_EMPTY_QUERY = "empty query"
REASON_ONLY_STOPWORDS = "only stopwords"
REASON_QUERY_OOV = "no term in the embedding vocabulary"
REASON_NO_RELEVANT = "no relevant documents"
REASON_NOT_IN_RUN = "query not in run"
REASON_NO_MEASURABLE = "no document with a measurable term"

PER_QUERY_COLUMNS = ("qid", "query", "query_genderedness", "list_genderedness", "depth", "n_docs", "n_docs_unmeasurable",
                     "used", "reason")


def reason_no_field(field: str) -> str:
    """The exclusion reason of a topic without text in ``field`` (``no desc field``)."""
    return f"no {field} field"


@dataclass(frozen=True)
class QueryGenderedness:
    """A query's text, its content tokens, g(q) (NaN when undefined) and why it is undefined ("" when defined)."""

    text: str
    tokens: list[str]
    genderedness: float
    reason: str = ""


def query_genderedness(model: GenderednessModel, queries: Mapping[str, str], field: str = "title") -> dict[str, QueryGenderedness]:
    """g(q) of every query ``{qid: text of the field}``, with the exclusion reason of each undefined one."""
    out = {}
    for qid, text in queries.items():
        tokens = model.query_tokens(text)
        value, _, _ = model.query_genderedness(text)
        reason = ""
        if not text.strip():
            reason = reason_no_field(field)
        elif not tokenize(text):
            reason = REASON_EMPTY_QUERY
        elif not tokens:
            reason = REASON_ONLY_STOPWORDS
        elif np.isnan(value):
            reason = REASON_QUERY_OOV
        out[qid] = QueryGenderedness(text, tokens, value, reason)
    return out


def per_query_table(model: GenderednessModel, queries: Mapping[str, QueryGenderedness], depth: Mapping[str, int],
                    lists: Mapping[str, Sequence[str]], weights_of: Callable[[str, int], np.ndarray]) -> pd.DataFrame:
    """One row per query with the columns of :data:`PER_QUERY_COLUMNS`. ``depth`` holds the queries with
    relevant documents; ``lists[qid]``: the document ids, or their rows in the store (an array of int64), of a
    query's list; ``weights_of(qid, n)`` gives the rank weights of a list of n documents."""
    measured = [qid for qid, query in queries.items() if not query.reason and qid in depth and len(lists.get(qid, ()))]
    document_genderedness = dict(zip(measured, model.lists_document_genderedness(
        [lists[qid] for qid in measured], [queries[qid].tokens for qid in measured])))
    records = []
    for qid, query in queries.items():
        record = {"qid": qid, "query": query.text, "query_genderedness": query.genderedness,
                  "list_genderedness": float("nan"), "depth": depth.get(qid, 0), "n_docs": 0,
                  "n_docs_unmeasurable": 0, "used": False, "reason": query.reason}
        if query.reason:
            pass
        elif qid not in depth:
            record["reason"] = REASON_NO_RELEVANT
        elif not len(lists.get(qid, ())):
            record["reason"] = REASON_NOT_IN_RUN
        else:
            docs = lists[qid]
            doc_g = document_genderedness[qid]
            record["n_docs"] = len(docs)
            record["n_docs_unmeasurable"] = int(np.isnan(doc_g).sum())
            record["list_genderedness"] = list_genderedness(doc_g, weights_of(qid, len(docs)))
            if np.isnan(record["list_genderedness"]):
                record["reason"] = REASON_NO_MEASURABLE
            else:
                record["used"] = True
        records.append(record)
    return pd.DataFrame.from_records(records, columns=list(PER_QUERY_COLUMNS))
