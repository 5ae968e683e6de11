"""The numpy kernels give pytrec_eval's values (through ir_measures) on real runs, graded qrels and edge cases."""
import numpy as np
import pytest

from irfair.measures.trec_kernels import evaluate_kernels, kernel_name
from irfair.trec import read_qrels, read_run

MEASURES = ["AP", "P@5", "P@10", "P@1000", "nDCG@10", "nDCG@100", "RR", "RR@10", "R@5", "R@1000"]


def _reference(run, qrels, queries, names):
    import ir_measures

    measures = [ir_measures.parse_measure(n) for n in names]
    values = {n: {} for n in names}
    for metric in ir_measures.iter_calc(measures, {q: qrels[q] for q in queries},
                                        {q: dict(run.ranking[q]) for q in queries if q in run.ranking}):
        values[str(metric.measure)][metric.query_id] = metric.value
    return {n: np.array([values[n].get(q, 0.0) for q in queries]) for n in names}


def _kernels(names):
    import ir_measures

    return {n: kernel_name(ir_measures.parse_measure(n)) for n in names}


@pytest.mark.parametrize("collection, run_name", [("vaswani", "bm25"), ("vaswani", "w2v_add"), ("vaswani", "drmm")])
def test_kernels_equal_pytrec_eval_on_real_runs(shared_data, collection, run_name):
    from pathlib import Path

    run = read_run(Path(__file__).resolve().parents[1] / "runs" / collection / f"{run_name}.run")
    qrels = read_qrels(shared_data / collection / "qrels")
    queries = sorted(set(qrels) & set(run.ranking))
    ours = evaluate_kernels(_kernels(MEASURES), run.ranking, qrels, queries)
    theirs = _reference(run, qrels, queries, MEASURES)
    for name in MEASURES:
        assert np.allclose(ours[name], theirs[name], rtol=0, atol=1e-12), name


def test_kernels_on_graded_qrels_and_edge_cases():
    """Grades 0/1/2 and a negative one (nDCG gains are grades, a negative one counts 0), a query with no
    relevant document (every measure 0), a query the run lacks (0), ties already in trec_eval's order."""
    from irfair.trec import Run

    qrels = {"1": {"a": 2, "b": 1, "c": 0, "d": -1, "e": 2}, "2": {"x": 0}, "3": {"y": 1}}
    run = Run("r", {"1": [("d", 5.0), ("b", 4.0), ("c", 3.0), ("a", 3.0), ("z", 1.0)], "2": [("x", 1.0)]})
    queries = ["1", "2", "3"]
    ours = evaluate_kernels(_kernels(MEASURES), run.ranking, qrels, queries)
    theirs = _reference(run, qrels, queries, MEASURES)
    for name in MEASURES:
        assert np.allclose(ours[name], theirs[name], rtol=0, atol=1e-12), name
    # by hand for query 1: relevant b at rank 2 and a at rank 4 of 3 relevant: AP = (1/2 + 2/4)/3
    assert ours["AP"][0] == pytest.approx((1 / 2 + 2 / 4) / 3) and ours["RR"][0] == 0.5


def test_measures_outside_the_kernels_are_left_to_ir_measures():
    import ir_measures

    for name in ("P(rel=2)@10", "nDCG(judged_only=True)@10", "AP@10", "Judged@10", "NumRet"):
        assert kernel_name(ir_measures.parse_measure(name)) is None, name
