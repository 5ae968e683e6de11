import math
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from scipy import stats

from irfair.errors import IrfairInputError
from irfair.measures.effectiveness import evaluate, paired_t_test, parse_measures, trec_eval_lines
from irfair.trec import Run, read_qrels, read_run

TREC_EVAL = Path(__file__).parent / "data" / "trec_eval"


def trec_eval_output(name: str) -> dict[tuple[str, str], str]:
    """``{(measure, qid): printed value}`` of one of trec_eval's expected outputs."""
    return {(m, q): v for m, q, v in (line.split() for line in (TREC_EVAL / name).read_text().splitlines())}


def test_measures_by_hand():
    """Query 1: relevant a (rank 1) and c (rank 3): AP = (1/1 + 2/3)/2, P@10 = 2/10, RR = 1,
    nDCG@100 = (1 + 1/log2 4)/(1 + 1/log2 3). Query 3 is judged but has no relevant document: it is in the
    run, so it counts and scores 0 (as trec_eval). Query 2 is not in the run: left out by default, 0 with -c."""
    qrels = {"1": {"a": 1, "c": 1, "d": 0}, "2": {"x": 1}, "3": {"y": 0}}
    run = Run("r", {"1": [("a", 3.0), ("b", 2.0), ("c", 1.0)], "3": [("y", 1.0)], "9": [("z", 1.0)]})
    result = evaluate(run, qrels, ["MAP", "P@10", "nDCG@100", "RR"])
    assert list(result.per_query.index) == ["1", "3"] and result.n_queries == 2 and result.n_missing == 1
    row = result.per_query.loc["1"]
    assert row["MAP"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert row["P@10"] == pytest.approx(0.2)
    assert row["nDCG@100"] == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert result.per_query.loc["3"].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert result.means["MAP"] == pytest.approx((1 + 2 / 3) / 2 / 2)
    assert result.means["RR"] == pytest.approx(1 / 2)
    complete = evaluate(run, qrels, ["MAP", "RR"], complete=True)
    assert list(complete.per_query.index) == ["1", "2", "3"] and complete.per_query.loc["2"].tolist() == [0.0, 0.0]
    assert complete.means["MAP"] == pytest.approx((1 + 2 / 3) / 2 / 3) and complete.means["RR"] == pytest.approx(1 / 3)


def test_measure_names_and_objects():
    parsed = parse_measures(["MAP", "ndcg@100", "P_10", "recip_rank", "RR@10", "P(rel=2)@10", "Judged@10", "NumRet",
                             ir_measures.nDCG @ 10, "P.5,10"])
    assert list(parsed) == ["MAP", "ndcg@100", "P_10", "recip_rank", "RR@10", "P(rel=2)@10", "Judged@10", "NumRet",
                            "nDCG@10", "P@5", "P@10"]
    assert parsed["MAP"] == ir_measures.AP and parsed["ndcg@100"] == ir_measures.nDCG @ 100
    assert parsed["P_10"] == ir_measures.P @ 10 and parsed["recip_rank"] == ir_measures.RR
    with pytest.raises(IrfairInputError, match="unknown measure 'XYZ@3'"):
        parse_measures(["XYZ@3"])


def test_trec_eval_test_suite_every_measure_ir_measures_names():
    """trec_eval's own test run (qrels.test, results.test, 3 queries): every value of ``trec_eval -m all_trec -q``
    (out.test.aq) whose measure ir_measures can name is reproduced to trec_eval's 4 printed decimals, per query
    and over all. The exception is iprec_at_recall at 0.10 and 0.60, which trec_eval 10.0 changed ("int
    truncation to round/floor", its CHANGELOG); pytrec_eval embeds trec_eval 9, whose output (0.2096 for 301
    at 0.10, 0.0822 over all at 0.60, from trec_eval 9.0.8 built from source) irfair matches."""
    expected = trec_eval_output("out.test.aq")
    names = sorted({name for name, _ in expected if name not in ("runid", "num_q", "relstring")})
    nameable = [n for n in names if _one_measure(n)]
    result = evaluate(read_run(TREC_EVAL / "results.test"), read_qrels(TREC_EVAL / "qrels.test"), nameable)
    assert result.n_queries == int(expected["num_q", "all"]) == 3
    compared, changed_in_10 = 0, {("iprec_at_recall_0.10", "301"), ("iprec_at_recall_0.10", "all"),
                                  ("iprec_at_recall_0.60", "302"), ("iprec_at_recall_0.60", "all")}
    for name in nameable:
        for qid in ("301", "302", "303", "all"):
            value = result.means[name] if qid == "all" else result.per_query.loc[qid, name]
            if (name, qid) in changed_in_10:
                assert round(value, 4) != float(expected[name, qid])
                continue
            assert value == pytest.approx(float(expected[name, qid]), abs=5.01e-5), (name, qid)
            compared += 1
    assert len(nameable) >= 60 and compared >= 240
    assert result.means["iprec_at_recall_0.10"] == pytest.approx(0.3884, abs=5e-5)


def _one_measure(name: str) -> bool:
    try:
        return len(ir_measures.parse_trec_measure(name)) == 1
    except (NameError, ValueError, KeyError, TypeError):
        return False


@pytest.mark.parametrize(("run_file", "qrels_edit", "complete", "expected"), [
    ("results.test", None, False, (3, 0.1785, 0.4064, 0.3000)),     # out.test
    ("results.trunc", None, True, (3, 0.1016, 0.1667, 0.2000)),     # out.test.aqc (-c)
    ("results.trunc", None, False, (2, 0.1523, 0.2500, 0.3000)),    # trec_eval 9.0.8 (tests/data/trec_eval/README.md)
    ("results.test", "302", False, (3, 0.0394, 0.0731, 0.0667)),    # 302 without relevant documents, trec_eval 9.0.8
])
def test_trec_eval_averages(run_file, qrels_edit, complete, expected):
    qrels = read_qrels(TREC_EVAL / "qrels.test")
    if qrels_edit:
        qrels[qrels_edit] = {doc: 0 for doc in qrels[qrels_edit]}
    result = evaluate(read_run(TREC_EVAL / run_file), qrels, ["map", "recip_rank", "P_10"], complete=complete)
    assert (result.n_queries, *(round(result.means[m], 4) for m in ("map", "recip_rank", "P_10"))) == expected


def test_means_equal_ir_measures_calc_aggregate():
    """On a run that covers every query of the qrels, irfair's default averages equal ir_measures.calc_aggregate;
    on one that lacks a query, ir_measures fills in 0 as trec_eval -c does, so complete=True equals it."""
    qrels = read_qrels(TREC_EVAL / "qrels.test")
    measures = [ir_measures.AP, ir_measures.nDCG @ 100, ir_measures.P @ 10, ir_measures.RR @ 10, ir_measures.Judged @ 10,
                ir_measures.R @ 100, ir_measures.NumRet, ir_measures.P(rel=1) @ 5, ir_measures.Bpref]
    for run_file, complete in (("results.test", False), ("results.trunc", True)):
        run = read_run(TREC_EVAL / run_file)
        ours = evaluate(run, qrels, measures, complete=complete).means
        theirs = ir_measures.calc_aggregate(measures, qrels, run.as_scores())
        assert ours == pytest.approx({str(m): theirs[m] for m in measures}, abs=1e-12)
    assert ours["NumRet"] == 500 + 84  # a count is summed, as trec_eval's num_ret: 301 and 303 retrieve 500 and 84


def test_trec_eval_lines_match_trec_eval_layout():
    result = evaluate(read_run(TREC_EVAL / "results.test"), read_qrels(TREC_EVAL / "qrels.test"), ["map", "num_ret"])
    lines = trec_eval_lines(result)
    expected = (TREC_EVAL / "out.test.aq").read_text().splitlines()
    for line in lines:
        name = line.split("\t")[0].strip()
        if name != "runid":
            assert line in expected  # same name column width, tabs, 4 decimals and integer counts
    assert lines[-4:-2] == ["runid                 \tall\tresults", "num_q                 \tall\t3"]  # the run's name


def test_time_collection_ap_matches_hand_computation(shared_data, tmp_path):
    qrels = read_qrels(shared_data / "time" / "qrels.time.txt")
    # a run that puts one non-relevant document before the relevant ones, reversed, for three queries
    lines = []
    for qid in ("1", "2", "3"):
        relevant = sorted(d for d, g in qrels[qid].items() if g > 0)
        ranked = ["999999"] + relevant[::-1]
        lines += [f"{qid} Q0 {doc} {r} {100 - r} t" for r, doc in enumerate(ranked, start=1)]
    path = tmp_path / "time.run"
    path.write_text("\n".join(lines) + "\n")
    result = evaluate(read_run(path), qrels, ["MAP", "P@10"], qids=["1", "2", "3"])
    for qid in ("1", "2", "3"):
        relevant = {d for d, g in qrels[qid].items() if g > 0}
        ranked = read_run(path).doc_ids(qid)
        hits = [i for i, doc in enumerate(ranked, start=1) if doc in relevant]
        assert result.per_query.loc[qid, "MAP"] == pytest.approx(sum(k / rank for k, rank in enumerate(hits, 1)) / len(relevant))
        assert result.per_query.loc[qid, "P@10"] == pytest.approx(len(relevant & set(ranked[:10])) / 10)


def test_paired_t_test_matches_scipy():
    qrels = {str(q): {"a": 1, "b": 1} for q in range(5)}
    good = Run("g", {str(q): [("a", 2.0), ("b", 1.0)] for q in range(5)})
    bad = Run("b", {str(q): [("z", 3.0), ("a", 2.0)] if q % 2 else [("a", 1.0)] for q in range(5)})
    a, b = evaluate(good, qrels, ["MAP"]), evaluate(bad, qrels, ["MAP"])
    t, p = paired_t_test(a, b, "MAP")
    expected = stats.ttest_rel(np.ones(5), [0.5, 0.25, 0.5, 0.25, 0.5])
    assert (t, p) == pytest.approx((expected.statistic, expected.pvalue))
