import math
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from helpers import TREC_EVAL
from scipy import stats

from irfair.errors import IrfairInputError
from irfair.measures.effectiveness import as_trec_eval, evaluate, paired_t_test, parse_measures, trec_eval_lines
from irfair.measures.trec_eval_measures import TrecEvalMeasure
from irfair.trec import Run, read_qrels, read_run

RUNS = Path(__file__).resolve().parents[1] / "runs"


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
    """trec_eval names are labelled as trec_eval prints them (ndcg_cut.10 → ndcg_cut_10, P.5,10 → P_5, P_10),
    ir_measures names as typed."""
    parsed = parse_measures(["MAP", "ndcg@100", "P_10", "recip_rank", "RR@10", "P(rel=2)@10", "Judged@10", "NumRet",
                             ir_measures.nDCG @ 10, "P.5,10", "ndcg_cut.10"])
    assert list(parsed) == ["MAP", "ndcg@100", "P_10", "recip_rank", "RR@10", "P(rel=2)@10", "Judged@10", "NumRet",
                            "nDCG@10", "P_5", "ndcg_cut_10"]  # P.5,10: P_10 is there already
    assert parsed["MAP"] == ir_measures.AP and parsed["ndcg@100"] == ir_measures.nDCG @ 100
    assert parsed["P_10"] == TrecEvalMeasure("P", cutoff=10) and parsed["recip_rank"] == TrecEvalMeasure("recip_rank")
    assert as_trec_eval(parsed["P(rel=2)@10"]) == TrecEvalMeasure("P", cutoff=10, rel=2)
    assert as_trec_eval(parsed["Judged@10"]) is None  # ir_measures computes it
    with pytest.raises(IrfairInputError, match="unknown measure 'XYZ@3'"):
        parse_measures(["XYZ@3"])


def test_trec_eval_parameters_as_trec_eval_reads_them():
    """Cut-offs are read as C's atol and sorted (ndcg_cut.23.4 is 23), levels labelled %3.2f, number and pair
    parameters kept as typed; a family's parameters replace its defaults wherever it is named (all_trec +
    relstring.20 → relstring_20 only); irfair takes every cut-off asked for (P.5 and P.10 → P_5, P_10)."""
    labels = list(parse_measures(["P.5,7,3", "ndcg_cut.10,20,23.4", "iprec_at_recall..10,.25", "utility.2,-1,0,0",
                                  "ndcg.1=3,2=9", "11pt_avg..25,.5"]))
    assert labels == ["P_3", "P_5", "P_7", "ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23", "iprec_at_recall_0.10",
                      "iprec_at_recall_0.25", "utility_2,-1,0,0", "ndcg_1=3,2=9", "11pt_avg_.25,.5"]
    assert list(parse_measures(labels)) == labels  # every label reads back as its measure
    assert list(parse_measures(["P.5", "P.10"])) == ["P_5", "P_10"]
    all_trec = list(parse_measures(["all_trec", "relstring.20"]))
    assert "relstring_20" in all_trec and "relstring" not in all_trec and len(all_trec) == 99 + 1  # out.test.a + relstring
    assert list(parse_measures("official")) == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                                                "bpref", "recip_rank", *(f"iprec_at_recall_{r / 10:.2f}" for r in range(11)),
                                                *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))]


@pytest.mark.parametrize(("spec", "message"), [
    ("P.0,5", "cut-offs must be integers from 1 to 1,000,000,000"), ("P.99999999999999999999", "cut-offs must be integers from 1"),
    ("P@0", "P@0: cut-offs must be integers from 1"), ("nDCG@99999999999999999999", "cut-offs must be integers from 1"),
    ("P.5,5", "given twice"), ("ndcg.1=3=4", "malformed pair parameters"),
    ("utility.1,2", "utility takes 4 coefficients"), ("map.5", "takes no parameters"), ("P.", "nothing after the '.'"),
    ("all_trec.5", "takes no parameters"), ("map_avgjg", "irfair does not read"),
])
def test_bad_trec_eval_parameters(spec, message):
    with pytest.raises(IrfairInputError, match=message):
        parse_measures([spec])


MEAS_PARAMS = ["iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000", "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0",
               "11pt_avg..25,.5,.75", "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]


@pytest.mark.parametrize(("expected", "qrels", "run_file", "measures", "options"), [
    ("out.test", "qrels.test", "results.test", ["official"], {}),
    ("out.test", "qrels.test.with-comments", "results.test", ["official"], {}),
    ("out.test.a", "qrels.test", "results.test", ["all_trec"], {}),
    ("out.test.aq", "qrels.test", "results.test", ["all_trec"], {}),
    ("out.test.aqc", "qrels.test", "results.trunc", ["all_trec"], {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["all_trec"], {"complete": True, "max_depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", ["all_trec", "relstring.20"], {"relevance_level": 2}),
    ("out.test.meas_params", "qrels.test", "results.test", MEAS_PARAMS, {}),
])
def test_trec_eval_test_suite_line_for_line(expected, qrels, run_file, measures, options):
    """trec_eval 10's own test suite (its Makefile's quicktest; commands in ../shared/data/README.md): every line
    of every expected output, per query and over all, byte for byte — every measure of all_trec, trec_eval's
    labels and order, -c, -M, -l, # comment lines in the qrels and measure parameters."""
    result = evaluate(read_run(TREC_EVAL / run_file), read_qrels(TREC_EVAL / qrels), measures, **options)
    lines = trec_eval_lines(result, per_query=expected not in ("out.test", "out.test.a"))
    assert lines == (TREC_EVAL / expected).read_text().splitlines()


def test_complete_counts_every_query_of_the_qrels():
    """With -c, trec_eval 10 evaluates a query the run lacks on a ranking of one unjudged document: num_rel keeps
    its 77 relevant documents, num_q and the summary num_rel count all of the qrels (561, out.test.aqc)."""
    result = evaluate(read_run(TREC_EVAL / "results.trunc"), read_qrels(TREC_EVAL / "qrels.test"),
                      ["num_q", "num_rel", "num_ret", "gm_map", "map"], complete=True)
    assert result.per_query.loc["302"].tolist() == [1.0, 77.0, 0.0, 0.0, 0.0]
    assert (result.means["num_q"], result.means["num_rel"], result.means["num_ret"]) == (3, 561, 584)
    ap = result.per_query["map"].tolist()  # 302 scores 0: log(0.00001) in the geometric mean
    assert result.means["gm_map"] == pytest.approx(math.exp(sum(math.log(max(v, 1e-5)) for v in ap) / 3), rel=1e-12)
    assert round(result.means["gm_map"], 4) == 0.0045  # out.test.aqc


def test_iprec_at_recall_follows_trec_eval_10():
    """Four relevant documents, retrieved at ranks 1, 4 and 10: recall 0.60 needs lround(0.6 × 4) = 2 of them
    (trec_eval 10), the highest precision at or below rank 4 is 2/4; trec_eval 9's (long)(2.4 + 0.9) = 3 needs
    the third, 3/10. Recall 0.90 needs lround(3.6) = 4, never retrieved: 0."""
    qrels = {"1": {"a": 1, "b": 1, "c": 1, "d": 1, "x": 0}}
    run = Run.from_lists("r", {"1": ["a", "x", "y", "b", "z1", "z2", "z3", "z4", "z5", "c"]})
    result = evaluate(run, qrels, ["iprec_at_recall.0.6,0.9,0", "11pt_avg.0.9,0.6"])
    assert result.per_query.loc["1", "iprec_at_recall_0.60"] == 2 / 4
    assert result.per_query.loc["1", "iprec_at_recall_0.90"] == 0.0
    assert result.per_query.loc["1", "iprec_at_recall_0.00"] == 1.0
    # 11pt_avg takes its levels as given: 0.6 (last) gets 2/4; 0.9 (first) is out of order and gets the list's best, 1
    assert result.per_query.loc["1", "11pt_avg_0.9,0.6"] == (2 / 4 + 1.0) / 2


def test_iprec_at_recall_on_vaswani_differs_from_pytrec_eval_where_trec_eval_10_changed(shared_data):
    """Vaswani bm25: trec_eval 10 prints iprec_at_recall_0.60 0.1859, trec_eval 9 (pytrec_eval) 0.1490; every
    other level and query where the two roundings ask for the same number of relevant documents agrees."""
    import pytrec_eval

    run = read_run(RUNS / "vaswani" / "bm25.run")
    qrels = read_qrels(shared_data / "vaswani" / "qrels")
    ours = evaluate(run, qrels, ["iprec_at_recall", "num_rel"])
    assert round(ours.means["iprec_at_recall_0.60"], 4) == 0.1859
    theirs = pytrec_eval.RelevanceEvaluator(qrels, ["iprec_at_recall"]).evaluate(run.as_scores())
    assert round(float(np.mean([v["iprec_at_recall_0.60"] for v in theirs.values()])), 4) == 0.1490
    for qid, values in theirs.items():
        n_rel = ours.per_query.loc[qid, "num_rel"]
        for level in range(11):
            label = f"iprec_at_recall_{level / 10:.2f}"
            if int(level / 10 * n_rel + 0.5) == int(level / 10 * n_rel + 0.9):  # the same number of relevant documents
                assert ours.per_query.loc[qid, label] == values[label], (qid, label)


@pytest.mark.parametrize(("run_file", "qrels_edit", "complete", "expected"), [
    ("results.test", None, False, (3, 0.1785, 0.4064, 0.3000)),     # out.test
    ("results.trunc", None, True, (3, 0.1016, 0.1667, 0.2000)),     # out.test.aqc (-c)
    # trec_eval 9.0.8 (tag version-9.0.8, d4dd9d9c, built from source): the 2 queries in both files; trec_eval 10
    # stops with "result qid '302' not found in qrels" here
    ("results.trunc", None, False, (2, 0.1523, 0.2500, 0.3000)),
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


def test_trec_eval_lines_print_what_was_asked_in_trec_evals_order():
    """Lines as trec_eval prints them: measures in its table's order whatever the order asked, runid (the run's
    tag, STANDARD) and num_q only when asked, ir_measures names after trec_eval's, as typed."""
    result = evaluate(read_run(TREC_EVAL / "results.test"), read_qrels(TREC_EVAL / "qrels.test"),
                      ["P.10", "nDCG@10", "map", "num_ret", "runid"])
    lines = trec_eval_lines(result)
    expected = (TREC_EVAL / "out.test.aq").read_text().splitlines()
    assert [line for line in lines if not line.startswith("nDCG@10")] == \
        [line for line in expected if line.split()[0] in ("num_ret", "map", "P_10", "runid")]
    assert lines[3].startswith("nDCG@10               \t301\t") and lines[-1].startswith("nDCG@10               \tall\t")


def test_relevance_level_and_max_depth():
    """-l 2: only grade 2 is relevant; -M 2: each list cut at 2 documents."""
    qrels = {"1": {"a": 2, "b": 1, "c": 2}}
    run = Run.from_lists("r", {"1": ["b", "a", "c"]})
    assert evaluate(run, qrels, ["map", "num_rel"], relevance_level=2).per_query.loc["1"].tolist() == [(1 / 2 + 2 / 3) / 2, 2]
    assert evaluate(run, qrels, ["map", "num_ret"], max_depth=2).per_query.loc["1"].tolist() == [(1 / 1 + 2 / 2) / 3, 2]
    for bad in ({"relevance_level": -1}, {"max_depth": 0}, {"relevance_level": 1.5}):
        with pytest.raises(IrfairInputError):
            evaluate(run, qrels, ["map"], **bad)


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


def test_evaluating_a_run_file_loads_no_pandas():
    """Reading a run and qrels and evaluating them (means only) leaves pandas unloaded (a fifth of a second to import
    and to unload at exit); the per-query table loads it when read."""
    import subprocess
    import sys

    code = (f"import sys\nfrom irfair.trec import read_run, read_qrels\nfrom irfair.measures.effectiveness import evaluate\n"
            f"result = evaluate(read_run({str(TREC_EVAL / 'results.test')!r}), read_qrels({str(TREC_EVAL / 'qrels.test')!r}))\n"
            f"print(round(result.means['MAP'], 4), 'pandas' in sys.modules)\nresult.per_query\nprint('pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0.1785", "False", "True"]  # trec_eval's map in out.test


def test_a_run_in_columns_is_joined_with_the_qrels_as_its_lists_are(tmp_path):
    """Judged.from_columns (Arrow look-up, sorted search) gives the values Judged gives from lists, row for row: grades
    2, 1, 0, the pool's -1 (UNJUDGED -2), unlisted (NONPOOL -1), a document judged for another query only, a query cut
    at depth 2, and trec_eval's stand-in for a query the run lacks (-c)."""
    from irfair.measures.effectiveness import evaluate
    from irfair.measures.trec_judged import NONPOOL, UNJUDGED, Judged, QrelsIndex
    from irfair.trec import read_run

    path = tmp_path / "r.run"
    path.write_text("1 Q0 a 1 9 t\n1 Q0 b 2 8 t\n1 Q0 c 3 7 t\n1 Q0 x 4 6 t\n2 Q0 a 1 5 t\n2 Q0 y 2 4 t\n2 Q0 d 3 3 t\n")
    qrels = {"1": {"a": 2, "b": -1, "c": 0, "y": 1}, "2": {"d": 1, "y": 0}, "3": {"a": 1}}
    run = read_run(path)
    queries = ["1", "2", "3"]
    spans = [(0, 4), (4, 6), ["ceci_nest_pas_un_docno"]]  # query 2 cut at depth 2
    columns = Judged.from_columns(run.columns.doc_array, spans, qrels, queries, level=1)
    lists = Judged({"1": ["a", "b", "c", "x"], "2": ["a", "y"], "3": ["ceci_nest_pas_un_docno"]}, qrels, queries, level=1)
    assert columns.rel.tolist() == lists.rel.tolist() == [2, UNJUDGED, 0, NONPOOL, NONPOOL, 0, NONPOOL]
    assert columns.lengths.tolist() == lists.lengths.tolist() == [4, 2, 1]
    assert columns.num_rel.tolist() == lists.num_rel.tolist() == [2, 1, 1]  # query 1: a (2) and y (1, not retrieved)
    # one index of the qrels shared by every run of an audit: built over more queries, in another order, it joins alike
    shared = QrelsIndex({"9": {"b": 3, "x": 2}, "3": qrels["3"], "2": qrels["2"], "1": qrels["1"]})
    again = Judged.from_columns(run.columns.doc_array, spans, qrels, queries, level=1, index=shared)
    assert again.rel.tolist() == columns.rel.tolist()
    assert evaluate(run, qrels, ["MAP", "P@2"], qrels_index=shared).means == evaluate(run, qrels, ["MAP", "P@2"]).means
