"""Inputs for the fault tests: four different runs over TIME and a small embedding file (the GloVe 6B 50d
vectors of TIME's words), plus helpers to run the real CLI in a process of its own."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from helpers import overlap_run

from irfair.corpus import open_corpus
from irfair.gender.direction import DEFINITIONAL_PAIRS
from irfair.text import content_tokens
from irfair.trec import Run, read_topics, write_run

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from irfair.cli import run; run()"]
DRIVER = Path(__file__).with_name("fault_driver.py")


@dataclass
class TimeInputs:
    folder: Path
    runs: list[Path]
    vectors: Path

    def audit_args(self, run: Path, *extra: str) -> list[str]:
        """The audit's arguments; ``extra`` may give --bootstrap instead of the 50 used here (an option is given once)."""
        bootstrap = [] if "--bootstrap" in extra else ["--bootstrap", "50"]
        return ["audit", str(run), "--qrels", str(self.folder / "qrels.time.txt"), "--topics", str(self.folder / "topics.time.txt"),
                "--corpus", str(self.folder / "time.trec"), "--embeddings", str(self.vectors), *bootstrap,
                "--no-plots", "--quiet", *extra]


def make_time_inputs(time_folder: Path, out: Path, glove) -> TimeInputs:
    """Runs A (overlap, depth 30), B (overlap, depth 80), C (overlap depth 60 reversed), D (50 documents
    drawn at random per query); vectors.vec with a word2vec header."""
    topics = read_topics(time_folder / "topics.time.txt")
    docs = dict(open_corpus(time_folder / "time.trec").iter_docs())
    shallow, deep, middle = (overlap_run(topics, docs, depth=d) for d in (30, 80, 60))
    reversed_run = Run("reversed", {q: [(d, float(i + 1)) for i, (d, _) in enumerate(hits)] for q, hits in middle.ranking.items()})
    rng = np.random.default_rng(7)
    ids = sorted(docs)
    random_run = Run("drawn", {q: [(ids[i], float(50 - r)) for r, i in enumerate(rng.choice(len(ids), 50, replace=False))]
                               for q in topics})
    paths = []
    for name, run in zip("ABCD", (shallow, deep, reversed_run, random_run)):
        paths.append(out / f"{name}.run")
        write_run(paths[-1], run, tag=name)
    words = {t for text in [*docs.values(), *(t.title for t in topics.values())] for t in content_tokens(text)}
    words |= {w for pair in DEFINITIONAL_PAIRS for w in pair}
    rows = sorted(glove.row(w) for w in words if glove.row(w) >= 0)
    vectors = out / "vectors.vec"
    lines = [f"{len(rows)} {glove.dim}"]
    lines += [glove.words[r] + " " + " ".join(f"{x:.6f}" for x in glove.vectors[r]) for r in rows]
    vectors.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return TimeInputs(time_folder, paths, vectors)


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``irfair ARGS`` in this process: (exit code, stdout, stderr)."""
    from irfair.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # a bad command line exits while it is parsed, as argparse does
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def process_env() -> dict[str, str]:
    """The environment of child processes: this checkout first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def start_cli(args: list[str], **kwargs) -> subprocess.Popen:
    """``irfair ARGS`` in a process of its own (stdout and stderr piped unless given)."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([*CLI, *map(str, args)], env=process_env(), text=True, **kwargs)


def run_driver(kind: str, point: str, signal_name: str, cache: Path, *args: str | Path) -> subprocess.CompletedProcess:
    """fault_driver.py in a process of its own."""
    command = [sys.executable, str(DRIVER), kind, point, signal_name, str(cache), *map(str, args)]
    return subprocess.run(command, env=process_env(), capture_output=True, text=True, timeout=300)
