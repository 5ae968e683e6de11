import json
import os
import re

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
    """The audit's arguments; ``extra`` may give --bootstrap instead of the 200 used here (an option is given once)."""
    bootstrap = [] if "--bootstrap" in extra else ["--bootstrap", "200"]
    return ["audit", str(run), "--qrels", str(folder / "qrels.time.txt"), "--topics", str(folder / "topics.time.txt"),
            "--corpus", str(folder / "time.trec"), "--out", str(out), *bootstrap, "--no-cache", *extra]


def test_audit_command_writes_table_json_csv_and_plots(time_run, tmp_path, capsys):
    folder, run = time_run
    out = tmp_path / "out"
    assert main(_audit_args(folder, run, out)) == 0
    printed = capsys.readouterr().out.splitlines()
    # the answer first: one system, the 79 queries with relevant documents, then the verdict table
    assert printed[0] == "irfair audit: 1 system, 79 queries, w2v-gnews-26k, depth auto, holm correction, alpha 0.05"
    header = printed.index(next(line for line in printed if line.startswith("system ")))
    assert printed[header].split() == ["system", "gsr", "gsr_ci95", "delta_gsr", "p_adjusted", "MAP"]
    assert [line.split()[0] for line in printed[header + 2:header + 5]] == ["perfect", "random", "tfidf"]
    assert max(map(len, printed)) <= 100
    # table.txt holds every column: TIME's perfect run has GSR -0.005, so no relative value, and a footnote says why
    wide = (out / "table.txt").read_text().splitlines()
    column = next(line for line in wide if line.startswith("system ")).index("relative_gsr_pct")
    rows = [line for line in wide if line.split()[:1] in (["random"], ["tfidf"])]
    assert len(rows) == 2 and all(row[column:].split()[0] == "n/a" for row in rows)
    assert "relative GSR is n/a: the perfect run's GSR (-0.0051) is not positive" in wide
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
    assert out.count("GSR(N) = 0 (|x| < 1e-12), GSR(CS) = -1.498372, GSR(S) + GSR(CS) = 0 (|x| < 1e-12)") == 1
    assert out.count("GSR(S) + GSR(CS) = 0 (|x| < 1e-12)") == 2
    assert (tmp_path / "demo" / "toy-direct" / "audit-w2v-gnews-26k" / "scatter_S.png").is_file()


def test_audit_formats_for_scripts_and_provenance(time_run, tmp_path, capsys):
    """--format tsv prints table()'s columns; --format json prints audit.json, which the shipped schema accepts
    and which records the command line, seed, bootstrap count and the inputs' SHA-256."""
    import hashlib

    import jsonschema

    from irfair.audit.result import SUMMARY_COLUMNS, audit_schema

    folder, run = time_run
    assert main(_audit_args(folder, run, tmp_path / "out", "--format", "tsv", "--quiet")) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = [line.split("\t") for line in captured.out.splitlines()]
    assert lines[0][:len(SUMMARY_COLUMNS) + 11] == ["system", *SUMMARY_COLUMNS, "MAP", "MAP_ci_low", "MAP_ci_high", "nDCG@100",
                                                   "nDCG@100_ci_low", "nDCG@100_ci_high", "P@10", "P@10_ci_low", "P@10_ci_high",
                                                   "rab_tc@5"]
    assert lines[0][-3:] == ["texfair@20", "texfair@20_ci_low", "texfair@20_ci_high"]
    assert [row[0] for row in lines[1:]] == ["perfect", "random", "tfidf"]
    assert lines[1][lines[0].index("relative_gsr_pct")] == ""  # n/a on TIME
    args = _audit_args(folder, run, tmp_path / "out2", "--format", "json", "--seed", "3")
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    jsonschema.validate(printed, audit_schema())
    assert set(printed["bias_measures"]) == {"gsr", "rab", "arab", "nfairr", "texfair"}
    assert printed["bias_measures"]["nfairr"]["gender_words"]["source"] == "rekabsaz2021"
    assert printed["agreement"] == [] and set(printed["systems"]["tfidf"]["bias"]) >= {"rab_tc@10", "texfair@20"}
    assert [w["kind"] for w in printed["warnings"]] == ["few_systems", "ties"] and printed["comparisons"] == []
    saved = json.loads((tmp_path / "out2" / "audit.json").read_text())
    saved["provenance"]["created"] = printed["provenance"]["created"]
    assert saved == printed
    provenance = printed["provenance"]
    assert provenance["command_line"].startswith("irfair audit ") and "--seed 3" in provenance["command_line"]
    assert provenance["seed"] == 3 and provenance["n_bootstrap"] == 200 and provenance["measures"] == ["MAP", "nDCG@100", "P@10"]
    assert provenance["inputs"]["runs"][0]["sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()
    # paths relative to the working folder, so that an audit reads the same on every machine
    qrels = folder / "qrels.time.txt"
    assert provenance["inputs"]["qrels"] == {"path": os.path.relpath(qrels), "sha256": hashlib.sha256(qrels.read_bytes()).hexdigest()}
    assert provenance["inputs"]["corpus"]["path"] == os.path.relpath(folder / "time.trec")
    assert provenance["inputs"]["runs"][0]["path"] == os.path.relpath(run) == printed["systems"]["tfidf"]["source"]
    assert str(folder) not in provenance["command_line"] and os.path.relpath(qrels) in provenance["command_line"]
    assert "she" in provenance["stoplist"]["gendered_words_kept"]
    tsv = (tmp_path / "out2" / "table.tsv").read_text().splitlines()[0].split("\t")
    assert tsv == lines[0]
    assert (tmp_path / "out2" / "report.html").stat().st_size > 10_000


def test_version_help_and_conflicts(capsys):
    import argparse

    from irfair import __version__
    from irfair.cli import build_parser

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out == f"irfair {__version__}\n"
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, sub in commands.items():
        assert sub.epilog and f"irfair {name}" in sub.epilog, name
        for action in sub._actions:
            assert action.help, f"irfair {name} {action.option_strings or action.dest} has no help"
        with_defaults = [a for a in sub._actions if a.option_strings and not a.required and a.default is not None
                         and a.default is not False and a.default != argparse.SUPPRESS and a.default != []]
        assert len(re.findall(r"\(default:\s", sub.format_help())) >= len(with_defaults), name
    for argv in (["audit", "r.run", "--qrels", "q", "--topics", "t", "--corpus", "c", "--cache-dir", "x", "--no-cache"],
                 ["audit", "r.run", "--qrels", "q", "--topics", "t", "--corpus", "c", "--quiet", "--verbose"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_genderedness_never_ignores_an_argument(capsys):
    assert main(["genderedness", "nurse", "--topics", "topics.txt"]) == 2
    assert capsys.readouterr().err == "irfair: error: give words to score or --topics FILE, not both\n"
    assert main(["genderedness", "nurse", "--top", "3"]) == 2
    assert "--top and --query-field apply to --topics only" in capsys.readouterr().err
    assert main(["genderedness", "she", "he", "--format", "json"]) == 0
    words = json.loads(capsys.readouterr().out)["words"]
    assert [w["word"] for w in words] == ["she", "he"] and words[0]["genderedness"] > 0 > words[1]["genderedness"]


def test_bootstrap_0_still_shows_delta_gsr(time_run, tmp_path, capsys):
    """Without resamples there is no CI and no p-value, but ΔGSR itself is still a number (GSR − GSR(perfect))."""
    folder, run = time_run
    assert main(_audit_args(folder, run, tmp_path / "out", "--bootstrap", "0", "--permutations", "0", "--wide")) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line.split() for line in lines if line.startswith("system "))
    row = dict(zip(header, next(line for line in lines if line.startswith("tfidf ")).split()))
    saved = json.loads((tmp_path / "out" / "audit.json").read_text())["systems"]
    assert row["delta_gsr"] == f"{saved['tfidf']['gsr'] - saved['perfect']['gsr']:+.4f}" == "-0.0226"
    assert (row["gsr_ci95"], row["delta_gsr_ci95"], row["delta_gsr_p"], row["p_adjusted"]) == ("n/a",) * 4
    assert saved["tfidf"]["delta_gsr_p"] is None and saved["tfidf"]["delta_gsr_ci_low"] is None


@pytest.mark.parametrize(("command", "twice"), [
    (["audit", "x.run", "--qrels", "q"], ["--embeddings", "w2v-gnews-26k", "--embeddings", "glove-6b-50d"]),
    (["audit", "x.run", "--qrels", "q"], ["--seed", "1", "--seed", "2"]),
    (["rank", "--corpus", "c", "--topics", "t", "--out", "o.run"], ["--ranker", "bm25", "--ranker", "qlm"]),
    (["study", "--corpus", "c", "--topics", "t", "--qrels", "q", "--out", "o"], ["--depth", "10", "--depth", "20"]),
])
def test_a_single_valued_option_given_twice_is_an_error(capsys, command, twice):
    """argparse keeps the last value in silence: --embeddings a --embeddings b audited with b alone. Every
    single-valued option of every command now refuses a second value, before any input is read."""
    with pytest.raises(SystemExit) as stopped:
        main([*command, *twice])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and f"argument {twice[0]}: given twice (" in err and err.count("\n") == 1
