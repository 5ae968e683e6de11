"""Every number a user gives is checked by one rule whatever its source (irfair.bounds): the flag, the Python
argument and ``result.check`` refuse the same values in the same words, before any work; numpy scalars are
numbers; sizes that cannot fit in memory are refused before the work, with the size they would need."""
from __future__ import annotations

import numpy as np
import pytest
from faults_data import run_cli

from irfair.audit.comparisons import Inference
from irfair.bounds import BOUNDS, checked, fits_in_memory, parsed
from irfair.errors import IrfairInputError

# number -> values no source may give (each is a member of a class: too large, negative, not an integer, not finite)
BAD = {
    "bootstrap": ["-1", "99999999999999999999", "1000001", "2.5", "1e3", "ten"],
    "permutations": ["-1", "100000000", "99999999999999999999", "0.5", "nan"],
    "seed": ["-1", "4294967296", "1.5", "99999999999999999999"],
    "alpha": ["0", "1", "5", "-1", "nan", "inf", "-inf", "x"],
}
FLAGS = {"bootstrap": "--bootstrap", "permutations": "--permutations", "seed": "--seed", "alpha": "--alpha"}
PYTHON = {"bootstrap": "n_bootstrap", "permutations": "n_permutations", "seed": "seed", "alpha": "alpha"}


def _python_value(text: str):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


@pytest.mark.parametrize(("name", "text"), [(n, t) for n, values in BAD.items() for t in values])
def test_the_flag_and_the_python_argument_refuse_the_same_values(tmp_path, name, text):
    expected = BOUNDS[name].expected
    code, printed, err = run_cli(["audit", "no-such.run", "--qrels", "q", "--out", tmp_path / "out", f"{FLAGS[name]}={text}"])
    assert (code, printed) == (2, "") and err.startswith(f"irfair: error: argument {FLAGS[name]}: expected {expected}, found")
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()
    value = _python_value(text)
    with pytest.raises(IrfairInputError, match=f"^{PYTHON[name]}=.*: expected {expected}".replace("(", r"\(").replace(")", r"\)")):
        Inference(**{PYTHON[name]: value})


def test_numpy_scalars_are_numbers_and_bools_are_not():
    inference = Inference(n_bootstrap=np.int32(100), n_permutations=np.int64(200), seed=np.uint32(7), alpha=np.float32(0.25))
    assert (inference.n_bootstrap, inference.n_permutations, inference.seed, inference.alpha) == (100, 200, 7, 0.25)
    assert all(type(v) in (int, float) for v in (inference.n_permutations, inference.seed, inference.alpha))
    for bad in ({"n_permutations": True}, {"seed": 1.0}, {"alpha": "0.05"}, {"n_bootstrap": np.float64(10)}):
        with pytest.raises(IrfairInputError, match="expected"):
            Inference(**bad)


def test_parsing_and_checking_agree_at_the_edges():
    assert parsed("seed", "4294967295") == checked("seed", 4294967295) == 4294967295
    assert parsed("permutations", " 10000000 ") == 10_000_000 and parsed("alpha", "0.05") == checked("alpha", 0.05) == 0.05
    with pytest.raises(ValueError, match="expected an integer from 0 to 10,000,000"):
        parsed("permutations", "10000001")


def test_what_cannot_fit_in_memory_is_refused_with_its_size():
    fits_in_memory("ten bytes", 10, "ask for less")
    with pytest.raises(IrfairInputError, match=r"^1024.0 GiB of permutations would need 1024.0 GiB of memory, more than half"):
        fits_in_memory("1024.0 GiB of permutations", 2**40, "ask for fewer")
