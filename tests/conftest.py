"""Shared fixtures: paths into ../shared/data (tests only) and small hand-built embeddings."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import hand_embeddings

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TIME = SHARED_DATA / "time"


_SESSION_HOMES = {}


def pytest_configure(config):
    """Before any test module is imported: a fresh default cache folder (never the user's ~/.cache/irfair)
    and a fresh ir_datasets home (never ~/.ir_datasets; ir_datasets reads it once, at its import)."""
    for variable in ("IRFAIR_CACHE", "IR_DATASETS_HOME"):
        _SESSION_HOMES[variable] = Path(tempfile.mkdtemp(prefix=f"irfair-test-{variable.lower()}-"))
        os.environ[variable] = str(_SESSION_HOMES[variable])


def pytest_unconfigure(config):
    for folder in _SESSION_HOMES.values():
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def default_cache_dir() -> Path:
    """The default cache folder of this test session."""
    return _SESSION_HOMES["IRFAIR_CACHE"]


@pytest.fixture(scope="session")
def ir_datasets_home() -> Path:
    """ir_datasets' home of this test session."""
    return _SESSION_HOMES["IR_DATASETS_HOME"]


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
