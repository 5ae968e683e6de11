"""A text made by a process forked from this one while this one goes on: ``report.html`` (0.7 s of Python for a
Robust04-sized audit's 18 systems, 84,000 cells) is laid out on the second core while ``audit.json``, the CSV
files and the tables are written on the first. The child holds what this process held when it was forked, runs the
same code on it and sends the text back through a pipe: the bytes are those made here (tested). It never writes
anything else, prints nothing and leaves through ``os._exit``; if it fails, or is killed, the text is made here, so
an error is raised where it would have been."""
from __future__ import annotations

import gc
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def made_beside(make: Callable[[], str], jobs: int | None = None) -> Iterator[Callable[[], str]]:
    """``get`` where ``get()`` gives ``make()``, made by a forked child from the start of the block when ``jobs``
    (default :func:`irfair.executor.default_jobs`) is 2 or more and this platform forks; otherwise made here when first
    asked for. A child still running when the block ends is killed."""
    from ..executor import default_jobs

    if (default_jobs() if jobs is None else jobs) < 2 or not hasattr(os, "fork"):
        made: list[str] = []

        def here() -> str:
            if not made:
                made.append(make())
            return made[0]
        yield here
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: make the text, send it, leave without running anything of the parent's
        code = 1
        try:
            gc.disable()  # a collection would write into every page of objects it shares with the parent
            os.close(read_end)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # a Ctrl-C ends it at once, without a traceback
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            data = make().encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
            code = 0
        except BaseException:  # noqa: BLE001 - whatever it was, the parent makes the text itself and raises it there
            pass
        finally:
            os._exit(code)
    os.close(write_end)
    child = _Child(pid, read_end)
    done: list[str] = []

    def get() -> str:
        if not done:
            done.append(child.received() or make())
        return done[0]
    try:
        yield get
    finally:
        child.stop()


class _Child:
    """The forked child and the pipe's end it writes to."""

    def __init__(self, pid: int, read_end: int) -> None:
        self.pid, self.read_end, self.reaped = pid, read_end, False

    def received(self) -> str | None:
        """The child's text, or None when it did not send it whole (it failed, or was killed)."""
        chunks = []
        while True:
            chunk = os.read(self.read_end, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(self.pid, 0)
        self.reaped = True
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            return None
        return b"".join(chunks).decode("utf-8")

    def stop(self) -> None:
        """End the child if it still runs (its text was not asked for, or this process was interrupted while it
        read), reap it and close the pipe."""
        if not self.reaped:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.reaped = True
        os.close(self.read_end)
