"""A text made by a process forked from this one while this one goes on: ``report.html`` (0.7 s of Python for a
Robust04-sized audit's 18 systems, 84,000 cells) is laid out on the second core while ``audit.json``, the CSV
files and the tables are written on the first. The child holds what this process held when it was forked, runs the
same code on it and sends the text back through a pipe, its length first: the bytes are those made here (tested).
It never writes anything else, prints nothing and leaves through ``os._exit``. The text is made here instead when
the child cannot be forked, fails, is killed, or sends nothing for :data:`QUIET_LIMIT` seconds (then it is killed):
an error is raised where it would have been, and no save waits on a child for ever. Linux only (elsewhere a fork
without exec is not safe with the system's own threads)."""
from __future__ import annotations

import gc
import os
import select
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# seconds without a byte from the child after which it is taken for stuck (a lock held at the fork by another thread)
QUIET_LIMIT = 60.0
_HEADER = 8  # bytes of the text's length, sent before it


@contextmanager
def made_beside(make: Callable[[], str], jobs: int | None = None) -> Iterator[Callable[[], str]]:
    """``get`` where ``get()`` gives ``make()``, made by a forked child from the start of the block when ``jobs``
    (default :func:`irfair.executor.default_jobs`) is 2 or more on Linux; otherwise, or when the child does not send
    it whole, made here when first asked for. A child still running when the block ends is killed."""
    from ..executor import default_jobs

    done: list[str] = []
    child = None
    if (default_jobs() if jobs is None else jobs) >= 2 and sys.platform.startswith("linux"):
        child = _forked(make)

    def get() -> str:
        if not done:
            text = child.received() if child is not None else None
            done.append(make() if text is None else text)
        return done[0]
    try:
        yield get
    finally:
        if child is not None:
            child.stop()


def _forked(make: Callable[[], str]) -> _Child | None:
    """A child making ``make()``, or None when none could be forked (a process limit, memory)."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: make the text, send it, leave without running anything of the parent's
        code = 1
        try:
            gc.disable()  # a collection would write into every page of objects it shares with the parent
            os.close(read_end)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # a Ctrl-C ends it at once, without a traceback
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            data = make().encode("utf-8")
            view = memoryview(len(data).to_bytes(_HEADER, "big") + data)
            while view:
                view = view[os.write(write_end, view):]
            code = 0
        except BaseException:  # noqa: BLE001 - whatever it was, the parent makes the text itself and raises it there
            pass
        finally:
            os._exit(code)
    os.close(write_end)
    return _Child(pid, read_end)


class _Child:
    """The forked child and the pipe's end it writes to."""

    def __init__(self, pid: int, read_end: int) -> None:
        self.pid, self.read_end, self.reaped = pid, read_end, False

    def received(self) -> str | None:
        """The child's text, or None when it did not send it whole (it failed, was killed, or sent nothing for
        :data:`QUIET_LIMIT` seconds)."""
        chunks, size = [], 0
        waiting = select.poll()
        waiting.register(self.read_end, select.POLLIN)
        while True:
            ready = waiting.poll(QUIET_LIMIT * 1000)
            chunk = os.read(self.read_end, 1 << 20) if ready else b""
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        self.stop()
        if size < _HEADER or int.from_bytes(data[:_HEADER], "big") != size - _HEADER:
            return None
        return data[_HEADER:].decode("utf-8")

    def stop(self) -> None:
        """End the child if it still runs (its text was not asked for, it was taken for stuck, or this process was
        interrupted while it read), reap it and close the pipe; once."""
        if self.reaped:
            return
        self.reaped = True
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:  # reaped by the system already (SIGCHLD ignored)
            pass
        os.close(self.read_end)
