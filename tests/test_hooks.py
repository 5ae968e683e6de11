import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from irfair.audit import audit
from irfair.errors import IrfairInputError
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
        docs = self.toy.runs["S"].doc_ids(self.by_text[" ".join(q.split()).lower()])
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
    assert searcher.unmatched == 1 and searcher.unmatched_queries == ["nurse"] and set(searcher.recorded) == {"9"}


def test_topics_match_ignoring_case_and_whitespace_and_unmatched_searches_are_reported(w2v):
    """The issue's Vaswani case: searches in another case (here upper case, padded) still match their topics;
    a search whose text is no topic's is counted, left out of the audit and reported."""
    toy = toy_direct()
    topics = {qid: t for qid, t in toy.topics.items() if t.title != "typist"}
    searcher = AuditingSearcher(ToySearcher(toy), qrels=toy.qrels, topics=topics, corpus=toy.docs)
    for topic in toy.topics.values():
        searcher.search(f"  {topic.title.upper()} ", 10)
    assert searcher.unmatched == 1 and searcher.unmatched_queries == ["  TYPIST "] and set(searcher.recorded) == set(topics)
    with pytest.warns(UserWarning, match="1 of 20 searches matched no topic and are left out of the audit"):
        result = searcher.audit(embeddings=w2v, n_bootstrap=0)
    assert result.counts["searches"] == 20 and result.counts["searches_unmatched"] == 1
    assert result["searcher"].gsr.n_queries + result["searcher"].gsr.n_excluded == 19


def test_an_audit_with_no_usable_search_is_an_error_not_nan(w2v):
    toy = toy_direct()
    searcher = AuditingSearcher(ToySearcher(toy), qrels=toy.qrels, topics={"x": "chemist"}, corpus=toy.docs)
    for topic in toy.topics.values():
        searcher.search(topic.title, 10)
    with pytest.raises(IrfairInputError, match="no usable search: of 20 searches, 20 matched no topic"):
        searcher.audit(embeddings=w2v)
    with pytest.raises(IrfairInputError, match="no usable query among the 1 topics"):
        audit({"s": {"x": ["nurse-man"]}}, {"x": {"nurse-man": 0}}, {"x": "nurse"}, toy.docs, w2v)


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


@pytest.mark.slow
def test_docs_hook_example_runs_as_written_with_the_systems_java_17(tmp_path):
    """The documentation's pyserini example (docs/hooks.md: index → searcher → hooked searches → audit) in a fresh
    process, with the system's Java (Debian's 17 here) first on PATH and in JAVA_HOME, as a user would have it."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "hooks.md").read_text()
    section = page[page.index("## Audit a pyserini pipeline"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    env = dict(os.environ, IRFAIR_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    java = Path("/usr/bin/java").resolve()
    if java.is_file():
        env.update(JAVA_HOME=str(java.parents[1]), PATH=f"{java.parent}:{env['PATH']}")
    completed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-2000:]
    lines = completed.stdout.splitlines()
    assert lines[-1] == "20 searches, 0 unmatched"
    searcher = next(line.split() for line in lines if line.startswith("searcher"))
    assert [float(x) for x in searcher[2:]] == [12, 20, 1.0, 0.2]  # GSR queries, evaluated, MAP, P@10 (2 hits, both relevant)
    assert abs(float(searcher[1])) < 1e-3  # both documents of every job: balanced like the perfect run
