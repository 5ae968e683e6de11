"""The per-query table of one system: g(q), g_q(L) at the audited depth, and why a query is excluded.

A query is excluded, with its reason, when it has no relevant documents (no perfect run exists),
no query term in the embedding vocabulary, no list in the run, or no measurable document in its list.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..gender.genderedness import GenderednessModel, list_genderedness

REASON_NO_RELEVANT = "no relevant documents"
REASON_QUERY_OOV = "no query term in the embedding vocabulary"
REASON_NOT_IN_RUN = "query not in run"
REASON_NO_MEASURABLE = "no document with a measurable term"


@dataclass(frozen=True)
class QueryGenderedness:
    """A query's text, its content tokens and g(q) (NaN when no token is in the vocabulary)."""

    text: str
    tokens: list[str]
    genderedness: float


def query_genderedness(model: GenderednessModel, queries: Mapping[str, str]) -> dict[str, QueryGenderedness]:
    """g(q) of every query ``{qid: text}``."""
    out = {}
    for qid, text in queries.items():
        value, _, _ = model.query_genderedness(text)
        out[qid] = QueryGenderedness(text, model.query_tokens(text), value)
    return out


def per_query_table(model: GenderednessModel, queries: Mapping[str, QueryGenderedness], depth: Mapping[str, int],
                    lists: Mapping[str, Sequence[str]], weights_of: Callable[[str, int], np.ndarray]) -> pd.DataFrame:
    """One row per query: qid, query, query_genderedness, list_genderedness, depth, n_docs,
    n_docs_unmeasurable, used, reason. ``weights_of(qid, n)`` gives the rank weights of a list of n."""
    records = []
    for qid, query in queries.items():
        record = {"qid": qid, "query": query.text, "query_genderedness": query.genderedness,
                  "list_genderedness": float("nan"), "depth": depth.get(qid, 0), "n_docs": 0,
                  "n_docs_unmeasurable": 0, "used": False, "reason": ""}
        if qid not in depth:
            record["reason"] = REASON_NO_RELEVANT
        elif np.isnan(query.genderedness):
            record["reason"] = REASON_QUERY_OOV
        elif not lists.get(qid):
            record["reason"] = REASON_NOT_IN_RUN
        else:
            docs = lists[qid]
            doc_g = model.document_genderedness(docs, query.tokens)
            record["n_docs"] = len(docs)
            record["n_docs_unmeasurable"] = int(np.isnan(doc_g).sum())
            record["list_genderedness"] = list_genderedness(doc_g, weights_of(qid, len(docs)))
            if np.isnan(record["list_genderedness"]):
                record["reason"] = REASON_NO_MEASURABLE
            else:
                record["used"] = True
        records.append(record)
    return pd.DataFrame.from_records(records)
