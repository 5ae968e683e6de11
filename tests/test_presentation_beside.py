"""A text made by a forked child (irfair.presentation.beside): the same text as made here, across a pipe larger than
its buffer; an error raised here as it would have been; a child whose text is not asked for ended at once."""
from __future__ import annotations

import os
import time

import pytest

from irfair.presentation.beside import made_beside

TEXT = "é→ report " * 600_000  # 6.6 MB of UTF-8: a hundred times a pipe's buffer


def test_the_text_is_made_by_a_child_and_comes_back_whole():
    parent = os.getpid()
    with made_beside(lambda: f"{os.getpid()} {TEXT}", jobs=2) as made:
        pid, text = made().split(" ", 1)
        assert made() == f"{pid} {text}"  # asked twice, made once
    assert int(pid) != parent and text == TEXT
    with made_beside(lambda: f"{os.getpid()} {TEXT}", jobs=1) as made:
        assert made() == f"{parent} {TEXT}"


def test_a_failure_in_the_child_is_raised_here():
    def fails():
        raise ValueError("no such system: x")
    with made_beside(fails, jobs=2) as made, pytest.raises(ValueError, match="no such system: x"):
        made()


def _child_pid(path) -> int:
    for _ in range(500):  # the child writes its pid first thing
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError("the child did not start")


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process of ours not yet reaped (a zombie counts)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except (OSError, ValueError, IndexError):
        return False


def _slow_child(path, parent: int):
    def make() -> str:
        if os.getpid() != parent:
            path.write_text(str(os.getpid()))
            time.sleep(30)
        return str(os.getpid())
    return make


def test_a_child_killed_before_it_sent_its_text_is_made_here(tmp_path):
    parent = os.getpid()
    with made_beside(_slow_child(tmp_path / "pid", parent), jobs=2) as made:
        os.kill(_child_pid(tmp_path / "pid"), 9)
        assert made() == str(parent)
    assert not _running(int((tmp_path / "pid").read_text()))


def test_a_text_not_asked_for_ends_its_child_at_once(tmp_path):
    start = time.perf_counter()
    with made_beside(_slow_child(tmp_path / "pid", os.getpid()), jobs=2):
        child = _child_pid(tmp_path / "pid")
    assert time.perf_counter() - start < 5 and not _running(child)


def test_a_fork_that_fails_leaves_the_text_to_this_process(monkeypatch):
    """A process limit (EAGAIN) at the fork: the text is made here and no pipe end is left open."""
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")
    before = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", refused)
    with made_beside(lambda: str(os.getpid()), jobs=2) as made:
        assert made() == str(os.getpid())
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_child_reaped_by_the_system_still_gives_its_text(monkeypatch):
    """With SIGCHLD ignored the kernel reaps the child itself (waitpid finds none): its text, sent whole, is used."""
    import signal

    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        with made_beside(lambda: f"{os.getpid()} {TEXT}", jobs=2) as made:
            pid, text = made().split(" ", 1)
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert int(pid) != os.getpid() and text == TEXT


def test_a_silent_child_is_taken_for_stuck_killed_and_the_text_made_here(tmp_path, monkeypatch):
    from irfair.presentation import beside

    monkeypatch.setattr(beside, "QUIET_LIMIT", 0.5)
    parent = os.getpid()
    start = time.perf_counter()
    with made_beside(_slow_child(tmp_path / "pid", parent), jobs=2) as made:
        assert made() == str(parent)
    assert time.perf_counter() - start < 5 and not _running(_child_pid(tmp_path / "pid"))
