"""Several embeddings in one audit (issue 34): a verdict per embedding, and one line saying on which GSR conclusions
they agree — checked against each embedding's own verdict."""
import json
from pathlib import Path

import pytest

from irfair.audit.across_embeddings import agreement_lines, audit_embeddings, conclusions, split_embeddings
from irfair.cli import main
from irfair.errors import IrfairInputError
from irfair.toy import toy_direct

ROOT = Path(__file__).resolve().parents[1]
BOTH = "w2v-gnews-26k,glove-6b-50d"


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory):
    return toy_direct().write(tmp_path_factory.mktemp("toy1"))


def _cli(paths, *options):
    return main(["audit", str(paths["S"]), str(paths["N"]), str(paths["CS"]), "--qrels", str(paths["qrels"]), "--topics",
                 str(paths["topics"]), "--corpus", str(paths["corpus"]), "--bootstrap", "50", "--no-cache", "--no-plots", *options])


def test_the_toy_agrees_across_embeddings(toy_files, tmp_path, capsys):
    """The GSR paper's toy 1: S (the stereotypical document) above the perfect run, CS below, N as the perfect run,
    and S > N > CS, whichever embedding measures it: 3 comparisons with the perfect run and 3 pairs agree."""
    out = tmp_path / "out"
    assert _cli(toy_files, "--embeddings", BOTH, "--out", str(out)) == 0
    printed = capsys.readouterr().out
    first = " ".join(printed.split("\n\n")[0].split())
    assert first == ("across embeddings (w2v-gnews-26k, glove-6b-50d): GSR's conclusions agree on 6 of 6 comparisons (each "
                     "system against the perfect run, each pair); effectiveness and the term-based bias measures do not "
                     "read the embedding")
    assert printed.count("== embeddings w2v-gnews-26k ==") == 1 and printed.count("== embeddings glove-6b-50d ==") == 1
    assert "GSR against the perfect run: significantly above: S (+1.4984); below: CS (-1.4984)" in printed  # w2v
    assert "GSR against the perfect run: significantly above: S (+0.6323); below: CS (-0.6323)" in printed  # glove
    assert sorted(p.name for p in out.iterdir()) == ["glove-6b-50d", "w2v-gnews-26k"]
    assert (out / "glove-6b-50d" / "audit.json").is_file()


def test_json_with_several_embeddings_is_one_document(toy_files, capsys):
    assert _cli(toy_files, "--embeddings", BOTH, "--format", "json") == 0
    record = json.loads(capsys.readouterr().out)
    assert list(record["audits"]) == ["w2v-gnews-26k", "glove-6b-50d"] and record["audits"]["glove-6b-50d"]["embeddings"] == "glove-6b-50d"
    agreement = record["across_embeddings"]
    assert (agreement["n_agree"], agreement["n_comparisons"]) == (6, 6) and len(agreement["conclusions"]) == 12


def test_the_flag_twice_is_an_error(toy_files, capsys):
    with pytest.raises(SystemExit) as stopped:
        _cli(toy_files, "--embeddings", "w2v-gnews-26k", "--embeddings", "glove-6b-50d")
    assert stopped.value.code == 2
    assert "--embeddings: given twice" in capsys.readouterr().err


def test_two_paths_to_one_embedding_are_an_error(toy_files, tmp_path, capsys):
    from irfair.embeddings import load_embeddings

    saved = load_embeddings("glove-6b-50d").save(tmp_path / "vectors")
    assert _cli(toy_files, "--embeddings", f"glove-6b-50d,{saved}") == 2
    assert "are glove-6b-50d, given before: give each once" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["w2v-gnews-26k,", "glove-6b-50d,glove-6b-50d", ""])
def test_bad_lists(value):
    with pytest.raises(IrfairInputError, match="expected one or more distinct embeddings"):
        split_embeddings(value)


def test_vaswani_disagreements_are_those_of_the_two_verdicts(shared_data):
    """On Vaswani, w2v finds no system above the perfect run and glove finds glove_add above it; the agreement says
    exactly that, and every comparison it lists as differing has different conclusions in the two audits."""
    folder = shared_data / "vaswani"
    runs = sorted(str(p) for p in (ROOT / "runs" / "vaswani").glob("*.run"))
    results = audit_embeddings(runs, folder / "qrels", folder / "query-text.trec", folder / "corpus", BOTH)
    frame = conclusions(results).pivot(index="comparison", columns="embeddings", values="conclusion")
    assert len(frame) == 55  # 10 systems against the perfect run, 45 pairs
    assert frame.loc["glove_add vs perfect"].to_dict() == {"w2v-gnews-26k": "does not differ", "glove-6b-50d": "above"}
    assert results["w2v-gnews-26k"]["glove_add"].delta_gsr_decision == "does not differ"
    assert results["glove-6b-50d"]["glove_add"].delta_gsr_decision == "differs"
    differ = frame[frame.nunique(axis=1) > 1]
    [line] = agreement_lines(results)
    assert f"agree on {55 - len(differ)} of 55 comparisons" in line and "glove_add vs perfect: w2v-gnews-26k does not differ" in line
