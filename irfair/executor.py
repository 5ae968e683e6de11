"""Where parallel work runs: in this process, in local worker processes, or on a Dask cluster.

``scheduler``: ``None`` (local processes, ``jobs`` of them; in this process when ``jobs`` is 1),
``"local"`` (a Dask ``LocalCluster`` of ``jobs`` single-threaded worker processes) or a Dask scheduler
address such as ``tcp://host:8786``; ``$IRFAIR_SCHEDULER`` is used when no scheduler is given, and
``$IRFAIR_JOBS`` when no number of jobs is (the CLI's ``--scheduler`` and ``--jobs`` set them). Every
executor returns results in the order of its inputs, so the results do not depend on where work ran.

BLAS threads: a matrix product split over several BLAS threads sums in another order than on one, so its
last bits depend on the thread count. Work runs on one BLAS thread wherever it runs: a worker process
(local or Dask) sets that once, before its first task, and keeps it for its life; a pool of threads in
this process works under one process-wide limit (:func:`one_blas_thread`), set by the thread that starts
the pool and restored once the pool has finished — never set and restored by each thread, which races
(one thread restores the setting while another multiplies).
"""
from __future__ import annotations

import functools
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
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
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError("dask.distributed", "dask") from None
    if check_scheduler(scheduler) == "local":
        # Dask's workers start with MALLOC_TRIM_THRESHOLD_=65536, which turns off glibc's adaptive thresholds:
        # every large array is then mapped and unmapped afresh, and a corpus pass spent 60% more CPU time
        # (3 times the system time) in a Dask worker than in a local process (issue 24)
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="20s"), None
    except OSError as exc:
        raise IrfairInputError(None, None, f"cannot reach the Dask scheduler {scheduler} ({exc})") from None


class _BlasState:
    """How this process holds BLAS to one thread: a lock letting one pool of threads at a time hold the
    process-wide limit, and whether this process is a worker pinned to one thread for good."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.pinned = False


_blas = _BlasState()


def _fresh_blas_state() -> None:
    """In a forked child: a new lock (one held by another thread at the fork would never be released)."""
    global _blas
    _blas = _BlasState()


os.register_at_fork(after_in_child=_fresh_blas_state)


def _check_one_blas_thread() -> None:
    """Warn when the limit did not take: threadpoolctl lets only one thread at a time change OpenBLAS's
    process-wide setting, so a limit set from here is ignored while another thread holds that control."""
    import warnings

    from threadpoolctl import threadpool_info

    counts = sorted({info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"})
    if any(count != 1 for count in counts):
        warnings.warn(f"BLAS stays on {counts[-1]} threads (another thread controls its setting): matrix products "
                      "may differ in their last bits from those of a run elsewhere", RuntimeWarning, stacklevel=3)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread in this whole process for the duration, then the setting found is restored.
    Open it in the thread that starts a pool of threads, around the pool, never inside each thread's
    task: the setting is process-wide, so a thread restoring it would change it under another thread's
    product. One such region at a time per process (a second caller waits); re-entrant."""
    from threadpoolctl import threadpool_limits

    with _blas.lock:
        if _blas.pinned:
            yield
            return
        with threadpool_limits(1, user_api="blas"):
            _check_one_blas_thread()
            yield


def _pin_one_blas_thread() -> None:
    """In a worker process: BLAS on one thread from now on (set once; a worker is irfair's, not the user's)."""
    if _blas.pinned:
        return
    import numpy  # noqa: F401  (its BLAS library loaded first, so that the limit reaches it)
    from threadpoolctl import threadpool_limits

    with _blas.lock:
        if not _blas.pinned:
            threadpool_limits(1, user_api="blas")
            _check_one_blas_thread()
            _blas.pinned = True


def _in_worker(function: Callable, item):
    """``function(item)`` in a worker process, on one BLAS thread."""
    _pin_one_blas_thread()
    return function(item)


def _ordered(submit: Callable, function: Callable, inputs: Iterable, window: int) -> Iterator:
    """Submit at most ``window`` inputs ahead (memory stays bounded) and yield results in input order."""
    pending: deque = deque()
    for item in inputs:
        pending.append(submit(_in_worker, function, item))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


@contextmanager
def executor(jobs: int | None = None, scheduler: str | None = None) -> Iterator[Callable[[Callable, Iterable], Iterator]]:
    """A context giving ``map(function, inputs)``, which yields ``function(input)`` in input order.

    ``function`` must be a module-level function (it is pickled to the workers). In worker processes it
    runs on one BLAS thread; with one job it runs here, in the caller's thread and BLAS setting."""
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


@contextmanager
def thread_executor(threads: int | None = None) -> Iterator[Callable[[Callable, Iterable], Iterator]]:
    """A context giving ``map(function, inputs)`` over ``threads`` threads of this process (default
    :func:`default_jobs`), in input order, with BLAS on one thread for the whole pool
    (:func:`one_blas_thread`): for work that releases the GIL, such as numpy's matrix products."""
    with one_blas_thread(), ThreadPoolExecutor(max_workers=threads or default_jobs()) as pool:
        yield pool.map
