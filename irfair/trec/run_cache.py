"""Run files parsed into columns, kept in the cache under the SHA-256 of their bytes: a re-audit of unchanged files
reads no text. An MS MARCO-sized audit's ten runs (70 M lines, 2.7 GB) took ~40 s to parse on 2 cores; their
entries are memory-mapped in well under a second, and hashing the files (which the audit's provenance records
anyway) takes ~1.5 s.

An entry (kind ``runs``) holds ``docs.arrow`` (the document ids in rank order, Arrow IPC, memory-mapped),
``scores.npy`` (float64), ``lines.npy`` (each row's line in the file) and ``queries.json`` (query ids in order,
their first rows, the run's tag). Its key: the file's SHA-256, ``max_depth``, whether the file was read as MS MARCO
``qid docid rank`` lines, and :data:`READER_VERSION`. A file that changes while it is read is parsed but not kept;
files the line reader must read (comments, bad lines) are never kept.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..atomic import file_digest
from ..cache import CacheEntry

KIND = "runs"
READER_VERSION = 1  # bump when what a run file parses into changes


class _NotKept(Exception):
    """The file was parsed but is not to be kept: it needs the line reader, or it changed while being read."""

    def __init__(self, parsed) -> None:
        super().__init__("not kept")
        self.parsed = parsed


def _stamp(path: Path) -> tuple[int, int, int]:
    status = os.stat(path)
    return status.st_size, status.st_mtime_ns, status.st_ino


def cached_run(path: str | Path, max_depth: int | None, msmarco: bool, cache_dir: str | Path,
               parse: Callable[[], object]):
    """``(run parts, sha256)``: the run of ``path`` parsed by ``parse()`` (a :class:`~irfair.trec.files.Run` read
    into columns, or None when the line reader must read the file), from the cache entry of the file's bytes when
    there is one, else parsed and kept there. ``run parts``: ``(doc_array, scores, bounds, lines, tag)`` or the
    result of ``parse()`` itself when it was not kept (None, or a run whose file changed while it was read)."""
    path = Path(path)
    before = _stamp(path)
    digest = file_digest(path)
    entry = CacheEntry(cache_dir, KIND, path.name, {"sha256": digest, "max_depth": max_depth, "msmarco": msmarco,
                                                    "reader": READER_VERSION})

    def build(staging: Path) -> dict[str, int]:
        run = parse()
        if run is None or run.columns is None or _stamp(path) != before:
            raise _NotKept(run)
        _write(staging, run)
        return {"rows": len(run.columns.scores), "queries": len(run.columns.bounds)}

    try:
        return entry.obtain(_load, build), digest
    except _NotKept as not_kept:
        return not_kept.parsed, digest


def _write(folder: Path, run) -> None:
    import pyarrow as pa

    columns = run.columns
    with pa.OSFile(str(folder / "docs.arrow"), "wb") as sink:
        batch = pa.record_batch([columns.doc_array], names=["doc"])
        with pa.ipc.new_file(sink, batch.schema) as writer:
            writer.write_batch(batch)
    np.save(folder / "scores.npy", np.ascontiguousarray(columns.scores, dtype=np.float64))
    np.save(folder / "lines.npy", np.asarray(run.line_of.lines))
    qids = list(columns.bounds)
    starts = [columns.bounds[q][0] for q in qids]
    (folder / "queries.json").write_text(json.dumps({"qids": qids, "starts": starts, "tag": run.tag}), encoding="utf-8")


def _load(folder: Path, manifest) -> tuple:
    import pyarrow as pa

    reader = pa.ipc.open_file(pa.memory_map(str(folder / "docs.arrow"), "r"))
    doc_array = reader.get_batch(0).column(0)
    scores = np.load(folder / "scores.npy", mmap_mode="r")
    lines = np.load(folder / "lines.npy", mmap_mode="r")
    queries = json.loads((folder / "queries.json").read_text(encoding="utf-8"))
    starts = [int(s) for s in queries["starts"]]
    if len(doc_array) != len(scores) or len(lines) != len(scores) or starts != sorted(starts) or \
            (starts and (starts[0] != 0 or starts[-1] >= len(scores))) or len(starts) != len(queries["qids"]):
        raise ValueError("its columns disagree in length")
    ends = [*starts[1:], len(scores)]
    bounds = {str(q): (s, e) for q, s, e in zip(queries["qids"], starts, ends)}
    return doc_array, scores, bounds, lines, queries["tag"]
