import math

import numpy as np
import pytest
from scipy import stats

from irfair.errors import IrfairInputError
from irfair.measures.effectiveness import evaluate, paired_t_test, pytrec_measure
from irfair.trec import Run, read_qrels, read_run


def test_measures_by_hand():
    qrels = {"1": {"a": 1, "c": 1, "d": 0}, "2": {"x": 1}, "3": {"y": 0}}
    run = Run("r", {"1": [("a", 3.0), ("b", 2.0), ("c", 1.0)]})
    result = evaluate(run, qrels)
    assert list(result.per_query.index) == ["1", "2"]  # query 3 has no relevant document
    row = result.per_query.loc["1"]
    assert row["MAP"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert row["P@10"] == pytest.approx(0.2)
    # DCG = 1 + 1/log2(4) = 1.5, IDCG = 1 + 1/log2(3)
    assert row["nDCG@100"] == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert result.per_query.loc["2"].tolist() == [0.0, 0.0, 0.0]  # missing from the run scores 0
    assert result.n_missing == 1
    assert result.means["MAP"] == pytest.approx((1 + 2 / 3) / 2 / 2)


def test_measure_names():
    assert pytrec_measure("nDCG@100") == ("ndcg_cut.100", "ndcg_cut_100")
    assert pytrec_measure("P@10") == ("P.10", "P_10")
    assert pytrec_measure("MAP") == ("map", "map")
    assert pytrec_measure("RR") == ("recip_rank", "recip_rank")
    assert pytrec_measure("ndcg_cut.20") == ("ndcg_cut.20", "ndcg_cut_20")
    with pytest.raises(IrfairInputError, match="unknown measure"):
        pytrec_measure("XYZ@3")


def _average_precision(ranked, relevant):
    hits, total = 0, 0.0
    for rank, doc in enumerate(ranked, start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


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
        assert result.per_query.loc[qid, "MAP"] == pytest.approx(_average_precision(ranked, relevant))
        assert result.per_query.loc[qid, "P@10"] == pytest.approx(len(relevant & set(ranked[:10])) / 10)


def test_paired_t_test_matches_scipy():
    qrels = {str(q): {"a": 1, "b": 1} for q in range(5)}
    good = Run("g", {str(q): [("a", 2.0), ("b", 1.0)] for q in range(5)})
    bad = Run("b", {str(q): [("z", 3.0), ("a", 2.0)] if q % 2 else [("a", 1.0)] for q in range(5)})
    a, b = evaluate(good, qrels, ["MAP"]), evaluate(bad, qrels, ["MAP"])
    t, p = paired_t_test(a, b, "MAP")
    expected = stats.ttest_rel(np.ones(5), [0.5, 0.25, 0.5, 0.25, 0.5])
    assert (t, p) == pytest.approx((expected.statistic, expected.pvalue))
