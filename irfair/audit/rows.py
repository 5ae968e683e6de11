"""Where the documents of an audit's runs are in the term store, so that the measures read their lists as arrays of
store rows instead of looking up millions of ids one by one.

Runs read from files (:class:`~irfair.trec.files.RankedColumns`) are looked up all at once by Arrow (a
Robust04-sized audit lists 4.5 million documents); a run given in memory is looked up in Python, list by list.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..corpus import TermStore
from ..trec import Run


class StoreRows:
    """The store row of every document of ``runs`` (-1 for one the store lacks), and the ids the store lacks."""

    def __init__(self, runs: Sequence[Run], store: TermStore) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        self.store = store
        self._runs: dict[int, tuple[Run, np.ndarray]] = {}
        self.unstored: set[str] = {doc for run in runs if run.columns is None for hits in run.ranking.values() for doc, _ in hits
                                   if doc not in store}
        columnar = [run for run in runs if run.columns is not None]
        if columnar:
            listed = pa.chunked_array([run.columns.doc_array for run in columnar], type=pa.string())
            found = pc.index_in(listed, value_set=pa.array(store.doc_ids, type=pa.string()))
            rows = pc.fill_null(found, -1).to_numpy().astype(np.int32)  # 4 bytes a run line: 70 M for MS MARCO
            starts = np.cumsum([0, *(len(run.columns.doc_array) for run in columnar)])
            for run, start, end in zip(columnar, starts[:-1], starts[1:]):
                self._runs[id(run)] = (run, rows[start:end])
            if np.any(rows < 0):
                self.unstored.update(pc.unique(listed.filter(pc.is_null(found))).to_pylist())

    def update(self) -> None:
        """Look up again the documents the store lacked (it may have been given them since)."""
        for run, run_rows in self._runs.values():
            absent = np.flatnonzero(run_rows < 0)
            if len(absent):
                doc_ids = run.columns.doc_array.take(absent).to_pylist()
                run_rows[absent] = [self.store.doc_row.get(doc, -1) for doc in doc_ids]

    def lists(self, run: Run, depth: Mapping[str, int]) -> dict[str, np.ndarray]:
        """``{qid: store rows of the run's first depth[qid] documents}`` for the queries of ``depth`` the run has."""
        if id(run) not in self._runs:
            return {qid: self.store.doc_rows(run.doc_ids(qid, k)) for qid, k in depth.items() if qid in run.ranking}
        rows, bounds = self._runs[id(run)][1], run.columns.bounds
        return {qid: rows[bounds[qid][0]:min(bounds[qid][1], bounds[qid][0] + k)] for qid, k in depth.items() if qid in bounds}
