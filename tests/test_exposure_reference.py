"""irfair.measures.exposure against the reference implementations' own numbers, and by hand.

The fixtures (tests/data/exposure/fixtures.json) cover ties in grade levels, graded qrels 0/1/2, documents
in no group and in several groups, a query without a relevant document of some groups (q2), a single
relevant document (q3), several sampled rankings of different lengths (q4), no relevant document retrieved
(q5) and non-relevant (judged and unjudged) documents in the rankings. The reference numbers below were
printed by the drivers of scripts/reference_exposure/ (README there), which run:

* diazf/expeval at 69ab070f9e3fb186910412c1c0d98ec35cb933bc, its CLI ``expeval.py -G -U -u MODEL [-p P -r U]``;
* fair-trec/trec2022-fair-public at 6fd105f2b69d616c88a3bc276409773a8493927d, ``wptrec.metrics.EELMetric``
  and ``AWRFMetric`` with the gender-target cells of Task2Alignment.py / Task1Alignment.py (numpy 1.26.4,
  pandas 1.5.3, scipy 1.11.4, xarray 2023.1.0, Python 3.11).

TREC Fair 2021 (fair-trec/trec2021-fair-public 5e2b1d0) is not asserted: it differs on purpose (every
retrieved document counts in EE, target scaled by Σ w(1..50); AWRF drops the unknown column; nDCG's ideal
over min(R, 1000)); docs/measures/exposure.md lists the differences.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from irfair.measures.exposure import (
    UNKNOWN,
    ExpectedExposure,
    awrf,
    document_targets,
    expected_exposure,
    exposure_shares,
    fair_score,
    group_exposure,
    js_divergence,
    mix_background,
    target_exposure,
    trec_discount,
    trec_ndcg,
)

FIXTURES = json.loads((Path(__file__).parent / "data" / "exposure" / "fixtures.json").read_text())
LABELS = FIXTURES["labels"]
QUERIES = FIXTURES["queries"]
INF = math.inf
TREC_BACKGROUND = {"female": 0.495, "male": 0.495, "nonbinary": 0.01}  # MetricInputs.py's gender_tgt
BACKGROUNDS = {"none": None, "uniform": "uniform", "trec": TREC_BACKGROUND}

# (EE-L, EE-D, EE-R) per query, as printed ("%f") by diazf/expeval 69ab070:
#   python3 scripts/reference_exposure/run_expeval.py EXPEVAL_CHECKOUT
# which writes the fixtures as expeval qrels/run files and runs, in the checkout,
#   python3 expeval.py -G -U -u gerr qrels run            -> "gerr"
#   python3 expeval.py -G -U -u rbp qrels run             -> "rbp"
#   python3 expeval.py -G -U -u gerr -p 0.7 -r 0.3 qrels run
#   python3 expeval.py -G -U -u rbp -p 0.8 qrels run
EXPEVAL = {
    ("gerr", 0.5, 0.5): {
        "q1": (0.344105, 0.322514, 0.433342),
        "q2": (0.332031, 0.253906, 0.351562),
        "q3": (0.250000, 0.250000, 0.500000),
        "q4": (0.215318, 0.767971, 0.921590),
        "q5": (1.062500, INF, 0.000000),
    },
    ("rbp", 0.5, 0.5): {
        "q1": (0.692301, 0.426025, 0.821289),
        "q2": (0.453125, 0.265625, 0.468750),
        "q3": (0.250000, 0.250000, 0.500000),
        "q4": (0.231771, 1.087674, 1.474826),
        "q5": (1.250000, INF, 0.000000),
    },
    ("gerr", 0.7, 0.3): {
        "q1": (0.292700, 1.013401, 1.282364),
        "q2": (0.256949, 0.547648, 0.700374),
        "q3": (0.090000, 0.490000, 0.700000),
        "q4": (0.181133, 1.253136, 1.558144),
        "q5": (1.240100, INF, 0.000000),
    },
    ("rbp", 0.8, 0.5): {
        "q1": (0.711424, 2.639410, 3.992298),
        "q2": (0.160544, 0.902144, 1.180800),
        "q3": (0.040000, 0.640000, 0.800000),
        "q4": (0.367457, 2.542091, 3.508085),
        "q5": (1.640000, INF, 0.000000),
    },
}

# (EE-L, EE-D, EE-R) per query, printed (repr) by fair-trec/trec2022-fair-public 6fd105f through
#   /tmp/refvenv/bin/python scripts/reference_exposure/run_trec2022.py TREC2022_CHECKOUT
# EELMetric(target_len=k) on the rankings cut at k, gender target of Task2Alignment.py:235-248 with
# gender_tgt = the background ("none": the mixing lines 242-244 skipped). Key: (background, k).
TREC2022_EEL = {
    ("none", 20): {
        "q1": (10.117909276652057, 3.2430424591767526, 8.922648112358928),
        "q2": (20.049445186862727, 1.25, 5.859448313713074),
        "q3": (46.411488125342885, 1.0, 7.812597751617432),
        "q4": (9.554678935193587, 2.7464894567598237, 7.863835064971998),
        "q5": (30.518341814288874, 0.0, 0.0),
    },
    ("uniform", 20): {
        "q1": (6.9828551637329515, 3.2430424591767526, 7.400154788544333),
        "q2": (15.024058983829653, 1.25, 4.5573486884435015),
        "q3": (21.1015448121323, 1.0, 5.208398501078288),
        "q4": (8.610646328850825, 2.7464894567598237, 7.514489468573937),
        "q5": (22.88875636071666, 0.0, 0.0),
    },
    ("trec", 20): {
        "q1": (9.881591734721974, 3.2430424591767526, 8.73943348821613),
        "q2": (16.22421339334026, 1.25, 4.873107847571373),
        "q3": (27.16519908668622, 1.0, 5.8399168193340305),
        "q4": (10.37036819048966, 2.7464894567598237, 7.002817206675962),
        "q5": (30.215447271782054, 0.0, 0.0),
    },
    ("trec", 5): {
        "q1": (0.4836822014474128, 3.116158895584036, 3.8223574256176476),
        "q2": (1.944456210135703, 1.25, 2.221551996469498),
        "q3": (3.540599034023794, 1.0, 2.662300789356232),
        "q4": (0.8567879839190699, 2.7464894567598237, 3.1924437203160174),
        "q5": (6.279570587790939, 0.0, 0.0),
    },
}

# (nDCG, AWRF, Score) per query (its first ranking), printed by the same driver: AWRFMetric with the gender
# target of Task1Alignment.py:184-192, gender_tgt = the background.
TREC2022_AWRF = {
    "uniform": {
        "q1": (0.6420933604240417, 0.947569572347576, 0.6084281309442272),
        "q2": (0.75, 0.8367532209308854, 0.6275649156981641),
        "q3": (1.0, 0.9554330331350721, 0.9554330331350721),
        "q4": (0.8403030037879944, 0.9947973381492783, 0.8359311914071397),
        "q5": (0.0, 0.6226487204085234, 0.0),
    },
    "trec": {
        "q1": (0.6420933604240417, 0.9981286699063919, 0.6408917917957743),
        "q2": (0.75, 0.8862068381613541, 0.6646551286210156),
        "q3": (1.0, 0.8898183552487073, 0.8898183552487073),
        "q4": (0.8403030037879944, 0.9882695636625047, 0.8304458828978533),
        "q5": (0.0, 0.6525584093266475, 0.0),
    },
}

ABS = 1e-6


def _ee(qid: str, **options) -> ExpectedExposure:
    query = QUERIES[qid]
    return expected_exposure(query["rankings"], query["grades"], query["groups"], LABELS, **options)


@pytest.mark.parametrize(("config", "qid"), [(c, q) for c in EXPEVAL for q in EXPEVAL[c]])
def test_expected_exposure_equals_expeval_group_unnormalised(config, qid):
    model, p, u = config
    got = _ee(qid, model=model, p=p, u=u)
    for value, printed in zip(got, EXPEVAL[config][qid]):
        if printed == INF:  # expeval's EE-D when no relevant document is exposed: undefined here
            assert math.isnan(value)
        else:
            assert value == pytest.approx(printed, abs=ABS)


@pytest.mark.parametrize(("config", "qid"), [(c, q) for c in TREC2022_EEL for q in TREC2022_EEL[c]])
def test_expected_exposure_equals_trec2022_eel(config, qid):
    background, k = config
    got = _ee(qid, model="trec2022", cutoff=k, background=BACKGROUNDS[background])
    assert got == pytest.approx(TREC2022_EEL[config][qid], abs=ABS)


@pytest.mark.parametrize(("background", "qid"), [(b, q) for b in TREC2022_AWRF for q in TREC2022_AWRF[b]])
def test_ndcg_awrf_and_score_equal_trec2022_task1(background, qid):
    query = QUERIES[qid]
    ranking, grades, groups = query["rankings"][0], query["grades"], query["groups"]
    ndcg, fairness, score = TREC2022_AWRF[background][qid]
    assert trec_ndcg(ranking, grades) == pytest.approx(ndcg, abs=ABS)
    assert awrf(ranking, grades, groups, LABELS, background=BACKGROUNDS[background]) == pytest.approx(fairness, abs=ABS)
    assert fair_score(ranking, grades, groups, LABELS, background=BACKGROUNDS[background]) == pytest.approx(score, abs=ABS)


def test_trec_discount_is_the_float32_log_discount():
    # w(i) = 1/log2(max(i, 2)): 1, 1, 1/log2 3, 1/2, 1/log2 5
    discount = trec_discount(5)
    assert discount.dtype == np.float32
    assert discount == pytest.approx([1.0, 1.0, 1 / math.log2(3), 0.5, 1 / math.log2(5)], abs=1e-7)


def test_trec2022_expected_exposure_of_a_three_document_ranking_by_hand():
    # ranking x (male, not relevant), a (female, grade 2), b (male, grade 1); k = 3, w = 1, 1, 1/log2 3.
    # System: female = w(2) = 1, male = w(3) = 1/log2 3 (x is not relevant: no exposure counted).
    # Target: ideal ranking a, b gets w(1) = w(2) = 1 each -> (1/2, 1/2) × Σ w(1..3) = (1 + 1 + 1/log2 3) / 2 each.
    grades, groups = {"a": 2, "b": 1}, {"x": ("male",), "a": ("female",), "b": ("male",)}
    w3, half = 1 / math.log2(3), (2 + 1 / math.log2(3)) / 2
    got = expected_exposure(["x", "a", "b"], grades, groups, ["female", "male"])
    assert got.ee_l == pytest.approx((1 - half) ** 2 + (w3 - half) ** 2, abs=ABS)
    assert got.ee_d == pytest.approx(1 + w3**2, abs=ABS)
    assert got.ee_r == pytest.approx(half * (1 + w3), abs=ABS)


def test_expeval_models_of_a_two_document_ranking_by_hand():
    labels, groups = ["female", "male"], {"a": ("female",), "b": ("male",)}
    # rbp, p = 1/2: b (not relevant) then a: system female = p = 1/2; target of the lone relevant doc
    # (1 - p)/(1 - p) = 1 -> EE-L = 1/4, EE-D = 1/4, EE-R = 1/2.
    assert expected_exposure(["b", "a"], {"a": 1}, groups, labels, model="rbp") == pytest.approx((0.25, 0.25, 0.5))
    # gerr, p = u = 1/2, both relevant (grade 1): system a = 1, b = p (1 - u) = 1/4; target pp = 1/4,
    # each (1 - pp²)/(2(1 - pp)) = 5/8 -> EE-L = 2 (3/8)², EE-D = 1 + 1/16, EE-R = 5/8 × 5/4.
    got = expected_exposure(["a", "b"], {"a": 1, "b": 1}, groups, labels, model="gerr")
    assert got == pytest.approx((2 * 0.375**2, 1.0625, 0.78125))


def test_several_samples_average_the_exposure():
    # q4's three samples: the mean of each sample's own group exposure
    query = QUERIES["q4"]
    alone = [group_exposure(r, query["grades"], query["groups"], LABELS, model="rbp") for r in query["rankings"]]
    together = group_exposure(query["rankings"], query["grades"], query["groups"], LABELS, model="rbp")
    assert together == pytest.approx(np.mean(alone, axis=0))


def test_a_document_in_two_groups_counts_fully_in_each_and_shares_are_of_the_total():
    # q1 (trec2022): relevant retrieved d2 male @2 (w 1), d3 female+male @4 (w 1/2), d1 female @5 (w 1/log2 5),
    # d4 unknown @7 (w 1/log2 7); d6, d8, d7 are not relevant.
    query = QUERIES["q1"]
    w5, w7 = 1 / math.log2(5), 1 / math.log2(7)
    expected = np.array([0.5 + w5, 1.5, 0.0, w7])
    system = group_exposure(query["rankings"], query["grades"], query["groups"], LABELS)
    assert system == pytest.approx(expected, abs=ABS)
    shares = exposure_shares(query["rankings"], query["grades"], query["groups"], LABELS)
    assert shares == pytest.approx(expected / expected.sum(), abs=ABS)


def test_targets_give_tied_grades_the_mean_of_their_positions():
    # q1: grades 2, 2, 1, 1, 1 -> trec2022 level 2 gets mean(w(1), w(2)) = 1, level 1 mean(w(3), w(4), w(5))
    targets = document_targets(QUERIES["q1"]["grades"])
    low = (1 / math.log2(3) + 0.5 + 1 / math.log2(5)) / 3
    assert targets == pytest.approx({"d1": 1.0, "d2": 1.0, "d3": low, "d4": low, "d5": low}, abs=ABS)
    # rbp p = 1/2: level 2 (b = 0, m = 2) (1 - 1/4)/(2 · 1/2) = 3/4, level 1 (b = 2, m = 3) (1/4 - 1/32)/(3/2)
    rbp = document_targets(QUERIES["q1"]["grades"], model="rbp")
    assert rbp["d1"] == pytest.approx(0.75) and rbp["d3"] == pytest.approx((0.25 - 1 / 32) / 1.5)


def test_background_mixing_keeps_the_unknown_share_and_the_mass():
    # known mass 0.6 + 0.2 = 0.8: female 0.3 + 0.4 · 0.495, male 0.1 + 0.4 · 0.495, NB 0.4 · 0.01, unknown 0.2 kept
    mixed = mix_background(np.array([0.6, 0.2, 0.0, 0.2]), LABELS, TREC_BACKGROUND)
    assert mixed == pytest.approx([0.498, 0.298, 0.004, 0.2])
    assert mix_background(np.array([0.6, 0.2, 0.0, 0.2]), LABELS, {"female": 99, "male": 99, "nonbinary": 2}) == (
        pytest.approx(mixed))


def test_awrf_of_a_two_document_ranking_by_hand():
    # a (female, relevant), b (male, not relevant); w = 1, 1 -> ranking distribution P = (1/2, 1/2).
    # Target: relevant mean (1, 0), known mass 1, uniform background -> Q = (3/4, 1/4); M = (5/8, 3/8).
    # JS = ½ [½ ln(4/5) + ½ ln(4/3)] + ½ [¾ ln(6/5) + ¼ ln(2/3)] = 0.0338220...
    js = 0.5 * (0.5 * math.log(0.8) + 0.5 * math.log(4 / 3)) + 0.5 * (0.75 * math.log(1.2) + 0.25 * math.log(2 / 3))
    got = awrf(["a", "b"], {"a": 1, "b": 0}, {"a": ("female",), "b": ("male",)}, ["female", "male"])
    assert got == pytest.approx(1 - js, abs=1e-12)
    assert 1 - js == pytest.approx(0.9661779, abs=1e-7)


def test_js_divergence_uses_the_natural_log():
    assert js_divergence(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(math.log(2))
    assert js_divergence(np.array([2.0, 2.0]), np.array([1.0, 1.0])) == 0.0
    assert math.isnan(js_divergence(np.zeros(2), np.ones(2)))


def test_trec_ndcg_by_hand():
    # one relevant doc at rank 2: DCG = w(2) = 1 = IDCG
    assert trec_ndcg(["n", "r"], {"r": 1}) == 1.0
    # two relevant (grades 2 and 1 count alike), one at rank 3: DCG = 1/log2 3, IDCG = w(1) + w(2) = 2
    assert trec_ndcg(["n", "m", "r"], {"r": 2, "s": 1, "n": 0}) == pytest.approx(1 / math.log2(3) / 2, abs=1e-7)
    assert trec_ndcg([], {"r": 1}) == 0.0
    with pytest.raises(ValueError, match="more than the nDCG depth 2"):
        trec_ndcg(["a", "b", "c"], {"a": 1}, depth=2)
    assert trec_ndcg(["n", "m", "r"], {"r": 1}, cutoff=2) == 0.0


def test_undefined_values_are_nan():
    groups, labels = {"a": ("female",)}, ["female", UNKNOWN]
    for model in ("trec2022", "gerr", "rbp"):
        assert all(math.isnan(v) for v in expected_exposure(["a"], {"a": 0}, groups, labels, model=model))
        assert all(math.isnan(v) for v in expected_exposure([], {"a": 1}, groups, labels, model=model))
        assert all(math.isnan(v) for v in expected_exposure([[], []], {"a": 1}, groups, labels, model=model))
    assert np.isnan(target_exposure({"a": 0}, groups, labels, length=20)).all()
    assert np.isnan(exposure_shares(["b"], {"a": 1}, groups, labels)).all()  # nothing relevant exposed
    assert math.isnan(awrf(["a"], {"a": 0}, groups, labels)) and math.isnan(awrf([], {"a": 1}, groups, labels))
    assert math.isnan(trec_ndcg(["a"], {"a": 0})) and math.isnan(fair_score([], {"a": 1}, groups, labels))
    # no relevant document retrieved: TREC 2022 defines EE-D = 0, expeval prints inf (NaN here)
    assert expected_exposure(["b"], {"a": 1}, groups, labels, cutoff=20).ee_d == 0.0
    assert math.isnan(expected_exposure(["b"], {"a": 1}, groups, labels, model="gerr").ee_d)


def test_bad_inputs_are_refused():
    grades, groups = {"a": 1}, {"a": ("female",)}
    with pytest.raises(ValueError, match="'unknown' is not among the labels"):
        expected_exposure(["b", "c"], {"c": 1}, groups, ["female", "male"])
    with pytest.raises(ValueError, match="has the label 'female', not among the labels"):
        awrf(["a"], grades, groups, ["male", UNKNOWN])
    with pytest.raises(ValueError, match="expected a browsing model"):
        expected_exposure(["a"], grades, groups, ["female"], model="dcg")
    with pytest.raises(ValueError, match="expected 0 < p < 1"):
        expected_exposure(["a"], grades, groups, ["female"], model="rbp", p=1.0)
    with pytest.raises(ValueError, match="expected a background"):
        awrf(["a"], grades, groups, ["female", UNKNOWN], background={UNKNOWN: 1.0})
    with pytest.raises(ValueError, match="expected distinct labels"):
        awrf(["a"], grades, groups, ["female", "female"])
    with pytest.raises(ValueError, match="expected a cut-off"):
        expected_exposure(["a"], grades, groups, ["female"], cutoff=0)
    with pytest.raises(TypeError, match="got a string"):
        group_exposure("a", grades, groups, ["female"])
