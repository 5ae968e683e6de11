import codecs
import json
import re

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
    printed = _one_line(capsys.readouterr().out)
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
    return json.loads(out.read_text()), _one_line(captured.out)


def _one_line(printed):
    """The printed text with every run of white space as one space (sentences are wrapped at 100 columns)."""
    return " ".join(printed.split())


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
    result, printed = _audit(tmp_path, capsys, csv, "--multiclass")
    # TPR gaps F − M: a 1 − 1, b 1 − 0, c 0 − 1
    assert [result["gaps"]["per_class"][c]["TPR"] for c in "abc"] == [0.0, 1.0, -1.0]
    # one table per class, each class against the rest; class c: F selects 0 of 3, M 2 of 3 → F's ratio 0, flagged
    assert [printed.count(f"class '{c}' group rate") for c in "abc"] == [1, 1, 1]
    assert result["positive_class"] is None and list(result["group_rates"]) == ["a", "b", "c"]
    impact = result["disparate_impact"]["c"]
    assert impact["reference_group"] == "M" and impact["reference_selection_rate"] == pytest.approx(2 / 3)
    assert impact["by_group"]["F"] == {"selection_rate": 0.0, "ratio": 0.0, "below_four_fifths": True}


# 1 of 2 (F's TPR): center 0.5, half-width z/(1 + z²/2)·sqrt(1/8 + z²/16) = 0.405469; 2 of 2 (M's TPR):
# [1/(1 + z²/2), 1] = [0.342380, 1]; 0 of 2 (M's FPR): [0, (z²/2)/(1 + z²/2)] = [0, 0.657620] (z² = 3.841459).
def test_binary_task_is_one_table_with_counts_intervals_and_the_four_fifths_rule(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["fairness", str(_gender_csv(tmp_path / "g.csv")), "--label", "y", "--prediction", "yhat", "--groups", "gender",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    assert result["positive_class"] == "1" and list(result["group_rates"]) == ["1"]
    assert printed.count("class '1'\n") == 1 and "class '0'\n" not in printed  # each rate once, for class 1
    rates = result["group_rates"]["1"]
    assert rates["F"]["TPR"] == pytest.approx({"rate": 0.5, "k": 1, "n": 2, "n_counts": "positives",
                                               "ci_low": 0.094531, "ci_high": 0.905469}, abs=1e-6)
    assert (rates["M"]["TPR"]["ci_low"], rates["M"]["TPR"]["ci_high"]) == pytest.approx((0.342380, 1.0), abs=1e-6)
    assert (rates["M"]["FPR"]["k"], rates["M"]["FPR"]["n"], rates["M"]["FPR"]["ci_high"]) == pytest.approx((0, 2, 0.657620), abs=1e-6)
    assert re.search(r"^F +PPR +0\.5000 .+ 2 +4 +rows +0\.0000 +1\.0000$", printed, re.M)
    assert re.search(r"^ +TPR +0\.5000 +0\.0945 +0\.9055 +1 +2 +positives +-0\.5000$", printed, re.M)
    assert re.search(r"^ +FPR +0\.0000 +0\.0000 +0\.6576 +0 +2 +negatives +-$", printed, re.M)
    # both select 2 of 4: a tie, the first group is the reference, ratios 1, nothing flagged
    impact = result["disparate_impact"]["1"]
    assert impact["reference_group"] == "F" and impact["threshold"] == 0.8
    assert [impact["by_group"][g]["ratio"] for g in "FM"] == [1.0, 1.0] and "  < 4/5" not in printed
    assert "every group's ratio to it is at least 0.8" in _one_line(printed)
    # every number of every table with 4 decimals (0.8, the rule's threshold, is text)
    assert {len(number.split(".")[1]) for number in re.findall(r"\d+\.\d+", printed) if number != "0.8"} == {4}


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
    assert "White being the largest group (13,946 rows)" in _one_line(printed)
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
    # the positive class is '>50K' ('<=50K' < '>50K'), printed once; Amer-Indian-Eskimo's TPR rests on 3 of 19
    # positives, Wilson [0.055205, 0.375655] (worked out in test_fairness_intervals.py)
    result = json.loads(out.read_text())
    assert result["positive_class"] == ">50K" and list(result["group_rates"]) == [">50K"]
    tpr_entry = result["group_rates"][">50K"]["Amer-Indian-Eskimo"]["TPR"]
    positives = [r for r in rows if r[0] == "Amer-Indian-Eskimo" and r[2] == ">50K"]
    assert (tpr_entry["k"], tpr_entry["n"]) == (sum(r[3] == ">50K" for r in positives), len(positives)) == (3, 19)
    assert (tpr_entry["ci_low"], tpr_entry["ci_high"]) == pytest.approx((0.055205, 0.375655), abs=1e-6)
    assert re.search(r"^ +TPR +0\.1579 +0\.0552 +0\.3757 +3 +19 +positives +-0\.3381$", printed, re.M)
    # four-fifths: every race's selection rate over Asian-Pac-Islander's, the highest, counted from the rows
    impact = result["disparate_impact"][">50K"]
    highest = max(races, key=ppr)
    assert impact["reference_group"] == highest == "Asian-Pac-Islander"
    for race in races:
        assert impact["by_group"][race]["ratio"] == pytest.approx(ppr(race) / ppr(highest))
        assert impact["by_group"][race]["below_four_fifths"] == (ppr(race) / ppr(highest) < 0.8)
    assert printed.startswith("four-fifths rule, class '>50K': highest selection rate Asian-Pac-Islander 0.4292; below 0.8 of "
                              "it:\n  Amer-Indian-Eskimo 0.2345, Black 0.3612, Other 0.4315, White 0.5938\n")


def test_long_group_names_are_cut_in_the_table_not_in_the_json(tmp_path, capsys):
    long_name = "Native Hawaiian or Other Pacific Islander"  # 41 characters
    csv = tmp_path / "long.csv"
    csv.write_text("group,y,yhat\n" + "".join(f"{g},1,{p}\n" for g in (long_name, "B", "C") for p in (1, 0)))
    out = tmp_path / "out.json"
    assert main(["fairness", str(csv), "--label", "y", "--prediction", "yhat", "--groups", "group", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert captured.err == "" and max(map(len, printed.splitlines())) <= 100
    assert re.search(r"^Native Hawaiian or[^\n]*… +PPR +0\.5000 ", printed, re.M)  # the rates table's row, cut
    assert long_name in json.loads(out.read_text())["group_rates"]["1"]
