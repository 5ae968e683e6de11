"""Where the documents of an audit's runs are in the term store, so that the measures read their lists as arrays of
store rows instead of looking up millions of ids one by one.

Runs read from files (:class:`~irfair.trec.files.RankedColumns`) are looked up all at once by Arrow (a
Robust04-sized audit lists 4.5 million documents); a run given in memory is looked up in Python, list by list.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..cache import CacheEntry, EntryDamaged
from ..cache.entry import load_checked
from ..corpus import TermStore
from ..trec import Run
from ..trec.columns import numbers
from ..trec.run_cache import KIND, READER_VERSION


class StoreRows:
    """The store row of every document of ``runs`` (-1 for one the store lacks), and the ids the store lacks.

    With ``cache_dir``, a run read with a cache (its file's SHA-256 known) against a complete published store keeps
    its rows in the cache (kind ``runs``, keyed by both): looking up MS MARCO's 70 M run lines among 8.8 M passages
    took 17 s of a 91 s warm audit."""

    def __init__(self, runs: Sequence[Run], store: TermStore, cache_dir: str | Path | None = None) -> None:
        self.store = store
        self._runs: dict[int, tuple[Run, np.ndarray]] = {}
        self.unstored: set[str] = {doc for run in runs if run.columns is None for hits in run.ranking.values() for doc, _ in hits
                                   if doc not in store}
        columnar = [run for run in runs if run.columns is not None]
        entries = {id(run): _rows_entry(run, store, cache_dir) for run in columnar}
        looked_up = [run for run in columnar if not self._cached(run, entries[id(run)])]
        for run, rows in zip(looked_up, _looked_up_rows(looked_up, store)):
            self._runs[id(run)] = (run, rows)
            if entries[id(run)] is not None:
                _keep_rows(entries[id(run)], rows)
        for run, rows in self._runs.values():
            if np.any(rows < 0):
                self.unstored.update(_unique(run.columns.doc_array.filter(rows < 0)))

    def _cached(self, run: Run, entry: CacheEntry | None) -> bool:
        """Whether ``run``'s rows were read from its cache entry (taken in when they were)."""
        if entry is None:
            return False
        try:
            manifest = entry.manifest()
            rows = None if manifest is None else load_checked(_load_rows, entry.folder, manifest)
        except EntryDamaged:
            rows = None  # looked up again, and the entry rebuilt
        if rows is None or len(rows) != len(run.columns.scores):
            return False
        self._runs[id(run)] = (run, rows)
        return True

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


def _rows_entry(run: Run, store: TermStore, cache_dir: str | Path | None) -> CacheEntry | None:
    """The cache entry of ``run``'s store rows: for a run whose file's SHA-256 is known and a complete published
    store (whose rows change no more), with a cache; else None."""
    if cache_dir is None or run.sha256 is None or not store.complete or store.content_id is None:
        return None
    return CacheEntry(cache_dir, KIND, f"{Path(run.path or run.name).name}-rows",
                      {"sha256": run.sha256, "store": store.content_id, "rows_of": len(run.columns.scores),
                       "reader": READER_VERSION})


def _looked_up_rows(runs: Sequence[Run], store: TermStore) -> list[np.ndarray]:
    """Each run's store rows (int32, -1 where the store lacks the document), looked up by Arrow all at once."""
    if not runs:
        return []
    import pyarrow as pa
    import pyarrow.compute as pc

    listed = pa.chunked_array([run.columns.doc_array for run in runs], type=pa.string())
    found = pc.index_in(listed, value_set=pa.array(store.doc_ids, type=pa.string()))
    rows = numbers(found, fill=-1).astype(np.int32)  # 4 bytes a run line: 70 M for MS MARCO
    starts = np.cumsum([0, *(len(run.columns.doc_array) for run in runs)])
    return [rows[start:end] for start, end in zip(starts[:-1], starts[1:])]


def _keep_rows(entry: CacheEntry, rows: np.ndarray) -> None:
    """Publish ``rows`` as the entry, unless another process did (:meth:`CacheEntry.obtain`: a damaged entry is said
    and replaced)."""
    def write(staging: Path) -> dict[str, int]:
        np.save(staging / "rows.npy", rows)
        return {"rows": len(rows)}

    entry.obtain(_load_rows, write)


def _load_rows(folder: Path, manifest) -> np.ndarray:
    rows = np.load(folder / "rows.npy", mmap_mode="c")  # copy on write: update() fills rows the store gains
    if rows.dtype != np.int32 or rows.ndim != 1:
        raise ValueError(f"rows.npy holds {rows.dtype} of {rows.ndim} dimensions")
    return rows


def _unique(array) -> list[str]:
    import pyarrow.compute as pc

    return pc.unique(array).to_pylist()
