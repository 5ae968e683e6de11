from dataclasses import dataclass

import pytest

from irfair.audit import audit
from irfair.hooks import AuditingSearcher, audit_lists
from irfair.toy import toy_direct


@dataclass
class Hit:
    docid: str
    score: float


class ToySearcher:
    """Anything with search(q, k) returning hits with .docid and .score: here, the toy's S system."""

    def __init__(self, toy):
        self.toy = toy
        self.by_text = {t.title: q for q, t in toy.topics.items()}

    def search(self, q, k=10):
        docs = self.toy.runs["S"].doc_ids(self.by_text[q])
        return [Hit(d, 1.0 / (i + 1)) for i, d in enumerate(docs[:k])]

    def batch_search(self, queries, qids, k=10, threads=1):
        return {qid: self.search(q, k) for q, qid in zip(queries, qids)}

    def something_else(self):
        return "delegated"


def test_wrapping_a_searcher_changes_one_line_and_audits_what_it_saw(w2v):
    toy = toy_direct()
    searcher = AuditingSearcher(ToySearcher(toy), qrels=toy.qrels, topics=toy.topics, corpus=toy.docs)
    for topic in list(toy.topics.values())[:15]:
        hits = searcher.search(topic.title, 10)
        assert hits and hits[0].docid.startswith(topic.title)
    rest = list(toy.topics.values())[15:]
    searcher.batch_search([t.title for t in rest], [t.qid for t in rest], 10)
    assert searcher.something_else() == "delegated" and searcher.unmatched == 0
    result = searcher.audit(embeddings=w2v, n_bootstrap=0)
    direct = audit({"S": toy.runs["S"]}, toy.qrels, toy.topics, toy.docs, w2v, n_bootstrap=0)
    assert result["searcher"].gsr.slope == pytest.approx(direct["S"].gsr.slope, abs=1e-12)


def test_unmatched_queries_are_counted_and_explicit_qid_wins(w2v):
    toy = toy_direct()
    searcher = AuditingSearcher(ToySearcher(toy), qrels=toy.qrels, corpus=toy.docs)
    searcher.search("nurse", 5)
    searcher.search("nurse", 5, qid="9")
    assert searcher.unmatched == 1 and set(searcher.recorded) == {"adhoc-1", "9"}


def test_audit_lists(w2v):
    toy = toy_direct()
    lists = {qid: toy.runs["CS"].doc_ids(qid) for qid in toy.topics}
    result = audit_lists(lists, toy.qrels, toy.topics, toy.docs, w2v, name="cs", n_bootstrap=0)
    direct = audit({"CS": toy.runs["CS"]}, toy.qrels, toy.topics, toy.docs, w2v, n_bootstrap=0)
    assert result["cs"].gsr.slope == pytest.approx(direct["CS"].gsr.slope)


@pytest.mark.slow
def test_real_lucene_searcher_wrapped(shared_data, tmp_path, w2v):
    from irfair.anserini import prepare_java
    from irfair.corpus import open_corpus
    from irfair.corpus.lucene_index import build_index

    index = build_index(open_corpus(shared_data / "time" / "time.trec"), tmp_path, progress=False)
    prepare_java()
    from pyserini.search.lucene import LuceneSearcher

    folder = shared_data / "time"
    searcher = AuditingSearcher(LuceneSearcher(str(index)), qrels=folder / "qrels.time.txt", topics=folder / "topics.time.txt")
    from irfair.trec import read_topics

    for topic in read_topics(folder / "topics.time.txt").values():
        searcher.search(topic.title, 20)
    result = searcher.audit(embeddings=w2v, n_bootstrap=0)  # documents read back from the index
    assert result["searcher"].gsr.n_queries == 79 and searcher.unmatched == 0
