"""An audit without a corpus (issue 34): effectiveness, comparisons, CIs, the gate and the report, with GSR and the
bias measures said to be not measured — the same effectiveness numbers as the full audit of the same runs."""
import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from irfair.audit import audit
from irfair.audit.result import audit_schema
from irfair.cli import main

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted(str(p) for p in (ROOT / "runs" / "vaswani").glob("*.run"))


@pytest.fixture(scope="module")
def qrels(shared_data):
    return shared_data / "vaswani" / "qrels"


def test_the_comparisons_equal_the_full_audits(shared_data, qrels):
    """With the topics (so the queries in the same order), every effectiveness comparison — delta, CI, p, p_adjusted,
    decision — equals the committed full audit's (runs/vaswani/audit/comparisons.csv), and so do the means."""
    result = audit(RUNS, qrels, shared_data / "vaswani" / "query-text.trec")
    full = pd.read_csv(ROOT / "runs" / "vaswani" / "audit" / "comparisons.csv")
    full = full[full["measure"].isin(["MAP", "nDCG@100", "P@10"])].reset_index(drop=True)
    mine = result.comparisons.reset_index(drop=True)
    assert len(mine) == len(full) == 135
    for column in ("a", "b", "measure", "decision", "n_queries"):
        assert mine[column].tolist() == full[column].tolist()
    for column in ("delta", "ci95_low", "ci95_high", "p", "p_adjusted"):
        assert mine[column].to_numpy() == pytest.approx(full[column].to_numpy(), abs=1e-12), column
    assert result["bm25"].evaluation.means["MAP"] == pytest.approx(0.2613, abs=5e-5)


def test_cli_without_corpus_and_topics(qrels, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["audit", *RUNS, "--qrels", str(qrels), "--out", str(out), "--fail-on", "map-below:bm25"]) == 1
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert "irfair audit: 10 systems, 93 queries, effectiveness only, depth auto, holm correction, alpha 0.05" in lines
    assert "GSR and the bias measures: not measured (they read the documents: give --corpus)" in lines
    assert "effectiveness, pairs differing (of 45): MAP 37, nDCG@100 37, P@10 33" in lines
    # the full audit's note on ties (runs/vaswani/audit/table.txt says the same): trec_eval's order is effectiveness's too
    assert "note: ties: 3 runs have ties, ranked by document id as trec_eval does (18 queries reordered; 2" in lines
    assert "gsr" not in printed.split("\n\n")[1]  # no GSR column in the table
    written = sorted(p.name for p in out.iterdir())
    assert written == [".irfair-outputs.json", "agreement.csv", "audit.json", "comparisons.csv", "per_query.csv", "report.html",
                       "table.tsv", "table.txt"]  # no GSR scatter plots
    record = json.loads((out / "audit.json").read_text())
    jsonschema.validate(record, audit_schema())
    assert record["provenance"]["inputs"]["corpus"] is None and record["embeddings"] == "no corpus"
    assert record["systems"]["perfect"]["delta_gsr"] is None  # no GSR, so no difference to it either
    page = (out / "report.html").read_text()
    assert "GSR against the perfect run" not in page and "MAP: 37 of 45 pairs differ" in page


@pytest.mark.parametrize("options, message", [
    (["--bias-measures", "rab"], "--bias-measures (bias_measures=) needs a corpus"),
    (["--gender-words", "rekabsaz2021"], "--gender-words (gender_words=) needs a corpus"),
    (["--corpus", "corpus"], "topics are needed with a corpus"),
    (["--embeddings", "glove-6b-50d"], "--embeddings needs a corpus"),
    (["-l", "3"], "no judgement reaches relevance level 3 (-l): the highest grade is 1"),  # as the full audit checks
    (["--fail-on", "gsr-above-perfect"], "gsr-above-perfect: GSR is not measured without a corpus"),
])
def test_options_that_read_documents_need_a_corpus(qrels, capsys, options, message):
    assert main(["audit", RUNS[0], "--qrels", str(qrels), *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
