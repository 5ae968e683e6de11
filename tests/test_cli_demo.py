"""What ``irfair demo`` and ``make demo`` tell about the cache the demo fills."""
import os
import subprocess
import sys
from pathlib import Path

from irfair.cli.demo import cache_note

ROOT = Path(__file__).resolve().parents[1]


def test_cache_note_counts_what_the_cache_folder_holds(tmp_path, monkeypatch):
    """One embeddings entry in a fresh cache folder: the note gives its size, counted here with os.walk."""
    from irfair.embeddings import load_embeddings

    monkeypatch.setenv("IRFAIR_CACHE", str(tmp_path))
    assert cache_note() == (f"the cache folder {tmp_path} holds 0 MB (embeddings, tokenised documents), reused by later runs; "
                            "`irfair cache clear` empties it")
    load_embeddings("w2v-gnews-26k", tmp_path)
    size = sum((Path(base) / name).lstat().st_size for base, _, names in os.walk(tmp_path) for name in names
               if not name.endswith(".lock"))
    assert size > 2**20 and f" holds {size / 2**20:.0f} MB " in cache_note()


def test_make_demo_says_what_it_fills_and_how_to_clear_it():
    """The recipe, as make would run it (the install step taken as done)."""
    recipe = subprocess.run(["make", "-s", "-n", "-o", ".venv/.irfair-core", "demo"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout
    assert "fills about 111 MB under the cache folder" in recipe and "irfair cache clear" in recipe
    assert recipe.splitlines()[-1] == ".venv/bin/irfair demo --out demo"


def test_what_the_demo_prints_is_the_same_on_every_cpu(tmp_path):
    """OpenBLAS picks its kernels by CPU; three coretypes (one of them usually not this machine's) give other
    last bits (GSR(N) was -1.38e-17, +2.70e-17, -3.14e-17), and the symmetric S/CS one-query effects swapped
    places. Everything the demo prints is the same bytes under each, and GSR(N) prints as an exact 0."""
    outputs = {}
    for coretype in ("Haswell", "SkylakeX", "Sandybridge"):
        env = {**os.environ, "OPENBLAS_CORETYPE": coretype}
        run = subprocess.run([sys.executable, "-m", "irfair", "demo", "--out", str(tmp_path / "demo"), "--embeddings", "w2v-gnews-26k"],
                             env=env,
                             capture_output=True, text=True, check=True, cwd=tmp_path)
        # the last line gives the cache folder's size, which the tests running beside this one change
        outputs[coretype] = run.stdout.rsplit("the cache folder ", 1)[0]
    assert len(set(outputs.values())) == 1, "the demo prints other text under another CPU's BLAS kernels"
    checks = [line for line in outputs["Haswell"].splitlines() if line.startswith("GSR(")]
    assert checks == [
        "GSR(S) = +1.498372, GSR(N) = 0 (|x| < 1e-12), GSR(CS) = -1.498372, GSR(S) + GSR(CS) = 0 (|x| < 1e-12)",
        "GSR(S) = +0.127149, GSR(N) = 0 (|x| < 1e-12), GSR(CS) = -0.127149, GSR(S) + GSR(CS) = 0 (|x| < 1e-12)",
    ]
