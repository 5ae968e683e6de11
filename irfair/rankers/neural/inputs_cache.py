"""The neural rankers' inputs kept in the cache: one ``neural`` entry per model, collection, candidates, queries and
settings (its key: :func:`inputs_key`), holding each input array as ``.npy`` and the pairs, with the manifest of
every entry (:mod:`irfair.cache.entry`). A second training on the same collection reads them: no corpus pass, no
histogram (DRMM's inputs took 4 s on Vaswani and 10 s on TIME, rebuilt for every seed and call before)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from ...cache import CacheDir, CacheEntry, EntryDamaged, Manifest, resolve_cache_dir
from ...cache.manifest import value_digest as _digest
from ...corpus.base import Corpus
from ...embeddings import Embeddings
from .features import DEFAULT_BINS
from .inputs import PairInputs

INPUTS_VERSION = 1  # raise when the arrays of PairInputs.build change for the same inputs
PAIRS_FILE = "pairs.tsv"


def inputs_key(model: str, embeddings: Embeddings, corpus: Corpus, stopwords, query_tokens: Mapping[str, list[str]],
               idf: Mapping[str, float], pairs: Sequence[tuple[str, str]], *, doc_len: int, matching: str,
               n_bins: int = DEFAULT_BINS) -> dict:
    """Everything the inputs are made from: the model and its settings, the embeddings' and the corpus's fingerprints,
    the stoplist, each query's tokens, their IDF and the pairs (digests)."""
    settings = {"n_bins": n_bins} if model == "drmm" else {"doc_len": doc_len, "matching": matching}
    return {"inputs_version": INPUTS_VERSION, "model": model, **settings, "embeddings": embeddings.fingerprint(),
            "corpus": corpus.fingerprint(), "stopwords": _digest(sorted(stopwords)),
            "queries": _digest(sorted(query_tokens.items())), "idf": _digest(sorted((t, repr(v)) for t, v in idf.items())),
            "pairs": _digest(list(pairs))}


def cached_inputs(cache_dir: CacheDir, model: str, key: dict, pairs: Sequence[tuple[str, str]], matching: str,
                  build: Callable[[], PairInputs]) -> PairInputs:
    """The inputs of ``key`` from the cache, or ``build()`` (then kept); built every time with ``cache_dir=False``."""
    root = resolve_cache_dir(cache_dir)
    if root is None:
        return build()
    entry = CacheEntry(root, "neural", f"{model}-inputs", key)

    def write(staging: Path) -> dict[str, int]:
        inputs = build()
        for name, array in inputs.arrays.items():
            np.save(staging / f"{name}.npy", array, allow_pickle=False)
        (staging / PAIRS_FILE).write_text("".join(f"{q}\t{d}\n" for q, d in inputs.pairs), encoding="utf-8")
        return {"pairs": len(inputs.pairs)}

    def load(folder: Path, manifest: Manifest) -> PairInputs:
        stored = [tuple(line.split("\t")) for line in (folder / PAIRS_FILE).read_text(encoding="utf-8").splitlines()]
        if stored != [tuple(p) for p in pairs]:
            raise EntryDamaged(f"{PAIRS_FILE} lists other pairs than its key")
        arrays = {path.stem: np.load(path, allow_pickle=False) for path in sorted(folder.glob("*.npy"))}
        return PairInputs(model, pairs, arrays, matching)

    return entry.obtain(load, write)
