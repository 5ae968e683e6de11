"""``irfair audit`` on trec_eval's own test files gives trec_eval's numbers, with -m, -q and -c as trec_eval has them."""
import csv
import json
import zlib
from pathlib import Path

import pytest

from irfair.cli import main
from irfair.cli.audit import measure_names

TREC_EVAL = Path(__file__).parent / "data" / "trec_eval"
# TREC 2004 Robust titles of topics 301-303 (tests/data/trec_eval/qrels.test judges these three topics)
TITLES = {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio", "303": "Hubble Telescope Achievements"}


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Topics 301-303 and a stand-in corpus holding every document the qrels and runs name (TREC disks 4&5
    are licensed); its texts only matter for GSR, never for MAP, RR or P@10."""
    folder = tmp_path_factory.mktemp("trec_eval")
    docs = set()
    for name in ("qrels.test", "results.test"):
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


def _all_lines(output: str) -> dict[str, str]:
    return {line.split("\t")[0].strip(): line.split("\t")[2] for line in output.splitlines() if "\tall\t" in line}


def test_trec_eval_test_run_gives_trec_evals_numbers(collection, capsys):
    """out.test: num_q 3, map 0.1785, recip_rank 0.4064, P_10 0.3000; out.test.aq per query."""
    assert main(_audit(collection, "results.test", "-m", "map", "-m", "recip_rank", "-m", "P_10", "-q")) == 0
    printed = capsys.readouterr().out
    summary = _all_lines(printed)
    assert (summary["num_q"], summary["map"], summary["recip_rank"], summary["P_10"]) == ("3", "0.1785", "0.4064", "0.3000")
    per_query = {line for line in printed.splitlines() if line.split("\t")[1:2] in (["301"], ["302"], ["303"])}
    expected = {line for line in (TREC_EVAL / "out.test.aq").read_text().splitlines()
                if line.split("\t")[0].strip() in ("map", "recip_rank", "P_10") and line.split("\t")[1] != "all"}
    assert per_query == expected and len(expected) == 9
    table = printed.split("\n\n")[0].splitlines()
    header, results_row = table[0].split(), next(r for r in table if r.startswith("results"))
    assert header[-5:] == ["n_queries", "n_evaluated", "map", "recip_rank", "P_10"]
    assert results_row.split()[-5:] == ["3", "3", "0.1785", "0.4064", "0.3000"]


def test_truncated_run_default_and_complete(collection, capsys, tmp_path):
    """results.trunc lacks topic 302: trec_eval averages over the 2 topics in both files (9.0.8: map 0.1523,
    recip_rank 0.2500, P_10 0.3000); with -c over all 3 (out.test.aqc: 0.1016, 0.1667, 0.2000)."""
    assert main(_audit(collection, "results.trunc", "--measures", "map,recip_rank,P_10", "-q")) == 0
    summary = _all_lines(capsys.readouterr().out)
    assert (summary["num_q"], summary["map"], summary["recip_rank"], summary["P_10"]) == ("2", "0.1523", "0.2500", "0.3000")
    out = tmp_path / "out"
    assert main(_audit(collection, "results.trunc", "--measures", "map,recip_rank,P_10", "-q", "-c", "--out", str(out), "--no-plots")) == 0
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
    assert main(_audit(collection, "results.test", "-m", "map", "-m", "recip_rank", "-m", "P_10", "-q",
                       "--out", str(out), "--no-plots", qrels=qrels)) == 0
    printed = capsys.readouterr().out
    summary = _all_lines(printed)
    assert (summary["num_q"], summary["map"], summary["recip_rank"], summary["P_10"]) == ("3", "0.0394", "0.0731", "0.0667")
    row = next(r for r in printed.splitlines() if r.startswith("results "))
    assert row.split()[-5:-3] == ["2", "3"]
    per_query = list(csv.DictReader((out / "per_query.csv").open()))
    assert list(per_query[0])[9:14] == ["reason", "map", "recip_rank", "P_10", "rab_tc@5"]
    row_302 = next(row for row in per_query if row["system"] == "results" and row["qid"] == "302")
    assert (row_302["map"], row_302["recip_rank"], row_302["P_10"]) == ("0.0", "0.0", "0.0")
    # the bias measures cover the queries with relevant documents (those with a perfect run) only
    assert row_302["rab_tc@10"] == row_302["nfairr@10"] == "" and row_302["reason"] == "no relevant documents"


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
        out = tmp_path / "out"
        args = _audit(collection, "results.test", "--out", str(out))
        args = [arg for arg in args if arg not in ("--bootstrap", "0", "--no-random", "--no-cache")]
        assert main([*args, "--bootstrap", "200", "--cache-dir", str(tmp_path / "cache")]) == 0
        created = json.loads((out / "audit.json").read_text())["provenance"]["created"]
        outputs.append((capsys.readouterr().out, {path.name: path.read_bytes().replace(created.encode(), b"CREATED")
                                                  for path in sorted(out.iterdir())}))
    assert sorted(outputs[0][1]) == ["agreement.csv", "audit.json", "per_query.csv", "report.html", "scatter_perfect.png",
                                     "scatter_random.png", "scatter_results.png", "table.tsv", "table.txt"]
    assert outputs[0] == outputs[1]
