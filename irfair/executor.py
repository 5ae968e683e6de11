"""Where parallel work runs: in this process, in local worker processes, or on a Dask cluster.

``scheduler``: ``None`` (local processes, ``jobs`` of them; in this process when ``jobs`` is 1),
``"local"`` (a Dask ``LocalCluster`` of ``jobs`` single-threaded worker processes) or a Dask scheduler
address such as ``tcp://host:8786``; ``$IRFAIR_SCHEDULER`` is used when no scheduler is given, and
``$IRFAIR_JOBS`` when no number of jobs is (the CLI's ``--scheduler`` and ``--jobs`` set them). Every
executor returns results in the order of its inputs, so the results do not depend on where work ran.
"""
from __future__ import annotations

import functools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from .errors import IrfairInputError, MissingExtraError

SCHEDULER_ENV = "IRFAIR_SCHEDULER"


JOBS_ENV = "IRFAIR_JOBS"


def default_jobs() -> int:
    """Workers for parallel work: ``$IRFAIR_JOBS`` when set (the CLI's ``--jobs``), else the CPUs this
    process may use."""
    configured = os.environ.get(JOBS_ENV, "").strip()
    if configured.isdigit() and int(configured) >= 1:
        return int(configured)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def uses_workers(jobs: int, scheduler: str | None = None) -> bool:
    """Whether :func:`executor` would hand work to other processes: more than one job, or a scheduler given
    here or in ``$IRFAIR_SCHEDULER``."""
    return jobs > 1 or scheduler is not None or bool(os.environ.get(SCHEDULER_ENV))


SCHEDULER_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://")


def check_scheduler(scheduler: str) -> str:
    """``scheduler`` when it is ``"local"`` or a Dask address (``tcp://host:8786``, ...); IrfairInputError otherwise."""
    if scheduler != "local" and not scheduler.startswith(SCHEDULER_SCHEMES):
        raise IrfairInputError(None, None, f"scheduler must be 'local' or an address such as tcp://host:8786, not {scheduler!r}")
    return scheduler


def _dask_client(scheduler: str, jobs: int):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError("dask.distributed", "dask") from None
    if check_scheduler(scheduler) == "local":
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="20s"), None
    except OSError as exc:
        raise IrfairInputError(None, None, f"cannot reach the Dask scheduler {scheduler} ({exc})") from None


def _ordered(submit: Callable, function: Callable, inputs: Iterable, window: int) -> Iterator:
    """Submit at most ``window`` inputs ahead (memory stays bounded) and yield results in input order."""
    pending: deque = deque()
    for item in inputs:
        pending.append(submit(function, item))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


@contextmanager
def executor(jobs: int | None = None, scheduler: str | None = None) -> Iterator[Callable[[Callable, Iterable], Iterator]]:
    """A context giving ``map(function, inputs)``, which yields ``function(input)`` in input order.

    ``function`` must be a module-level function (it is pickled to the workers)."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise IrfairInputError(None, None, f"jobs must be at least 1, not {jobs}")
    scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if scheduler is not None:
        client, cluster = _dask_client(scheduler, jobs)
        try:
            submit = functools.partial(client.submit, pure=False)
            yield lambda function, inputs: _ordered(submit, function, inputs, 2 * jobs)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif jobs == 1:
        yield map
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            yield lambda function, inputs: _ordered(pool.submit, function, inputs, 2 * jobs)
