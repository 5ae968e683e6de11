"""Executors return results in input order wherever the work runs, and refuse bad settings in one line."""
import pytest

from irfair.errors import IrfairInputError
from irfair.executor import executor


def _square(x):
    return x * x


@pytest.mark.parametrize("jobs", [1, 2])
def test_local_executors_keep_input_order(jobs):
    with executor(jobs) as ordered_map:
        assert list(ordered_map(_square, range(20))) == [x * x for x in range(20)]


def test_bad_settings_are_input_errors(monkeypatch):
    monkeypatch.delenv("IRFAIR_SCHEDULER", raising=False)
    with pytest.raises(IrfairInputError, match="^jobs=0: expected a positive integer$"):
        with executor(0):
            pass
    with pytest.raises(IrfairInputError, match="^scheduler='my-cluster': expected 'local' or a Dask scheduler address"):
        with executor(1, "my-cluster"):
            pass
