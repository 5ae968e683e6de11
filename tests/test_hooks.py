import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from irfair.audit import audit
from irfair.errors import IrfairInputError
from irfair.hooks import AuditingSearcher, audit_lists, audit_searchers
from irfair.toy import toy_direct
from irfair.trec import read_run


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
    assert searcher.name == "ToySearcher"  # no name= and no index: the wrapped class's name
    assert result["ToySearcher"].gsr.slope == pytest.approx(direct["S"].gsr.slope, abs=1e-12)


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
    assert result["ToySearcher"].gsr.n_queries + result["ToySearcher"].gsr.n_excluded == 19


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


class SearchOnly:
    """A searcher with search() only (no batch_search), counting its calls."""

    def __init__(self, toy, hits_of=None):
        self.toy, self.calls = toy, 0
        self.hits_of = hits_of or (lambda q, k: ToySearcher(toy).search(q, k))

    def search(self, q, k=10):
        self.calls += 1
        return self.hits_of(q, k)


def test_the_recorded_run_holds_doc_ids_and_scores_in_trec_eval_order(tmp_path):
    """Hits out of score order and a tie: the run ranks by score descending, ties by doc id descending."""
    toy = toy_direct()
    hits = [Hit("a", 1.0), Hit("b", 1.0), Hit("c", 2.5)]
    searcher = AuditingSearcher(SearchOnly(toy, lambda q, k: hits), qrels=toy.qrels, corpus=toy.docs, name="fixed")
    returned = searcher.search("anything", 3, qid="7")
    assert returned is hits and searcher.recorded == {"7": ["a", "b", "c"]}  # as the searcher returned them
    run = searcher.run()
    assert run.name == "fixed" and run.ranking == {"7": [("c", 2.5), ("b", 1.0), ("a", 1.0)]}
    path = searcher.write_run(tmp_path / "fixed.run")
    assert path.read_text() == "7 Q0 c 1 2.5 fixed\n7 Q0 b 2 1.0 fixed\n7 Q0 a 3 1.0 fixed\n"


def test_audit_searchers_searches_each_topic_once_and_equals_an_audit_of_the_run_files(w2v, tmp_path):
    """search() per topic when there is no batch_search; the comparison is irfair.audit's on the same runs as files,
    and its numbers are the toy's: MAP 0.5 for S (one of two relevant documents, first), GSR(S) = -GSR(CS)."""
    toy = toy_direct()
    files = toy.write(tmp_path / "toy")
    one_by_one, batched = SearchOnly(toy), ToySearcher(toy)
    options = dict(n_bootstrap=0, n_permutations=1000)
    result = audit_searchers({"s1": one_by_one, "s2": batched}, files["qrels"], files["topics"], files["corpus"], w2v,
                             runs={"CS": files["CS"]}, k=10, baseline="CS", **options)
    assert one_by_one.calls == 20
    direct = audit({"s1": files["S"], "s2": files["S"], "CS": files["CS"]}, files["qrels"], files["topics"], files["corpus"],
                   w2v, baseline="CS", **options)
    columns = ["gsr", "n_queries", "MAP", "P@10"]
    assert result.table()[columns].equals(direct.table()[columns])
    compared = ["a", "b", "measure", "delta", "p_adjusted", "decision"]
    assert result.comparisons[compared].equals(direct.comparisons[compared])
    assert result.table().loc["s1", "MAP"] == 0.5 and result.table().loc["CS", "MAP"] == 0.5
    assert result["s1"].gsr.slope == pytest.approx(-result["CS"].gsr.slope, abs=1e-12) and result["s1"].gsr.slope > 1
    pairs = result.comparisons.set_index("measure").loc["gsr"]
    assert list(pairs["a"]) == ["s1", "s2"] and list(pairs["b"]) == ["CS", "CS"]


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_bad_comparisons_are_one_line_errors_before_any_search(w2v):
    toy = toy_direct()
    searcher = SearchOnly(toy)
    call = dict(qrels=toy.qrels, topics=toy.topics, corpus=toy.docs, embeddings=w2v)
    with pytest.raises(IrfairInputError) as error:
        audit_searchers({"bm25": searcher}, **call, runs={"CS": toy.runs["CS"]}, baseline="qld")
    assert one_line(error) == "baseline 'qld' is not an audited system (systems: bm25, CS)"
    with pytest.raises(IrfairInputError) as error:
        audit_searchers({"bm25": searcher, "broken": object()}, **call)
    assert one_line(error).startswith("searcher 'broken' (object) has no search(q, k) method")
    with pytest.raises(IrfairInputError) as error:
        audit_searchers({"CS": searcher}, **call, runs={"CS": toy.runs["CS"]})
    assert one_line(error) == "'CS' names both a searcher and a run: give each system its own name"
    with pytest.raises(IrfairInputError) as error:
        audit_searchers({"bm25": searcher}, **call, k=0)
    assert one_line(error) == "k must be a positive whole number of hits per query, not 0"
    with pytest.raises(IrfairInputError) as error:
        audit_searchers([searcher], **call)
    assert one_line(error) == "give the searchers as {name: searcher}, at least one"
    assert searcher.calls == 0


def test_a_searcher_without_search_a_repeated_document_and_an_empty_run_are_one_line_errors(tmp_path):
    toy = toy_direct()
    with pytest.raises(IrfairInputError) as error:
        AuditingSearcher(object(), qrels=toy.qrels)
    assert one_line(error).startswith("the searcher (object) has no search(q, k) method")
    searcher = AuditingSearcher(SearchOnly(toy, lambda q, k: [Hit("a", 2.0), Hit("a", 1.0)]), qrels=toy.qrels, name="dup")
    with pytest.raises(IrfairInputError) as error:
        searcher.write_run(tmp_path / "dup.run")
    assert one_line(error).endswith("no search of 'dup' is recorded yet: nothing to write")
    searcher.search("nurse", 2, qid="9")
    with pytest.raises(IrfairInputError) as error:
        searcher.run()
    assert one_line(error) == "run 'dup': query 9: the search returned a document twice"
    assert not (tmp_path / "dup.run").exists()


@pytest.fixture(scope="module")
def toy_index(tmp_path_factory):
    """The toy collection's files, and a pyserini index of its 40 documents (JsonCollection, pyserini's own indexer run
    as ``irfair pyserini index.lucene``): one per module, as Java starts slowly."""
    folder = tmp_path_factory.mktemp("pyserini-toy")
    files = toy_direct().write(folder / "toy")
    (folder / "docs").mkdir()
    (folder / "docs" / "docs.jsonl").write_text(files["corpus"].read_text())  # {"id", "contents"}: a JsonCollection
    index = folder / "toy-index"
    command = [sys.executable, "-m", "irfair", "pyserini", "index.lucene", "--collection", "JsonCollection", "--input",
               str(folder / "docs"), "--index", str(index), "--generator", "DefaultLuceneDocumentGenerator", "--threads", "1",
               "--storeRaw"]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0 and "Total 40 documents indexed" in completed.stdout, completed.stderr[-2000:]
    return index, files


def lucene_searchers(index):
    from pyserini.search.lucene import LuceneSearcher

    bm25, qld = LuceneSearcher(str(index)), LuceneSearcher(str(index))
    qld.set_qld(1000)
    return bm25, qld


@pytest.mark.slow
def test_the_run_of_a_lucene_searcher_is_what_pyserini_returned(toy_index, tmp_path):
    """BM25 of "nurse" by hand: idf = ln(1 + (40 - 2 + 0.5)/(2 + 0.5)) = 2.79728, each document 2 terms (the, is, a
    are stopwords), as long as the average, so tf part 1/(1 + 0.9) and score 1.47225, which Anserini rounds to 1.4723,
    minus 1e-6 for the tied second document (ties by doc id ascending). QLD (mu = 1000): ln(1 + 1/(1000 * 3/81)) +
    ln(1000/1002) = 0.024644, rounded 0.0246. The run keeps pyserini's doc ids and scores, in trec_eval's order."""
    index, files = toy_index
    toy = toy_direct()
    bm25, qld = lucene_searchers(index)
    for searcher, score, name in ((bm25, 1.4723, "bm25-toy-index"), (qld, 0.0246, "qld-toy-index")):
        hooked = AuditingSearcher(searcher, qrels=files["qrels"], topics=files["topics"])
        hits = hooked.search("nurse", 10)
        assert [h.docid for h in hits] == ["nurse-man", "nurse-woman"]
        assert [h.score for h in hits] == pytest.approx([score, score - 1e-6], abs=1e-7)
        topics = list(toy.topics.values())
        batch = hooked.batch_search([t.title for t in topics], [t.qid for t in topics], 10)
        run = hooked.run()
        assert hooked.name == run.name == name and run.ranking["9"] == [(h.docid, h.score) for h in hits]
        assert run.ranking == {qid: [(h.docid, h.score) for h in found] for qid, found in batch.items()}
        assert {qid: run.doc_ids(qid) for qid in run.ranking} == {qid: toy.runs["N"].doc_ids(qid) for qid in toy.topics}
        assert read_run(hooked.write_run(tmp_path / f"{name}.run")).ranking == run.ranking


@pytest.mark.slow
def test_comparing_lucene_searchers_equals_an_audit_of_their_run_files(toy_index, tmp_path, w2v):
    """BM25 and QLD both return the man's and the woman's document of each job (the toy's N system): MAP 1; S returns
    the stereotypical one: MAP 0.5. The comparison is irfair.audit's of the same runs written by hand from pyserini."""
    index, files = toy_index
    bm25, qld = lucene_searchers(index)
    options = dict(embeddings=w2v, n_bootstrap=0, n_permutations=1000, baseline="S")
    result = audit_searchers({"bm25": bm25, "qld": qld}, files["qrels"], files["topics"], files["corpus"], k=10,
                             runs={"S": files["S"]}, **options)
    topics = toy_direct().topics
    paths = {}
    for name, searcher in (("bm25", bm25), ("qld", qld)):
        found = searcher.batch_search([t.title for t in topics.values()], list(topics), 10)
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text("".join(f"{qid} Q0 {hit.docid} {rank} {hit.score!r} {name}\n" for qid, hits in found.items()
                                       for rank, hit in enumerate(hits, start=1)))
    direct = audit({**paths, "S": files["S"]}, files["qrels"], files["topics"], files["corpus"], **options)
    columns = ["gsr", "n_queries", "MAP", "P@10"]
    assert result.table()[columns].equals(direct.table()[columns])
    compared = ["a", "b", "measure", "delta", "p_adjusted", "decision"]
    assert result.comparisons[compared].equals(direct.comparisons[compared])
    table = result.table()
    assert (table.loc["bm25", "MAP"], table.loc["qld", "MAP"], table.loc["S", "MAP"]) == (1.0, 1.0, 0.5)
    gsr = result.comparisons.set_index(["measure", "a"]).loc["gsr"]
    assert gsr.loc["bm25", "delta"] == pytest.approx(table.loc["bm25", "gsr"] - table.loc["S", "gsr"], abs=1e-12)
    assert table.loc["S", "gsr"] == pytest.approx(1.4984, abs=1e-4) and gsr.loc["bm25", "decision"] == "differs"


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
    assert searcher.name == f"bm25-{Path(index).name}"  # pyserini's default model, then the index folder
    assert result[searcher.name].gsr.n_queries == 79 and searcher.unmatched == 0


DOCS_DRIVER = """
import json, subprocess, sys
namespace = {"__name__": "__docs__"}
for language, code in json.loads(sys.argv[1]):
    if language == "python":
        exec(compile(code, "docs/hooks.md", "exec"), namespace)
    else:
        sys.stdout.flush()
        subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], check=True)
"""


@pytest.mark.slow
def test_docs_pyserini_example_runs_as_written_with_the_systems_java_17(tmp_path, shared_data):
    """The documentation's pyserini blocks up to the hooked pipeline (docs/hooks.md: pyserini indexes Vaswani, a BM25
    searcher is wrapped and writes its run file: Java's part; tests/test_docs.py runs the whole page) in one fresh
    process, with the system's Java (Debian's 17 here) first on PATH and in JAVA_HOME, as a user would have it: they
    print what the page shows."""
    from test_docs import blocks, matches

    root = Path(__file__).resolve().parents[1]
    page = root / "docs" / "hooks.md"
    marked = [b for b in blocks(page) if b.marker in ("run", "output")]
    end = [i for i, b in enumerate(marked) if b.marker == "run"][3]  # the first three run blocks and their outputs
    runs = [(b.language, b.code) for b in marked[:end] if b.marker == "run"]
    expected = "".join(b.code for b in marked[:end] if b.marker == "output")
    assert [language for language, _ in runs] == ["python", "bash", "python"] and "AuditingSearcher(" in runs[2][1]
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data)
    (tmp_path / "irfair").mkdir()
    env = dict(os.environ, PYTHONPATH=str(root), PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    java = Path("/usr/bin/java").resolve()
    if java.is_file():
        env.update(JAVA_HOME=str(java.parents[1]), PATH=f"{java.parent}:{env['PATH']}")
    completed = subprocess.run([sys.executable, "-c", DOCS_DRIVER, json.dumps(runs)], cwd=tmp_path / "irfair", env=env,
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert matches(expected, completed.stdout), completed.stdout
