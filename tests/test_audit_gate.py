"""--fail-on and result.check: conditions parsed, met or not on an audit whose differences are set by hand, and
the command line's exit codes (1 when met, with one line each; 2 for a condition it cannot read)."""
import json

import jsonschema
import numpy as np
import pandas as pd
import pytest
from helpers import overlap_run

from irfair.audit.comparisons import COMPARISON_COLUMNS, Inference
from irfair.audit.gate import Condition, parse_condition
from irfair.audit.result import AuditResult, SystemAudit, audit_schema
from irfair.cli import main
from irfair.corpus import open_corpus
from irfair.errors import IrfairInputError
from irfair.gender.direction import GenderDirection
from irfair.measures.gsr import GSRResult, PairedGSRTest
from irfair.trec import read_topics, write_run


def test_conditions_are_parsed():
    assert parse_condition("gsr-above-perfect") == Condition("gsr-above-perfect", "gsr", "above", None)
    assert parse_condition(" map-below:bm25 ") == Condition("map-below:bm25", "map", "below", "bm25")
    assert parse_condition("nDCG@100-above:w2v-si") == Condition("nDCG@100-above:w2v-si", "nDCG@100", "above", "w2v-si")
    assert parse_condition("rab_tc@10-below-perfect").reference is None
    for bad in ("gsr", "gsr-higher:bm25", "above:bm25", "gsr-above:"):
        with pytest.raises(IrfairInputError, match="expected a condition such as gsr-above-perfect"):
            parse_condition(bad)


def _system(name, kind, delta, p_adjusted):
    gsr = GSRResult(name, 0.1, 0.0, 0.5, 0.1, 0.0, 0.2, 50, 0, {}, pd.DataFrame())
    vs = None if kind == "perfect" else PairedGSRTest(delta, delta - 0.1, delta + 0.1, p_adjusted, 50)
    decision = None if kind == "perfect" else ("differs" if p_adjusted < 0.05 else "does not differ")
    return SystemAudit(name, kind, gsr, float("nan"), vs, None, delta_gsr_p_adjusted=p_adjusted, delta_gsr_decision=decision)


@pytest.fixture()
def result():
    """new: ΔGSR +0.05 (p_adjusted 0.01), old: +0.04 (0.20), bm25: −0.03 (0.01); pairs as the audit orders them."""
    systems = {"perfect": _system("perfect", "perfect", 0.0, float("nan")), "random": _system("random", "random", 0.3, 0.001),
               "new": _system("new", "system", 0.05, 0.01), "old": _system("old", "system", 0.04, 0.20),
               "bm25": _system("bm25", "system", -0.03, 0.01)}
    rows = [("new", "old", "gsr", 0.01, 0.3), ("new", "bm25", "gsr", 0.08, 0.004), ("old", "bm25", "gsr", 0.07, 0.03),
            ("new", "old", "MAP", -0.02, 0.5), ("new", "bm25", "MAP", -0.05, 0.02), ("old", "bm25", "MAP", -0.03, 0.06)]
    comparisons = pd.DataFrame([{"a": a, "b": b, "measure": m, "test": "paired randomization", "delta": d, "ci95_low": d - 0.01,
                                 "ci95_high": d + 0.01, "p": p / 3, "p_adjusted": p, "n_queries": 50, "p_se": 0.0,
                                 "n_permutations": 10_000, "decision": "differs" if p < 0.05 else "does not differ"}
                                for a, b, m, d, p in rows],
                               columns=list(COMPARISON_COLUMNS))
    return AuditResult(systems, "emb", GenderDirection(None, 0.6, (("she", "he"),), (), "emb"), "auto", "title", measures=("MAP",),
                       inference=Inference(), comparisons=comparisons)


def test_check_by_hand(result):
    # above the perfect run: new only (old's p 0.20 is not significant; the random run is a reference, not audited)
    assert [(f.system, f.delta) for f in result.check("gsr-above-perfect")] == [("new", 0.05)]
    assert [f.system for f in result.check(["gsr-below-perfect"])] == ["bm25"]
    # above bm25: new (+0.08, 0.004) and old (+0.07, 0.03); at alpha 0.01 only new
    assert [f.system for f in result.check("gsr-above:bm25")] == ["new", "old"]
    assert [f.system for f in result.check("gsr-above:bm25", alpha=0.01)] == ["new"]
    # bm25 is b in its pairs: its own differences are read with the sign turned
    assert [f.system for f in result.check("gsr-below:new")] == ["bm25"] and result.check("gsr-below:new")[0].delta == -0.08
    # MAP named in any case: new has significantly lower MAP than bm25
    failures = result.check(["map-below:bm25", "MAP-above:new"])
    assert [(f.condition, f.system, f.reference) for f in failures] == [("map-below:bm25", "new", "bm25"), ("MAP-above:new", "bm25", "new")]
    assert failures[0].line() == "fail map-below:bm25: new's MAP is significantly lower (delta -0.0500, p_adjusted 0.0200 < 0.05)"
    assert result.check([]) == [] and result.check("map-above:bm25") == []


def test_unknown_measure_lists_the_bias_measures_once_with_their_cut_offs():
    """The audited measures of the README's audit made a 300-character line cut with '…'; grouped, they fit."""
    from irfair.audit.gate import _listed

    bias = [f"{m}@{k}" for m in ("rab_tc", "nfairr") for k in (5, 10)]
    assert _listed(["gsr", "MAP", "P@10"], bias) == "gsr, MAP, P@10; rab_tc, nfairr at @5, @10"
    assert _listed(["gsr"], ["rab_tc@5", "nfairr@10"]) == "gsr, rab_tc@5, nfairr@10"  # not every one at each cut-off
    assert _listed(["gsr", "MAP"], []) == "gsr, MAP"


def test_check_refuses_what_it_cannot_answer(result):
    with pytest.raises(IrfairInputError, match="unknown measure 'ndcg' \\(audited: gsr, MAP\\)"):
        result.check("ndcg-above:bm25")
    with pytest.raises(IrfairInputError, match="'qlm' is not an audited system"):
        result.check("gsr-above:qlm")
    with pytest.raises(IrfairInputError, match="only gsr is compared with the perfect run"):
        result.check("map-above-perfect")
    # a wrong type or value is refused with a true reason (was AttributeError for 5 and None, alpha 5 accepted)
    for conditions, message in [(["gsr-above:bm25", 5], "condition 5: expected text such as 'map-below:bm25'"),
                                ([None], "condition None: expected text"), (5, "conditions=5: expected a condition")]:
        with pytest.raises(IrfairInputError, match=message):
            result.check(conditions)
    for alpha in (-1, float("nan"), 5, 1.0, "0.05", True):
        with pytest.raises(IrfairInputError, match=f"^alpha={alpha!r}: expected a number between 0 and 1".replace("(", r"\(")):
            result.check("gsr-above:bm25", alpha=alpha)
    assert [f.system for f in result.check("gsr-above:bm25", alpha=np.float32(0.01))] == ["new"]
    result.comparisons = result.comparisons[result.comparisons["b"] == "bm25"]
    result.inference = Inference(baseline="bm25")
    with pytest.raises(IrfairInputError, match="did not compare new with old \\(--baseline bm25\\)"):
        result.check("gsr-above:old")


@pytest.fixture(scope="module")
def two_runs(shared_data, tmp_path_factory):
    folder = shared_data / "time"
    topics = read_topics(folder / "topics.time.txt")
    docs = dict(open_corpus(folder / "time.trec").iter_docs())
    runs = tmp_path_factory.mktemp("gate")
    write_run(runs / "tfidf.run", overlap_run(topics, docs), tag="tfidf")
    write_run(runs / "tf.run", overlap_run(topics, docs, idf=False, name="tf"), tag="tf")
    return folder, runs


def _args(folder, runs, *extra):
    """The audit's arguments; ``extra`` may give --permutations instead of the 2000 used here (an option is given once)."""
    permutations = [] if "--permutations" in extra else ["--permutations", "2000"]
    return ["audit", str(runs / "tfidf.run"), str(runs / "tf.run"), "--qrels", str(folder / "qrels.time.txt"), "--topics",
            str(folder / "topics.time.txt"), "--corpus", str(folder / "time.trec"), "--bootstrap", "100", *permutations,
            "--no-cache", "--quiet", *extra]


def test_fail_on_from_the_command_line(two_runs, tmp_path, capsys):
    folder, runs = two_runs
    out = tmp_path / "out"
    assert main(_args(folder, runs, "--fail-on", "map-below:tfidf", "--fail-on", "gsr-above-perfect", "--out", str(out))) == 1
    printed = capsys.readouterr().out.splitlines()
    # TIME: tf's MAP 0.4224 against tfidf's 0.5177, one pair, so p_adjusted = p (smallest possible: 1/2001)
    assert printed[0].startswith("fail map-below:tfidf: tf's MAP is significantly lower (delta -0.0953, p_adjusted ")
    assert not printed[1].startswith("fail") and printed[1].startswith("irfair audit: 2 systems")
    saved = json.loads((out / "audit.json").read_text())
    jsonschema.validate(saved, audit_schema())
    assert saved["comparisons"][0]["a"] == "tfidf" and (out / "comparisons.csv").is_file()
    broken = json.loads(json.dumps(saved))
    broken["comparisons"][0]["significant"] = True  # the comparisons' keys are exactly these
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, audit_schema())
    assert main(_args(folder, runs, "--fail-on", "gsr-above:tfidf", "--format", "json")) == 0
    capsys.readouterr()
    assert main(_args(folder, runs, "--fail-on", "map-above:tfidf", "--fail-on", "map-below:tfidf", "--format", "tsv")) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("fail map-below:tfidf:") and not captured.out.startswith("fail")


@pytest.mark.parametrize(("extra", "message"), [
    (("--fail-on", "gsr-higher:tfidf"), "irfair: error: expected a condition such as gsr-above-perfect"),
    (("--fail-on", "gsr-above:bm25"), "irfair: error: gsr-above:bm25: 'bm25' is not an audited system (systems: tfidf, tf)"),
    (("--baseline", "bm25"), "irfair: error: baseline 'bm25' is not an audited system (systems: tfidf, tf)"),
])
def test_bad_gate_options_are_one_line_and_write_nothing(two_runs, tmp_path, capsys, extra, message):
    folder, runs = two_runs
    assert main(_args(folder, runs, *extra, "--out", str(tmp_path / "out"))) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", [("--alpha", "1.5"), ("--correction", "sidak"), ("--permutations", "-3")])
def test_bad_inference_options_stop_the_parser(two_runs, capsys, option):
    folder, runs = two_runs
    with pytest.raises(SystemExit) as stopped:
        main(_args(folder, runs, *option))
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.startswith(f"irfair: error: argument {option[0]}: ") and err.count("\n") == 1


@pytest.mark.parametrize(("extra", "reason"), [
    (("--permutations", "0"), "no test was run (--permutations 0)"),
    (("--permutations", "10"), "the audit warns few_permutations"),
])
def test_a_gate_that_cannot_decide_exits_3_with_its_reason(two_runs, capsys, extra, reason):
    """tf's MAP is lower than tfidf's (p 1/2001 with 2,000 permutations): a gate on it fails (exit 1). With no test, or
    with 10 permutations (the smallest p, 1/11, cannot reach 0.05), the gate cannot decide: exit 3 and a line saying
    why, never 0 — unless --allow-undecided."""
    folder, runs = two_runs
    assert main(_args(folder, runs, "--fail-on", "map-below:tfidf")) == 1
    capsys.readouterr()
    assert main(_args(folder, runs, "--fail-on", "map-below:tfidf", *extra)) == 3
    assert capsys.readouterr().out.splitlines()[0] == f"undecided map-below:tfidf: tf against tfidf: {reason}"
    assert main(_args(folder, runs, "--fail-on", "map-below:tfidf", "--allow-undecided", *extra)) == 0


def test_a_margin_is_a_non_inferiority_condition(two_runs, capsys):
    """tf's MAP is 0.0953 below tfidf's: not lower by more than a margin of 0.2 (passes), lower by more than 0.01
    (fails, the line giving the difference itself); a bad margin is one line."""
    folder, runs = two_runs
    assert main(_args(folder, runs, "--fail-on", "map-below:tfidf:0.2")) == 0
    capsys.readouterr()
    assert main(_args(folder, runs, "--fail-on", "map-below:tfidf:0.01")) == 1
    assert capsys.readouterr().out.startswith("fail map-below:tfidf:0.01: tf's MAP is significantly lower (delta -0.0953, ")
    assert parse_condition("map-below:bm25:0.01").margin == 0.01 and parse_condition("map-below:bm25:x").reference == "bm25:x"


def test_a_skewed_mean_difference_stays_undecided_at_a_stricter_alpha():
    """new is worse than bm25 by 0.1 on 19 queries and better by 0.2 on one (MAP; p = 3/10,001): the randomization
    test rejects, its skew-corrected form does not (p 0.083), so the gate cannot decide, with that reason, at the
    audit's α and at 0.01 (decided again, both tests: never read from the plain p alone). same is worse on every
    query by 0.1 with a symmetric spread and fails at both. Without the per-query values, a decision at another α
    cannot be made again: undecided, saying so."""
    from irfair.audit.comparisons import QueryValues, pairwise

    base = np.full(20, 0.5)
    matrix = np.vstack([base, base + np.array([-0.1] * 19 + [0.2]), base + np.array([-0.15, -0.05] * 10)])
    values = QueryValues(tuple(f"q{i}" for i in range(20)), ("bm25", "new", "same"), np.zeros(20), {"MAP": matrix})
    inference = Inference(n_bootstrap=0)
    comparisons = pairwise(values, ["bm25", "new", "same"], inference)
    systems = {name: _system(name, "system", 0.0, 0.5) for name in ("bm25", "new", "same")}
    result = AuditResult(systems, "emb", GenderDirection(None, 0.6, (("she", "he"),), (), "emb"), "auto", "title",
                         measures=("MAP",), inference=inference, comparisons=comparisons, values=values)
    skewed = "undecided: the differences are skewed: the skew-corrected test does not reject"
    for alpha in (None, 0.01):
        failures = result.check("map-below:bm25", alpha=alpha)
        assert [(f.system, f.undecided) for f in failures] == [("new", skewed), ("same", None)]
    assert [f.undecided for f in result.check("map-below:bm25", alpha=0.01, allow_undecided=True)] == [None]
    import dataclasses

    bare = dataclasses.replace(result, values=None)
    assert [f.undecided.split(":")[0] for f in bare.check("map-below:bm25", alpha=0.01)] == ["undecided", "undecided"]
