"""Shared fixtures: paths into ../shared/data (tests only) and small hand-built embeddings."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import hand_embeddings

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TIME = SHARED_DATA / "time"


@pytest.fixture(scope="session", autouse=True)
def default_cache_dir(tmp_path_factory) -> Path:
    """The default cache folder of every test session: a fresh one, never the user's ~/.cache/irfair."""
    folder = tmp_path_factory.mktemp("default-cache")
    os.environ["IRFAIR_CACHE"] = str(folder)
    return folder


@pytest.fixture(scope="session", autouse=True)
def ir_datasets_home(tmp_path_factory) -> Path:
    """ir_datasets' home of every test session: a fresh one, never the user's ~/.ir_datasets. ir_datasets
    reads it once, at its import, so it is set before any test runs."""
    folder = tmp_path_factory.mktemp("ir-datasets-home")
    os.environ["IR_DATASETS_HOME"] = str(folder)
    return folder


@pytest.fixture(scope="session")
def shared_data() -> Path:
    assert SHARED_DATA.is_dir(), f"tests need ../shared/data beside the checkout ({SHARED_DATA})"
    return SHARED_DATA


@pytest.fixture(scope="session")
def w2v():
    from irfair.embeddings import load_embeddings

    return load_embeddings("w2v-gnews-26k")


@pytest.fixture(scope="session")
def glove():
    from irfair.embeddings import load_embeddings

    return load_embeddings("glove-6b-50d")


@pytest.fixture()
def hand():
    return hand_embeddings()
