"""Executors return results in input order wherever the work runs, and refuse bad settings in one line."""
import pytest

from irfair.errors import IrfairInputError
from irfair.executor import executor


def _square(x):
    return x * x


@pytest.mark.parametrize("jobs", [1, 2])
def test_local_executors_keep_input_order(jobs):
    with executor(jobs) as ordered_map:
        assert list(ordered_map(_square, range(20))) == [x * x for x in range(20)]


def test_bad_settings_are_input_errors(monkeypatch):
    monkeypatch.delenv("IRFAIR_SCHEDULER", raising=False)
    with pytest.raises(IrfairInputError, match="^jobs=0: expected a positive integer$"):
        with executor(0):
            pass
    with pytest.raises(IrfairInputError, match="^scheduler='my-cluster': expected 'local' or a Dask scheduler address"):
        with executor(1, "my-cluster"):
            pass


def _blas_threads(_=None) -> int:
    from threadpoolctl import threadpool_info

    return min(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")


@pytest.fixture()
def two_blas_threads():
    """BLAS set to two threads by a thread that then ends (so that no thread keeps threadpoolctl's control
    of the setting), and set back afterwards."""
    import threading

    from threadpoolctl import threadpool_limits

    def set_from_a_thread(count: int) -> None:
        thread = threading.Thread(target=threadpool_limits, args=(count,), kwargs={"user_api": "blas"})
        thread.start()
        thread.join()

    original = _blas_threads()
    set_from_a_thread(2)
    yield
    set_from_a_thread(original)


def test_one_blas_thread_holds_while_another_thread_waits_to_enter(two_blas_threads):
    """Issue 24's race: thread A limits BLAS to one thread and B asks for the same limit while A still
    multiplies. Set and restored by each thread (threadpoolctl lets one thread at a time change OpenBLAS's
    setting, so B's request was ignored), A's restore put B's products on two threads. Here B enters after A
    has left, both compute on one thread, and the setting found is restored after both."""
    import threading

    from irfair.executor import one_blas_thread

    seen = []
    a_in, b_trying = threading.Event(), threading.Event()

    def thread_a():
        with one_blas_thread():
            a_in.set()
            b_trying.wait()
            seen.append(("a", _blas_threads()))

    def thread_b():
        a_in.wait()
        b_trying.set()
        with one_blas_thread():
            seen.append(("b", _blas_threads()))

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seen.append(("after both", _blas_threads()))
    assert seen == [("a", 1), ("b", 1), ("after both", 2)]


def test_worker_processes_and_thread_pools_compute_on_one_blas_thread(two_blas_threads):
    from irfair.executor import thread_executor

    with executor(2) as ordered_map:
        assert list(ordered_map(_blas_threads, range(4))) == [1, 1, 1, 1]
    with thread_executor(2) as ordered_map:
        assert list(ordered_map(_blas_threads, range(4))) == [1, 1, 1, 1]
    assert _blas_threads() == 2


def test_a_limit_another_thread_controls_is_reported(two_blas_threads):
    """threadpoolctl lets one thread at a time change OpenBLAS's setting: asked from another thread while
    this one holds it, the limit does not take, and a warning says so."""
    import threading
    import warnings

    from threadpoolctl import threadpool_limits

    from irfair.executor import one_blas_thread

    caught = []

    def rank_like():
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            with one_blas_thread():
                pass
        caught.extend(str(record.message) for record in records)

    with threadpool_limits(2, user_api="blas"):
        thread = threading.Thread(target=rank_like)
        thread.start()
        thread.join()
    assert len(caught) == 1 and caught[0].startswith("BLAS stays on 2 threads (another thread controls its setting)")
