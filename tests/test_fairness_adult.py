import math

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.fairness.adult import adult_case_study, load_adult


def test_load_adult(shared_data):
    train = load_adult(shared_data / "adult" / "adult.data")
    test = load_adult(shared_data / "adult" / "adult.test")
    assert len(train) == 32_561 and len(test) == 16_281
    assert set(train["race"]) == {"White", "Black", "Asian-Pac-Islander", "Other"}
    assert set(train["nationality"]) == {"United-States", "other"}
    assert train["label"].sum() == 7_841 and test["label"].sum() == 3_846


def test_adult_case_study(shared_data):
    table = adult_case_study(shared_data / "adult")
    assert len(table) == 7 and table.index[-1] == "race × sex × nationality"
    train = load_adult(shared_data / "adult" / "adult.data")
    rates = train.groupby("sex")["label"].mean()
    by_hand = max(abs(math.log(rates["Male"] / rates["Female"])), abs(math.log((1 - rates["Male"]) / (1 - rates["Female"]))))
    assert table.loc["sex", "train data ε (α=0)"] == pytest.approx(by_hand)
    assert np.allclose(table["LR with protected amplification"],
                       table["LR with protected ε"] - table["test data ε (α=1)"])
    assert table.attrs["LR with protected accuracy"] > 0.84
    # intersections are never fairer than their parts
    assert table.loc["race × sex", "train data ε (α=0)"] >= table.loc["sex", "train data ε (α=0)"]


def test_bad_adult_file(tmp_path):
    path = tmp_path / "adult.data"
    path.write_text("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, "
                    "2174, 0, 40, United-States, lots\n")
    with pytest.raises(IrfairInputError, match="income must be"):
        load_adult(path)
