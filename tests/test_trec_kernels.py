"""irfair's trec_eval kernels: every measure trec_eval 9 and 10 share equals pytrec_eval (which embeds trec_eval 9)
on real runs and on random graded judgements; the measures pytrec_eval cannot check (trec_eval 10's rbp,
rbp_resid and rounding of recall levels, gain parameters, 11pt_avg levels out of order) equal a statement by
statement second implementation of trec_eval's loops (``trec_eval_loops.py``)."""
import math
import random
from pathlib import Path

import ir_measures
import numpy as np
import pytest
import trec_eval_loops as loops

from irfair.measures.effectiveness import as_trec_eval, evaluate
from irfair.measures.trec_eval_measures import TrecEvalMeasure
from irfair.trec import Run, read_qrels, read_run, trec_eval_order

RUNS = Path(__file__).resolve().parents[1] / "runs"
# pytrec_eval's measures whose definition trec_eval 10 kept (iprec_at_recall and 11pt_avg changed rounding)
SHARED = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "P", "recall", "infAP",
          "gm_bpref", "Rprec_mult", "utility", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
          "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]


def _pytrec_eval(run: Run, qrels, level: int) -> dict:
    import pytrec_eval

    return pytrec_eval.RelevanceEvaluator(qrels, SHARED, relevance_level=level).evaluate(run.as_scores())


def _assert_equal(run: Run, qrels, level: int = 1) -> int:
    ours = evaluate(run, qrels, SHARED, relevance_level=level).per_query
    compared = 0
    for qid, values in _pytrec_eval(run, qrels, level).items():
        for name, value in values.items():
            mine = ours.loc[qid, name]
            if name.startswith("gm_"):  # pytrec_eval gives trec_eval's per-query log(max(value, 0.00001))
                mine = math.log(max(mine, 1e-5))
            assert mine == pytest.approx(value, abs=1e-12), (qid, name)
            compared += 1
    return compared


@pytest.mark.parametrize("run_name", ["bm25", "drmm"])
def test_equal_pytrec_eval_on_vaswani_runs(shared_data, run_name):
    run = read_run(RUNS / "vaswani" / f"{run_name}.run")
    assert _assert_equal(run, read_qrels(shared_data / "vaswani" / "qrels")) == 93 * 80  # 80 values per query


def _random_judgements(seed: int, n_queries: int = 30):
    """Grades -1..4 (a negative grade: in the pool, unjudged), documents outside the qrels, tied scores."""
    rng = random.Random(seed)
    qrels, ranking = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(rng.randint(1, 40))]
        qrels[str(q)] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]) for d in docs if rng.random() < 0.7} or {docs[0]: rng.choice([0, 2])}
        picked = rng.sample(docs + [f"x{i}" for i in range(15)], rng.randint(1, len(docs) + 15))
        ranking[str(q)] = trec_eval_order([(d, float(rng.randint(0, 6))) for d in picked])
    return qrels, Run("r", ranking)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_equal_pytrec_eval_on_random_graded_judgements(level):
    qrels, run = _random_judgements(level)
    assert _assert_equal(run, qrels, level) > 30 * 60


def _close(value):
    return pytest.approx(value, abs=1e-12, nan_ok=True)  # NaN where trec_eval divides 0 by 0 (negative gains)


PAIRS = ["ndcg.1=3,2=9,4=4.5", "ndcg.0=1,3=0.5", "ndcg.2=-1,-1=2", "ndcg.p=0.5"]


@pytest.mark.parametrize("seed", [0, 1])
def test_gain_measures_equal_trec_evals_loops(seed):
    """Gain parameters (a gain for grade 0, below 1, negative, for documents outside the qrels, a name that is
    no grade), rbp's persistence, 11pt_avg's levels out of order, recall levels needing rounding."""
    qrels, run = _random_judgements(10 + seed)
    specs = [spec.replace("ndcg", family) for family in ("ndcg", "ndcg_rel", "Rndcg", "G", "rbp") for spec in PAIRS]
    specs += ["rbp.p=0.5,2=7", "rbp_resid.p=0.8", "iprec_at_recall.0.05,0.15,0.25,0.35,0.5,0.65,0.85",
              "11pt_avg.0.9,0.2,0.5,0.5,0", "Rprec_mult.0.15,0.5,1.25,3"]
    result = evaluate(run, qrels, specs + ["num_rel"])
    default_resid = evaluate(run, qrels, ["rbp_resid"]).per_query["rbp_resid"]  # rbp_resid.p=0.8 replaces it above
    for qid, hits in run.ranking.items():
        judged = qrels[qid]
        rels = [judged[d] if d in judged and judged[d] >= 0 else (-2 if d in judged else -1) for d, _ in hits]
        levels = [sum(1 for g in judged.values() if g == grade) for grade in range(5)]
        row = result.per_query.loc[qid]
        num_rel = int(row["num_rel"])
        for pairs in PAIRS:
            params = tuple((name, float(value)) for name, _, value in (p.partition("=") for p in pairs.split(".", 1)[1].split(",")))
            label = pairs.replace(".", "_", 1)
            assert row[label] == _close(loops.ndcg(rels, levels, params))
            assert row[label.replace("ndcg", "ndcg_rel", 1)] == _close(loops.ndcg_rel(rels, levels, params))
            assert row[label.replace("ndcg", "Rndcg", 1)] == _close(loops.rndcg(rels, levels, params, num_rel))
            assert row[label.replace("ndcg", "G", 1)] == _close(loops.g_measure(rels, levels, params))
            assert row[label.replace("ndcg", "rbp", 1)] == _close(loops.rbp(rels, levels, params))
        assert row["rbp_p=0.5,2=7"] == pytest.approx(loops.rbp(rels, levels, (("p", 0.5), ("2", 7.0))), abs=1e-12)
        assert row["rbp_resid_p=0.8"] == _close(loops.rbp_resid(rels, 0.8))
        assert default_resid[qid] == _close(loops.rbp_resid(rels))
        levels_r = [0.05, 0.15, 0.25, 0.35, 0.5, 0.65, 0.85]
        assert [row[f"iprec_at_recall_{r:3.2f}"] for r in levels_r] == _close(loops.iprec(rels, num_rel, levels_r))
        assert row["11pt_avg_0.9,0.2,0.5,0.5,0"] == pytest.approx(loops.iprec(rels, num_rel, [0.9, 0.2, 0.5, 0.5, 0], summed=True),
                                                                  abs=1e-12)
        multiples = [0.15, 0.5, 1.25, 3]
        assert [row[f"Rprec_mult_{m:3.2f}"] for m in multiples] == pytest.approx(loops.rprec_mult(rels, num_rel, multiples),
                                                                                  abs=1e-12)


def test_rbp_by_hand():
    """Grades 0/1 (gains already in [0, 1]), relevant at ranks 1 and 3: rbp = 0.1 (1 + 0.9²) = 0.181; ranks 2 and
    4 are not in the qrels: rbp_resid = 0.9⁴ + 0.1 (0.9 + 0.9³) = 0.8191."""
    qrels = {"1": {"a": 1, "c": 1, "x": 0}}
    run = Run.from_lists("r", {"1": ["a", "b", "c", "d"]})
    row = evaluate(run, qrels, ["rbp", "rbp_resid"]).per_query.loc["1"]
    assert row["rbp"] == pytest.approx(0.1 * (1 + 0.81)) and row["rbp_resid"] == pytest.approx(0.9 ** 4 + 0.1 * (0.9 + 0.729))


@pytest.mark.parametrize(("name", "expected"), [
    ("AP", TrecEvalMeasure("map")), ("AP@10", TrecEvalMeasure("map_cut", 10)), ("P(rel=2)@5", TrecEvalMeasure("P", 5, rel=2)),
    ("nDCG@10", TrecEvalMeasure("ndcg_cut", 10)), ("nDCG", TrecEvalMeasure("ndcg")), ("RR", TrecEvalMeasure("recip_rank")),
    ("RR@10", TrecEvalMeasure("recip_rank_cut", 10)), ("IPrec@0.3", TrecEvalMeasure("iprec_at_recall", 0.3)),
    ("SetP(relative=True)", TrecEvalMeasure("set_relative_P")), ("NumRelRet", TrecEvalMeasure("num_rel_ret", rel=1)),
    ("Success@5", TrecEvalMeasure("success", 5)), ("R@100", TrecEvalMeasure("recall", 100)),
    ("nDCG(judged_only=True)@10", None), ("Judged@10", None), ("ERR@10", None), ("nDCG(dcg='exp-log2')@10", None),
])
def test_ir_measures_names_that_are_trec_eval_measures(name, expected):
    assert as_trec_eval(ir_measures.parse_measure(name)) == expected


def test_rr_at_k_is_ir_measures_rr_at_k(shared_data):
    run = read_run(RUNS / "vaswani" / "bm25.run")
    qrels = read_qrels(shared_data / "vaswani" / "qrels")
    ours = evaluate(run, qrels, ["RR@5"]).per_query["RR@5"]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.RR @ 5], qrels, run.as_scores())}
    assert np.allclose(ours.to_numpy(), [theirs[q] for q in ours.index], rtol=0, atol=1e-12)


def test_yaap_by_hand():
    """Relevant at ranks 1 and 3 of 3 relevant: S = 1/1 + 2/3, yaap = log((1 + S) / (1 + 3 − S))."""
    qrels = {"1": {"a": 1, "c": 1, "d": 1}}
    value = evaluate(Run.from_lists("r", {"1": ["a", "b", "c"]}), qrels, ["yaap"]).per_query.loc["1", "yaap"]
    assert value == pytest.approx(math.log((1 + 5 / 3) / (4 - 5 / 3)))
