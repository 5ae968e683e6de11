"""Runs from every shape users hold them in rank the same way: by score, ties by doc id descending (trec_eval)."""
import dataclasses
import itertools
import random
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from helpers import TREC_EVAL

from irfair.errors import IrfairInputError, IrfairWarning
from irfair.trec import Run, as_runs, read_qrels, read_run, run_from_scores, write_run
from irfair.trec.files import RankedColumns

ROOT = Path(__file__).resolve().parents[1]


def test_dict_of_scores_is_ranked_by_score_with_trec_evals_tie_rule_in_any_insertion_order():
    """b (2.0) first; a and c tie at 1.0 and trec_eval breaks ties by doc id descending (strcmp): c before a."""
    hits = [("a", 1.0), ("b", 2.0), ("c", 1.0)]
    for order in itertools.permutations(hits):
        (run,) = as_runs({"1": dict(order)})
        assert run.doc_ids("1") == ["b", "c", "a"] and run.name == "run"


def test_the_issues_ascending_insertion_is_not_read_as_a_ranking():
    (run,) = as_runs({"q": {"worst": 0.1, "middle": 0.5, "best": 0.9}})
    assert run.doc_ids("q") == ["best", "middle", "worst"]


def test_trec_eval_test_run_order_equals_pytrec_evals(tmp_path):
    """results.test lists documents in no particular order (ranks scattered); read by score it gives the order
    trec_eval evaluates, so P@k of every k agrees with pytrec_eval's (which sorts by itself)."""
    run = read_run(TREC_EVAL / "results.test")
    first = (TREC_EVAL / "results.test").read_text().split()[2]
    assert run.doc_ids("301")[0] != first
    scores = [score for _, score in run.ranking["301"]]
    assert scores == sorted(scores, reverse=True)


def test_pyterrier_frame_is_the_same_run():
    """A PyTerrier result frame (qid, docid, docno, rank from 0, score, query), rows in any order."""
    scores = {"1": {"d1": 3.0, "d2": 2.0, "d3": 2.0}, "2": {"d9": 1.5}}
    rows = [{"qid": q, "docid": i, "docno": d, "score": s, "query": "x"}
            for q, docs in scores.items() for i, (d, s) in enumerate(docs.items())]
    frame = pd.DataFrame(rows)
    frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    (from_frame,) = as_runs(frame.sample(frac=1, random_state=3))
    assert from_frame.ranking == run_from_scores("run", scores).ranking
    assert from_frame.doc_ids("1") == ["d1", "d3", "d2"]


def test_ir_measures_frame_and_records():
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    records = [ir_measures.ScoredDoc("1", "a", 1.0), ir_measures.ScoredDoc("1", "b", 2.0)]
    assert as_runs(frame)[0].doc_ids("1") == as_runs(records)[0].doc_ids("1") == ["b", "a"]


@pytest.mark.parametrize(("runs", "message"), [
    ({"1": {"a", "b"}}, "a set of documents has no ranking"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 2.0], "rank": [0, 1]}), "the rank and score columns disagree"),
    (pd.DataFrame({"qid": ["1"], "docno": ["a"], "doc_id": ["b"], "score": [1.0]}), "columns 'docno' and 'doc_id' disagree"),
    (pd.DataFrame({"qid": ["1"], "docno": ["a"], "rank": [0]}), "expected a 'score' column"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}), "row 1: document a appears twice"),
    (pd.DataFrame({"query": ["x"], "docno": ["a"], "score": [1.0]}), "expected a column 'qid' or 'query_id'"),
    ({"1": {"a": float("nan")}}, "score must be a finite number"),
    ({"1": {"a": "high"}}, "cannot read a run from dict"),
    (Run("r", {"1": [("a", 1.0), ("b", 2.0)]}), "a Run lists documents by score"),
    ({"1": []}, "the run retrieves no document"),
    ([], "no runs given"),
    (42, "cannot read a run from int"),
])
def test_ambiguous_or_unordered_runs_are_errors(runs, message):
    with pytest.raises(IrfairInputError, match=message):
        as_runs(runs)


def test_run_objects_ties_put_in_trec_eval_order_and_names_made_unique(tmp_path):
    mine = Run("mine", {"1": [("a", 1.0), ("b", 1.0)]})
    path = tmp_path / "mine.run"
    write_run(path, Run("mine", {"1": [("x", 1.0)]}))
    runs = as_runs([mine, {"1": ["z", "y"]}, {"1": {"q": 1.0}}, path], reserved=("perfect",))
    assert [r.name for r in runs] == ["mine", "run", "run-2", "mine-2"]
    assert runs[0].doc_ids("1") == ["b", "a"] and mine.doc_ids("1") == ["a", "b"]  # the argument is not changed
    assert runs[1].doc_ids("1") == ["z", "y"]  # an explicit list keeps its order
    named = as_runs({"perfect": {"1": ["a"]}, "bm25": {"1": {"a": 2.0}}}, reserved=("perfect",))
    assert [r.name for r in named] == ["perfect-2", "bm25"]


@pytest.mark.slow
def test_one_bm25_run_in_every_shape_gives_identical_gsr_and_measures(shared_data, tmp_path, w2v):
    """Vaswani BM25 (runs/vaswani/bm25.run, top 100 per query) as a TREC file, a dict inserted worst first, a
    shuffled dict, a shuffled PyTerrier frame and a ranx.Run: one GSR and the same value of every measure, which
    ir_measures.calc_aggregate computes alike on the same run."""
    import ranx

    from irfair.audit import audit

    full = read_run(ROOT / "runs" / "vaswani" / "bm25.run")
    top = Run("bm25", {q: hits[:100] for q, hits in full.ranking.items()})
    path = tmp_path / "bm25.run"
    write_run(path, top)
    scores = {q: dict(hits) for q, hits in top.ranking.items()}
    worst_first = {q: dict(sorted(docs.items(), key=lambda h: h[1])) for q, docs in scores.items()}
    rng = random.Random(0)
    shuffled = {q: dict(rng.sample(list(docs.items()), len(docs))) for q, docs in reversed(scores.items())}
    frame = pd.DataFrame([{"qid": q, "docno": d, "score": s, "rank": r} for q, hits in top.ranking.items()
                          for r, (d, s) in enumerate(hits)]).sample(frac=1, random_state=1)
    shapes = {"file": path, "worst_first": worst_first, "shuffled": shuffled, "frame": frame, "ranx": ranx.Run(scores, name="x")}
    measures = [ir_measures.AP, ir_measures.nDCG @ 100, ir_measures.P @ 10, ir_measures.RR, ir_measures.R @ 100,
                ir_measures.Judged @ 10, ir_measures.Bpref, ir_measures.NumRet, ir_measures.P(rel=1) @ 5]
    folder = shared_data / "vaswani"
    result = audit(shapes, folder / "qrels", folder / "query-text.trec", folder / "corpus", w2v, n_bootstrap=0,
                   random_baseline=False, measures=measures)
    table = result.table()
    reference = table.loc["file"]
    assert reference["n_queries"] > 20 and 0.2 < reference["AP"] < 0.35
    for name in shapes:
        assert table.loc[name].equals(reference), name
        assert result[name].gsr.per_query["list_genderedness"].equals(result["file"].gsr.per_query["list_genderedness"]), name
    ir_frame = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
    theirs = ir_measures.calc_aggregate(measures, read_qrels(folder / "qrels"), ir_frame)
    assert result["frame"].evaluation.means == pytest.approx({str(m): theirs[m] for m in measures}, abs=1e-12)


def _compressed(path: Path, kind: str) -> bytes:
    import bz2
    import gzip
    import lzma

    return {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](path.read_bytes())


@pytest.mark.parametrize(("kind", "name"), [("gzip", "results.test.gz"), ("bzip2", "results.bz2"), ("xz", "results.txt")])
def test_compressed_runs_and_qrels_read_as_the_plain_files(tmp_path, kind, name):
    plain = read_run(TREC_EVAL / "results.test")
    path = tmp_path / name
    path.write_bytes(_compressed(TREC_EVAL / "results.test", kind))
    packed = read_run(path)
    assert packed.ranking == plain.ranking and packed.tag == plain.tag
    assert packed.name == "results"  # compression ending and extension dropped
    qrels = tmp_path / "qrels"
    qrels.write_bytes(_compressed(TREC_EVAL / "qrels.test", kind))
    assert read_qrels(qrels) == read_qrels(TREC_EVAL / "qrels.test")


def test_a_bad_line_in_a_compressed_run_is_named(tmp_path):
    import gzip

    path = tmp_path / "bad.run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 d1 1 2.0 t\n1 Q0 d2 x 1.0 t\n"))
    with pytest.raises(IrfairInputError, match=r"bad\.run\.gz:2: rank must be an integer"):
        read_run(path)
    path.write_bytes(gzip.compress(bytes(range(256)) * 4))  # a compressed binary file: byte 0x80 follows the first line break
    with pytest.raises(IrfairInputError, match=r"bad\.run\.gz:2: run file must be UTF-8 text"):
        read_run(path)


def test_a_folder_of_runs_is_its_run_files_sorted(tmp_path):
    import gzip

    folder = tmp_path / "runs"
    folder.mkdir()
    lines = {"b.run": "1 Q0 d1 1 2.0 b\n", "a.txt": "1 Q0 d2 1 2.0 a\n", "c.run.gz": "1 Q0 d3 1 2.0 c\n"}
    for name, text in lines.items():
        data = text.encode()
        (folder / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    for ignored in ("notes.md", "b.run.log", ".notes.md"):
        (folder / ignored).write_text("1 Q0 d9 1 2.0 x\n")
    (folder / "audit").mkdir()
    runs = as_runs(folder)
    assert [(r.name, r.doc_ids("1")) for r in runs] == [("a", ["d2"]), ("b", ["d1"]), ("c", ["d3"])]
    # in a list, beside a file: the folder's runs take its place
    mixed = as_runs([TREC_EVAL / "results.trunc", str(folder)])
    assert [r.name for r in mixed] == ["results", "a", "b", "c"]


@pytest.mark.parametrize(("make", "said"), [
    (lambda f: (f / ".hidden.run").write_text("1 Q0 d9 1 2.0 x\n"), "a hidden run file in the run folder: rename it"),
    (lambda f: (f / "gone.run").symlink_to(f / "nowhere.run"), "named like a run file in the run folder, but a broken link"),
    (lambda f: (f / "sub.run").mkdir(), "named like a run file in the run folder, but not a file"),
])
def test_what_is_named_like_a_run_file_is_never_dropped_in_silence(tmp_path, make, said):
    """A run folder's entry named like a run file that cannot be read as one was skipped and the rest audited (or
    the folder called empty when it held only a hidden run file): now one line naming it."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.run").write_text("1 Q0 d 1 1.0 a\n")
    make(folder)
    with pytest.raises(IrfairInputError, match=said) as error:
        as_runs(folder)
    assert Path(error.value.path).parent == folder


def test_a_run_file_given_twice_is_one_line(tmp_path):
    """Named twice, or named beside its folder, one file was audited as two systems (a and a-2, identical)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.run").write_text("1 Q0 d 1 1.0 a\n")
    (folder / "b.run").write_text("1 Q0 d 1 1.0 b\n")
    with pytest.raises(IrfairInputError, match=r"a\.run: run file given twice: it would be audited as two systems$"):
        as_runs([folder / "a.run", folder / "a.run"])
    with pytest.raises(IrfairInputError, match=r"runs/b\.run: run file given twice \(also as .*runs/\.\./runs/b\.run\)"):
        as_runs([folder / ".." / "runs" / "b.run", folder])
    assert [r.name for r in as_runs({"x": folder / "a.run", "y": folder / "a.run"})] == ["x", "y"]  # named apart: meant


def test_folders_without_run_files_are_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(IrfairInputError, match=r"empty: no run files in this folder \(it is empty\): expected \*\.run or \*\.txt"):
        as_runs(empty)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("x")
    with pytest.raises(IrfairInputError, match=r"it holds 1 other entry, e.g. notes\.md"):
        as_runs([other])
    with pytest.raises(IrfairInputError, match="is a folder, expected a run file"):
        read_run(other)


def test_audit_of_a_gzipped_run_and_of_a_folder_prints_the_plain_runs_numbers(tmp_path, shared_data, capsys):
    """The CLI on Vaswani: bm25.run gzipped and a folder holding it give the plain file's row (numbers and name)."""
    from irfair.cli import main

    vaswani = shared_data / "vaswani"
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "bm25.run.gz").write_bytes(_compressed(ROOT / "runs" / "vaswani" / "bm25.run", "gzip"))
    common = ["--qrels", str(vaswani / "qrels"), "--topics", str(vaswani / "query-text.trec"), "--corpus", str(vaswani / "corpus"),
              "--bootstrap", "0", "--no-random", "--quiet", "--format", "tsv"]
    printed = []
    for runs in ([str(ROOT / "runs" / "vaswani" / "bm25.run")], [str(folder / "bm25.run.gz")], [str(folder)]):
        assert main(["audit", *runs, *common]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] == printed[2]
    bm25 = next(line.split("\t") for line in printed[0].splitlines() if line.startswith("bm25\t"))
    assert bm25[2] == "0.03577488848"  # GSR of bm25 on Vaswani, as the README's audit prints it (+0.0358)


def test_a_run_file_is_read_into_columns_that_read_as_its_lists(tmp_path):
    """Query 2 listed first, a tie (b, a at 2.5) ranked by id descending, query 1's z last: the columns hold the
    ranked rows query after query; pairs, ids and depth cuts read from them as from lists; replacing the ranking
    drops them."""
    path = tmp_path / "r.run"
    path.write_text("2 Q0 c 1 -1e-3 t\n1 Q0 a 1 2.5 t\n1 Q0 b 2 2.5 t\n1 Q0 z 3 0.25 t\n")
    run = read_run(path)
    assert isinstance(run.ranking, RankedColumns) and run.columns is run.ranking
    assert run.columns.doc_array.to_pylist() == ["c", "b", "a", "z"] and run.columns.scores.tolist() == [-1e-3, 2.5, 2.5, 0.25]
    assert run.columns.bounds == {"2": (0, 1), "1": (1, 4)}
    assert run.doc_ids("1") == ["b", "a", "z"] and run.doc_ids("1", 2) == ["b", "a"] and run.doc_ids("3") == []
    assert run.ranking == {"2": [("c", -1e-3)], "1": [("b", 2.5), ("a", 2.5), ("z", 0.25)]} and "3" not in run.ranking
    assert dataclasses.replace(run, ranking=dict(run.ranking)).columns is None


def test_blanks_made_regular_as_the_regular_expression_says():
    """The vectorised rule equals its definition: every run of blanks (space, tab, \\x1f) one space, none at a line's
    start or end, on 20,000 seeded random texts of those bytes, letters and line ends."""
    import re

    from irfair.trec.columns import _normalised

    blanks, edges = re.compile(rb"[ \t\x1f]+"), re.compile(rb"(?m)^ | $")
    rng = random.Random(1)
    for _ in range(20_000):
        text = bytes(rng.choice(b"ab \t\x1f\n") for _ in range(rng.randint(0, 20)))
        assert _normalised(text) == edges.sub(b"", blanks.sub(b" ", text)), text


def test_a_qid_docid_rank_run_reads_as_its_trec_original(tmp_path):
    """MS MARCO's (and pyserini's --output-format msmarco) 'qid docid rank' lines: each document's score is minus its
    rank, said in one warning; the trec_eval test run written so reads in the same order with the same measures, by
    the fast reader and the line reader alike; a line of another width is one line naming it."""
    import warnings

    from irfair.measures.effectiveness import evaluate
    from irfair.trec import read_qrels
    from irfair.trec.files import _read_run_lines

    original = read_run(TREC_EVAL / "results.test")
    lines = [f"{qid}\t{doc}\t{rank}" for qid in original.ranking for rank, doc in enumerate(original.doc_ids(qid), 1)]
    copy = tmp_path / "copy.run"
    copy.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        read = read_run(copy)
    assert [str(w.message) for w in said] == [f"{copy}: read as 'qid docid rank' lines (MS MARCO, pyserini --output-format "
                                              "msmarco): each document's score is minus its rank"]
    assert {q: read.doc_ids(q) for q in read.ranking} == {q: original.doc_ids(q) for q in original.ranking}
    assert read.ranking["301"][0][1] == -1.0 and read.tag == "copy"
    qrels = read_qrels(TREC_EVAL / "qrels.test")
    assert evaluate(read, qrels).means == evaluate(original, qrels).means
    assert evaluate(_read_run_lines(copy, msmarco=True), qrels).means == evaluate(original, qrels).means
    copy.write_text("1\td1\t1\n1\td2\t2\textra\n")
    with pytest.raises(IrfairInputError, match=r"copy\.run:2: expected 3 columns 'qid doc_id rank', found 4"), \
            pytest.warns(IrfairWarning, match="read as 'qid docid rank' lines"):
        read_run(copy)


@pytest.mark.parametrize(("reader", "text", "hint"), [
    ("run", "qid Q0 docid rank score tag\n1 Q0 d1 1 2.0 x\n", "it looks like a header line naming the columns: remove it"),
    ("run", "1 0 d1 1\n1 0 d2 0\n", "it looks like a qrels line 'qid iter doc_id grade': were the run and --qrels swapped?"),
    ("qrels", "1 Q0 d1 1 2.0 x\n", "it looks like a run line 'qid Q0 doc_id rank score tag': were --qrels and the run swapped?"),
    ("qrels", "query_id iteration docno relevance\n1 0 d1 1\n", "it looks like a header line naming the columns: remove it"),
])
def test_a_line_that_cannot_be_read_says_what_it_looks_like(tmp_path, reader, text, hint):
    """A header line, or the run and the qrels given the other way round: the one line names the line and adds what
    it looks like (a line that looks like nothing known gets no guess)."""
    from irfair.trec import read_qrels

    path = tmp_path / f"file.{reader}"
    path.write_text(text)
    with pytest.raises(IrfairInputError) as error:
        (read_run if reader == "run" else read_qrels)(path)
    assert str(error.value).startswith(f"{path}:1: ") and str(error.value).endswith(f"; {hint}")
    path.write_text("1 Q0 d1 one 2.0 x\n" if reader == "run" else "1 0 d1 yes\n")
    with pytest.raises(IrfairInputError) as error:
        (read_run if reader == "run" else read_qrels)(path)
    assert "looks like" not in str(error.value)


def _same_run(a: Run, b: Run) -> bool:
    return (a.ranking == b.ranking and a.tag == b.tag and a.columns.bounds == b.columns.bounds
            and list(a.line_of.lines) == list(b.line_of.lines) and dict(a.line_of) == dict(b.line_of))


def test_a_run_file_read_with_a_cache_is_parsed_once_and_read_back_as_parsed(tmp_path, monkeypatch):
    """The second read of unchanged bytes comes from the cache (the parser is not called) and equals a read without
    one: ranking, tie order, tag, line numbers; the digest is the file's SHA-256. Other bytes, another depth: another
    entry. A file with a comment (the line reader's) is never kept."""
    import hashlib

    from irfair.trec import files

    path = tmp_path / "r.run"
    path.write_text("2 Q0 c 1 -1e-3 t\n1 Q0 a 1 2.5 t\n1 Q0 b 2 2.5 t\n1 Q0 z 3 0.25 u\n")
    plain = read_run(path)
    first = read_run(path, cache_dir=tmp_path / "cache")
    assert _same_run(first, plain) and first.tag == "u"
    assert first.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert len(list((tmp_path / "cache" / "runs").glob("r.run-*"))) == 1

    def parse_again(*args, **kwargs):
        raise AssertionError("parsed again")

    with monkeypatch.context() as patched:
        patched.setattr(files, "_read_run_columns", parse_again)
        again = read_run(path, name="named", cache_dir=tmp_path / "cache")
    assert _same_run(again, plain) and again.name == "named" and again.doc_ids("1", 2) == ["b", "a"]
    assert read_run(path, max_depth=1, cache_dir=tmp_path / "cache").doc_ids("1") == ["b"]
    path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2.5 t\n")
    assert read_run(path, cache_dir=tmp_path / "cache").doc_ids("1") == ["a", "b"]
    assert len(list((tmp_path / "cache" / "runs").glob("r.run-*"))) == 3
    commented = tmp_path / "c.run"
    commented.write_text("# a comment\n1 Q0 a 1 3 t\n")
    assert read_run(commented, cache_dir=tmp_path / "cache").doc_ids("1") == ["a"]
    assert not list((tmp_path / "cache" / "runs").glob("c.run-*"))


def test_a_damaged_run_entry_is_said_and_rebuilt(tmp_path, capsys):
    """scores.npy cut short: one line on stderr naming the entry, the run parsed again and equal to the file's."""
    path = tmp_path / "r.run"
    path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2.5 t\n2 Q0 c 1 1 t\n")
    read_run(path, cache_dir=tmp_path / "cache")
    (entry,) = (tmp_path / "cache" / "runs").glob("r.run-*")
    scores = entry / "scores.npy"
    scores.write_bytes(scores.read_bytes()[:-8])
    run = read_run(path, cache_dir=tmp_path / "cache")
    assert _same_run(run, read_run(path))
    err = capsys.readouterr().err
    assert "is damaged (scores.npy has" in err and "rebuilding" in err
