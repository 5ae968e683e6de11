"""``irfair audit`` on trec_eval's own test files gives trec_eval's numbers, with -m, -q, -c, -M and -l as trec_eval 10 has
them (the files and the command behind each expected output: ../shared/data/README.md)."""
import csv
import hashlib
import json
import zlib

import pytest
from helpers import TREC_EVAL

from irfair.cli import main
from irfair.cli.audit import measure_names
from irfair.errors import IrfairInputError

# TREC 2004 Robust titles of topics 301-303 (trec_eval's qrels.test judges these three topics)
TITLES = {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio", "303": "Hubble Telescope Achievements"}


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Topics 301-303 and a stand-in corpus holding every document the qrels and runs name (TREC disks 4&5
    are licensed); its texts only matter for GSR, never for MAP, RR or P@10."""
    folder = tmp_path_factory.mktemp("trec_eval")
    docs = set()
    for name in ("qrels.test", "qrels.rel_level", "results.test"):
        for line in (TREC_EVAL / name).read_text().splitlines():
            docs.add(line.split()[2])
    sentences = ("the woman said she would stay home", "the man said he would stay home", "the police report was long")
    with open(folder / "docs.jsonl", "w") as out:
        for doc in sorted(docs):
            out.write(json.dumps({"id": doc, "contents": sentences[zlib.crc32(doc.encode()) % 3]}) + "\n")
    (folder / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in TITLES.items()))
    return folder


def _audit(collection, run, *options, qrels=None):
    return ["audit", str(TREC_EVAL / run), "--qrels", str(qrels or TREC_EVAL / "qrels.test"), "--topics",
            str(collection / "topics.tsv"), "--corpus", str(collection / "docs.jsonl"), "--embeddings", "w2v-gnews-26k",
            "--bootstrap", "0", "--no-random", "--no-cache", *options]


def _table_row(output: str, system: str) -> dict[str, str]:
    """A row of the printed (--wide) table by column name (one word a cell: no CI is printed with --bootstrap 0)."""
    lines = output.splitlines()
    header = next(line for line in lines if line.startswith("system ")).split()
    return dict(zip(header, next(line for line in lines if line.startswith(f"{system} ")).split()))


def _all_lines(output: str) -> dict[str, str]:
    return {line.split("\t")[0].strip(): line.split("\t")[2] for line in output.splitlines() if "\tall\t" in line}


def test_trec_eval_test_run_gives_trec_evals_numbers(collection, capsys):
    """out.test: num_q 3, map 0.1785, recip_rank 0.4064, P_10 0.3000; out.test.aq per query."""
    assert main(_audit(collection, "results.test", "-m", "map", "-m", "recip_rank", "-m", "P_10", "-q", "--wide")) == 0
    printed = capsys.readouterr().out
    summary = _all_lines(printed)
    assert summary == {"map": "0.1785", "recip_rank": "0.4064", "P_10": "0.3000"}  # what was asked, as trec_eval -m
    per_query = {line for line in printed.splitlines() if line.split("\t")[1:2] in (["301"], ["302"], ["303"])}
    expected = {line for line in (TREC_EVAL / "out.test.aq").read_text().splitlines()
                if line.split("\t")[0].strip() in ("map", "recip_rank", "P_10") and line.split("\t")[1] != "all"}
    assert per_query == expected and len(expected) == 9
    row = _table_row(printed, "results")
    assert [row[c] for c in ("n_queries", "n_evaluated", "map", "recip_rank", "P_10")] == ["3", "3", "0.1785", "0.4064", "0.3000"]


def test_truncated_run_default_and_complete(collection, capsys, tmp_path):
    """results.trunc lacks topic 302: trec_eval averages over the 2 topics in both files (9.0.8: map 0.1523,
    recip_rank 0.2500, P_10 0.3000); with -c over all 3 (out.test.aqc: 0.1016, 0.1667, 0.2000)."""
    assert main(_audit(collection, "results.trunc", "--measures", "num_q,map,recip_rank,P_10", "-q")) == 0
    summary = _all_lines(capsys.readouterr().out)
    assert (summary["num_q"], summary["map"], summary["recip_rank"], summary["P_10"]) == ("2", "0.1523", "0.2500", "0.3000")
    out = tmp_path / "out"
    assert main(_audit(collection, "results.trunc", "--measures", "num_q,map,recip_rank,P_10", "-q", "-c", "--out", str(out),
                       "--no-plots")) == 0
    summary = _all_lines(capsys.readouterr().out)
    assert (summary["num_q"], summary["map"], summary["recip_rank"], summary["P_10"]) == ("3", "0.1016", "0.1667", "0.2000")
    system = json.loads((out / "audit.json").read_text())["systems"]["results"]
    assert system["n_evaluated"] == 3 and system["n_queries"] == 2 and system["n_queries_missing_from_run"] == 1
    assert round(system["measures"]["map"], 4) == 0.1016


def test_query_without_relevant_documents_counts_for_measures_not_for_gsr(collection, capsys, tmp_path):
    """Topic 302 judged with no relevant document: trec_eval (9.0.8) still counts it, map 0.0394 = (0.0324 + 0 +
    0.0858)/3; GSR excludes it (no perfect run exists), so the table shows 2 GSR queries and 3 evaluated."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(" ".join(line.split()[:3] + ["0" if line.startswith("302 ") else line.split()[3]]) + "\n"
                             for line in (TREC_EVAL / "qrels.test").read_text().splitlines()))
    out = tmp_path / "out"
    assert main(_audit(collection, "results.test", "-m", "num_q", "-m", "map", "-m", "recip_rank", "-m", "P_10", "-q", "--wide",
                       "--out", str(out), "--no-plots", qrels=qrels)) == 0
    printed = capsys.readouterr().out
    summary = _all_lines(printed)
    assert (summary["num_q"], summary["map"], summary["recip_rank"], summary["P_10"]) == ("3", "0.0394", "0.0731", "0.0667")
    row = _table_row(printed, "results")
    assert (row["n_queries"], row["n_evaluated"]) == ("2", "3")
    per_query = list(csv.DictReader((out / "per_query.csv").open()))
    assert list(per_query[0])[9:15] == ["reason", "num_q", "map", "recip_rank", "P_10", "rab_tc@5"]
    row_302 = next(row for row in per_query if row["system"] == "results" and row["qid"] == "302")
    assert (row_302["map"], row_302["recip_rank"], row_302["P_10"]) == ("0.0", "0.0", "0.0")
    # the bias measures cover the queries with relevant documents (those with a perfect run) only
    assert row_302["rab_tc@10"] == row_302["nfairr@10"] == "" and row_302["reason"] == "no relevant documents"


AUDITS = {  # trec_eval's expected output → the audit's options (the qrels and run trec_eval was given)
    "out.test.aq": ("qrels.test", "results.test", ["-m", "all_trec"]),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-m", "all_trec", "-c"]),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["-m", "all_trec", "-c", "-M", "100"]),
    "out.test.aql": ("qrels.rel_level", "results.test", ["-m", "all_trec", "-m", "relstring.20", "-l", "2"]),
    "out.test.meas_params": ("qrels.test", "results.test", [f"-m{spec}" for spec in (
        "iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000", "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0",
        "11pt_avg..25,.5,.75", "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20")]),
}


@pytest.mark.parametrize("expected", list(AUDITS))
def test_audit_per_query_output_is_trec_evals(collection, capsys, expected):
    """``irfair audit ... -q`` ends with trec_eval 10's output, line for line: every measure of -m all_trec, per
    query and over all (out.test.a is its ``all`` lines), -c, -M, -l and measure parameters."""
    qrels, run_file, options = AUDITS[expected]
    assert main(_audit(collection, run_file, "-q", *options, qrels=TREC_EVAL / qrels)) == 0
    lines = (TREC_EVAL / expected).read_text().splitlines()
    printed = capsys.readouterr().out.splitlines()
    assert printed[-len(lines):] == lines and printed[-len(lines) - 1] == ""
    if expected == "out.test.aq":
        assert [line for line in lines if "\tall\t" in line] == (TREC_EVAL / "out.test.a").read_text().splitlines()


def test_duplicate_below_max_depth_is_dropped_as_trec_eval_drops_it(collection, capsys, tmp_path):
    """A document listed twice for 301, the second time with the lowest score: an error naming its line, unless
    -M 100 drops that line before the check (trec_eval -M); the run's measures are then those of -M 100."""
    lines = (TREC_EVAL / "results.test").read_text().splitlines()
    duplicate = lines[0].split()
    lines.insert(100, " ".join([duplicate[0], "Q0", duplicate[2], "999", "-5", "STANDARD"]))
    run = tmp_path / "results.dup"
    run.write_text("\n".join(lines) + "\n")
    assert main(_audit(collection, run, "-m", "map")) == 2
    assert f"{run}:101: document {duplicate[2]} retrieved twice for query 301" in capsys.readouterr().err
    assert main(_audit(collection, run, "-m", "num_ret", "-m", "map", "-q", "-M", "100")) == 0
    # map of the first 100 documents per query: out.test.a's map_cut_100
    assert _all_lines(capsys.readouterr().out) == {"num_ret": "300", "map": "0.1622"}


def test_measure_options():
    assert measure_names(None, []) == ("MAP", "nDCG@100", "P@10")
    assert measure_names("MAP,P(rel=2)@10", ["P.5,10", "RR@10"]) == ("MAP", "P(rel=2)@10", "P.5,10", "RR@10")


def test_unknown_measure_is_one_line(collection, capsys):
    assert main(_audit(collection, "results.test", "-m", "XYZ@3")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("irfair: error: unknown measure 'XYZ@3'")


def test_a_repeated_audit_writes_the_same_files(collection, capsys, tmp_path):
    """Issue 24: the same inputs audited twice (the first with an empty cache, the second reading it; bootstrap,
    random baseline and plots on) give the same bytes in every file, apart from the creation time that
    audit.json and report.html state."""
    outputs = []
    for _ in range(2):
        out = tmp_path / "out"  # it does not exist the first time: audit.json's command line must not depend on that
        args = _audit(collection, "results.test", "--out", str(out))
        args = [arg for arg in args if arg not in ("--bootstrap", "0", "--no-random", "--no-cache")]
        assert main([*args, "--bootstrap", "200", "--cache-dir", str(tmp_path / "cache")]) == 0
        created = json.loads((out / "audit.json").read_text())["provenance"]["created"]
        outputs.append((capsys.readouterr().out, {path.name: path.read_bytes().replace(created.encode(), b"CREATED")
                                                  for path in sorted(out.iterdir())}))
    written = ["agreement.csv", "audit.json", "comparisons.csv", "per_query.csv", "report.html", "scatter_perfect.png",
               "scatter_random.png", "scatter_results.png", "table.tsv", "table.txt"]
    assert sorted(outputs[0][1]) == [".irfair-outputs.json", *written]
    assert outputs[0][0] == outputs[1][0]
    for name in written:
        assert outputs[0][1][name] == outputs[1][1][name], name
    # what irfair wrote there, for the next audit: every output's SHA-256 (audit.json's holds its creation time)
    manifest = json.loads((tmp_path / "out" / ".irfair-outputs.json").read_text())["files"]
    table = (tmp_path / "out" / "table.txt").read_bytes()
    assert sorted(manifest) == written and manifest["table.txt"] == hashlib.sha256(table).hexdigest()


def test_python_takes_the_command_lines_names_and_saves_what_it_writes(collection, capsys, tmp_path):
    """irfair.audit(..., bootstrap=, permutations=) as `irfair audit --bootstrap --permutations`, and result.save(folder)
    writing the CLI's files: the same names, the same bytes apart from what records the call (audit.json's
    provenance: creation time and command line; report.html repeats them)."""
    import irfair

    out = tmp_path / "cli"
    args = [a for a in _audit(collection, "results.test", "--out", str(out)) if a not in ("--bootstrap", "0")]
    assert main([*args, "--bootstrap", "50", "--permutations", "500"]) == 0
    capsys.readouterr()
    result = irfair.audit(str(TREC_EVAL / "results.test"), str(TREC_EVAL / "qrels.test"), str(collection / "topics.tsv"),
                          str(collection / "docs.jsonl"), "w2v-gnews-26k", bootstrap=50, permutations=500, random_baseline=False,
                          cache_dir=False)
    assert (result.inference.n_bootstrap, result.inference.n_permutations) == (50, 500)
    result.save(tmp_path / "api")
    cli, api = ({p.name: p.read_bytes() for p in folder.iterdir()} for folder in (out, tmp_path / "api"))
    assert sorted(cli) == sorted(api) and len(cli) >= 9
    for name in cli:
        if name not in ("audit.json", "report.html", ".irfair-outputs.json"):
            assert cli[name] == api[name], name
    with pytest.raises(IrfairInputError, match="bootstrap= and n_bootstrap= name one setting"):
        irfair.audit("a.run", "q", "t", "c", bootstrap=1, n_bootstrap=2)
    # -l, -M and --no-random by their long names: the same result as the Python names give
    qrels, run = str(TREC_EVAL / "qrels.rel_level"), str(TREC_EVAL / "results.test")  # grades up to 4: -l 2 keeps some
    by_cli = irfair.audit(run, qrels, level_for_rel=2, max_retrieved=5, no_random=True, permutations=100, bootstrap=20)
    by_python = irfair.audit(run, qrels, relevance_level=2, max_depth=5, random_baseline=False, n_permutations=100,
                             n_bootstrap=20)
    assert by_cli.comparisons.equals(by_python.comparisons) and by_cli.table().equals(by_python.table())
    assert by_cli["results"].evaluation.n_queries == by_python["results"].evaluation.n_queries > 0
    topics, docs = str(collection / "topics.tsv"), str(collection / "docs.jsonl")
    for no_random, rows in ((True, {"perfect", "results"}), (False, {"perfect", "random", "results"})):
        found = irfair.audit(run, qrels, topics, docs, "w2v-gnews-26k", no_random=no_random, bootstrap=20, permutations=100,
                             cache_dir=False)
        assert set(found.systems) == rows
