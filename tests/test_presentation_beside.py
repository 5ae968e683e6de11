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
