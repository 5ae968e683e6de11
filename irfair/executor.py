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
from .settings import SETTINGS, from_environment, parse

SCHEDULER_ENV = SETTINGS["scheduler"].env
JOBS_ENV = SETTINGS["jobs"].env


def default_jobs() -> int:
    """Workers for parallel work: ``$IRFAIR_JOBS`` when set (the CLI's ``--jobs``; checked), else the CPUs
    this process may use."""
    configured = from_environment("jobs")
    if configured is not None:
        return configured
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def scheduler_of(scheduler: str | None = None) -> str | None:
    """The Dask scheduler to use: ``scheduler`` when given (checked), else ``$IRFAIR_SCHEDULER`` (checked), else None."""
    return check_scheduler(scheduler) if scheduler is not None else from_environment("scheduler")


def uses_workers(jobs: int, scheduler: str | None = None) -> bool:
    """Whether :func:`executor` would hand work to other processes: more than one job, or a scheduler given
    here or in ``$IRFAIR_SCHEDULER``."""
    return parse("jobs", jobs) > 1 or scheduler_of(scheduler) is not None


def check_scheduler(scheduler: str) -> str:
    """``scheduler`` when it is ``"local"`` or a Dask address (``tcp://host:8786``, ...); IrfairInputError otherwise."""
    return parse("scheduler", scheduler)


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
    jobs = default_jobs() if jobs is None else parse("jobs", jobs)
    scheduler = scheduler_of(scheduler)
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
