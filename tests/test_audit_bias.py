"""RaB/ARaB, NFaiRR and TExFAIR in the audit, beside GSR: hand-worked values on the GSR paper's toy 1 and on a
hand-made collection, the measure functions applied by hand to the audited lists, symmetry under swapped word
lists, the perfect run's ties, counts of undefined and ungendered queries, the agreement table and the CLI."""
import csv
import json
import math

import jsonschema
import numpy as np
import pandas as pd
import pytest

from irfair.audit import audit
from irfair.audit.agreement import agreement_table
from irfair.audit.result import audit_schema
from irfair.cli import main
from irfair.errors import IrfairInputError
from irfair.measures.gender_words import load_gender_words
from irfair.measures.names import BIAS_MEASURE_NAMES
from irfair.measures.nfairr import document_neutrality, nfairr
from irfair.measures.rab import average_rank_bias, gender_magnitude, rank_bias
from irfair.measures.ranking_bias import BIAS_MEASURES, NFAIRR, RAB
from irfair.measures.texfair import texfair
from irfair.presentation.report import format_text, save_audit
from irfair.text import content_tokens
from irfair.toy import FEMALE_JOBS, toy_direct
from irfair.trec import Topic

# ---------------------------------------------------------------- toy 1: "The man/woman is a <job>."


@pytest.fixture(scope="module")
def toy1(glove):
    toy = toy_direct()
    return toy, audit(toy.runs, toy.qrels, toy.topics, toy.docs, glove, n_bootstrap=200, cache_dir=False)


def _per_query(result, system):
    frame = result.per_query()
    return frame[frame["system"] == system].set_index("qid")


def test_toy1_values_by_hand(toy1):
    """Tokens of "The woman is a nurse.": woman, nurse (the, is: stopwords; a: one letter), so |d| = 2 and the
    document holds one female word of either list (rekabsaz2020 for RaB, rekabsaz2021 for NFaiRR/TExFAIR).

    S (the stereotypical document alone), female job: RaB_t = mag_m − mag_f = 0 − 1 = −1 at every t (a list of
    one document reads all of it), male job +1; CS the opposite, so RaB flips sign query by query; the mean over
    the 10 + 10 jobs is 0 for both. TExFAIR: GE_f = 1·1/2, GE_m = 0, Δ = 1, RBDF = 1, so TExFAIR = 0.
    N = [man doc, woman doc]: RaB_1 = 1, RaB_2 = (1 − 1)/2 = 0, so RaB@5 = RaB_2 = 0 and ARaB@5 = (1 + 0)/2 = 1/2;
    TExFAIR: GE_m = 1·1/2, GE_f = 0.8·1/2 = 0.4, Δ = 0.1/0.9 = 1/9, TExFAIR = 8/9.
    Perfect run: both documents relevant with grade 1, a tie, so each measure is its mean over the two orders:
    RaB = ARaB = 0 (the orders give ARaB +1/2 and −1/2) and TExFAIR = 8/9 (either order gives N's 8/9; the
    mean word shares would have given GE_f = GE_m and 1).
    NFaiRR = 1 everywhere: one gendered word is at most the threshold τ = 1, so every document is neutral."""
    toy, result = toy1
    s, cs, n, perfect = (_per_query(result, name) for name in ("S", "CS", "N", "perfect"))
    female = [qid for qid, t in toy.topics.items() if t.title in FEMALE_JOBS]
    male = [qid for qid in toy.topics if qid not in female]
    for column in ("rab_tc@5", "rab_tc@10", "rab_bool@20", "arab_tc@10", "arab_bool@5"):
        assert (s.loc[female, column] == -1).all() and (s.loc[male, column] == 1).all()
        assert (cs[column] == -s[column]).all()
        assert result["S"].bias.summaries[column].mean == 0 == result["CS"].bias.summaries[column].mean
    assert (n["rab_tc@5"] == 0).all() and (n["arab_tc@5"] == 0.5).all() and (n["arab_bool@20"] == 0.5).all()
    assert (perfect["rab_tc@10"] == 0).all() and (perfect["arab_tc@10"] == 0).all()
    assert (s["texfair@10"] == 0).all() and n["texfair@10"].to_numpy() == pytest.approx(np.full(20, 8 / 9))
    assert perfect["texfair@10"].to_numpy() == pytest.approx(np.full(20, 8 / 9), abs=1e-15)
    assert result["perfect"].bias.tie_orders["texfair@10"] == {"n_exact": 20, "n_sampled": 0, "standard_error": 0.0}
    for name in ("perfect", "random", "S", "N", "CS"):
        frame = _per_query(result, name)
        assert (frame["nfairr@10"] == 1).all() and len(frame) == 20
        assert set(result[name].bias.summaries) == set(result.bias_columns)  # the reference runs get every measure
        assert result[name].bias.no_gendered_word["rab_tc@10"] == 0


def test_toy1_audit_equals_the_measure_functions_on_its_lists(toy1):
    """Each list rebuilt from the run and the documents' text, its counts taken word by word, and the one-list
    measure functions applied: the audit's batch path gives the same values. The perfect run's tie (both
    documents grade 1) is the mean over its two orders for the measures linear in per-document values."""
    toy, result = toy1
    words = {name: load_gender_words(name) for name in ("rekabsaz2020", "rekabsaz2021")}

    def counts(docs, name):
        tokens = [content_tokens(toy.docs[d]) for d in docs]
        return (np.array([sum(t in words[name].female for t in ts) for ts in tokens], dtype=float),
                np.array([sum(t in words[name].male for t in ts) for ts in tokens], dtype=float),
                np.array([len(ts) for ts in tokens], dtype=float))

    def by_hand(docs):
        f, m, _ = counts(docs, "rekabsaz2020")
        f21, m21, length = counts(docs, "rekabsaz2021")
        omega = document_neutrality(f21, m21)
        return {"rab_tc@10": rank_bias(f, m, 10), "rab_bool@5": rank_bias(gender_magnitude(f, "bool"), gender_magnitude(m, "bool"), 5),
                "arab_tc@20": average_rank_bias(f, m, 20), "nfairr@10": nfairr(omega, 10), "texfair@5": texfair(f21, m21, length, 5)}

    lists = {name: {qid: run.doc_ids(qid) for qid in toy.topics} for name, run in toy.runs.items()}
    compared = 0
    for name in ("S", "N", "CS"):
        frame = _per_query(result, name)
        for qid, docs in lists[name].items():
            for column, value in by_hand(docs).items():
                assert frame.loc[qid, column] == pytest.approx(value, abs=1e-12)
                compared += 1
    perfect = _per_query(result, "perfect")
    for qid in toy.topics:
        docs = list(toy.qrels[qid])
        orders = [by_hand(docs), by_hand(docs[::-1])]
        for column in ("rab_tc@10", "rab_bool@5", "arab_tc@20", "nfairr@10"):
            assert perfect.loc[qid, column] == pytest.approx((orders[0][column] + orders[1][column]) / 2, abs=1e-12)
            compared += 1
    assert compared == 3 * 20 * 5 + 20 * 4


def test_gsr_toy_values_stay_as_the_readme_shows(toy1):
    """The demo's numbers (README, glove-6b-50d, toy 1): GSR(S) = +0.632256 = −GSR(CS), 20/20 queries."""
    _, result = toy1
    assert round(result["S"].gsr.slope, 6) == 0.632256 and round(result["CS"].gsr.slope, 6) == -0.632256
    assert result["S"].gsr.n_queries == 20 and abs(result["N"].gsr.slope) < 1e-15


def test_toy1_agreement_by_hand(toy1):
    """Systems S, N, CS. gsr: +0.63, 0, −0.63; arab_tc@10: 0, 1/2, 0; texfair@10: 0, 8/9, 0.
    gsr vs arab: (S, N) discordant, (S, CS) tied in arab, (N, CS) concordant: τ_b = (1 − 1)/… = 0.
    arab vs texfair: the same tie (S, CS) in both, (S, N) and (N, CS) concordant: τ_b = 2/√((3 − 1)(3 − 1)) = 1.
    rab_tc@10 is 0 for all three (constant): τ undefined. GSR has no per-query value: no Pearson r.
    (An audit computes no agreement over fewer than 5 systems: the table is asked for over 3.)"""
    _, result = toy1
    assert result.agreement().empty and result.to_dict()["agreement"] == []
    assert next(w for w in result.warnings if w.kind == "few_systems").details == {"n_systems": 3, "min_systems": 5}
    table = result.agreement(min_systems=3).set_index(["measure_a", "measure_b"])
    assert list(table.index[:6]) == [("gsr", c) for c in ("rab_tc@10", "rab_bool@10", "arab_tc@10", "arab_bool@10", "nfairr@10",
                                                           "texfair@10")]
    assert table.loc[("gsr", "arab_tc@10"), "kendall_tau"] == pytest.approx(0.0, abs=1e-12)
    assert table.loc[("arab_tc@10", "texfair@10"), "kendall_tau"] == pytest.approx(1.0)
    assert math.isnan(table.loc[("gsr", "rab_tc@10"), "kendall_tau"])
    assert table.loc[("gsr", "arab_tc@10"), "n_pairs"] == 0 and math.isnan(table.loc[("gsr", "arab_tc@10"), "pearson_r"])
    assert (table["n_systems"] == 3).all() and table.loc[("rab_tc@10", "arab_tc@10"), "n_pairs"] == 60


# ---------------------------------------------------------------- a hand-made collection (hand embeddings)

MALE_DOCS = {f"m{i}": "he his" for i in range(1, 10)}          # n_m = 2 > τ: neutrality 0
DOCS = {**MALE_DOCS, "b1": "she he", "b2": "she he", "n1": "table"}   # b: balanced, neutrality 1; n1: no gendered word
QRELS = {"1": {"m1": 2, "b1": 1}, "2": {"b1": 1, "m1": 1}, "3": {"n1": 1}}
TOPICS = {"1": Topic("1", "nurse"), "2": Topic("2", "doctor"), "3": Topic("3", "table")}
RUN = {"sys": {"1": ["m1", "b1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "b2"], "3": ["n1"]}}


def _hand_audit(hand, **options):
    return audit(RUN, QRELS, TOPICS, DOCS, hand, n_bootstrap=50, cache_dir=False, **options)


def test_hand_collection_values(hand):
    """sys, query 1: m1 b1 m2 … m9 b2, with (n_f, n_m) = (0, 2) for m, (1, 1) for b, every document 2 tokens long.
    RaB_tc@5 = (2+1+2+2+2)/5 − 1/5 = 8/5; RaB_bool@5 = 5/5 − 1/5 = 4/5; RaB_tc@10 = 19/10 − 1/10 = 9/5;
    RaB_tc@20 = RaB_11 = 20/11 − 2/11 = 18/11. ARaB_tc@5 = (2 + 1 + 4/3 + 3/2 + 8/5)/5 = 223/150.
    NFaiRR@10: ω = 0, 1, 0 × 8, 1 (b2 at rank 11): FaiRR@10 = 1/log2(3); the ideal order of the 11 candidates
    puts b1, b2 first: IFaiRR@10 = 1 + 1/log2(3), NFaiRR@10 = 1/(1 + log2 3) = 0.386853 (the same at @5). Without
    b2 among the candidates it would be 1/log2(3) = 0.6309: the candidates reach past the cut-off.
    TExFAIR@5: shares m 1 (m docs), ½/½ (b1); weights 1, .8, .64, .512, .4096: GE_f = .4, GE_m = 2.9616,
    RBDF = 1, TExFAIR = 1 − 2.5616/3.3616 = .8/3.3616.
    Query 2 is not in the run: undefined, counted. Query 3 lists n1 alone: no gendered word, RaB 0,
    NFaiRR = TExFAIR = 1, counted and kept in the mean: mean RaB_tc@5 = (8/5 + 0)/2 = 4/5.
    Perfect run, query 2: b1 and m1 share grade 1, so each position takes their mean: n_f = 1/2, n_m = 3/2:
    RaB_tc = ARaB_tc = 1 (the two orders give ARaB 1/2 and 3/2), NFaiRR@5 = (1 + 1/log2 3)/2 (the mean of the
    orders' 1 and 1/log2 3), TExFAIR: GE_f = .25·1.8, GE_m = .75·1.8, TExFAIR = 1 − 1/2 = 1/2.
    Query 1 (grades 2, 1: ordered m1, b1): RaB_tc@5 = RaB_2 = (2 + 0)/2 = 1, ARaB_tc@5 = (2 + 1)/2 = 3/2."""
    result = _hand_audit(hand)
    sys, perfect = _per_query(result, "sys"), _per_query(result, "perfect")
    expected = {"rab_tc@5": 8 / 5, "rab_bool@5": 4 / 5, "rab_tc@10": 9 / 5, "rab_tc@20": 18 / 11, "arab_tc@5": 223 / 150,
                "nfairr@10": 1 / (1 + math.log2(3)), "nfairr@5": 1 / (1 + math.log2(3)), "texfair@5": 0.8 / 3.3616}
    for column, value in expected.items():
        assert sys.loc["1", column] == pytest.approx(value, abs=1e-12), column
    assert sys.loc["2"][list(expected)].isna().all()
    assert (sys.loc["3", ["rab_tc@5", "arab_bool@20"]] == 0).all() and (sys.loc["3", ["nfairr@10", "texfair@20"]] == 1).all()
    summary = result["sys"].bias.summaries["rab_tc@5"]
    assert (summary.mean, summary.n_queries, summary.n_undefined) == (pytest.approx(0.8), 2, 1)
    assert result["sys"].bias.no_gendered_word["rab_tc@5"] == 1 and result["sys"].bias.no_gendered_word["nfairr@10"] == 1
    assert perfect.loc["2", "rab_tc@5"] == pytest.approx(1.0) and perfect.loc["2", "arab_tc@5"] == pytest.approx(1.0)
    assert perfect.loc["2", "nfairr@5"] == pytest.approx((1 + 1 / math.log2(3)) / 2)
    assert perfect.loc["2", "texfair@5"] == pytest.approx(0.5)
    assert perfect.loc["1", "rab_tc@5"] == pytest.approx(1.0) and perfect.loc["1", "arab_tc@5"] == pytest.approx(1.5)
    # GSR keeps its own exclusions (query 3's only term is the query's), the bias measures cover every query with relevant documents
    assert result["sys"].gsr.n_queries < summary.n_queries + summary.n_undefined == 3


def test_swapping_the_word_lists_flips_rab_and_keeps_nfairr_and_texfair(hand):
    """Exchanging the female and male lists exchanges n_f and n_m in every document: RaB and ARaB change sign,
    neutrality |n_f − n_m|/(n_f + n_m) and TExFAIR's |GE_f − GE_m| do not — for every system and query."""
    words = load_gender_words("rekabsaz2021")
    plain = _hand_audit(hand, gender_words=words).per_query()
    swapped = _hand_audit(hand, gender_words=words.swapped()).per_query()
    rab = [c for c in plain if c.startswith(("rab_", "arab_"))]
    fair = [c for c in plain if c.startswith(("nfairr@", "texfair@"))]
    assert len(rab) == 12 and len(fair) == 6
    assert np.array_equal(plain[rab].to_numpy(), -swapped[rab].to_numpy(), equal_nan=True)
    assert np.array_equal(plain[fair].to_numpy(), swapped[fair].to_numpy(), equal_nan=True)
    assert np.nanmax(np.abs(plain[rab].to_numpy())) > 1  # not all zero
    assert ((plain[fair] > 0) & (plain[fair] < 1)).any().any()


def test_measures_chosen_by_name_or_object(hand):
    """Only the named measures are computed; a measure object with other options is taken as it is."""
    result = _hand_audit(hand, bias_measures=("rab", NFAIRR.with_options(cutoffs=(3,), candidates=3)))
    assert result.bias_columns == ("rab_tc@5", "rab_tc@10", "rab_tc@20", "rab_bool@5", "rab_bool@10", "rab_bool@20", "nfairr@3")
    # candidates m1, b1, m2 (ω = 0, 1, 0): FaiRR@3 = 1/log2(3), the ideal order puts b1 first: IFaiRR@3 = 1
    assert _per_query(result, "sys").loc["1", "nfairr@3"] == pytest.approx(1 / math.log2(3))
    assert list(result.agreement(min_systems=1)[["measure_a", "measure_b"]].itertuples(index=False, name=None)) == [
        ("rab_tc@10", "rab_bool@10"), ("rab_tc@10", "nfairr@3"), ("rab_bool@10", "nfairr@3")]
    assert "texfair" not in result.to_dict()["bias_measures"]
    assert _hand_audit(hand, bias_measures="gsr").bias_columns == ()


@pytest.mark.parametrize(("measures", "message"), [
    ("foo", "expected bias measures among gsr, rab, arab, nfairr, texfair, ee, awrf, got 'foo'"),
    ("rab,rab", "bias measure 'rab' is listed twice"),
    ("", "expected bias measures among gsr, rab, arab, nfairr, texfair, ee, awrf, got ''"),
])
def test_bad_measure_names(hand, measures, message):
    from irfair.errors import IrfairInputError

    with pytest.raises(IrfairInputError, match=message):
        _hand_audit(hand, bias_measures=measures)


def test_declaration_is_data():
    assert tuple(BIAS_MEASURES) == BIAS_MEASURE_NAMES  # the CLI's help lists them without importing scipy
    assert RAB.columns[:3] == ("rab_tc@5", "rab_tc@10", "rab_tc@20") and RAB.headlines == ("rab_tc@10", "rab_bool@10")
    assert NFAIRR.depth == 100 and BIAS_MEASURES["gsr"].columns == ("gsr",)
    for measure in BIAS_MEASURES.values():
        assert measure.paper and measure.description and measure.larger
    from irfair.errors import IrfairInputError

    with pytest.raises(IrfairInputError, match="expected variants among tc, tf, bool"):
        RAB.with_options(variants=("log",))
    with pytest.raises(IrfairInputError, match="at least as many candidates"):
        NFAIRR.with_options(candidates=5)


# ---------------------------------------------------------------- agreement table


def test_agreement_by_hand():
    """4 systems; a = 1, 2, 3, 4 and b = 1, 3, 2, 4: one discordant pair of 6, τ = (5 − 1)/6 = 2/3, and the
    exact two-sided p is P(≤ 1 or ≥ 5 inversions of 4 items) = (1 + 3 + 3 + 1)/24 = 1/3.
    Per query a = 1, 2, 3 and b = 1, 3, 2: r = Σdadb/√(Σda²Σdb²) = 1/2; with 1 degree of freedom
    t = r/√(1 − r²) = 1/√3 and p = 1 − (2/π)·atan(1/√3) = 2/3. c has no per-query values (as GSR)."""
    systems = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 3, 2, 4], "c": [4.0, 3, np.nan, 1]}, index=list("wxyz"))
    per_query = pd.DataFrame({"a": [1.0, 2, 3, np.nan], "b": [1.0, 3, 2, 5]})
    table = agreement_table(systems, per_query).set_index(["measure_a", "measure_b"])
    assert table.loc[("a", "b"), "kendall_tau"] == pytest.approx(2 / 3)
    assert table.loc[("a", "b"), "kendall_p"] == pytest.approx(1 / 3)
    assert table.loc[("a", "b"), "pearson_r"] == pytest.approx(0.5) and table.loc[("a", "b"), "pearson_p"] == pytest.approx(2 / 3)
    assert table.loc[("a", "b"), "n_pairs"] == 3 and table.loc[("a", "b"), "n_systems"] == 4
    # c: system y undefined, so 3 systems; a and c fully reversed: τ = −1; no per-query values: no r
    assert table.loc[("a", "c"), "kendall_tau"] == pytest.approx(-1.0) and table.loc[("a", "c"), "n_systems"] == 3
    assert math.isnan(table.loc[("b", "c"), "pearson_r"]) and table.loc[("b", "c"), "n_pairs"] == 0
    one = agreement_table(systems.iloc[:1])
    assert one["n_systems"].tolist() == [1, 1, 1] and one["kendall_tau"].isna().all()


# ---------------------------------------------------------------- outputs and command line


def test_outputs_carry_the_bias_measures(hand, tmp_path):
    result = _hand_audit(hand)
    paths = {p.name for p in save_audit(result, tmp_path / "out", plots=False)}
    assert {"agreement.csv", "per_query.csv", "audit.json", "report.html"} <= paths
    # one system: no agreement rows, only the header
    assert (tmp_path / "out" / "agreement.csv").read_text().splitlines() == [
        "measure_a,measure_b,kendall_tau,kendall_p,n_systems,pearson_r,pearson_p,n_pairs"]
    saved = json.loads((tmp_path / "out" / "audit.json").read_text())
    jsonschema.validate(saved, audit_schema())
    assert saved["systems"]["sys"]["bias"]["rab_tc@5"]["n_undefined"] == 1
    broken = json.loads(json.dumps(saved))
    del broken["systems"]["sys"]["bias"]["rab_tc@5"]["n_no_gendered_word"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, audit_schema())
    text = format_text(result, wide=True)
    row = next(line.split() for line in text.splitlines() if line.split()[:2] == ["rab_tc", "sys"])
    assert row[2] == "+0.8000" and row[-3:] == ["2", "1", "1"]  # mean of 1.6 and 0; 2 queries, 1 undefined, 1 ungendered
    html = (tmp_path / "out" / "report.html").read_text()
    assert 'id="bias"' in html and 'id="agreement"' in html and "TExFAIR" in html
    table = result.table()
    assert table.loc["sys", "rab_tc@5"] == pytest.approx(0.8) and "texfair@20_ci_high" in table


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory):
    return toy_direct().write(tmp_path_factory.mktemp("toy1"))


def _cli(paths, out, *options):
    return ["audit", str(paths["S"]), str(paths["CS"]), "--qrels", str(paths["qrels"]), "--topics", str(paths["topics"]),
            "--corpus", str(paths["corpus"]), "--embeddings", "glove-6b-50d", "--bootstrap", "20", "--no-cache", "--no-plots",
            "--out", str(out), *options]


def test_cli_options(toy_files, tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("woman\tmale\nman\tfemale\n")  # swapped on purpose
    assert main(_cli(toy_files, tmp_path / "out", "--bias-measures", "gsr,rab", "--gender-words", str(words), "--wide")) == 0
    printed = capsys.readouterr().out
    row = next(line.split() for line in printed.splitlines() if line.split()[:2] == ["rab_tc", "S"])
    assert row[2] == "+0.0000" and "nfairr" not in printed
    audited = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert list(audited["bias_measures"]) == ["gsr", "rab"]
    assert audited["bias_measures"]["rab"]["gender_words"]["source"] == str(words)
    rows = {(r["system"], r["qid"]): r for r in csv.DictReader((tmp_path / "out" / "per_query.csv").open())}
    assert rows[("S", "1")]["rab_tc@10"] == "1.0"  # hygienist: the woman document, counted male by this list
    assert rows[("CS", "1")]["rab_tc@10"] == "-1.0"


@pytest.mark.parametrize(("options", "message"), [
    (("--bias-measures", "foo"), "irfair: error: expected bias measures among gsr, rab, arab, nfairr, texfair, ee, awrf, got 'foo'\n"),
    (("--gender-words", "{tmp}/missing.txt"), "irfair: error: {tmp}/missing.txt: expected a gender word file or one of: "
                                               "rekabsaz2020, rekabsaz2021\n"),
    (("--gender-words", "{tmp}/empty.txt"), "irfair: error: {tmp}/empty.txt: empty gender word file\n"),
    (("--rab-weighting", "tc,idf"), "irfair: error: RaB weighting: expected one or more of tc, tf, bool (each once), got tc,idf\n"),
    (("--nfairr-background", "{tmp}/missing.run"), "irfair: error: {tmp}/missing.run: run file not found\n"),
    (("--nfairr-background-depth", "0"), None),
    # options that configure what is not computed were silently ignored
    (("--nfairr-background-depth", "50"), "irfair: error: nfairr_background_depth 50 without an NFaiRR background run: nothing to cut\n"),
    (("--bias-measures", "rab", "--nfairr-background", "{S}"),
     "irfair: error: an NFaiRR background run, but nfairr is not among the bias measures (rab)\n"),
    (("--nfairr-background", "{runs}"), "irfair: error: {runs}: the NFaiRR background must be one run, found 2 (CS, S)\n"),
    (("--bias-measures", "nfairr", "--rab-weighting", "tf"),
     "irfair: error: RaB weighting tf: neither rab nor arab is among the bias measures (nfairr)\n"),
    (("--bias-measures", "gsr", "--gender-words", "rekabsaz2021"),
     "irfair: error: gender words rekabsaz2021: no bias measure that counts them (rab, arab, nfairr, texfair) is among the "
     "bias measures (gsr)\n"),
    (("--format", "markdown", "--wide"), "irfair: error: --wide widens the terminal table or the LaTeX one, not --format markdown\n"),
    # a relevance level no judgement reaches made every effectiveness measure 0, the perfect run's too
    (("-l", "2"), "irfair: error: {qrels}: no judgement reaches relevance level 2 (-l): the highest grade is 1, so every "
                  "effectiveness measure would be 0\n"),
])
def test_cli_bad_values_are_one_line(toy_files, tmp_path, capsys, options, message):
    (tmp_path / "empty.txt").write_text("")
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("S", "CS"):
        (runs / f"{name}.run").write_bytes(toy_files[name].read_bytes())
    fields = {"tmp": tmp_path, "S": toy_files["S"], "runs": runs, "qrels": toy_files["qrels"]}
    options = [o.format(**fields) for o in options]
    code = _exit_code(lambda: main(_cli(toy_files, tmp_path / "out", *options)))
    err = capsys.readouterr().err
    assert code == 2 and (err == message.format(**fields) if message else err.count("\n") == 1 and "nfairr-background-depth" in err)
    assert not (tmp_path / "out").exists()


def _exit_code(call) -> int:
    try:
        return call()
    except SystemExit as exc:  # a bad option value exits while parsed, as argparse does
        return exc.code


def test_cli_rab_weighting_and_nfairr_background(toy_files, tmp_path, capsys):
    """The S run as every system's background: S and CS list one document each, so the candidates hold a query's
    stereotypical document; both are neutral (one gendered word), so NFaiRR stays 1; the JSON says what normalised it."""
    assert main(_cli(toy_files, tmp_path / "out", "--rab-weighting", "tf", "--nfairr-background", str(toy_files["S"]),
                     "--nfairr-background-depth", "5")) == 0
    audited = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert audited["bias_measures"]["rab"]["variants"] == ["tf"]
    assert audited["bias_measures"]["nfairr"]["normalised_by"] == "the top 5 documents of run S"
    assert audited["provenance"]["inputs"]["nfairr_background"]["depth"] == 5
    rows = {(r["system"], r["qid"]): r for r in csv.DictReader((tmp_path / "out" / "per_query.csv").open())}
    # query 1, hygienist: CS lists "The man is a hygienist": one male word, RaB_tf = ln(1 + 1) − 0
    assert float(rows[("CS", "1")]["rab_tf@10"]) == pytest.approx(math.log(2)) and float(rows[("CS", "1")]["nfairr@10"]) == 1.0


def test_rab_weighting_by_hand(hand):
    """tf = ln(1 + count): an m document gives mag_m = ln 3, mag_f = 0; a b document ln 2 for both. sys, query 1:
    m1 b1 m2 m3 m4 → RaB_tf@5 = (4 ln 3 + 0)/5; ARaB_tf@5 = mean over t = 1..5 of RaB_tf@t
    = (ln3 + ln3/2 + 2ln3/3 + 3ln3/4 + 4ln3/5)/5. The variants asked for, and only those, are columns."""
    result = _hand_audit(hand, rab_weighting="bool,tf")
    sys = _per_query(result, "sys")
    assert [c for c in sys if c.startswith("rab_")] == [f"rab_{v}@{t}" for v in ("tf", "bool") for t in (5, 10, 20)]
    assert sys.loc["1", "rab_tf@5"] == pytest.approx(4 * math.log(3) / 5, abs=1e-12)
    arab = (math.log(3) * (1 + 1 / 2 + 2 / 3 + 3 / 4 + 4 / 5)) / 5
    assert sys.loc["1", "arab_tf@5"] == pytest.approx(arab, abs=1e-12)
    assert sys.loc["1", "rab_bool@5"] == pytest.approx(4 / 5)  # unchanged by the choice
    with pytest.raises(IrfairInputError, match=r"^RaB weighting: expected one or more of tc, tf, bool \(each once\), got tf,tf$"):
        _hand_audit(hand, rab_weighting="tf,tf")


def test_nfairr_normalised_by_a_background_run_by_hand(hand):
    """The authors' convention: one run's top documents normalise every system. sys, query 1: ω = 0, 1, 0, ... so
    FaiRR@10 = 1/log2 3. Against its own 11 candidates (b1, b2 neutral) the ideal is 1 + 1/log2 3 (0.3869); against a
    background of b1, m1 the ideal is 1 (b1 first), NFaiRR@10 = 1/log2 3 = 0.6309; a background of m1, m2 alone has
    no neutral document: undefined and counted. A query the background lacks (2, for the perfect run) is undefined.
    The background's depth cuts its list: depth 1 of (m1, b1) leaves m1 alone."""
    own = _per_query(_hand_audit(hand), "sys").loc["1", "nfairr@10"]
    assert own == pytest.approx(1 / (1 + math.log2(3)))
    result = _hand_audit(hand, nfairr_background={"1": {"b1": 2.0, "m1": 1.0}, "3": {"n1": 1.0}})
    sys, perfect = _per_query(result, "sys"), _per_query(result, "perfect")
    assert sys.loc["1", "nfairr@10"] == pytest.approx(1 / math.log2(3), abs=1e-12)
    assert sys.loc["3", "nfairr@10"] == 1.0 and np.isnan(perfect.loc["2", "nfairr@10"])
    assert result.bias.to_dict()["nfairr"]["normalised_by"] == "the top 200 documents of run run"
    assert [w.details for w in result.warnings if w.kind == "background_coverage"] == [
        {"background": "run", "queries_held": 2, "queries_audited": 3}]
    cut = _per_query(_hand_audit(hand, nfairr_background={"1": {"m1": 2.0, "b1": 1.0}}, nfairr_background_depth=1), "sys")
    assert np.isnan(cut.loc["1", "nfairr@10"]) and np.isnan(cut.loc["3", "nfairr@10"])
    assert result["sys"].bias.summaries["nfairr@10"].n_undefined == 1  # query 2, not in sys
    with pytest.raises(IrfairInputError, match="nfairr_background_depth must be a positive integer"):
        _hand_audit(hand, nfairr_background={"1": {"b1": 1.0}}, nfairr_background_depth=0)


def test_audit_json_with_a_background_run_follows_its_schema(toy_files, tmp_path):
    assert main(_cli(toy_files, tmp_path / "out", "--nfairr-background", str(toy_files["S"]))) == 0
    jsonschema.validate(json.loads((tmp_path / "out" / "audit.json").read_text()), audit_schema())
