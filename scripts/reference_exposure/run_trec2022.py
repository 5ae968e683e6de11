"""Run the TREC Fair 2022 metric code (fair-trec/trec2022-fair-public) on the fixtures of
tests/data/exposure/fixtures.json and print its numbers.

    python scripts/reference_exposure/run_trec2022.py /path/to/trec2022-fair-public-checkout

The checkout is https://github.com/fair-trec/trec2022-fair-public at 6fd105f2b69d616c88a3bc276409773a8493927d;
the Python needs numpy, pandas, scipy and xarray (numbers recorded with numpy 1.26.4, pandas 1.5.3,
scipy 1.11.4, xarray 2023.1.0). What runs is the reference's own code, not a copy:

* the target cells of the notebooks ``Task2Alignment.py`` (per-page target exposure by work level,
  lines 119-164; the gender target, lines 235-248) and ``Task1Alignment.py`` (gender target, lines
  184-192), read from the checkout by line number and executed on hand-built inputs standing in for
  what ``MetricInputs.py`` loads (qrels, page_quality, gender_align, gender_tgt);
* ``wptrec.metrics.EELMetric`` and ``wptrec.metrics.AWRFMetric`` imported from the checkout.

Only the gender dimension is used (irfair has one), so the gender target, not the intersectional one,
is the metric's target. Stand-ins: grade levels, highest first, become work levels ``Stub``, ``Start``, ...
(``work_order``: the ideal ranking puts ``Stub`` first); labels become the alignment columns
``@UNKNOWN`` (first, as the reference requires), ``female``, ``male``, ``NB``. Backgrounds: ``trec``
(female .495, male .495, NB .01, MetricInputs.py), ``uniform`` (1/3 each) and, for EE only, ``none``
(the mixing cell, Task2Alignment.py lines 242-244, skipped). EELMetric crashes on a topic with a single
relevant page (``qrels.loc`` returns a row and ``isin`` raises TypeError, eel.py:72); its qrels frame gets that row twice, which changes
nothing else. AWRF/nDCG use each query's first ranking."""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "data" / "exposure" / "fixtures.json"
COLUMNS = {"unknown": "@UNKNOWN", "female": "female", "male": "male", "nonbinary": "NB"}
BACKGROUNDS = {"trec": {"female": 0.495, "male": 0.495, "NB": 0.01}, "uniform": {"female": 1 / 3, "male": 1 / 3, "NB": 1 / 3}}
CELLS = {  # file: (first line, last line, the text the first line must have at the pinned commit)
    "task2_defs": ("Task2Alignment.py", 94, 106, "def qr_join(align):"),
    "task2_page_targets": ("Task2Alignment.py", 119, 164, "qpw = qrels.join(page_quality, on='page_id')"),
    "task2_gender_raw": ("Task2Alignment.py", 235, 239, "qr_gender_align = qr_join(gender_align)"),
    "task2_gender_mix": ("Task2Alignment.py", 242, 245, "qr_gender_fk = qr_gender_tgt.iloc[:, 1:].sum('columns')"),
    "task2_gender_norm": ("Task2Alignment.py", 248, 248, "qr_gender_tgt = norm_dist_df(qr_gender_tgt)"),
    "task1_defs": ("Task1Alignment.py", 94, 106, "def qr_join(align):"),
    "task1_gender": ("Task1Alignment.py", 184, 192, "qr_gender_align = qr_join(gender_align)"),
}


def cell(checkout: Path, name: str) -> str:
    """The reference's lines for ``name``, checked against the pinned commit's text."""
    file, first, last, opening = CELLS[name]
    lines = (checkout / file).read_text().splitlines()[first - 1:last]
    assert lines[0] == opening, f"{file}:{first} is not {opening!r}: another commit?"
    return "\n".join(lines)


def inputs(fixtures: dict, work_order: list, background: dict) -> dict:
    """The names MetricInputs.py defines, built from the fixtures."""
    qrels = pd.DataFrame([(q, d) for q, query in fixtures["queries"].items() for d, g in query["grades"].items() if g > 0],
                         columns=["topic_id", "page_id"])
    quality = {}
    for query in fixtures["queries"].values():
        levels = sorted({g for g in query["grades"].values() if g > 0}, reverse=True)
        quality.update({d: work_order[levels.index(g)] for d, g in query["grades"].items() if g > 0})
    page_quality = pd.Series(quality, name="quality").rename_axis("page_id").astype("category")
    page_quality = page_quality.cat.set_categories(work_order).to_frame()
    pages = sorted({d for q in fixtures["queries"].values() for d in [*q["grades"], *q["groups"], *sum(q["rankings"], [])]})
    align = pd.DataFrame(0.0, index=pd.Index(pages, name="page_id"), columns=list(COLUMNS.values()))
    for query in fixtures["queries"].values():
        for page in pages:
            for label in query["groups"].get(page, []):
                align.loc[page, COLUMNS[label]] = 1.0
    align.loc[align.sum(axis=1) == 0, "@UNKNOWN"] = 1.0
    align = align[["@UNKNOWN", "female", "male", "NB"]]
    align.name = "gender"
    return {"qrels": qrels, "page_quality": page_quality, "gender_align": align, "work_order": work_order,
            "gender_tgt": pd.Series(background, name="gender"), "np": np, "pd": pd}


def dimension(namespace: dict):
    from wptrec.dimension import FairDim

    align = namespace["gender_align"]
    return FairDim(align, xr.DataArray(align, dims=["page", "gender"]), namespace["gender_tgt"], True)


def targets(frame: pd.DataFrame) -> xr.DataArray:
    return xr.DataArray(frame, dims=["topic_id", "gender"])


def expected_exposure(checkout: Path, fixtures: dict, background: str, target_len: int) -> dict:
    """EELMetric per topic, with the gender target of Task2Alignment.py."""
    import wptrec.metrics as metrics

    namespace = inputs(fixtures, metrics.common.work_order, BACKGROUNDS.get(background, BACKGROUNDS["trec"]))
    namespace["metrics"] = metrics
    names = ["task2_defs", "task2_page_targets", "task2_gender_raw"]
    names += ([] if background == "none" else ["task2_gender_mix"]) + ["task2_gender_norm"]
    for name in names:
        exec(cell(checkout, name), namespace)
    qrels = namespace["qrels"]
    single = qrels["topic_id"].map(qrels["topic_id"].value_counts()) == 1
    metric_qrels = pd.concat([qrels, qrels[single]]).set_index("topic_id")
    metric = metrics.EELMetric(metric_qrels, [dimension(namespace)], targets(namespace["qr_gender_tgt"]),
                               target_len=target_len)
    runs = pd.DataFrame([(q, s, d) for q, query in fixtures["queries"].items()
                         for s, ranking in enumerate(query["rankings"]) for d in ranking[:target_len]],
                        columns=["topic_id", "seq_no", "page_id"])
    scores = runs.groupby("topic_id").apply(metric)
    return {q: {"ee_l": repr(float(r["EE-L"])), "ee_d": repr(float(r["EE-D"])), "ee_r": repr(float(r["EE-R"]))}
            for q, r in scores.iterrows()}


def awrf(checkout: Path, fixtures: dict, background: str) -> dict:
    """AWRFMetric per topic (first ranking), with the gender target of Task1Alignment.py."""
    import wptrec.metrics as metrics

    namespace = inputs(fixtures, metrics.common.work_order, BACKGROUNDS[background])
    for name in ["task1_defs", "task1_gender"]:
        exec(cell(checkout, name), namespace)
    metric = metrics.AWRFMetric(namespace["qrels"].set_index("topic_id"), [dimension(namespace)],
                                targets(namespace["qr_gender_tgt"]))
    runs = pd.DataFrame([(q, d) for q, query in fixtures["queries"].items() for d in query["rankings"][0]],
                        columns=["topic_id", "page_id"])
    scores = runs.groupby("topic_id")["page_id"].apply(metric).unstack()
    return {q: {"ndcg": repr(float(r["nDCG"])), "awrf": repr(float(r["AWRF"])), "score": repr(float(r["Score"]))}
            for q, r in scores.iterrows()}


def main(checkout: Path) -> None:
    # the reference's own warnings (mean of an empty work level, pandas' group_keys notice) do not touch a number
    warnings.simplefilter("ignore")
    sys.path.insert(0, str(checkout))
    fixtures = json.loads(FIXTURES.read_text())
    results = {f"eel background={b} target_len=20": expected_exposure(checkout, fixtures, b, 20)
               for b in ("none", "uniform", "trec")}
    results["eel background=trec target_len=5"] = expected_exposure(checkout, fixtures, "trec", 5)
    results.update({f"awrf background={b}": awrf(checkout, fixtures, b) for b in ("uniform", "trec")})
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
