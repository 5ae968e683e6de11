import json

import pandas as pd
import pytest
from helpers import overlap_run

from irfair.cli import main
from irfair.corpus import open_corpus
from irfair.trec import read_topics, write_run


@pytest.fixture(scope="module")
def time_run(shared_data, tmp_path_factory):
    folder = shared_data / "time"
    topics = read_topics(folder / "topics.time.txt")
    docs = dict(open_corpus(folder / "time.trec").iter_docs())
    path = tmp_path_factory.mktemp("runs") / "tfidf.run"
    write_run(path, overlap_run(topics, docs), tag="tfidf")
    return folder, path


def _audit_args(folder, run, out, *extra):
    return ["audit", str(run), "--qrels", str(folder / "qrels.time.txt"), "--topics", str(folder / "topics.time.txt"),
            "--corpus", str(folder / "time.trec"), "--out", str(out), "--bootstrap", "200", "--no-cache", *extra]


def test_audit_command_writes_table_json_csv_and_plots(time_run, tmp_path, capsys):
    folder, run = time_run
    out = tmp_path / "out"
    assert main(_audit_args(folder, run, out)) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].split()[:6] == ["system", "GSR", "95%", "CI", "rel.", "GSR"]
    assert {line.split()[0] for line in printed.splitlines()[2:5]} == {"perfect", "random", "tfidf"}
    summary = json.loads((out / "audit.json").read_text())
    assert set(summary["systems"]) == {"perfect", "random", "tfidf"}
    assert summary["systems"]["perfect"]["n_queries"] == 79
    assert summary["systems"]["perfect"]["excluded"] == {"no relevant documents": 4}
    per_query = pd.read_csv(out / "per_query.csv", dtype={"qid": str})
    for column in ["system", "qid", "query", "query_genderedness", "list_genderedness", "depth", "MAP", "nDCG@100", "P@10"]:
        assert column in per_query.columns
    assert len(per_query) == 3 * 83
    for name in ("perfect", "random", "tfidf"):
        assert (out / f"scatter_{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert not list(out.glob(".irfair-staging-*"))


def test_bad_run_line_is_one_line_exit_2_and_no_output(time_run, tmp_path, capsys):
    folder, run = time_run
    bad = tmp_path / "bad.run"
    lines = run.read_text().splitlines()
    lines[6] = lines[6].rsplit(" ", 1)[0]
    bad.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    assert main(_audit_args(folder, bad, out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err == f"irfair: error: {bad}:7: expected 6 columns 'qid Q0 doc_id rank score tag', found 5\n"
    assert not out.exists()


def test_run_document_missing_from_corpus(time_run, tmp_path, capsys):
    folder, run = time_run
    bad = tmp_path / "missing.run"
    bad.write_text(run.read_text().replace(" Q0 ", " Q0 X", 1))
    assert main(_audit_args(folder, bad, tmp_path / "out")) == 2
    assert f"{bad}:1: document X" in capsys.readouterr().err


def test_embeddings_without_definitional_words(time_run, tmp_path, capsys):
    folder, run = time_run
    vectors = tmp_path / "tiny.txt"
    vectors.write_text("woman 1 0\nman 0 1\n")
    assert main(_audit_args(folder, run, tmp_path / "out", "--embeddings", str(vectors))) == 2
    assert "lack the definitional words" in capsys.readouterr().err


def test_genderedness_words_and_topics(shared_data, capsys):
    assert main(["genderedness", "she", "he", "nurse", "hygienist"]) == 0
    lines = dict(line.split("\t") for line in capsys.readouterr().out.splitlines() if not line.startswith("#"))
    assert float(lines["she"]) > 0 > float(lines["he"]) and lines["hygienist"] == "OOV"
    assert main(["genderedness", "--topics", str(shared_data / "robust04" / "topics.robust04.txt"), "--top", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    female = [line.split("\t") for line in out[2:5]]
    male = [line.split("\t") for line in out[6:9]]
    assert all(float(f[1]) > 0 for f in female) and all(float(m[1]) < 0 for m in male)
    assert float(female[0][1]) >= float(female[-1][1])


@pytest.mark.slow
def test_demo(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo"), "--embeddings", "w2v-gnews-26k"]) == 0
    out = capsys.readouterr().out
    assert out.count("GSR(S) + GSR(CS) = +0.0e+00") == 2
    assert (tmp_path / "demo" / "toy-direct" / "audit-w2v-gnews-26k" / "scatter_S.png").is_file()
