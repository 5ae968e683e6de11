"""Causal gaps and CDA on real biographies (BiasBios sample in ../shared/data)."""
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from irfair.fairness import augment, causal_gaps_from_model

OCCUPATIONS = ["nurse", "dietitian", "paralegal", "surgeon", "software_engineer", "architect", "physician", "professor",
               "accountant", "attorney", "teacher", "psychologist"]


@pytest.fixture(scope="module")
def bios(shared_data):
    return pd.concat([pd.read_csv(shared_data / "biasbios_sample" / f"{o}.csv") for o in OCCUPATIONS], ignore_index=True)


def _classifier(texts, labels):
    vectorizer = CountVectorizer(token_pattern=r"(?u)\b\w+\b", binary=True)
    return make_pipeline(vectorizer, LogisticRegression(C=1.0, max_iter=5000)).fit(texts, labels)


def test_cda_removes_the_causal_effect_of_gender_words(bios):
    assert len(bios) == 120 and set(bios["gender"]) == {"Female", "Male"}
    train, test = bios[bios.index % 2 == 0], bios[bios.index % 2 == 1]
    plain = _classifier(train["hard_text"].tolist(), train["profession"].tolist())
    args = (test["hard_text"].tolist(), test["profession"].tolist(), test["gender"].tolist())
    before = causal_gaps_from_model(plain.predict, *args)
    augmented = augment(train["hard_text"].tolist(), train["profession"].tolist(), train["gender"].tolist())
    assert len(augmented) == 2 * len(train) and augmented["is_counterfactual"].sum() == len(train)
    debiased = _classifier(augmented["text"].tolist(), augmented["label"].tolist())
    after = causal_gaps_from_model(debiased.predict, *args)
    # the plain model changes some predictions when only gender words change
    assert before.gap_rms["PPR"] > 0.05 and before.gap_rms["TPR"] > 0.1
    # trained on both versions of every bio, paired words get equal weights: swapping changes nothing
    assert after.gap_rms == {"PPR": 0.0, "TPR": 0.0, "FPR": 0.0}
