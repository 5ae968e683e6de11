"""Failures that come from the operating system, as classes: termination signals (SIGTERM, SIGHUP, as
Ctrl-C) at any point, a disk that fills up while outputs or cache entries are written, and paths the
system refuses to read. Each ends in one line and a documented exit code, with no staging folder, no
half-written output and a cache that verifies."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from faults_data import CLI, make_time_inputs, process_env, run_cli, run_driver

from irfair.cache.manage import scan

# the permission checks a normal user meets: root's right to read and write anything dropped
UNPRIVILEGED = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search"]


@pytest.fixture(scope="module")
def inputs(shared_data, glove, tmp_path_factory):
    return make_time_inputs(shared_data / "time", tmp_path_factory.mktemp("os-inputs"), glove)


@pytest.fixture(scope="module")
def warm_cache(inputs, tmp_path_factory):
    cache = tmp_path_factory.mktemp("os-cache")
    assert run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", cache))[0] == 0
    return cache


def _leftovers(folder) -> list[str]:
    return sorted(str(p) for p in folder.rglob(".irfair-staging-*")) if folder.exists() else []


SIGNALLED = [("TERM", 143, "SIGTERM"), ("HUP", 129, "SIGHUP"), ("INT", 130, None)]


@pytest.mark.parametrize(("signal_name", "code", "name"), SIGNALLED)
def test_a_signal_while_outputs_are_written_leaves_no_output_folder(inputs, warm_cache, tmp_path, signal_name, code, name):
    out = tmp_path / "new" / "out"
    stopped = run_driver("cli", "outputs", signal_name, warm_cache, *inputs.audit_args(inputs.runs[0], "--cache-dir", warm_cache,
                                                                                           "--out", out))
    said = f"irfair: terminated ({name})\n" if name else "irfair: interrupted\n"
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (code, "", said)
    assert not (tmp_path / "new").exists()  # the folders the audit created are gone with the staging folder


def test_sigkill_while_outputs_are_written_leaves_no_output_folder(inputs, warm_cache, tmp_path):
    """SIGKILL (the OOM killer, a lost machine) runs no handler: a new --out folder is staged whole beside its place
    and renamed there in one step, so the kill leaves no folder with part of the outputs, only the hidden staging
    folder; the next audit writes the folder whole beside it."""
    out = tmp_path / "new" / "out"
    args = inputs.audit_args(inputs.runs[0], "--cache-dir", warm_cache, "--out", out)
    stopped = run_driver("cli", "outputs", "KILL", warm_cache, *args)
    assert stopped.returncode == -9 and not out.exists()
    left = [p.name for p in (tmp_path / "new").iterdir()]
    assert len(left) == 1 and left[0].startswith(".irfair-staging-out-")
    assert run_cli(args)[0] == 0 and (out / "audit.json").is_file() and _leftovers(out) == []
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())  # as mkdir makes it, not mkdtemp's 0o700


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.mark.parametrize(("signal_name", "code", "name"), SIGNALLED[:2])
def test_a_signal_keeps_an_existing_output_folder_as_it_was(inputs, warm_cache, tmp_path, signal_name, code, name):
    out = tmp_path / "out"
    assert run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", warm_cache, "--out", out))[0] == 0
    (out / "my-notes.txt").write_text("mine")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    stopped = run_driver("cli", "outputs", signal_name, warm_cache, *inputs.audit_args(inputs.runs[1], "--cache-dir", warm_cache,
                                                                                           "--out", out))
    assert (stopped.returncode, stopped.stderr) == (code, f"irfair: terminated ({name})\n")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before and _leftovers(out) == []


@pytest.mark.slow
@pytest.mark.parametrize(("signal_name", "code", "name"), SIGNALLED[::2])  # SIGHUP takes SIGTERM's path (tested above)
def test_a_signal_once_java_runs_in_the_process_ends_in_one_line(inputs, tmp_path, signal_name, code, name):
    """jnius starts the JVM inside irfair's process; Java's own SIGTERM/SIGINT/SIGHUP handlers would replace
    irfair's (exit 143 with no line, staging folders left): the JVM runs with -Xrs, so irfair's handler still
    says its one line, removes what it staged and exits with the signal's code."""
    cache, out = tmp_path / "cache", tmp_path / "new" / "tfidf.run"
    stopped = run_driver("cli", "jvm", signal_name, cache, "rank", "--ranker", "tfidf", "--corpus", inputs.folder / "time.trec",
                         "--topics", inputs.folder / "topics.time.txt", "--depth", "10", "--cache-dir", cache, "--out", out)
    said = f"irfair: terminated ({name})\n" if name else "irfair: interrupted\n"
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (code, "", said)
    assert not (tmp_path / "new").exists() and {r.state for r in scan(cache, verify=True)} == {"ok"}


def test_sigterm_while_the_term_store_is_built_leaves_a_cache_that_verifies(inputs, tmp_path):
    cache, out = tmp_path / "cache", tmp_path / "out"
    stopped = run_driver("cli", "build", "TERM", cache, *inputs.audit_args(inputs.runs[1], "--cache-dir", cache, "--out", out))
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (143, "", "irfair: terminated (SIGTERM)\n")
    assert not out.exists()
    assert {r.state for r in scan(cache, verify=True)} == {"ok"}  # what was published is whole; no build left behind
    assert run_cli(inputs.audit_args(inputs.runs[1], "--cache-dir", cache, "--out", out))[0] == 0


def test_sigterm_from_outside_a_running_audit(inputs, tmp_path):
    """A real ``kill`` from another process, at whatever point the audit has reached after its first output."""
    cache, out = tmp_path / "cache", tmp_path / "out"
    process = subprocess.Popen([*CLI, *map(str, inputs.audit_args(inputs.runs[1], "--cache-dir", cache, "--out", out,
                                                                    "--bootstrap", "5000"))],
                               env=process_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while process.poll() is None and not (cache / "terms").exists():
        os.sched_yield()
    process.terminate()
    stdout, stderr = process.communicate(timeout=300)
    if process.returncode == 0:  # it finished first: then the outputs are whole
        assert (out / "audit.json").is_file()
    else:
        assert (process.returncode, stdout, stderr) == (143, "", "irfair: terminated (SIGTERM)\n")
        assert not out.exists()
    assert {r.state for r in scan(cache, verify=True)} <= {"ok"} and _leftovers(out) == []


@pytest.mark.parametrize("limit", [2_000, 40_000])
def test_a_full_disk_while_outputs_are_written(inputs, warm_cache, tmp_path, limit):
    out = tmp_path / "out"
    failed = run_driver("cli", f"fsize={limit}", "TERM", warm_cache, *inputs.audit_args(inputs.runs[0], "--cache-dir", warm_cache,
                                                                                          "--out", out, "--no-plots"))
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.startswith(f"irfair: error: {out}/") and failed.stderr.count("\n") == 1
    assert failed.stderr.endswith(": File too large (what was being written was removed: free some space, or choose another "
                                  "--out or --cache-dir)\n")
    assert not out.exists()


def test_a_full_disk_while_a_cache_entry_is_built(inputs, tmp_path):
    cache = tmp_path / "cache"
    failed = run_driver("cli", "fsize=30000", "TERM", cache, *inputs.audit_args(inputs.runs[0], "--cache-dir", cache))
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1
    assert failed.stderr.endswith(" (what was being written was removed: free some space, or choose another --out or --cache-dir)\n")
    assert failed.stderr.startswith("irfair: error: /") and "embeddings/vectors.vec-" in failed.stderr  # the entry, not its build
    assert {r.state for r in scan(cache, verify=True)} <= {"ok"}  # nothing damaged was published, no build left
    assert [p for p in cache.rglob(".build-*")] == []
    assert run_cli(inputs.audit_args(inputs.runs[0], "--cache-dir", cache))[0] == 0  # and the next run completes it


def _real_full_disk(size: str, tmp_path):
    """A real file system of ``size`` (tmpfs, mounted in a mount namespace of the test's own)."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    mount = tmp_path / "small"
    mount.mkdir()
    return ["unshare", "-m", "sh", "-c", f'mount -t tmpfs -o size={size} tmpfs "{mount}" && exec "$@"', "sh"], mount


def test_a_real_full_disk_enospc(inputs, warm_cache, tmp_path):
    prefix, mount = _real_full_disk("64k", tmp_path)
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.decode().strip()}")
    out = mount / "out"
    done = subprocess.run([*prefix, *CLI, *map(str, inputs.audit_args(inputs.runs[0], "--cache-dir", warm_cache, "--out", out))],
                          env=process_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"irfair: error: {out}/")
    assert ": No space left on device (what was being written was removed" in done.stderr


def _unprivileged(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([*UNPRIVILEGED, *CLI, *map(str, args)], env=process_env(), capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("locked", ["run", "qrels", "topics", "corpus file", "corpus folder", "embeddings", "cache folder"])
def test_paths_the_system_refuses_to_read(inputs, tmp_path, locked):
    folder = tmp_path / "in"
    shutil.copytree(inputs.folder, folder, ignore=shutil.ignore_patterns("original"))
    corpus = folder / "corpus"
    corpus.mkdir()
    (folder / "time.trec").rename(corpus / "time.trec")
    run, vectors, cache = tmp_path / "A.run", tmp_path / "vectors.vec", tmp_path / "cache"
    shutil.copy(inputs.runs[0], run)
    shutil.copy(inputs.vectors, vectors)
    cache.mkdir()
    target = {"run": run, "qrels": folder / "qrels.time.txt", "topics": folder / "topics.time.txt", "corpus file": corpus / "time.trec",
              "corpus folder": corpus, "embeddings": vectors, "cache folder": cache}[locked]
    target.chmod(0)
    try:
        done = _unprivileged(["audit", run, "--qrels", folder / "qrels.time.txt", "--topics", folder / "topics.time.txt",
                              "--corpus", corpus, "--embeddings", vectors, "--cache-dir", cache, "--out", tmp_path / "out",
                              "--bootstrap", "50", "--no-plots", "--quiet"])
    finally:
        target.chmod(0o755)
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"irfair: error: {target}") and "Permission denied" in done.stderr
    assert not (tmp_path / "out").exists()


def test_an_output_folder_the_system_refuses_to_write(inputs, warm_cache, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    done = _unprivileged(inputs.audit_args(inputs.runs[0], "--cache-dir", warm_cache, "--out", locked / "out"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"irfair: error: {locked / 'out'}: cannot write the output folder (--out) here")


@pytest.mark.parametrize("action", ["info", "verify", "clear"])
def test_a_cache_folder_the_system_refuses_to_read(tmp_path, action):
    locked = tmp_path / "cache"
    (locked / "terms").mkdir(parents=True)
    locked.chmod(0)
    try:
        done = _unprivileged(["cache", action, "--cache-dir", locked])
    finally:
        locked.chmod(0o755)
    assert (done.returncode, done.stderr) == (2, f"irfair: error: {locked}: cannot read the cache folder (Permission denied)\n")


def test_the_unprivileged_runner_really_drops_the_right_to_read_anything(tmp_path):
    """Guards the tests above: without this, as root, they would pass without testing anything."""
    secret = tmp_path / "secret"
    secret.write_text("x")
    secret.chmod(0)
    done = subprocess.run([*UNPRIVILEGED, sys.executable, "-c", f"open({str(secret)!r}).read()"], capture_output=True, text=True)
    assert done.returncode == 1 and "PermissionError" in done.stderr


def test_a_full_disk_while_a_run_file_is_written(inputs, tmp_path):
    out = tmp_path / "new" / "add.run"
    failed = run_driver("cli", "fsize=20000", "TERM", tmp_path / "unused", "rank", "--ranker", "add", "--no-cache", "--quiet",
                        "--corpus", inputs.folder / "time.trec", "--topics", inputs.folder / "topics.time.txt",
                        "--embeddings", inputs.vectors, "--out", out)
    assert (failed.returncode, failed.stderr) == (2, f"irfair: error: {out}: File too large (what was being written was removed: "
                                                     "free some space, or choose another --out or --cache-dir)\n")
    assert not (tmp_path / "new").exists()
