"""``python -m irfair``: the same command line as ``irfair``, as pyserini and ir_datasets users call it."""
import subprocess
import sys

import irfair


def test_python_m_irfair_runs_the_command_line(tmp_path):
    version = subprocess.run([sys.executable, "-m", "irfair", "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"irfair {irfair.__version__}\n")
    wrong = subprocess.run([sys.executable, "-m", "irfair", "audit", "missing.run", "--qrels", "q", "--topics", "t",
                            "--corpus", "c"], capture_output=True, text=True, cwd=tmp_path)
    assert wrong.returncode == 2 and wrong.stderr.startswith("irfair: error: ") and wrong.stderr.count("\n") == 1
