import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ranking_driver import run_digest, time_ranker

from irfair.corpus import InMemoryCorpus, open_corpus
from irfair.corpus.termstore import TermStore
from irfair.measures.effectiveness import evaluate
from irfair.rankers.embedding import EmbeddingRanker, naive_cosine_ranking, self_information
from irfair.trec import Run, read_qrels, read_topics

RANKING_DRIVER = Path(__file__).with_name("ranking_driver.py")
DOCS = {
    "d1": "The nurse helped the woman.",
    "d2": "A doctor and a man.",
    "d3": "She is a nurse, she is a nurse.",
    "d4": "A table.",
    "d5": "unknownword",
}


def _store(docs=DOCS):
    store = TermStore()
    store.ensure(InMemoryCorpus(docs), None, progress=False)
    return store


def test_add_ranking_matches_naive_loop(hand):
    store = _store()
    ranker = EmbeddingRanker(store, hand, "add")
    assert ranker.n_docs_without_vector == 1  # d5
    run = ranker.rank({"q": "nurse woman"}, depth=10)
    expected = naive_cosine_ranking(hand, DOCS, "nurse woman", depth=10)
    assert [d for d, _ in run.ranking["q"]] == [d for d, _ in expected]
    assert np.allclose([s for _, s in run.ranking["q"]], [s for _, s in expected], atol=1e-6)
    # d1 = mean(nurse, woman) points the same way as the query: cosine 1
    assert run.ranking["q"][0] == ("d1", pytest.approx(1.0, abs=1e-6))


def test_self_information_weights_by_hand(hand):
    store = _store()
    si = dict(zip(store.vocab, self_information(store)))
    counts = {"nurse": 3, "woman": 1, "she": 2}
    total = sum(np.asarray(store.matrix().sum(axis=0)).ravel())
    vocabulary = len(store.vocab)
    for term, cf in counts.items():
        assert si[term] == pytest.approx(-np.log2((cf + 1) / (total + vocabulary)))
    ranker = EmbeddingRanker(store, hand, "si")
    # query "nurse she": weights w_nurse, w_she on unit vectors, normalised
    w_n, w_s = si["nurse"], si["she"]
    vector = w_n * hand.vector("nurse") + w_s * hand.vector("she")
    assert np.allclose(ranker.query_vector("nurse she"), vector / np.linalg.norm(vector), atol=1e-6)


def test_rerank_of_full_ranking_reproduces_its_order(hand):
    store = _store()
    ranker = EmbeddingRanker(store, hand, "si")
    full = ranker.rank({"q": "nurse", "r": "doctor table"}, depth=10)
    shuffled = Run("cands", {q: list(reversed(hits)) for q, hits in full.ranking.items()})
    again = ranker.rerank({"q": "nurse", "r": "doctor table"}, shuffled)
    for qid, hits in full.ranking.items():
        assert [d for d, _ in again.ranking[qid]] == [d for d, _ in hits]
        assert np.allclose([s for _, s in again.ranking[qid]], [s for _, s in hits], atol=1e-6)


def test_document_vectors_are_cached_and_memory_mapped(hand, tmp_path):
    store = _store()
    first = EmbeddingRanker(store, hand, "add", cache_dir=tmp_path, corpus_key="docs")
    second = EmbeddingRanker(store, hand, "add", cache_dir=tmp_path, corpus_key="docs")
    assert isinstance(second.doc_vectors, np.memmap)
    assert np.allclose(first.doc_vectors, second.doc_vectors)
    assert len(list((tmp_path / "docvectors").glob("docs-hand-add-*/vectors.npy"))) == 1


@pytest.mark.slow
def test_vaswani_embedding_rankers_beat_random(shared_data, w2v):
    folder = shared_data / "vaswani"
    topics = {q: t.title for q, t in read_topics(folder / "query-text.trec").items()}
    qrels = read_qrels(folder / "qrels")
    store = TermStore()
    store.ensure(open_corpus(folder / "corpus"), None, progress=False)
    rng = np.random.default_rng(0)
    random_run = Run("random", {q: [(store.doc_ids[i], 1.0 / (r + 1)) for r, i in
                                    enumerate(rng.choice(len(store), 1000, replace=False))] for q in topics})
    random_map = evaluate(random_run, qrels).means["MAP"]
    for scheme in ("add", "si"):
        run = EmbeddingRanker(store, w2v, scheme).rank(topics, depth=1000)
        assert evaluate(run, qrels).means["MAP"] > 0.12 > 10 * random_map


def test_rank_orders_tied_scores_by_document_id_descending(hand):
    """Three documents with the same text score exactly alike: trec_eval's order puts the largest id first."""
    store = TermStore()
    store.add(InMemoryCorpus({"d1": "nurse woman", "d3": "nurse woman", "d2": "nurse woman", "d4": "table"}).iter_docs())
    run = EmbeddingRanker(store, hand, "add").rank({"1": "nurse"}, depth=3)
    assert [doc for doc, _ in run.ranking["1"]] == ["d3", "d2", "d1"]
    assert len({score for _, score in run.ranking["1"]}) == 1


def test_sharded_ranking_equals_one_full_sort(shared_data, w2v, tmp_path, monkeypatch):
    """Shards of 100 documents scored by this process's threads give what sorting each query's scores in full
    gives (the same run in worker processes and on Dask: test_ranking_is_one_run_in_fresh_processes_beside_load)."""
    import irfair.rankers.embedding as embedding

    folder = shared_data / "time"
    topics = {qid: t.title for qid, t in read_topics(folder / "topics.time.txt").items()}
    corpus = open_corpus(folder / "time.trec")
    store = TermStore.for_corpus(corpus, tmp_path)
    store.ensure(corpus, None, progress=False)
    ranker = EmbeddingRanker(store, w2v, "add", cache_dir=tmp_path, corpus_key="time")
    whole = ranker.rank(topics, depth=50)
    monkeypatch.setattr(embedding, "SHARD_ROWS", 100)
    local = ranker.rank(topics, depth=50)
    ids = store.doc_ids
    for qid, hits in local.ranking.items():
        scores = np.asarray(ranker.query_vector(topics[qid])[None, :] @ np.asarray(ranker.doc_vectors).T, dtype=np.float32)[0]
        full = sorted(((ids[i], float(s)) for i, s in enumerate(scores) if ranker.has_vector[i]), key=lambda h: (h[1], h[0]),
                      reverse=True)[:50]
        assert [d for d, _ in hits] == [d for d, _ in full] or np.allclose([s for _, s in hits], [s for _, s in full], atol=1e-6)
    assert [d for d, _ in whole.ranking["1"]][:10] == [d for d, _ in local.ranking["1"]][:10]


@pytest.mark.slow
def test_ranking_is_one_run_in_fresh_processes_beside_load(tmp_path, monkeypatch):
    """Issue 24: threads that each set and restored the process's BLAS thread count raced (one restored it
    while another multiplied on two threads, and the last bits of the scores changed), mostly early in a
    fresh process. Three fresh processes rank TIME 40 times each in 100-document shards on four threads
    while a fourth ranks twice with two worker processes and once on a Dask LocalCluster (together they
    load the cores): every ranking is, bit for bit, the run this process makes."""
    import irfair.rankers.embedding as embedding

    ranker, topics = time_ranker(tmp_path)
    monkeypatch.setattr(embedding, "SHARD_ROWS", 100)
    expected = run_digest(ranker.rank(topics, depth=50))
    env = {**os.environ, "IRFAIR_JOBS": "4"}
    processes = [subprocess.Popen([sys.executable, str(RANKING_DRIVER), str(tmp_path), mode], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for mode in ("threads", "threads", "threads", "workers")]
    outputs = [process.communicate(timeout=300) for process in processes]
    assert [out.split() for out, _ in outputs] == [["1", expected]] * 4, [err[-800:] for _, err in outputs]
