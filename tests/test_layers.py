"""The package's layout stays true: stages import only downward and no import cycle exists (import-linter
contracts in pyproject.toml), proven also to fail on an upward import."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(package_root: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(package_root), "PATH": "/usr/bin:/bin"}
    return subprocess.run([str(LINT), "--no-cache", "--config", str(ROOT / "pyproject.toml")], cwd=package_root,
                          capture_output=True, text=True, env=env)


def test_import_contracts_are_kept():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout[-2000:]
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    shutil.copytree(ROOT / "irfair", tmp_path / "irfair", ignore=shutil.ignore_patterns("__pycache__"))
    trec = tmp_path / "irfair" / "trec" / "__init__.py"
    trec.write_text(trec.read_text() + "\n\ndef _upward():\n    from ..audit import audit\n\n    return audit\n")
    result = _lint(tmp_path)
    assert result.returncode == 1
    assert "2 broken" in result.stdout  # an upward import, and with it a cycle (audit imports trec)
    assert "irfair.trec -> irfair.audit" in result.stdout and ".trec -> .audit" in result.stdout
