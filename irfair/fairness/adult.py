"""UCI Adult (census income) as used in Foulds & Pan's differential-fairness case study: loading from
the user's ``adult.data``/``adult.test`` files and the protected attributes race (Amer-Indian-Eskimo
merged into Other), sex and nationality (United-States vs other)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import IrfairInputError, MissingExtraError
from .differential import differential_fairness_table

COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
           "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income"]
NUMERIC = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
PROTECTED = ["race", "sex", "nationality"]


def load_adult(path: str | Path) -> pd.DataFrame:
    """One Adult split (``adult.data`` or ``adult.test``) with ``label`` (1 = income > 50K) and the
    three protected attributes added. Missing values ("?") stay a category of their own."""
    file = Path(path)
    if not file.is_file():
        raise IrfairInputError(file, None, "Adult file not found")
    frame = pd.read_csv(file, header=None, names=COLUMNS, skipinitialspace=True, comment="|", dtype=str)
    frame = frame.dropna(subset=["income"])
    if frame.empty:
        raise IrfairInputError(file, None, "no rows: expected the 15 comma-separated columns of UCI Adult")
    income = frame["income"].str.rstrip(".")
    unknown = ~income.isin([">50K", "<=50K"])
    if unknown.any():
        raise IrfairInputError(file, None, f"income must be >50K or <=50K, found {income[unknown].iloc[0]!r}")
    frame["label"] = (income == ">50K").astype(int)
    for column in NUMERIC:
        frame[column] = pd.to_numeric(frame[column])
    frame["race"] = frame["race"].replace({"Amer-Indian-Eskimo": "Other"})
    frame["nationality"] = np.where(frame["native_country"] == "United-States", "United-States", "other")
    return frame.reset_index(drop=True)


def logistic_regression_predictions(train: pd.DataFrame, test: pd.DataFrame, use_protected: bool, seed: int = 0) -> np.ndarray:
    """Test-set predictions of a logistic regression (one-hot categoricals, standardised numerics),
    trained with or without race, sex and native country as features."""
    try:
        from sklearn.compose import ColumnTransformer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder, StandardScaler
    except ImportError:
        raise MissingExtraError("scikit-learn", "fairness") from None
    excluded = {"income", "label", "nationality"} | (set() if use_protected else {"race", "sex", "native_country"})
    categorical = [c for c in COLUMNS if c not in NUMERIC and c not in excluded]
    transform = ColumnTransformer([
        ("numeric", StandardScaler(), NUMERIC),
        ("categorical", OneHotEncoder(handle_unknown="ignore"), categorical),
    ])
    model = make_pipeline(transform, LogisticRegression(max_iter=2000, random_state=seed))
    model.fit(train, train["label"])
    return model.predict(test)


def adult_case_study(data_dir: str | Path, alpha: float = 1.0) -> pd.DataFrame:
    """ε per attribute subset: training data (empirical and smoothed), test data, and a logistic
    regression with/without protected features on the test split with its amplification."""
    folder = Path(data_dir)
    train, test = load_adult(folder / "adult.data"), load_adult(folder / "adult.test")
    table = pd.DataFrame({
        "train data ε (α=0)": differential_fairness_table(train, "label", PROTECTED, alpha=0.0, outcome_values=[0, 1])["epsilon"],
        f"train data ε (α={alpha:g})":
            differential_fairness_table(train, "label", PROTECTED, alpha=alpha, outcome_values=[0, 1])["epsilon"],
        f"test data ε (α={alpha:g})": differential_fairness_table(test, "label", PROTECTED, alpha=alpha, outcome_values=[0, 1])["epsilon"],
    })
    for use_protected, name in ((True, "LR with protected"), (False, "LR without protected")):
        scored = test.assign(predicted=logistic_regression_predictions(train, test, use_protected))
        epsilon = differential_fairness_table(scored, "predicted", PROTECTED, alpha=alpha, outcome_values=[0, 1])["epsilon"]
        table[f"{name} ε"] = epsilon
        table[f"{name} amplification"] = epsilon - table[f"test data ε (α={alpha:g})"]
        table.attrs[f"{name} accuracy"] = float((scored["predicted"] == scored["label"]).mean())
    return table
