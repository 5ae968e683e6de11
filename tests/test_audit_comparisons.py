"""Pairwise comparisons on a hand-made matrix of per-query values: which pairs, delta = value(a) − value(b) over
the common queries, the correction over the pairs of each measure, the exact keys of audit.json, the
trade-off's Pareto front and the leave-one-out influence."""
import math

import numpy as np
import pandas as pd
import pytest

from irfair.audit.comparisons import (
    COMPARISON_COLUMNS,
    Inference,
    QueryValues,
    compare_to_reference,
    comparison_records,
    pairs_of,
    pairwise,
)
from irfair.audit.influence import influence
from irfair.audit.tradeoff import on_front, tradeoff
from irfair.errors import IrfairInputError
from irfair.measures.gsr import GSRResult
from irfair.measures.resampling import adjust_p

NAN = float("nan")
X = np.array([-0.3, -0.1, 0.0, 0.2, 0.4, 0.5])
# g_q(L) of 4 rows: perfect, and systems a, b, c (c lacks query 6)
GSR_VALUES = np.array([[0.0, 0.1, 0.0, 0.1, 0.0, 0.1],
                       [-0.3, -0.1, 0.0, 0.2, 0.4, 0.5],
                       [0.3, 0.1, 0.0, -0.2, -0.4, -0.5],
                       [-0.6, -0.2, 0.0, 0.4, 0.8, NAN]])
MAP_VALUES = np.array([[1.0] * 6,
                       [0.5, 0.4, 0.6, 0.5, 0.7, 0.3],
                       [0.1, 0.2, 0.1, 0.0, 0.2, 0.1],
                       [0.5, 0.4, 0.6, 0.5, 0.7, NAN]])


def values() -> QueryValues:
    return QueryValues(tuple("123456"), ("perfect", "a", "b", "c"), X, {"gsr": GSR_VALUES, "MAP": MAP_VALUES})


def slope(y, x=X):
    keep = np.isfinite(y)
    return np.polyfit(x[keep], y[keep], 1)[0]


def test_pairs_in_order_or_against_a_baseline():
    assert pairs_of(["a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairs_of(["a", "b", "c"], "b") == [("a", "b"), ("c", "b")]
    with pytest.raises(IrfairInputError, match="baseline 'd' is not an audited system"):
        pairs_of(["a", "b"], "d")


def test_every_pair_and_measure_with_its_difference_and_correction():
    frame = pairwise(values(), ["a", "b", "c"], Inference(n_bootstrap=200, n_permutations=999, seed=1))
    assert tuple(frame.columns) == COMPARISON_COLUMNS and len(frame) == 6
    assert frame["measure"].tolist() == ["gsr"] * 3 + ["MAP"] * 3
    gsr = frame[frame["measure"] == "gsr"].set_index(["a", "b"])
    # a: slope 1; b: slope -1; c: slope 2 over its 5 queries; a − c over those 5 queries: 1 − 2 = −1
    assert gsr.loc[("a", "b"), "delta"] == pytest.approx(2.0) and gsr.loc[("a", "b"), "n_queries"] == 6
    assert gsr.loc[("a", "c"), "delta"] == pytest.approx(slope(GSR_VALUES[1][:5], X[:5]) - slope(GSR_VALUES[3]))
    assert gsr.loc[("a", "c"), "n_queries"] == 5
    means = frame[frame["measure"] == "MAP"].set_index(["a", "b"])
    assert means.loc[("a", "b"), "delta"] == pytest.approx(np.mean(MAP_VALUES[1] - MAP_VALUES[2]))
    # a and c score the same on their 5 common queries: delta 0, every swap ties, p = 1
    assert means.loc[("a", "c"), "delta"] == 0.0 and means.loc[("a", "c"), "p"] == 1.0
    for measure in ("gsr", "MAP"):
        rows = frame[frame["measure"] == measure]
        assert rows["p_adjusted"].tolist() == adjust_p(rows["p"].to_numpy(), "holm").tolist()
    # a CI is every δ the exact test keeps: with 6 queries (2^6 patterns) it is bounded; with 5, no δ is excluded at
    # 95% (the identity and its mirror alone are 2 of 32 > 5 %): n/a, as for a and c on their 5 common queries
    six = frame["n_queries"] == 6
    assert (frame["ci95_low"][six] <= frame["delta"][six]).all() and (frame["delta"][six] <= frame["ci95_high"][six]).all()
    assert frame["ci95_low"][~six].isna().all() and frame["ci95_high"][~six].isna().all()
    bonferroni = pairwise(values(), ["a", "b", "c"], Inference(n_bootstrap=0, n_permutations=999, seed=1, correction="bonferroni"))
    assert bonferroni["p"].tolist() == frame["p"].tolist()  # the same permutations, whatever the correction
    assert bonferroni["p_adjusted"].tolist() == pytest.approx(np.minimum(1, 3 * frame["p"]).tolist())
    assert bonferroni["ci95_low"].isna().all()


def test_baseline_pairs_and_json_records():
    frame = pairwise(values(), ["a", "b", "c"], Inference(n_bootstrap=100, n_permutations=99, seed=0, baseline="a"))
    assert list(zip(frame["a"], frame["b"])) == [("b", "a"), ("c", "a")] * 2
    records = comparison_records(frame)
    assert all(list(r) == ["a", "b", "measure", "test", "delta", "ci95", "p", "p_adjusted", "n_queries", "p_se", "n_permutations",
                           "decision", "wins", "ties", "losses"] for r in records)
    assert records[0]["ci95"] == [frame["ci95_low"][0], frame["ci95_high"][0]] and records[0]["test"] == "paired randomization"
    empty = pairwise(values(), ["a"], Inference())
    assert empty.empty and tuple(empty.columns) == COMPARISON_COLUMNS
    no_ci = comparison_records(pairwise(values(), ["a", "c"], Inference(n_bootstrap=0, n_permutations=0)))
    assert no_ci[0]["ci95"] is None and no_ci[0]["p"] is None and no_ci[0]["delta"] == pytest.approx(-1.0)


def test_reference_row_and_settings():
    tests = compare_to_reference(values(), ["a", "b"], "perfect", Inference(n_bootstrap=100, n_permutations=999))
    assert tests.delta.tolist() == pytest.approx([1.0 - slope(GSR_VALUES[0]), -1.0 - slope(GSR_VALUES[0])])
    assert Inference().to_dict() == {"test": "paired randomization",
                                     "ci": "paired randomization test inverted (deltas); wild bootstrap test inverted (GSR); "
                                           "expanded BCa bootstrap (means)",
                                     "n_bootstrap": 1000, "n_permutations": 10_000, "seed": 0, "correction": "holm", "alpha": 0.05,
                                     "baseline": None}
    # one rule for "significant": p below α, never a NaN p (no test)
    assert Inference().rejects(0.0499) and not Inference().rejects(0.05) and not Inference().rejects(float("nan"))
    for bad, message in [({"correction": "sidak"}, "correction must be one of"),
                         ({"alpha": 1.0}, r"alpha=1.0: expected a number between 0 and 1 \(exclusive\)"),
                         ({"n_permutations": -1}, "n_permutations=-1: expected an integer from 0 to 10,000,000")]:
        with pytest.raises(IrfairInputError, match=message):
            Inference(**bad)


def test_pareto_front_by_hand():
    # (gsr, MAP): a (0.1, 0.3), b (0.0, 0.2), c (0.2, 0.25) dominated by a, d (0.0, 0.1) dominated by b, e undefined
    front = on_front(np.array([0.1, 0.0, 0.2, 0.0, NAN]), np.array([0.3, 0.2, 0.25, 0.1, 0.5]))
    assert front.tolist() == [True, True, False, False, False]
    # ties: equal on both is no domination
    assert on_front(np.array([0.1, 0.1]), np.array([0.2, 0.2])).tolist() == [True, True]
    frame = tradeoff(values(), ["a", "b", "c"], "MAP", [1.0, -1.0, 2.0], [0.5, 0.117, 0.54], Inference(n_bootstrap=300, seed=0))
    # b has the lowest GSR, c the highest MAP, a is dominated by neither: every one is on the front
    assert frame["on_front"].tolist() == [True, True, True] and frame["n_queries"].tolist() == [5, 5, 5]
    # b's GSR (-1) and a's MAP never move: in every resample b is on the front
    assert frame.loc["b", "front_share"] == 1.0 and 0 <= frame.loc["a", "front_share"] <= 1


def test_influence_is_the_leave_one_out_change():
    x = np.array([-0.2, -0.1, 0.0, 0.1, 0.2, 0.9])
    y = np.array([-0.1, 0.0, 0.0, 0.1, 0.1, 0.1])
    table = pd.DataFrame({"qid": list("123456"), "query": list("uvwxyz"), "query_genderedness": x, "list_genderedness": y,
                          "used": True, "reason": ""})
    full = np.polyfit(x, y, 1)[0]
    result = GSRResult("s", full, 0.0, 0.5, 0.1, NAN, NAN, 6, 0, {}, table)
    found = influence(result, top=2)
    without = {q: np.polyfit(np.delete(x, i), np.delete(y, i), 1)[0] for i, q in enumerate("123456")}
    expected = sorted(without, key=lambda q: -abs(without[q] - full))[:2]
    assert found["qid"].tolist() == expected and found["qid"][0] == "6"  # the far point carries the slope
    assert found["gsr_without"].tolist() == pytest.approx([without[q] for q in expected])
    assert found["change_pct"][0] == pytest.approx(100 * (without["6"] - full) / abs(full))
    small = GSRResult("s", NAN, NAN, NAN, NAN, NAN, NAN, 2, 0, {}, table.head(2))
    assert influence(small).empty and math.isnan(small.slope)


def test_the_smallest_detectable_difference_by_hand():
    """Two tests whose 95% CIs are ±0.196 (a standard error of 0.1): under Holm over 2 tests, α' = 0.025 two-sided,
    (z_0.9875 + z_0.8) × 0.1 = (2.2414 + 0.8416) × 0.1 = 0.3083; without a correction (1.9600 + 0.8416) × 0.1."""
    from scipy.stats import norm

    from irfair.audit.comparisons import detectable

    z = norm.ppf(0.975)
    assert detectable([-0.1 * z, -0.1 * z], [0.1 * z, 0.1 * z], 0.05, "holm") == pytest.approx(0.30830, abs=1e-4)
    assert detectable([-0.1 * z], [0.1 * z], 0.05, "none") == pytest.approx(0.28016, abs=1e-4)
    assert np.isnan(detectable([float("nan")], [float("nan")], 0.05, "holm"))


def test_the_result_answers_named_questions_of_its_comparisons():
    """compared(): of a measure, against a reference (b), only those decided "differs" — in the table's order."""
    from irfair.audit import AuditResult

    rows = [("a", "base", "gsr", "differs"), ("b", "base", "gsr", "does not differ"), ("a", "b", "gsr", "undecided"),
            ("a", "base", "MAP", "differs"), ("b", "base", "MAP", "differs"), ("a", "b", "MAP", "cannot differ")]
    result = AuditResult({}, "emb", None, "auto", "title")
    result.comparisons = pd.DataFrame([dict(zip(("a", "b", "measure", "decision"), r)) for r in rows], columns=list(COMPARISON_COLUMNS))
    pairs = lambda frame: list(zip(frame["a"], frame["b"]))  # noqa: E731
    assert pairs(result.compared("gsr")) == [("a", "base"), ("b", "base"), ("a", "b")]
    assert pairs(result.compared("MAP", against="base")) == [("a", "base"), ("b", "base")]
    assert pairs(result.compared("gsr", differing=True)) == [("a", "base")]
    assert pairs(result.compared(against="b", differing=True)) == []
    assert len(result.compared()) == 6 and result.compared("P@10").empty
