"""Damaged inputs, bad options and bad paths: each gives one line naming what is wrong and exit 2 (or a
documented, counted decision) — never a traceback, never a partial output."""
from __future__ import annotations

import gzip
import sys

import numpy as np
import pytest
from faults_data import run_cli
from helpers import hand_embeddings, overlap_run

import irfair
from irfair.audit import audit
from irfair.corpus import open_corpus
from irfair.errors import IrfairInputError, one_line
from irfair.trec import read_topics, write_run


def _vec_lines(vectors=None) -> list[str]:
    emb = hand_embeddings()
    values = np.asarray(emb.vectors) if vectors is None else vectors
    return [f"{len(emb)} {emb.dim}"] + [w + " " + " ".join(f"{x:.4f}" for x in v) for w, v in zip(emb.words, values)]


def _write(path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _one_error_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 1 and err.startswith("irfair: error: "), err
    assert "Traceback" not in err and len(err) <= 301
    return err.strip()


def _genderedness(path) -> tuple[int, str, str]:
    return run_cli(["genderedness", "she", "nurse", "--embeddings", path, "--no-cache"])


def test_valid_hand_vectors_score_as_expected(tmp_path):
    code, out, err = _genderedness(_write(tmp_path / "hand.vec", _vec_lines()))
    # direction e0 (see helpers.hand_embeddings): g(she) = 0.6, g(nurse) = 0.5
    assert (code, err) == (0, "") and out.splitlines()[1:] == ["she\t+0.6000", "nurse\t+0.5000"]


def _cut_inside_last_number(lines):
    text = "\n".join(lines) + "\n"
    return text[:-3]


EMBEDDING_DAMAGE = {
    "cut inside the last line": (lambda p: p.write_text(_cut_inside_last_number(_vec_lines())), ":10: the last line has no line end"),
    "cut at a line boundary": (lambda p: _write(p, _vec_lines()[:-2]), ": the header announces 9 words, the file holds 7"),
    "a row cut short": (lambda p: _write(p, _vec_lines()[:4] + ["girl 0.0 0.6"] + _vec_lines()[5:]), ":5: expected a word followed by 3"),
    "a row with an extra number": (lambda p: _write(p, _vec_lines()[:3] + ["girl 0.0 0.6 0.8 0.1"] + _vec_lines()[4:]),
                                   ":4: expected a word followed by 3 numbers, found 4 numbers"),
    "a blank line": (lambda p: _write(p, _vec_lines()[:3] + [""] + _vec_lines()[3:]), ":4: expected a word followed by 3 numbers, found a"),
    "NaN among the definitional words": (lambda p: _write(p, [*_vec_lines()[:5], "she nan 0.0 0.8", *_vec_lines()[6:]]),
                                         ":6: 'she': the vector holds a non-finite value"),
    "infinity elsewhere": (lambda p: _write(p, [*_vec_lines()[:-1], "table 0.0 0.0 1e39"]), ":10: 'table': the vector holds a non-finite"),
    "not UTF-8": (lambda p: p.write_bytes(("\n".join(_vec_lines()) + "\n").encode().replace(b"nurse", b"nurs\xff")),
                  ":8: embedding text file must be UTF-8"),
    "all-zero definitional vectors": (lambda p: _write(p, _vec_lines(np.where(np.isin(np.arange(9), [4, 5])[:, None], 0.0, np.asarray(
        hand_embeddings().vectors)))), ": embeddings 'bad.vec': the definitional word 'she' has a zero or non-finite vector"),
    "a pair with one vector": (lambda p: _write(p, [*_vec_lines()[:4], _vec_lines()[3].replace("girl", "boy")] + _vec_lines()[5:]),
                               ": embeddings 'bad.vec': 'girl' and 'boy' have the same vector"),
}


@pytest.mark.parametrize("damage", EMBEDDING_DAMAGE)
def test_damaged_text_embeddings(tmp_path, damage):
    harm, expected = EMBEDDING_DAMAGE[damage]
    path = tmp_path / "bad.vec"
    harm(path)
    line = _one_error_line(*_genderedness(path)[::2])
    assert line.startswith(f"irfair: error: {path}") and expected in line and "nan" not in line.split(":")[-1]


def _binary(tmp_path, name: str) -> bytes:
    from gensim.models import KeyedVectors

    emb = hand_embeddings()
    keyed = KeyedVectors(emb.dim)
    keyed.add_vectors(emb.words, np.asarray(emb.vectors))
    keyed.save_word2vec_format(str(tmp_path / name), binary=True)
    return (tmp_path / name).read_bytes()


@pytest.mark.parametrize(("name", "cut", "expected"), [
    ("cut.bin", 50, "the file is too short"),
    ("cut.bin", -5, "the file ends inside the vector of word 9 of 9"),
    ("cut.bin.gz", -9, "damaged or truncated gzip file"),
    ("cut.vec.gz", -9, "damaged or truncated gzip file"),
])
def test_truncated_binary_and_gzip_embeddings(tmp_path, name, cut, expected):
    data = _binary(tmp_path, "whole.bin") if ".bin" in name else ("\n".join(_vec_lines()) + "\n").encode()
    whole = gzip.compress(data) if name.endswith(".gz") else data
    path = tmp_path / name
    path.write_bytes(whole)
    assert _genderedness(path)[0] == 0
    path.write_bytes(whole[:cut])
    line = _one_error_line(*_genderedness(path)[::2])
    assert line.startswith(f"irfair: error: {path}") and expected in line


@pytest.mark.parametrize("argv", [
    ["audit", "r", "--qrels", "q", "--topics", "t", "--corpus", "c", "--bootstrap", "-5"],
    ["audit", "r", "--qrels", "q", "--topics", "t", "--corpus", "c", "--seed", "-1"],
    ["audit", "r", "--qrels", "q", "--topics", "t", "--corpus", "c", "--seed", str(2**40)],
    ["audit", "r", "--qrels", "q", "--topics", "t", "--corpus", "c", "--depth", "0"],
    ["genderedness", "she", "--top", "-3"],
    ["index", "--corpus", "c", "--threads", "0"],
    ["rank", "--corpus", "c", "--topics", "t", "--ranker", "bm25", "--out", "o", "--threads", "0"],
    ["rank", "--corpus", "c", "--topics", "t", "--ranker", "bm25", "--out", "o", "--depth", "-1"],
    ["rank", "--corpus", "c", "--topics", "t", "--ranker", "bm25", "--out", "o", "--k1", "-0.5"],
    ["rank", "--corpus", "c", "--topics", "t", "--ranker", "bm25", "--out", "o", "--b", "1.5"],
    ["rank", "--corpus", "c", "--topics", "t", "--ranker", "qlm", "--out", "o", "--mu", "0"],
    ["rank", "--corpus", "c", "--topics", "t", "--ranker", "qlm", "--out", "o", "--mu", "nan"],
    ["train", "--ranker", "drmm", "--corpus", "c", "--topics", "t", "--qrels", "q", "--candidates", "r", "--out", "o", "--top-n", "0"],
    ["study", "--corpus", "c", "--topics", "t", "--qrels", "q", "--out", "o", "--epochs", "0"],
    ["study", "--corpus", "c", "--topics", "t", "--qrels", "q", "--out", "o", "--bootstrap", "x"],
])
def test_numeric_options_out_of_range(argv):
    option = next(a for a in reversed(argv) if a.startswith("--"))
    line = _one_error_line(*run_cli(argv)[::2])
    assert line.startswith(f"irfair: error: argument {option}") and f"see irfair {argv[0]} --help" in line


_RANK = ["rank", "--corpus", "missing-corpus", "--topics", "missing-topics"]
_TRAIN = ["train", "--corpus", "missing-corpus", "--topics", "missing-topics", "--qrels", "q", "--candidates", "r"]


@pytest.mark.parametrize(("argv", "expected"), [
    (_RANK + ["--ranker", "add", "--k1", "1.2"], "--k1 is a parameter of bm25, not of add"),
    (_RANK + ["--ranker", "bm25", "--mu", "500"], "--mu is a parameter of qlm, not of bm25"),
    (_RANK + ["--ranker", "bm25", "--variant", "hard"], "--variant is for the add and si rankers; bm25 ranks without embeddings"),
    (_RANK + ["--ranker", "qlm", "--embeddings", "glove-6b-50d", "--variant", "regular"],
     "--embeddings and --variant are for the add and si rankers; qlm ranks without embeddings"),
    (_TRAIN + ["--ranker", "drmm", "--doc-len", "50"], "--doc-len is a parameter of matchpyramid, not of drmm"),
    (_TRAIN + ["--ranker", "drmm", "--matching", "cosine"], "--matching is a parameter of matchpyramid, not of drmm"),
    (_TRAIN + ["--ranker", "matchpyramid", "--interpolation-weight", "0.3"],
     "--interpolation-weight is used only with --interpolate, which is not given"),
])
def test_an_option_the_chosen_ranker_does_not_use_is_refused_before_any_input_is_read(argv, expected, tmp_path):
    code, out, err = run_cli(argv + ["--out", tmp_path / "x.run", "--no-cache"])
    assert (code, out, err) == (2, "", f"irfair: error: {expected}\n")
    assert list(tmp_path.iterdir()) == []


def test_ranker_parameters_are_checked_in_the_api_too():
    with pytest.raises(IrfairInputError, match="ranker bm25: b must be at most 1, not 2.0"):
        irfair.make_ranker("bm25", corpus={"d": "text"}, cache_dir=False, b=2)
    with pytest.raises(IrfairInputError, match=r"^ranker drmm: interpolation_weight is used only with interpolate=True$"):
        irfair.make_ranker("drmm", corpus={"d": "text"}, cache_dir=False, qrels={"1": {"d": 1}}, embeddings="unused",
                           interpolation_weight=0.3)


@pytest.fixture(scope="module")
def time_run(shared_data, tmp_path_factory):
    folder = shared_data / "time"
    topics = read_topics(folder / "topics.time.txt")
    run = overlap_run(topics, dict(open_corpus(folder / "time.trec").iter_docs()), depth=40)
    path = tmp_path_factory.mktemp("inputs") / "overlap.run"
    write_run(path, run, tag="overlap")
    return folder, path


def _audit(folder, run, *extra) -> list[str]:
    return ["audit", str(run), "--qrels", str(folder / "qrels.time.txt"), "--topics", str(folder / "topics.time.txt"),
            "--corpus", str(folder / "time.trec"), "--bootstrap", "20", "--no-plots", "--no-random", "--quiet",
            "--bias-measures", "gsr", *extra]


@pytest.mark.parametrize(("option", "make", "expected"), [
    ("--out", lambda p: (p.write_text("x"), p)[1], "the output folder (--out) is a file, expected a folder"),
    ("--out", lambda p: (p.write_text("x"), p / "sub")[1], "cannot create the output folder (--out): {p} is a file, not a folder"),
    ("--out", lambda p: "/proc/irfair-test/out", "cannot write the output folder (--out) here (/proc"),
    ("--cache-dir", lambda p: (p.write_text("x"), p)[1], "the cache folder is a file, expected a folder"),
    ("--cache-dir", lambda p: "/proc/irfair-test/cache", "cannot create the cache folder"),
])
def test_bad_output_and_cache_paths_fail_before_any_work(time_run, tmp_path, option, make, expected):
    if not sys.platform.startswith("linux") and "/proc" in expected:
        pytest.skip("needs /proc")
    folder, run = time_run
    given = make(tmp_path / "given")
    cache = tmp_path / "cache"
    extra = [option, str(given)] + (["--cache-dir", str(cache)] if option == "--out" else [])
    line = _one_error_line(*run_cli(_audit(folder, run, *extra))[::2])
    assert line.startswith(f"irfair: error: {given}: ") and expected.format(p=tmp_path / "given") in line
    assert not cache.exists()  # nothing was computed or cached


def test_output_file_paths(tmp_path):
    (tmp_path / "folder").mkdir()
    line = _one_error_line(*run_cli(["rank", "--corpus", "c", "--topics", "t", "--ranker", "add", "--out", tmp_path / "folder"])[::2])
    assert line == f"irfair: error: {tmp_path / 'folder'}: the output file (--out) is a folder, expected a file name"
    line = _one_error_line(*run_cli(["fairness", "p.csv", "--label", "y", "--prediction", "p", "--groups", "g",
                                     "--json", tmp_path / "folder"])[::2])
    assert line.startswith(f"irfair: error: {tmp_path / 'folder'}: is a folder: expected a file name")


def test_audit_api_checks_the_cache_folder_first(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(IrfairInputError, match="the cache folder is a file"):
        audit(["no-such.run"], "no-such-qrels", "no-such-topics", "no-such-corpus", cache_dir=tmp_path / "file")


@pytest.mark.parametrize("where", ["doc", "qid"])
def test_megabyte_long_values_are_abbreviated_in_error_lines(time_run, tmp_path, where):
    folder, run = time_run
    huge = "X" * 1_000_000
    lines = run.read_text().splitlines()
    qid, _, doc, *rest = lines[0].split()
    lines[0] = " ".join([qid if where == "doc" else huge, "Q0", huge if where == "doc" else doc, *rest])
    bad = tmp_path / "huge.run"
    bad.write_text("\n".join(lines) + "\n")
    line = _one_error_line(*run_cli(_audit(folder, bad, "--no-cache"))[::2])
    assert line.startswith(f"irfair: error: {bad}:1: ") and "(1,000,000 characters)" in line


def test_one_line_abbreviates_long_values_and_caps_the_line():
    text = "path/to/file:3: document " + "a" * 5000 + " is\nnot here"
    line = one_line(text)
    assert line == "path/to/file:3: document " + "a" * 40 + "…" + "a" * 40 + " (5,000 characters) is not here"
    assert len(one_line("word " * 200)) == 300 and one_line("word " * 200).endswith("…")


def test_run_documents_missing_below_the_audited_depth(time_run, tmp_path, w2v):
    """GSR alone: the audited depth is each query's number of relevant documents (the bias measures would
    also audit each run's top 100, where a missing document is an error)."""
    folder, run = time_run
    code, clean, err = run_cli(_audit(folder, run, "--no-cache"))
    assert (code, err) == (0, "")
    lines = run.read_text().splitlines()
    extra = tmp_path / "overlap.run"
    extra.write_text("\n".join(lines[:3] + ["1 Q0 NOT-IN-TIME 999 -5.0 overlap"] + lines[3:]) + "\n")
    code, printed, err = run_cli(_audit(folder, extra, "--no-cache"))
    # a non-relevant document at the bottom changes neither GSR nor MAP: the output gains one warning, said once
    lines = printed.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("warning: documents_not_in_corpus")))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("    "))
    assert (code, err) == (0, "") and lines[:start] + lines[end:] == clean.splitlines()
    assert " ".join(line.strip() for line in lines[start:end]) == (
        f"warning: documents_not_in_corpus: 1 run document below the audited depth is not in the corpus (first: NOT-IN-TIME, "
        f"query 1, {extra}:4); they count as non-relevant (--strict: an error)")
    line = _one_error_line(*run_cli(_audit(folder, extra, "--no-cache", "--strict"))[::2])
    assert line.startswith(f"irfair: error: {extra}:4: document NOT-IN-TIME (query 1) is not in the corpus")
    result = audit([extra], folder / "qrels.time.txt", folder / "topics.time.txt", folder / "time.trec",
                   w2v, n_bootstrap=0, cache_dir=False, bias_measures=("gsr",))
    assert result.counts["run_documents_not_in_corpus"] == 1
    warning = next(w for w in result.warnings if w.kind == "documents_not_in_corpus")
    assert warning.details == {"runs": {"overlap": 1}, "first": f"NOT-IN-TIME, query 1, {extra}:4"}
    with pytest.raises(IrfairInputError, match="NOT-IN-TIME"):
        audit([extra], folder / "qrels.time.txt", folder / "topics.time.txt", folder / "time.trec",
                     w2v, n_bootstrap=0, cache_dir=False, strict=True, bias_measures=("gsr",))


def test_study_settings_that_cannot_work_fail_before_any_run(shared_data, tmp_path):
    folder = shared_data / "time"
    base = ["study", "--corpus", folder / "time.trec", "--topics", folder / "topics.time.txt", "--qrels", folder / "qrels.time.txt",
            "--out", tmp_path / "study", "--cache-dir", tmp_path / "cache", "--quiet"]
    code, _, err = run_cli([*base, "--measure-embeddings", "w2v-gnews-26k,no-such-vectors"])
    assert code == 2 and err.startswith("irfair: error: ") and "no-such-vectors" in err and err.count("\n") == 1
    assert not (tmp_path / "study" / "runs").exists()  # refused before the first run was built
    code, _, err = run_cli([*base, "--no-lexical", "--neural", "none", "--ranker-embeddings", ""])
    assert (code, err) == (2, "irfair: error: the study has no ranker left: --no-lexical, --neural none and an empty "
                              "--ranker-embeddings leave none (lexical=False, neural=(), ranker_embeddings=())\n")


@pytest.mark.parametrize(("column", "values", "said"), [
    ("score", ["16.7323", "3.5"], "the 'score' column holds text (e.g. '16.7323'), expected numbers: convert it first, "
                                  "e.g. frame['score'].astype(float)"),
    ("score", [True, False], "the 'score' column holds bool values (e.g. True), expected numbers"),
    ("score", [1.5, "x"], "the 'score' column holds text (e.g. 'x'), expected numbers"),
])
def test_run_frames_whose_scores_are_not_numbers_say_so(column, values, said):
    import pandas as pd

    from irfair.trec import as_runs

    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], column: values})
    with pytest.raises(IrfairInputError, match="^run 'run': " + said.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
                       .replace("[", r"\[").replace("]", r"\]")):
        as_runs(frame)


def test_qrels_frames_whose_grades_are_text_say_so():
    import pandas as pd

    from irfair.trec import as_qrels

    with pytest.raises(IrfairInputError, match=r"^qrels: the 'label' column holds text \(e\.g\. '1'\), expected integer relevance grades"):
        as_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": ["1"]}))
