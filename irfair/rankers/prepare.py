"""Everything the rankers need of a corpus, built ahead of time (``irfair index``): the term store, the
Lucene index and the add/si document vectors of given embeddings, all cached."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..cache import CacheDir, writable_cache_dir
from ..corpus import TermStore, open_corpus
from ..errors import IrfairInputError
from .base import make_ranker
from .registry import EMBEDDING, rankers_of


@dataclass
class PreparedCorpus:
    """What was built: the term store, the Lucene index folder (or None) and the document vectors made
    ``(ranker name, n_docs, dim, n_docs_without_vector)``."""

    store: TermStore
    lucene_index: Path | None
    document_vectors: list[tuple[str, int, int, int]] = field(default_factory=list)


def prepare_corpus(corpus, *, embeddings: Sequence[object] = (), lucene: bool = True, threads: int = 2,
                   cache_dir: CacheDir = None, progress: bool = True) -> PreparedCorpus:
    """Tokenise ``corpus`` into its term store, build its Lucene index (``lucene``) and the add/si
    document vectors of each of ``embeddings``, under the cache folder."""
    cache = writable_cache_dir(cache_dir)
    if cache is None:
        raise IrfairInputError(None, None, "preparing a corpus needs a cache folder")
    corpus_obj = open_corpus(corpus)
    store = TermStore.for_corpus(corpus_obj, cache)
    store.ensure(corpus_obj, None, progress=progress)
    index = None
    if lucene:
        from ..corpus.lucene_index import build_index

        index = build_index(corpus_obj, cache, threads=threads, progress=progress)
    prepared = PreparedCorpus(store, index)
    for vectors in embeddings:
        for scheme in rankers_of(EMBEDDING):
            ranker = make_ranker(scheme, corpus=corpus_obj, embeddings=vectors, cache_dir=cache, store=store, progress=progress)
            prepared.document_vectors.append((ranker.name, len(store), ranker.embeddings.dim, ranker.n_docs_without_vector))
    return prepared
