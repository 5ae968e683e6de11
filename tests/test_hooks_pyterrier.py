"""The PyTerrier hook on result frames (Terrier's own retrieval needs downloads and Java, so none is run)."""
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest

from irfair.audit import audit
from irfair.errors import IrfairInputError, IrfairWarning
from irfair.gender.direction import gender_direction
from irfair.hooks.pyterrier import Genderedness, bias_measure_of, bias_measures, gsr_experiment
from irfair.toy import toy_direct, toy_indirect


def result_frame(toy, run) -> pd.DataFrame:
    """A PyTerrier result frame: qid, query, docno, score and rank (from 0)."""
    return pd.DataFrame([{"qid": qid, "query": toy.topics[qid].title, "docno": doc, "score": score, "rank": rank}
                         for qid, hits in run.ranking.items() for rank, (doc, score) in enumerate(hits)])


def test_genderedness_transformer_adds_g_of_query_and_documents(w2v):
    """'The man is a nurse.' for the query nurse: stopwords (the, is, a) and the query term go, so g_q(d) = g(man);
    g(q) = g(nurse); g(w) = w · direction for the unit vectors."""
    toy = toy_direct()
    frame = result_frame(toy, toy.runs["N"])
    nurse = frame[frame["query"] == "nurse"]
    out = Genderedness(toy.docs, w2v, cache_dir=False).transform(nurse)
    direction = gender_direction(w2v).vector
    g = {w: float(np.asarray(w2v.vectors[w2v.row(w)]) @ direction) for w in ("man", "woman", "nurse")}
    assert out["docno"].tolist() == ["nurse-man", "nurse-woman"]
    assert out["doc_genderedness"].tolist() == pytest.approx([g["man"], g["woman"]], abs=1e-6)
    assert out["query_genderedness"].tolist() == pytest.approx([g["nurse"]] * 2, abs=1e-6)
    assert list(out.columns[:5]) == list(nurse.columns) and "doc_genderedness" not in nurse


def test_genderedness_in_a_pipeline_and_bad_frames(w2v):
    toy = toy_direct()
    frame = result_frame(toy, toy.runs["S"])
    genderedness = Genderedness(toy.docs, w2v, cache_dir=False)
    topics = pd.DataFrame({"qid": list(toy.topics), "query": [t.title for t in toy.topics.values()]})
    piped = (pt.Transformer.from_df(frame) >> genderedness).transform(topics)
    assert piped["doc_genderedness"].tolist() == pytest.approx(genderedness.transform(frame)["doc_genderedness"].tolist())
    with pytest.raises(IrfairInputError, match="expected columns qid, query and docno; missing query"):
        genderedness.transform(frame.drop(columns="query"))
    with pytest.raises(IrfairInputError, match="document nowhere is not in the corpus"):
        genderedness.transform(frame.assign(docno="nowhere"))


def test_gsr_experiment_compares_result_frames_and_transformers(w2v):
    """Toy 2 of Fabris et al.: S and CS lists are mirror images, so GSR(S) = −GSR(CS), and N's lists are the same
    for every query, so GSR(N) = 0. GSR is the OLS slope over queries (numpy's polyfit on the audit's per-query
    table), not a mean of per-query values; a transformer gives what its result frame gives."""
    toy = toy_indirect()
    frames = {name: result_frame(toy, run) for name, run in toy.runs.items()}
    systems = [frames["S"], frames["N"], pt.Transformer.from_df(frames["CS"])]
    # toy 2's perfect lists are balanced: its GSR is 0, so relative GSR is NaN everywhere, and the table says why
    with pytest.warns(IrfairWarning, match="relative_gsr_pct is NaN: relative GSR is n/a: the perfect run's GSR is 0$"):
        experiment = gsr_experiment(systems, toy.topics, toy.qrels, toy.docs, ["MAP", "P@10"], names=["S", "N", "CS"],
                                    embeddings=w2v, n_bootstrap=0, cache_dir=False)
    assert experiment.attrs["relative_gsr_note"] == "relative GSR is n/a: the perfect run's GSR is 0"
    table = experiment.set_index("name")
    assert list(table.index) == ["perfect", "S", "N", "CS"]
    assert list(table.columns) == ["gsr", "gsr_ci_low", "gsr_ci_high", "delta_gsr", "relative_gsr_pct", "n_queries", "n_evaluated",
                                   "MAP", "P@10"]
    assert table.loc["S", "gsr"] == pytest.approx(-table.loc["CS", "gsr"]) and table.loc["S", "gsr"] > 0.05
    assert table.loc["N", "gsr"] == pytest.approx(0, abs=1e-12)
    direct = audit(dict(toy.runs), toy.qrels, toy.topics, toy.docs, w2v, n_bootstrap=0, random_baseline=False)
    used = direct["S"].gsr.per_query[direct["S"].gsr.per_query["used"]]
    slope = np.polyfit(used["query_genderedness"], used["list_genderedness"], 1)[0]
    assert table.loc["S", "gsr"] == pytest.approx(slope) == pytest.approx(direct["S"].gsr.slope)
    assert table.loc["S", "n_queries"] == len(used) and table.loc["S", "n_evaluated"] == 20
    # S retrieves 10 or 14 of a query's 24 relevant documents, all relevant: AP = retrieved/24, P@10 = 1
    expected_map = np.mean([len(toy.runs["S"].ranking[q]) / 24 for q in toy.topics])
    assert table.loc["S", "MAP"] == pytest.approx(expected_map) and table.loc["S", "P@10"] == 1.0
    assert table.loc["perfect", "MAP"] == 1.0 and np.isnan(table.loc["perfect", "relative_gsr_pct"])


def test_gsr_experiment_names_must_match_systems(w2v):
    toy = toy_direct()
    with pytest.raises(IrfairInputError, match="give 2 distinct names for 2 systems"):
        gsr_experiment([result_frame(toy, toy.runs["S"])] * 2, toy.topics, toy.qrels, toy.docs, names=["a", "a"], embeddings=w2v)


def test_the_hook_is_importable_as_irfair_pyterrier():
    import irfair.pyterrier

    assert (irfair.pyterrier.Genderedness, irfair.pyterrier.gsr_experiment) == (Genderedness, gsr_experiment)


def pt_inputs(toy) -> tuple[pd.DataFrame, pd.DataFrame]:
    """PyTerrier's topics (qid, query) and qrels (qid, docno, label) of a toy collection."""
    topics = pd.DataFrame({"qid": list(toy.topics), "query": [t.title for t in toy.topics.values()]})
    qrels = pd.DataFrame([{"qid": qid, "docno": doc, "label": grade} for qid, docs in toy.qrels.items() for doc, grade in docs.items()])
    return topics, qrels


BIAS_COLUMNS = ["rab_tc@10", "arab_tc@10", "nfairr@10", "texfair@10"]


def test_bias_measures_give_the_audits_per_query_values_and_means(w2v):
    """Toy 1 of Fabris et al.: S lists the stereotypical document alone, N 'The man is a <job>.' then 'The woman is
    a <job>.'. By hand: RaB_tc@10(S) = n_m − n_f = −1 for the ten female jobs (qids 1-10), +1 for the male ones;
    ARaB_tc@10(N) = (RaB@1 + RaB@2) / 2 = (1 + 0) / 2; TExFAIR@10(N): |d| = 2 (man/woman and the job, stopwords
    gone), GE_m = 1/2, GE_f = 0.8/2, so 1 − |0.5 − 0.4| / 0.9 = 8/9; every document has one gendered word (≤ τ), so
    NFaiRR = 1. pt.Experiment's means are the audit's."""
    toy = toy_direct()
    topics, qrels = pt_inputs(toy)
    systems = [pt.Transformer.from_df(result_frame(toy, toy.runs[name])) for name in ("N", "S", "CS")]
    measures = bias_measures(toy.docs, BIAS_COLUMNS, cache_dir=False)
    assert [str(m) for m in measures] == BIAS_COLUMNS
    per_query = pt.Experiment(systems, topics, qrels, ["map", *measures], names=["N", "S", "CS"], perquery=True)
    values = per_query.pivot_table(index=["name", "qid"], columns="measure", values="value")
    s_rab = values.loc["S", "rab_tc@10"].reindex([str(q) for q in range(1, 21)])
    assert s_rab.tolist() == [-1.0] * 10 + [1.0] * 10
    assert values.loc["N", "arab_tc@10"].tolist() == [0.5] * 20
    assert values.loc["N", "texfair@10"].to_numpy() == pytest.approx([8 / 9] * 20, abs=1e-12)
    assert values.loc["N", "nfairr@10"].tolist() == [1.0] * 20
    means = pt.Experiment(systems, topics, qrels, ["map", *measures], names=["N", "S", "CS"]).set_index("name")
    assert means.loc["N", "texfair@10"] == pytest.approx(8 / 9) and means.loc["S", "map"] == 0.5

    result = audit(dict(toy.runs), toy.qrels, toy.topics, toy.docs, w2v, n_bootstrap=0, random_baseline=False, cache_dir=False,
                   bias_measures="rab,arab,nfairr,texfair")
    audited = result.per_query().set_index(["system", "qid"])
    for name in ("N", "S", "CS"):
        for column in BIAS_COLUMNS:
            assert values.loc[name, column].to_dict() == pytest.approx(audited.loc[name, column].to_dict(), abs=1e-12)
            assert means.loc[name, column] == pytest.approx(result[name].bias.summaries[column].mean, abs=1e-12)


def test_bias_measures_rank_ties_as_trec_eval_and_leave_unanswered_queries_undefined():
    """Equal scores: trec_eval ranks 'nurse-woman' above 'nurse-man' (doc id descending), whatever the frame's row
    order, so RaB_tc@1 = 0 − 1 = −1. A query the run lacks, or one without a relevant document, is NaN, not 0."""
    toy = toy_direct()
    topics, qrels = pt_inputs(toy)
    nurse = topics[topics["query"] == "nurse"]["qid"].item()
    tied = pd.DataFrame({"qid": [nurse] * 2, "docno": ["nurse-man", "nurse-woman"], "score": [1.0, 1.0]})
    [measure] = bias_measures(toy.docs, ["rab_tc@1"], cache_dir=False)
    for frame in (tied, tied.iloc[::-1]):
        out = pt.Experiment([pt.Transformer.from_df(frame)], topics[topics["qid"] == nurse], qrels[qrels["qid"] == nurse],
                            [measure], perquery=True)
        assert out["value"].tolist() == [-1.0]
    unjudged = qrels.assign(label=np.where(qrels["qid"] == "2", 0, qrels["label"]))
    lacking = result_frame(toy, toy.runs["N"]).query("qid != '3'")
    system = pt.Transformer.from_df(lacking)
    by_query = pt.Experiment([system], topics, unjudged, [measure], perquery=True).set_index("qid")["value"]
    assert np.isnan(by_query["2"]) and np.isnan(by_query["3"]) and by_query["4"] == 1.0
    assert np.isnan(pt.Experiment([system], topics, unjudged, [measure])["rab_tc@1"].item())


# scipy's warning on MAP's and TExFAIR's constant S − N differences, inside PyTerrier's own t-test
@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")
def test_bias_measures_beside_map_in_pt_experiment_with_holm():
    """PyTerrier's own paired t-test and Holm correction run on an irfair measure. ARaB_tc@10, S − N per query:
    +1 − 0.5 for the male jobs, −1 − 0.5 for the female ones: mean −0.5, sample variance 20/19, so
    t = −0.5 / sqrt((20/19) / 20) = −0.5·√19 on 19 degrees of freedom; S and CS have the same p, so Holm doubles it."""
    from scipy import stats

    toy = toy_direct()
    topics, qrels = pt_inputs(toy)
    systems = [pt.Transformer.from_df(result_frame(toy, toy.runs[name])) for name in ("N", "S", "CS")]
    measures = bias_measures(toy.docs, ["arab_tc@10", "texfair@10"], cache_dir=False)
    table = pt.Experiment(systems, topics, qrels, ["map", *measures], names=["N", "S", "CS"], baseline=0,
                          correction="holm").set_index("name")
    p = 2 * stats.t.sf(0.5 * np.sqrt(19), 19)
    assert table.loc["S", "arab_tc@10 p-value"] == pytest.approx(p) == pytest.approx(table.loc["CS", "arab_tc@10 p-value"])
    assert table.loc["S", "arab_tc@10 p-value corrected"] == pytest.approx(2 * p)
    assert (table.loc["S", "arab_tc@10 +"], table.loc["S", "arab_tc@10 -"]) == (10, 10)
    assert (table.loc["S", "texfair@10 +"], table.loc["S", "texfair@10 -"]) == (0, 20)
    assert table.loc["S", "map"] == 0.5 and "map p-value corrected" in table.columns
    assert np.isnan(table.loc["N", "arab_tc@10 p-value"])


def test_bias_measure_names_and_documents_outside_the_corpus():
    toy = toy_direct()
    assert bias_measure_of("arab_bool@20").columns == ("arab_bool@20",) and bias_measure_of(" texfair@3 ").columns == ("texfair@3",)
    for bad, message in (("gsr", "expected a bias column such as rab_tc@10"), ("ee_l@10", "expected a bias column such as"),
                         ("rab@10", r"bias column 'rab@10': expected rab_<tc\|tf\|bool>@k$"),
                         ("nfairr_tc@10", "bias column 'nfairr_tc@10': expected nfairr@k$")):
        with pytest.raises(IrfairInputError, match=message):
            bias_measure_of(bad)
    with pytest.raises(IrfairInputError, match="expected one or more distinct bias columns, got rab_tc@10, rab_tc@10$"):
        bias_measures(toy.docs, ["rab_tc@10", "rab_tc@10"], cache_dir=False)
    topics, qrels = pt_inputs(toy)
    stranger = pd.DataFrame({"qid": ["1"], "docno": ["nowhere"], "score": [1.0]})
    with pytest.raises(IrfairInputError, match="document nowhere is not in the corpus"):
        pt.Experiment([pt.Transformer.from_df(stranger)], topics, qrels, bias_measures(toy.docs, ["nfairr@10"], cache_dir=False))


def test_gsr_experiment_tests_each_system_against_a_baseline(w2v):
    """The tests are the audit's (result.comparisons). MAP by hand: S and CS retrieve one of the two relevant
    documents of every query (AP 1/2), N both (AP 1): S − N = −1/2 on all 20 queries, which no random sign pattern
    of the 10,000 (each 2/2^20 likely) reaches, so p = (0 + 1)/(10,000 + 1) and Holm over the two systems doubles it;
    CS − S = 0 everywhere, so every pattern reaches it: p = 1."""
    toy = toy_direct()
    frames = {name: result_frame(toy, toy.runs[name]) for name in ("N", "S", "CS")}
    with pytest.warns(IrfairWarning, match="relative_gsr_pct is NaN"):
        by_index = gsr_experiment(list(frames.values()), toy.topics, toy.qrels, toy.docs, ["map"], names=list(frames),
                                  embeddings=w2v, baseline=0, correction="holm", n_bootstrap=0, cache_dir=False)
    table = by_index.set_index("name")
    assert list(table.columns) == ["gsr", "gsr_ci_low", "gsr_ci_high", "delta_gsr", "relative_gsr_pct", "n_queries", "n_evaluated",
                                   "map", "gsr_p", "gsr_p_adjusted", "gsr_decision", "map_p", "map_p_adjusted", "map_decision"]
    assert table.loc["S", "map_p"] == pytest.approx(1 / 10_001) and table.loc["S", "map_p_adjusted"] == pytest.approx(2 / 10_001)
    assert table.loc["S", "map_decision"] == table.loc["CS", "map_decision"] == "differs"
    for row in ("perfect", "N"):
        assert np.isnan(table.loc[row, ["gsr_p", "gsr_p_adjusted", "map_p", "map_p_adjusted"]].to_numpy(dtype=float)).all()
        assert pd.isna(table.loc[row, "gsr_decision"]) and pd.isna(table.loc[row, "map_decision"])
    direct = audit(frames, toy.qrels, toy.topics, toy.docs, w2v, measures=["map"], n_bootstrap=0, random_baseline=False,
                   cache_dir=False, baseline="N", correction="holm")
    gsr_tests = direct.comparisons[direct.comparisons["measure"] == "gsr"].set_index("a")
    for name in ("S", "CS"):
        assert table.loc[name, ["gsr_p", "gsr_p_adjusted"]].tolist() == gsr_tests.loc[name, ["p", "p_adjusted"]].tolist()
        assert table.loc[name, "gsr_decision"] == gsr_tests.loc[name, "decision"]
    with pytest.warns(IrfairWarning):
        by_name = gsr_experiment(frames, toy.topics, toy.qrels, toy.docs, ["map"], embeddings=w2v, baseline="S", correction="bonferroni",
                                 n_bootstrap=0, n_permutations=999, cache_dir=False).set_index("name")
    assert by_name.loc["N", "map_p"] == pytest.approx(1 / 1000) and by_name.loc["N", "map_p_adjusted"] == pytest.approx(2 / 1000)
    assert by_name.loc["CS", "map_p"] == 1.0 and by_name.loc["CS", "map_decision"] == "does not differ"
    assert np.isnan(by_name.loc["S", "map_p"])


def test_gsr_experiment_baseline_must_name_a_system(w2v):
    toy = toy_direct()
    frames = [result_frame(toy, toy.runs[name]) for name in ("S", "CS")]
    for baseline in (2, -1, True, "N"):
        with pytest.raises(IrfairInputError, match=rf"^baseline {baseline!r}: expected an index from 0 to 1 or a system name \(S, CS\)$"):
            gsr_experiment(frames, toy.topics, toy.qrels, toy.docs, names=["S", "CS"], embeddings=w2v, baseline=baseline)
    with pytest.raises(IrfairInputError, match="correction must be one of holm, bonferroni, bh, none"):
        gsr_experiment(frames, toy.topics, toy.qrels, toy.docs, names=["S", "CS"], embeddings=w2v, baseline=0, correction="sidak")
