"""The on-disk form of a term store entry: reading (every shard checked) and writing shards."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cache import EntryDamaged, Manifest

PARTS = (("indptr", np.int64), ("indices", np.int32), ("counts", np.int32))

Block = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass
class Contents:
    """What a term store holds: vocabulary, shards ``(doc ids, CSR block)``, ids known absent, completeness."""

    vocab: list[str]
    shards: list[tuple[list[str], Block]]
    absent: set[str]
    complete: bool


def _lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    if text and not text.endswith("\n"):
        raise EntryDamaged(f"{path.name} does not end with a line end")
    return text.split("\n")[:-1]


def _read_shard(folder: Path, n_terms: int) -> tuple[list[str], Block]:
    ids = _lines(folder / "doc_ids.txt")
    block = []
    for part, dtype in PARTS:
        array = np.load(folder / f"{part}.npy", mmap_mode="r", allow_pickle=False)
        if array.dtype != dtype or array.ndim != 1:
            raise EntryDamaged(f"{folder.name}/{part}.npy holds {array.dtype} of {array.ndim} dimensions")
        block.append(array)
    indptr, indices, counts = block
    if len(indptr) != len(ids) + 1 or indptr[0] != 0 or indptr[-1] != len(indices) or len(counts) != len(indices):
        raise EntryDamaged(f"{folder.name}: offsets do not match {len(ids)} documents")
    if len(indices) and (np.any(np.diff(indptr) < 0) or indices.min() < 0 or indices.max() >= n_terms or counts.min() < 1):
        raise EntryDamaged(f"{folder.name}: term ids outside the {n_terms}-term vocabulary, or bad counts")
    return ids, (indptr, indices, counts)


def read_contents(folder: Path, manifest: Manifest) -> Contents:
    vocab = _lines(folder / "vocab.txt")
    counts = manifest.counts
    if len(vocab) != counts.get("terms") or len(set(vocab)) != len(vocab):
        raise EntryDamaged(f"vocab.txt has {len(vocab)} terms (unique or not), the manifest says {counts.get('terms')}")
    shard_names = sorted({rel.split("/")[0] for rel in manifest.files if rel.startswith("shard-")})
    if shard_names != [f"shard-{i:05d}" for i in range(counts.get("shards", -1))]:
        raise EntryDamaged("its shards are not numbered 0 to n - 1")
    shards = [_read_shard(folder / name, len(vocab)) for name in shard_names]
    n_docs = sum(len(ids) for ids, _ in shards)
    if n_docs != counts.get("documents") or len({d for ids, _ in shards for d in ids}) != n_docs:
        raise EntryDamaged(f"its shards hold {n_docs} documents (unique or not), the manifest says {counts.get('documents')}")
    absent = set(_lines(folder / "absent.txt")) if (folder / "absent.txt").exists() else set()
    return Contents(vocab, shards, absent, bool(counts.get("complete")))


def link_shard(source: Path, target: Path) -> bool:
    """Hard-link the four files of a published shard; False (nothing left behind) when that fails."""
    names = ["doc_ids.txt", *(f"{part}.npy" for part, _ in PARTS)]
    try:
        for name in names:
            os.link(source / name, target / name)
    except OSError:
        for name in names:
            (target / name).unlink(missing_ok=True)
        return False
    return True


def write_shard(folder: Path, ids: list[str], block: Block) -> None:
    for (part, _), array in zip(PARTS, block):
        with open(folder / f"{part}.npy", "wb") as handle:
            np.save(handle, np.ascontiguousarray(array))
    (folder / "doc_ids.txt").write_text("".join(d + "\n" for d in ids), encoding="utf-8")
