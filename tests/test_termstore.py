import json
from collections import Counter

import numpy as np
import pytest

from irfair.corpus import InMemoryCorpus, open_corpus
from irfair.corpus.termstore import TermStore
from irfair.errors import IrfairInputError
from irfair.text import content_tokens


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


def test_term_sums_of_whole_and_partly_read_shards_equal_the_product_with_the_assembled_matrix(tmp_path):
    """Shards of 5 documents: rows 0-3 asked for (the shard multiplied whole), one row of 5-9 (read alone), none of
    10-11; the sums are those of the assembled matrix's rows to the last bit, and d5's by hand."""
    corpus = InMemoryCorpus({f"d{i}": " ".join(["nurse"] * (i % 3) + [f"word{i % 4}"] * (i % 5) + ["she"] * (i % 2))
                             for i in range(12)}, name="toy")
    store = TermStore.for_corpus(corpus, tmp_path)
    store.add(corpus.iter_docs(), shard_size=5)
    reopened = TermStore.for_corpus(corpus, tmp_path)
    weights = np.stack([np.ones(len(reopened.vocab)), np.random.default_rng(0).normal(size=len(reopened.vocab))], axis=1)
    rows = np.array([0, 1, 2, 3, 5])
    found = reopened.term_sums(weights, rows)
    assert reopened._matrix is None
    assert np.array_equal(found, reopened.matrix()[rows] @ weights)
    assert np.array_equal(reopened.term_sums(weights, rows), found)  # from the assembled matrix now
    # d5: nurse ×2, word1 ×0 (5 % 5), she ×1
    assert found[4, 0] == 3 and found[4, 1] == 2 * weights[reopened.term_id["nurse"], 1] + weights[reopened.term_id["she"], 1]
    assert reopened.term_sums(weights, np.zeros(0, dtype=np.int64)).shape == (0, 2)
    with pytest.raises(ValueError, match="ascending"):
        reopened.term_sums(weights, np.array([3, 1]))


def _counts(store: TermStore) -> dict[str, dict[str, int]]:
    matrix = store.matrix().tocsr()
    return {doc_id: {store.vocab[column]: int(count) for column, count in
                     zip(matrix.indices[matrix.indptr[row]:matrix.indptr[row + 1]], matrix.data[matrix.indptr[row]:matrix.indptr[row + 1]])}
            for row, doc_id in enumerate(store.doc_ids)}


@pytest.fixture()
def small_pieces(monkeypatch):
    import irfair.corpus.pieces as pieces

    monkeypatch.setattr(pieces, "PIECE_BYTES", 40_000)


def test_the_corpus_pass_reads_pieces_of_files_in_workers(shared_data, tmp_path, monkeypatch, small_pieces):
    """Issue 24: a whole-corpus pass over TREC SGML and JSONL files reads byte ranges in the workers that
    count them; the store is the same with one job and with two, and holds each document's tokens as the
    corpus's own reader gives its text (which reads the whole file)."""
    jsonl = tmp_path / "vaswani.jsonl"
    vaswani = list(open_corpus(shared_data / "vaswani" / "corpus").iter_docs())[:1500]
    jsonl.write_text("".join(json.dumps({"id": doc_id, "contents": text}) + "\n" for doc_id, text in vaswani))
    for corpus in (open_corpus(shared_data / "time" / "time.trec"), open_corpus(jsonl)):
        stores = []
        for jobs in ("1", "2"):
            monkeypatch.setenv("IRFAIR_JOBS", jobs)
            store = TermStore.for_corpus(corpus, tmp_path / f"cache{jobs}")
            store.ensure(corpus, None, progress=False)
            stores.append(store)
        one, two = stores
        assert one.vocab == two.vocab and one.doc_ids == two.doc_ids and (one.matrix() != two.matrix()).nnz == 0
        expected = {doc_id: Counter(content_tokens(text)) for doc_id, text in corpus.iter_docs()}
        assert list(expected) == one.doc_ids and _counts(one) == expected


def test_a_resumed_pass_gives_the_store_of_an_unbroken_one(shared_data, tmp_path, monkeypatch, small_pieces):
    """A pass stopped after its first published shard and run again stores what an unbroken pass stores,
    vocabulary order included (each piece's block is merged whole, also when some of its documents were stored)."""
    import irfair.corpus.termstore as termstore

    corpus = open_corpus(shared_data / "time" / "time.trec")
    monkeypatch.setattr(termstore, "DEFAULT_SHARD_SIZE", 150)
    unbroken = TermStore.for_corpus(corpus, tmp_path / "unbroken")
    unbroken.ensure(corpus, None, progress=False)
    publish = TermStore._publish

    def stop_after_the_first(self):
        publish(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(TermStore, "_publish", stop_after_the_first)
    with pytest.raises(KeyboardInterrupt):
        TermStore.for_corpus(corpus, tmp_path / "resumed").ensure(corpus, None, progress=False)
    monkeypatch.setattr(TermStore, "_publish", publish)
    resumed = TermStore.for_corpus(corpus, tmp_path / "resumed")
    assert 0 < len(resumed) < len(unbroken)
    resumed.ensure(corpus, None, progress=False)
    assert resumed.vocab == unbroken.vocab and resumed.doc_ids == unbroken.doc_ids
    assert (resumed.matrix() != unbroken.matrix()).nnz == 0


def test_a_document_id_twice_in_a_pass_of_pieces_names_both_places(tmp_path, small_pieces):
    first, second = tmp_path / "a.trec", tmp_path / "b.trec"
    first.write_text("<DOC>\n<DOCNO> X </DOCNO>\nnurse\n</DOC>\n")
    second.write_text("\n<DOC>\n<DOCNO> Y </DOCNO>\n</DOC>\n<DOC>\n<DOCNO> X </DOCNO>\n</DOC>\n")
    corpus = open_corpus(tmp_path)
    with pytest.raises(IrfairInputError) as by_pieces:
        TermStore.for_corpus(corpus, tmp_path / "cache").ensure(corpus, None, progress=False)
    with pytest.raises(IrfairInputError) as by_reader:
        list(corpus.iter_docs())
    assert str(by_pieces.value) == str(by_reader.value) == f"{second}:5: document id X appears twice (first at {first}:1)"


@pytest.mark.slow
def test_the_corpus_pass_on_dask_equals_one_job(shared_data, tmp_path, monkeypatch, small_pieces):
    """Pieces of TIME read and counted on a two-worker Dask LocalCluster give the store of one local job."""
    corpus = open_corpus(shared_data / "time" / "time.trec")
    monkeypatch.setenv("IRFAIR_JOBS", "1")
    one = TermStore.for_corpus(corpus, tmp_path / "one")
    one.ensure(corpus, None, progress=False)
    monkeypatch.setenv("IRFAIR_JOBS", "2")
    monkeypatch.setenv("IRFAIR_SCHEDULER", "local")
    dask = TermStore.for_corpus(corpus, tmp_path / "dask")
    dask.ensure(corpus, None, progress=False)
    assert dask.vocab == one.vocab and dask.doc_ids == one.doc_ids and (dask.matrix() != one.matrix()).nnz == 0
