import codecs
import json

import pandas as pd
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
    assert "GapRMS" in printed and "rate(A) − rate(B)" in printed and "sorted order" in printed
    result = json.loads(out.read_text())
    assert result["epsilon"]["gender × race"]["epsilon_data"] == pytest.approx(1.511, abs=5e-4)
    assert result["epsilon"]["gender"]["epsilon_data"] == pytest.approx(0.2329, abs=5e-5)
    # everyone predicted admitted: TPR 1 in both groups, FPR 1 in both groups → gaps 0 for class 1
    assert result["gaps"]["per_class"]["1"] == {"PPR": 0.0, "TPR": 0.0, "FPR": 0.0}
    # mean score: A (273 admitted of 350) vs B (289 of 350)
    assert result["mean_score_by_group"]["A"] == pytest.approx((273 * 0.9 + 77 * 0.4) / 350)
    assert (result["gaps"]["protected_group"], result["gaps"]["reference_group"]) == ("A", "B")


# class 1: TPR F 1/2, M 2/2 → −0.5; FPR F 1/2, M 0/2 → 0.5; PPR F 2/4, M 2/4 → 0. Class 0 mirrors it:
# TPR −0.5, FPR 0.5, PPR 0. GapRMS: PPR 0, TPR 0.5, FPR 0.5 (female − male).
ROWS = [("1", "1", "0.9"), ("1", "0", "0.4"), ("0", "0", "0.2"), ("0", "1", "0.7"),
        ("1", "1", "0.8"), ("1", "1", "0.9"), ("0", "0", "0.1"), ("0", "0", "0.3")]


def _gender_csv(path, female="F", male="M", encoding="utf-8", label_values=None):
    lines = ["gender,y,yhat,p"]
    for i, (y, y_hat, p) in enumerate(ROWS):
        if label_values:
            y = label_values.get(y, y)
        lines.append(f"{female if i < 4 else male},{y},{y_hat},{p}")
    path.write_bytes("\n".join(lines).encode(encoding) + b"\n")
    return path


def _audit(tmp_path, capsys, csv, *extra):
    out = tmp_path / "out.json"
    code = main(["fairness", str(csv), "--label", "y", "--prediction", "yhat", "--groups", "gender", "--json", str(out), *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(out.read_text()), captured.out


@pytest.mark.parametrize("female, male", [("F", "M"), ("she", "he"), ("female", "male"), ("Woman", "Man")])
def test_gaps_are_female_minus_male_by_default(tmp_path, capsys, female, male):
    result, printed = _audit(tmp_path, capsys, _gender_csv(tmp_path / "g.csv", female, male))
    assert (result["gaps"]["protected_group"], result["gaps"]["reference_group"]) == (female, male)
    assert result["gaps"]["per_class"]["1"] == pytest.approx({"PPR": 0.0, "TPR": -0.5, "FPR": 0.5})
    assert result["gaps"]["gap_rms"] == pytest.approx({"PPR": 0.0, "TPR": 0.5, "FPR": 0.5})
    assert f"rate({female}) − rate({male}), female − male" in printed


def test_reference_and_protected_groups(tmp_path, capsys):
    csv = _gender_csv(tmp_path / "g.csv", "she", "he")
    result, printed = _audit(tmp_path, capsys, csv, "--protected-group", "he")
    assert result["gaps"]["per_class"]["1"] == pytest.approx({"PPR": 0.0, "TPR": 0.5, "FPR": -0.5})
    assert "rate(he) − rate(she), as given" in printed
    result, _ = _audit(tmp_path, capsys, csv, "--reference-group", "she")
    assert result["gaps"]["protected_group"] == "he"


def test_score_naming_the_prediction_column_corrupts_nothing(tmp_path, capsys):
    csv = _gender_csv(tmp_path / "g.csv")
    plain, _ = _audit(tmp_path, capsys, csv)
    scored, _ = _audit(tmp_path, capsys, csv, "--score", "yhat")
    assert scored["gaps"] == plain["gaps"] and scored["epsilon"] == plain["epsilon"]
    assert list(scored["gaps"]["per_class"]) == ["0", "1"]
    # mean of the predictions themselves: F (1 + 0 + 0 + 1) / 4, M (1 + 1 + 0 + 0) / 4
    assert scored["mean_score_by_group"] == {"F": 0.5, "M": 0.5}


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"])
def test_encodings_with_a_byte_order_mark(tmp_path, capsys, encoding):
    csv = tmp_path / "g.csv"
    text = _gender_csv(tmp_path / "plain.csv").read_text()
    csv.write_bytes((codecs.BOM_UTF16_BE if encoding == "utf-16-be" else b"") + text.encode(encoding))
    result, _ = _audit(tmp_path, capsys, csv)
    assert result["gaps"]["gap_rms"] == pytest.approx({"PPR": 0.0, "TPR": 0.5, "FPR": 0.5})


def test_spaces_around_values_are_not_new_classes(tmp_path, capsys):
    csv = tmp_path / "g.csv"
    csv.write_text(_gender_csv(tmp_path / "plain.csv").read_text().replace(",1,", ", 1 ,"))
    result, _ = _audit(tmp_path, capsys, csv)
    assert result["classes"] == ["0", "1"] and result["gaps"]["gap_rms"]["TPR"] == pytest.approx(0.5)


def test_positive_maps_one_value_against_the_rest(tmp_path, capsys):
    csv = _gender_csv(tmp_path / "g.csv", label_values={"1": "yes", "0": "no"})
    csv.write_text(csv.read_text().replace(",1,", ",yes,").replace(",0,", ",no,"))
    result, printed = _audit(tmp_path, capsys, csv, "--positive", "yes")
    assert result["classes"] == ["yes", "not yes"] and result["positive"] == "yes"
    assert result["gaps"]["per_class"]["yes"] == pytest.approx({"PPR": 0.0, "TPR": -0.5, "FPR": 0.5})
    assert "classes 'yes' vs the rest" in printed


def test_multiclass(tmp_path, capsys):
    csv = tmp_path / "m.csv"
    csv.write_text("gender,y,yhat\nF,a,a\nF,b,b\nF,c,a\nM,a,a\nM,b,c\nM,c,c\n")
    result, _ = _audit(tmp_path, capsys, csv, "--multiclass")
    # TPR gaps F − M: a 1 − 1, b 1 − 0, c 0 − 1
    assert [result["gaps"]["per_class"][c]["TPR"] for c in "abc"] == [0.0, 1.0, -1.0]


GOOD = "gender,y,yhat,p\nF,1,1,0.5\nM,0,0,0.5\n"


@pytest.mark.parametrize(
    "content, args, message, names_file",
    [
        (b"gender,y,yhat\nF,1,1\nM,0,1\n", ["--groups", "race"], "1: missing column 'race'", True),
        (b"gender,y,yhat\nF,1,1\n,0,1\n", ["--groups", "gender"], "3: column 'gender': missing value ''", True),
        (b"gender,y,yhat\nF,1,1\nM,NaN,1\n", ["--groups", "gender"], "3: column 'y': missing value 'NaN'", True),
        (b"gender,y,yhat\nF,1,1\nM,0,0\nF,yes,1\n", ["--groups", "gender"], "4: column 'y' holds a third value 'yes'", True),
        (b"gender,y,yhat\nF,1,1\nM,0,0\nF,1,1.0\n", ["--groups", "gender"], "4: column 'yhat' holds a third value '1.0'", True),
        (b"gender,y,yhat\nF,1,1\nF,0,1\n", ["--groups", "gender"], "gaps need a group column with two or more values", True),
        (b"gender,y,yhat\nF,1,1\nM,0,1\nX,0,0\n", ["--groups", "gender", "--reference-group", "Y"],
         "--reference-group 'Y' is not a value of column 'gender' ('F', 'M', 'X')", True),
        (b"gender,y,yhat\nF,1,1\nM,0,1\nF,0,0\nX,0,0\n", ["--groups", "gender", "--protected-group", "F"],
         "the protected and reference groups must differ (both 'F'); the reference defaults to the largest group", False),
        (b"", ["--groups", "gender"], "empty predictions file", True),
        (b"gender,y,yhat\n", ["--groups", "gender"], "header but no rows", True),
        (b"gender,y,yhat,p\nF,1,1,high\nM,0,0,1\n", ["--groups", "gender", "--score", "p"], "2: column 'p': score 'high' is not",
         True),
        (b"gender,y,yhat,p\nF,1,1,0.5\nM,0,0,inf\n", ["--groups", "gender", "--score", "p"], "3: column 'p': score 'inf' is not finite",
         True),
        (b"gender,y,yhat,p\nF,1,1,0.5\nM,0,0,nan\n", ["--groups", "gender", "--score", "p"], "3: column 'p': missing value 'nan'", True),
        (b"gender,y,yhat\nF,1,1\nM,0\n", ["--groups", "gender"], "3: 2 fields where the header has 3", True),
        (b"gender,y,y\nF,1,1\n", ["--groups", "gender"], "1: column 'y' appears twice in the header", True),
        (b"gender;y;yhat\nF;1;1\n", ["--groups", "gender"], "separated by ';' or tabs", True),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["--groups", "gender"], "not UTF-8 text (byte 0x89 at offset 0)", True),
        (b"gender,y,yhat\nF,1,1\x00\n", ["--groups", "gender"], "2: binary data (NUL character)", True),
        ("gender,y,yhat\nFemme,1,1\nHomme,0,0\n".encode("utf-16-le"), ["--groups", "gender"], "binary data", True),
        ("gender,y,yhat\nFrançoise,1,1\nM,0,0\n".encode("latin-1"), ["--groups", "gender"], "2: not UTF-8 text (byte 0xe7", True),
        (GOOD.encode(), ["--groups", ""], "--groups needs at least one column name", False),
        (GOOD.encode(), ["--groups", " , "], "--groups needs at least one column name", False),
        (GOOD.encode(), ["--groups", "gender,"], "has an empty column name", False),
        (GOOD.encode(), ["--groups", "gender,gender"], "--groups names column 'gender' twice", False),
        (GOOD.encode(), ["--groups", "gender", "--alpha", "nan"], "--alpha must be a finite number >= 0, not 'nan'", False),
        (GOOD.encode(), ["--groups", "gender", "--alpha", "inf"], "--alpha must be a finite number >= 0", False),
        (GOOD.encode(), ["--groups", "gender", "--alpha", "-1"], "--alpha must be a finite number >= 0", False),
        (GOOD.encode(), ["--groups", "gender", "--alpha", "lots"], "--alpha must be a finite number >= 0, not 'lots'", False),
        (GOOD.encode(), ["--groups", "gender", "--protected-group", "W"],
         "--protected-group 'W' is not a value of column 'gender' ('F', 'M')", True),
        (GOOD.encode(), ["--groups", "gender", "--reference-group", "m"], "--reference-group 'm' is not a value", True),
        (GOOD.encode(), ["--groups", "gender", "--protected-group", "F", "--reference-group", "F"], "must differ", False),
        (GOOD.encode(), ["--groups", "gender", "--positive", "yes"], "--positive 'yes' occurs in neither column 'y' nor 'yhat'", True),
        (GOOD.encode(), ["--groups", "gender", "--positive", "1", "--multiclass"], "exclude each other", False),
        (GOOD.encode(), ["--groups", "gender", "--gap-group", "race"], "missing column 'race'", True),
    ],
)
def test_bad_predictions_csv(tmp_path, capsys, content, args, message, names_file):
    csv = tmp_path / "bad.csv"
    csv.write_bytes(content)
    out = tmp_path / "out.json"
    assert main(["fairness", str(csv), "--label", "y", "--prediction", "yhat", "--json", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("irfair: error: ") and message in err, err
    assert (str(csv) in err) == names_file
    assert not out.exists()


@pytest.mark.parametrize("target, message", [("missing/out.json", "does not exist (it is not created)"), (".", "is a folder")])
def test_json_path_is_checked_before_any_work(tmp_path, capsys, target, message):
    csv = _gender_csv(tmp_path / "g.csv")
    assert main(["fairness", str(csv), "--label", "y", "--prediction", "yhat", "--groups", "gender",
                 "--json", str(tmp_path / target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("make, message", [(lambda p: None, "predictions file not found"), (lambda p: p.mkdir(), "is not a file")])
def test_predictions_path(tmp_path, capsys, make, message):
    path = tmp_path / "preds.csv"
    make(path)
    assert main(["fairness", str(path), "--label", "y", "--prediction", "yhat", "--groups", "gender"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(path) in err


def test_json_keys_never_collide_silently():
    from irfair.errors import IrfairInputError
    from irfair.fairness.gaps import statistical_gaps
    from irfair.fairness.report import ClassificationAudit

    # classes 1 and "1" are two classes in the API but one key in JSON
    gaps = statistical_gaps([1, "1"], [1, "1"], ["F", "M"])
    audit = ClassificationAudit(pd.DataFrame(), gaps, "gender", None, 2, [1, "1"], None)
    with pytest.raises(IrfairInputError, match="two class keys are both written '1'"):
        audit.to_dict()


def _adult_predictions(shared_data, path):
    """UCI Adult's test split as a predictions CSV: label = income, prediction = ">50K" for education_num >= 13
    (a rule, so that the rates can be counted by hand), race as it is in the file (five values)."""
    rows = ["race,sex,income,predicted"]
    for line in (shared_data / "adult" / "adult.test").read_text().splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 15:
            prediction = ">50K" if int(fields[4]) >= 13 else "<=50K"
            rows.append(f"{fields[8]},{fields[9]},{fields[14].rstrip('.')},{prediction}")
    path.write_text("\n".join(rows) + "\n")
    return path, [r.split(",") for r in rows[1:]]


def test_race_on_adult_gives_every_values_rates_gaps_and_the_spread(shared_data, tmp_path, capsys):
    csv, rows = _adult_predictions(shared_data, tmp_path / "adult.csv")
    out = tmp_path / "race.json"
    assert main(["fairness", str(csv), "--label", "income", "--prediction", "predicted", "--groups", "race", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    races = sorted({r[0] for r in rows})
    assert races == ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]
    for race in races:
        assert race in printed
    assert "White being the largest group (13,946 rows)" in printed
    gaps = json.loads(out.read_text())["gaps"]
    assert gaps["groups"] == races and gaps["reference_group"] == "White"

    def ppr(race):  # share predicted >50K, counted from the rows
        mine = [r for r in rows if r[0] == race]
        return sum(r[3] == ">50K" for r in mine) / len(mine)

    def tpr(race):
        mine = [r for r in rows if r[0] == race and r[2] == ">50K"]
        return sum(r[3] == ">50K" for r in mine) / len(mine)

    for race in races:
        entry = gaps["by_group"][race]
        assert entry["n_rows"] == sum(r[0] == race for r in rows)
        assert entry["rates"][">50K"]["PPR"] == pytest.approx(ppr(race))
        if race != "White":
            assert entry["gaps"][">50K"]["PPR"] == pytest.approx(ppr(race) - ppr("White"))
            assert entry["gaps"][">50K"]["TPR"] == pytest.approx(tpr(race) - tpr("White"))
    assert "gaps" not in gaps["by_group"]["White"]
    assert gaps["spread"][">50K"]["PPR"] == pytest.approx(max(map(ppr, races)) - min(map(ppr, races)))
    assert max(map(len, printed.splitlines())) <= 100
