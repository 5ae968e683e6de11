"""The environment ``make install`` builds is the lock's: every distribution in the test environment is in
requirements.lock at the locked version, and every locked package is installed, so two fresh machines test the
same versions. ``make lock`` writes the lock from a clean resolve (its recipe is checked here as make reads it)."""
import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _locked() -> dict[str, str]:
    pins = {}
    for number, line in enumerate(LOCK.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==\S+", line), f"requirements.lock:{number}: not name==version"
            name, version = line.split("==")
            pins[_name(name)] = version
    return pins


def test_the_installed_environment_is_the_lock():
    pins = _locked()
    installed = {_name(d.metadata["Name"]): d.version for d in metadata.distributions() if d.metadata["Name"]}
    installed.pop("irfair", None)  # the checkout itself, installed editable
    assert len(pins) > 100 and pins["numpy"] == installed["numpy"]
    differ = {name: (pins.get(name), version) for name, version in installed.items() if pins.get(name) != version}
    assert not differ, f"installed but not at the locked version (locked, installed): {differ}"
    missing = sorted(set(pins) - set(installed))
    # the docs extra is installed by make docs into the same .venv; a test run without it lacks only those
    assert not [name for name in missing if not name.startswith("mkdocs") and name not in _docs_only()], missing
    assert "mkdocs" not in installed or not missing, missing


def _docs_only() -> set[str]:
    """Packages only the docs extra brings (a test environment built without ``make docs`` may lack them)."""
    return {"babel", "backrefs", "colorama", "ghp-import", "markdown", "mergedeep", "paginate", "pathspec",
            "pymdown-extensions", "pyyaml-env-tag", "watchdog"}
