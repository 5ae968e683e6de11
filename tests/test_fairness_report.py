import json

import pytest

from irfair.cli import main


def _admissions_csv(path):
    cells = {("A", 1): (81, 87), ("B", 1): (234, 270), ("A", 2): (192, 263), ("B", 2): (55, 80)}
    lines = ["gender,race,admitted,predicted,score"]
    for (gender, race), (admitted, total) in cells.items():
        lines += [f"{gender},{race},1,1,0.9"] * admitted + [f"{gender},{race},0,1,0.4"] * (total - admitted)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_fairness_command(tmp_path, capsys):
    csv = _admissions_csv(tmp_path / "pred.csv")
    out = tmp_path / "result.json"
    assert main(["fairness", str(csv), "--label", "admitted", "--prediction", "predicted", "--score", "score",
                 "--groups", "gender,race", "--alpha", "0", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "GapRMS" in printed
    result = json.loads(out.read_text())
    assert result["epsilon"]["gender × race"]["epsilon_data"] == pytest.approx(1.511, abs=5e-4)
    assert result["epsilon"]["gender"]["epsilon_data"] == pytest.approx(0.2329, abs=5e-5)
    # everyone predicted admitted: TPR 1 in both groups, FPR 1 in both groups → gaps 0 for class 1
    assert result["gaps"]["per_class"]["1"] == {"PPR": 0.0, "TPR": 0.0, "FPR": 0.0}
    # mean score: A (273 admitted of 350) vs B (289 of 350)
    assert result["mean_score_by_group"]["A"] == pytest.approx((273 * 0.9 + 77 * 0.4) / 350)


@pytest.mark.parametrize(
    "content, args, message",
    [
        ("gender,admitted,predicted\nA,1,1\n", ["--groups", "race"], "1: missing column 'race'"),
        ("gender,admitted,predicted\nA,1,1\n,0,1\n", ["--groups", "gender"], "3: empty value in column 'gender'"),
        ("gender,admitted,predicted\nA,1,1\nB,0,1\nC,0,0\n", ["--groups", "gender"], "gaps need a two-valued group column"),
        ("", ["--groups", "gender"], "empty predictions file"),
        ("gender,admitted,predicted,score\nA,1,1,high\n", ["--groups", "gender", "--score", "score"], "2: score column"),
    ],
)
def test_bad_predictions_csv(tmp_path, capsys, content, args, message):
    csv = tmp_path / "bad.csv"
    csv.write_text(content)
    assert main(["fairness", str(csv), "--label", "admitted", "--prediction", "predicted", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(csv) in err
