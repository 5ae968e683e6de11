"""The PyTerrier hook on result frames (Terrier's own retrieval needs downloads and Java, so none is run)."""
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest

from irfair.audit import audit
from irfair.errors import IrfairInputError, IrfairWarning
from irfair.gender.direction import gender_direction
from irfair.hooks.pyterrier import Genderedness, gsr_experiment
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
