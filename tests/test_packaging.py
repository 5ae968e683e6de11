"""The package people install: ``python -m build`` makes an sdist and a wheel that carry every file irfair
needs at run time, and irfair runs from the wheel outside the checkout without downloading anything."""
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _tracked(prefix: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", prefix], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [line for line in listed.splitlines() if (ROOT / line).is_file()]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel built from it (``python -m build`` without isolation: no download)."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = out.glob("irfair-*.whl")
    (sdist,) = out.glob("irfair-*.tar.gz")
    return wheel, sdist


def test_wheel_and_sdist_carry_every_runtime_file(dist):
    wheel, sdist = dist
    import tarfile

    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    package_files = [f for f in _tracked("irfair") if "__pycache__" not in f]
    assert any(f.startswith("irfair/data/report/") for f in package_files)  # the list is not empty by mistake
    assert sorted(set(package_files) - in_wheel) == []
    assert sorted(set(package_files) - in_sdist) == []
    assert {"README.md", "LICENSE", "CHANGELOG.md", "pyproject.toml"} <= in_sdist
    metadata = zipfile.ZipFile(wheel).read(f"irfair-{wheel.name.split('-')[1]}.dist-info/METADATA").decode()
    for field in ("License-Expression: MIT", "Classifier: Programming Language :: Python :: 3.11", "Provides-Extra: docs",
                  "Provides-Extra: lucene", "Requires-Python: >=3.11"):
        assert field in metadata


def test_irfair_runs_from_the_wheel_outside_the_checkout(dist, tmp_path, shared_data):
    """The wheel installed into a folder of its own (its dependencies from this environment); run from a folder
    outside the checkout, every command imports irfair from that folder, never from the checkout."""
    wheel, _ = dist
    target = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                                str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}

    def run(*argv, timeout=600):
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    where = run(sys.executable, "-c", "import irfair, irfair.audit; print(irfair.__file__)")
    assert Path(where.strip()).is_relative_to(target)
    version = run(sys.executable, "-c", "import irfair; print(irfair.__version__)").strip()
    assert run(str(target / "bin" / "irfair"), "--version") == f"irfair {version}\n"
    assert run(sys.executable, "-m", "irfair", "--version") == f"irfair {version}\n"
    demo = run(str(target / "bin" / "irfair"), "demo", "--out", "demo", "--embeddings", "w2v-gnews-26k")
    assert "GSR(S) + GSR(CS)" in demo and (work / "demo").is_dir()
    vaswani = shared_data / "vaswani"
    audit = run(sys.executable, "-m", "irfair", "audit", str(ROOT / "runs" / "vaswani" / "bm25.run"), "--qrels",
                str(vaswani / "qrels"), "--topics", str(vaswani / "query-text.trec"), "--corpus", str(vaswani / "corpus"),
                "--bootstrap", "0", "--no-random", "--quiet", "--format", "tsv")
    assert "\nbm25\tsystem\t0.03577488848\t" in audit  # the same GSR as from the checkout
