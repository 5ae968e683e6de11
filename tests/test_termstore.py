import numpy as np

from irfair.corpus import InMemoryCorpus
from irfair.corpus.termstore import TermStore


def test_counts_without_stopwords():
    store = TermStore()
    store.add([("d", "The nurse and the nurse she met")])
    matrix = store.matrix().toarray()
    counts = {term: matrix[0, i] for i, term in enumerate(store.vocab)}
    assert counts == {"nurse": 2, "she": 1, "met": 1}


def test_cache_is_reused_extended_and_resumable(tmp_path):
    corpus = InMemoryCorpus({f"d{i}": f"word{chr(97 + i % 26)} nurse" for i in range(7)}, name="toy")
    store = TermStore.for_corpus(corpus, tmp_path)
    assert store.ensure(corpus, {"d0", "d1", "d9"}, progress=False) == {"d9"}
    assert len(store) == 2
    store.add(((d, t) for d, t in corpus.iter_docs() if d not in store), shard_size=2)  # three shards of <= 2
    reopened = TermStore.for_corpus(corpus, tmp_path)
    assert len(reopened) == 7 and reopened.vocab == store.vocab
    assert (reopened.matrix() != store.matrix()).nnz == 0
    assert sorted(p.name for p in reopened.folder.glob("shard-*")) == [f"shard-0000{i}" for i in range(4)]


def test_single_shard_loads_memory_mapped(tmp_path):
    corpus = InMemoryCorpus({"a": "she nurse", "b": "he plumber"})
    TermStore.for_corpus(corpus, tmp_path).ensure(corpus, None, progress=False)
    reopened = TermStore.for_corpus(corpus, tmp_path)
    assert reopened.complete
    assert isinstance(reopened._shards[0][1][1], np.memmap)
    assert reopened.ensure(corpus, {"zzz"}, progress=False) == {"zzz"}  # complete store: nothing re-read
