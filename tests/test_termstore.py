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


def test_rows_and_columns_read_from_the_shards_equal_the_assembled_matrix(tmp_path):
    corpus = InMemoryCorpus({f"d{i}": " ".join(["nurse"] * (i % 3) + [f"word{i % 4}"] * (i % 5) + ["she"] * (i % 2))
                             for i in range(9)}, name="toy")
    store = TermStore.for_corpus(corpus, tmp_path)
    store.add(corpus.iter_docs(), shard_size=2)  # five shards; d0 has no token at all
    reopened = TermStore.for_corpus(corpus, tmp_path)
    rows = np.array([8, 0, 3, 3, 1, 7])
    by_rows = reopened.row_counts(rows)  # read before the whole matrix exists
    columns = np.array([reopened.term_id["she"], reopened.term_id["nurse"]])
    by_columns = reopened.column_counts(columns)
    assert reopened._matrix is None
    whole = reopened.matrix().toarray()
    assert by_rows.dtype == np.float64 and np.array_equal(by_rows.toarray(), whole[rows])
    assert np.array_equal(by_columns.toarray(), whole[:, columns])
    # by hand: d3 holds nurse 0 (3 % 3), word3 ×3, she ×1; d8 holds nurse ×2, word0 ×3, she 0
    assert by_columns.toarray()[3].tolist() == [1, 0] and by_columns.toarray()[8].tolist() == [0, 2]
    assert reopened.row_counts(np.zeros(0, dtype=np.int64)).shape == (0, len(reopened.vocab))
