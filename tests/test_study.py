"""The full study on the TIME collection with a small depth (CI settings); full settings in the README."""
import math

import pandas as pd
import pytest

from irfair.cli import main
from irfair.study import StudyConfig, kendall_tau_distance, plan
from irfair.study.tables import BIN_LABELS

pytestmark = pytest.mark.slow


def test_kendall_tau_distance_by_hand():
    assert kendall_tau_distance(["a", "b", "c"], ["a", "b", "c"]) == 0.0
    assert kendall_tau_distance(["a", "b", "c"], ["c", "b", "a"]) == pytest.approx(1.0)
    # one adjacent swap of three: τ = (2 - 1)/3 → distance 1/3
    assert kendall_tau_distance(["a", "b", "c"], ["b", "a", "c"]) == pytest.approx(1 / 3)


def test_plan_names():
    names = [s.name for s in plan(StudyConfig(ranker_embeddings=("w2v-gnews-26k",), variants=("regular", "hard"), neural=()))]
    assert names == ["bm25", "qlm", "tfidf", "w2v_add", "w2v_si", "w2v_add_hard", "w2v_si_hard"]
    neural = [s.name for s in plan(StudyConfig(ranker_embeddings=("glove-6b-50d",), variants=("regular",), lexical=False,
                                              neural=("drmm",)))]
    assert neural == ["bm25", "glove_add", "glove_si", "drmm_glove"]  # BM25 supplies the candidates


def test_study_on_time(shared_data, tmp_path, capsys):
    folder = shared_data / "time"
    out = tmp_path / "study"
    args = ["study", "--corpus", str(folder / "time.trec"), "--topics", str(folder / "topics.time.txt"),
            "--qrels", str(folder / "qrels.time.txt"), "--out", str(out), "--ranker-embeddings", "w2v-gnews-26k",
            "--depth", "50", "--bootstrap", "50", "--cache-dir", str(tmp_path / "cache"),
            "--epochs", "1", "--candidates", "20", "--variants", "regular,hard"]  # strong: tests/test_debias.py
    assert main(args) == 0
    out_text = capsys.readouterr().out
    gsr = pd.read_csv(out / "gsr.csv")
    assert list(gsr.columns[:3]) == ["system", "variant", "run"]  # no unnamed index column in any CSV
    for table in out.glob("*.csv"):
        assert not any(c.startswith("Unnamed") for c in pd.read_csv(table, nrows=1).columns), table
    gsr = gsr.set_index(["system", "variant"])
    systems = ["bm25", "qlm", "tfidf"] + [f"w2v_{s}" for s in ("add", "si")] + ["drmm_w2v", "matchpyramid_w2v"]
    expected_rows = 2 + 3 + 4 * 2  # perfect, random, lexical, (add, si, drmm, matchpyramid) × 2 variants
    assert gsr.shape == (expected_rows, 1 + 2 * 10)
    assert list(gsr.columns[:11]) == ["run", "gsr_w2v", "gsr_ci_low_w2v", "gsr_ci_high_w2v", "delta_gsr_w2v",
                                      "delta_gsr_ci_low_w2v", "delta_gsr_ci_high_w2v", "delta_gsr_p_w2v",
                                      "relative_gsr_pct_w2v", "relative_gsr_pct_ci_low_w2v", "relative_gsr_pct_ci_high_w2v"]
    # TIME's perfect run measured with w2v has a GSR below 0: no relative value anywhere, and the output says why
    assert gsr["relative_gsr_pct_w2v"].isna().all() and gsr.loc[("perfect", "-"), "delta_gsr_w2v"] == 0
    assert "relative_gsr_pct_w2v: relative GSR is n/a: the perfect run's GSR (-0.0051) is not positive" in out_text
    # with GloVe it is positive and clear of 0: relative GSR is given, always with its CI around it
    relative = gsr.drop(index=[("perfect", "-")])[["relative_gsr_pct_glove", "relative_gsr_pct_ci_low_glove",
                                                    "relative_gsr_pct_ci_high_glove"]]
    assert relative.notna().all().all()
    assert (relative["relative_gsr_pct_ci_low_glove"] <= relative["relative_gsr_pct_glove"]).all()
    assert (relative["relative_gsr_pct_glove"] <= relative["relative_gsr_pct_ci_high_glove"]).all()
    # one table per embedding, no relative column (--wide has it); the last line names the (long) output folder
    assert max(len(line) for line in out_text.splitlines() if not line.startswith("wrote")) <= 100
    for system in systems[3:]:
        for variant in ("regular", "hard"):
            assert math.isfinite(gsr.loc[(system, variant), "gsr_w2v"])
    effectiveness = pd.read_csv(out / "effectiveness.csv", index_col=[0, 1])
    assert effectiveness.shape == (expected_rows, 12)
    assert effectiveness.loc[("perfect", "-"), "map"] == pytest.approx(1.0)
    reliability = pd.read_csv(out / "reliability.csv")
    assert reliability.loc[0, "n_systems"] == expected_rows and reliability.loc[0, "n_queries"] == 83
    changes = pd.read_csv(out / "rank_changes.csv")
    assert len(changes) == 2 and (changes["mean_tau_distance"] > 0).all()  # add and si: regular → hard
    validation = pd.read_csv(out / "intrinsic_validation.csv")
    assert len(validation) == 8 and (validation["mean_g_female_set"] > validation["mean_g_male_set"]).all()
    favour = pd.read_csv(out / "favour_shares.csv")
    assert (favour.groupby("run")["n_queries"].sum() <= 83).all() and favour["n_queries"].min() >= 1
    for plot in ("plots/rank_changes.png", "plots/direct_stereotype.pdf", "plots/query_genderedness_agreement.png",
                 "plots/w2v-gnews-26k/grid.png", "plots/glove-6b-50d/scatter_w2v_si_hard.pdf"):
        assert (out / plot).stat().st_size > 1000
    assert "## GSR" in (out / "study.md").read_text()
    report = (out / "report.html").read_text()
    assert report.count("<svg") >= 4 and "Kendall τ distance of the top-50 lists" in report  # the real depth
    assert set(pd.read_csv(out / "favour_shares.csv")["bin"]) <= set(BIN_LABELS)  # "<= -0.10", not "(-1.001, -0.1]"
    for csv in out.glob("*.csv"):  # machine-friendly names: no blanks, brackets or percent signs
        assert all(set(c) <= set("abcdefghijklmnopqrstuvwxyz0123456789_@") for c in pd.read_csv(csv, nrows=1).columns), csv
    # resumable: a second run reuses every run file; --wide prints the whole table, relative GSR with its CI
    capsys.readouterr()
    assert main([*args, "--wide"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("reusing") == 11 and "relative_gsr_pct_ci95_glove" in captured.out
    assert (out / "runs" / "drmm_w2v_hard.log").read_text().startswith("fold")


def test_the_folds_file_is_named_by_the_queries(tmp_path):
    """A study rerun with other topics read its own runs/folds.json, made for the first topics, and failed on it
    ("re-ranked queries are in no fold"): the folds file is now named by the query ids."""
    from irfair.study.runs import folds_path

    first = folds_path(tmp_path, {"1": "a", "2": "b"})
    assert folds_path(tmp_path, {"2": "other text", "1": "a"}) == first  # the ids decide, not their order or text
    assert folds_path(tmp_path, {"1": "a", "3": "c"}) != first and first.parent == tmp_path
    assert first.name.startswith("folds-") and first.suffix == ".json"
