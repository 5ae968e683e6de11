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


# the test files that take longest (seconds of test time on 2 cores, 2026-11-27: 97, 91, 55, 48, 46, 33, 24, 17, 17,
# 13), collected first: with `--dist loadfile --no-loadscope-reorder` (make test) they go to the workers first
# instead of last (xdist otherwise orders files by their number of tests, and the study's 3 tests started when
# everything else was done)
SLOW_FILES = ("test_docs.py", "test_study.py", "test_rankers_lexical.py", "test_faults_os.py", "test_faults.py",
              "test_hooks.py", "test_robust04_routes.py", "test_audit_across_embeddings.py", "test_cli_demo.py",
              "test_packaging.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FILES)))  # stable: the rest keep their order


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
