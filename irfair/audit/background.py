"""Work an audit starts on threads beside itself (the term store's loading, the perfect run's bias measures), and
the rule that an audit ending in an error waits for that work first."""
from __future__ import annotations

import functools
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextvars import ContextVar

# the futures of the work one audit started on threads beside it (see joins_background_work)
_STARTED: ContextVar[list[Future] | None] = ContextVar("irfair_audit_background", default=None)


def joins_background_work(function):
    """``function`` that, when it ends in an error (bad input, Ctrl-C), first waits for the work it started beside
    itself (:func:`beside`): no thread is then left inside numpy, Arrow or a file while the process exits (which
    ended in "terminate called without an active exception", exit 134, after the error line)."""
    @functools.wraps(function)
    def joining(*args, **kwargs):
        started: list[Future] = []
        token = _STARTED.set(started)
        try:
            return function(*args, **kwargs)
        except BaseException:
            wait(started)
            raise
        finally:
            _STARTED.reset(token)
    return joining


def beside(function, *args) -> Future:
    """``function(*args)`` started now on a thread of its own (which ends with the call); its future."""
    pool = ThreadPoolExecutor(1)
    try:
        future = pool.submit(function, *args)
    finally:
        pool.shutdown(wait=False)
    started = _STARTED.get()
    if started is not None:
        started.append(future)
    return future
