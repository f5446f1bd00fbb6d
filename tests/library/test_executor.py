"""The scan on a ``concurrent.futures`` executor: our process pool, any executor a caller brings
(a Dask cluster's), and the chunks an executor never answers (a worker died, stalled, or the
executor refused the work) read in this process: the same frames, never a hang."""

from __future__ import annotations

import os
import time
import unittest.mock
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from oo_nb.library import executor as executor_module
from oo_nb.library import scan as scan_module
from oo_nb.library.library import FRAMES, Library
from oo_nb.store import scan_cache
from tests.library.test_library import load_synth

TODAY = date(2026, 3, 1)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 documents, a fifth of them damaged."""
    folder = tmp_path_factory.mktemp("executor")
    load_synth().make_library(folder, 40, seed=5, corrupt_rate=0.2)
    return folder


@pytest.fixture(autouse=True)
def old_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files just made may go to workers too (one changed in the last seconds is read here, to
    hash it)."""
    monkeypatch.setattr(scan_cache, "RECENT_NS", 0)


@pytest.fixture(scope="module")
def serial(library: Path) -> Library:
    return Library(library, today=TODAY, workers=1, cache=False)


def assert_same(expected: Library, got: Library) -> None:
    for name in FRAMES:
        pd.testing.assert_frame_equal(expected.frame(name), got.frame(name))
    pd.testing.assert_frame_equal(expected.audit(all=True), got.audit(all=True))


class Recording(Executor):
    """Another executor's tasks, kept to check that they, not this process, did the work;
    ``fail_first`` replaces the first task with one that never answers or kills its worker."""

    def __init__(self, inner: Executor, fail_first: Callable[[], Future[Any]] | None = None):
        self.inner, self.fail_first = inner, fail_first
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.fail_first is not None:
            make, self.fail_first = self.fail_first, None
            return make()
        future = self.inner.submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future


def test_our_pool_reads_in_worker_processes_and_is_closed(
    library: Path, serial: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executor_module, "CHUNK", 4)  # several chunks for each process
    pools: list[ProcessPoolExecutor] = []
    owned = scan_module.owned_pool

    @contextmanager
    def spy(workers: int) -> Iterator[ProcessPoolExecutor]:
        with owned(workers) as pool:
            pools.append(pool)
            yield pool

    monkeypatch.setattr(scan_module, "owned_pool", spy)
    used: list[Executor] = []
    digest_on = scan_module.digest_on

    def counted(executor: Executor, *args: Any, **kwargs: Any) -> Any:
        used.append(executor)
        return digest_on(executor, *args, **kwargs)

    monkeypatch.setattr(scan_module, "digest_on", counted)
    Library(library, today=TODAY, workers=1, cache=False)
    assert not pools and not used  # one process: no pool
    parallel = Library(library, today=TODAY, workers=2, cache=False)
    assert len(pools) == 1 and used == pools
    assert_same(serial, parallel)
    with pytest.raises(RuntimeError):  # shut down before the scan returned
        pools[0].submit(int)


def test_a_callers_executor_does_the_reading_and_is_left_running(
    library: Path, serial: Library
) -> None:
    with ThreadPoolExecutor(2) as threads:
        recording = Recording(threads)
        got = Library(library, today=TODAY, executor=recording, cache=False)
        assert len(recording.futures) > 1
        assert all(f.done() and f.exception() is None for f in recording.futures)
        assert threads.submit(int).result() == 0  # still the caller's to use
    assert_same(serial, got)


def test_a_worker_killed_mid_scan_costs_a_retry_here_not_the_scan(
    library: Path, serial: Library
) -> None:
    with ProcessPoolExecutor(2) as pool:
        dying = Recording(pool, fail_first=lambda: pool.submit(os._exit, 3))
        started = time.monotonic()
        got = Library(library, today=TODAY, executor=dying, cache=False)
        assert time.monotonic() - started < 60
    assert_same(serial, got)


def test_a_stalled_worker_costs_seconds_not_a_hang(
    library: Path, serial: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executor_module, "STALL_S", 2.0)
    with ThreadPoolExecutor(2) as threads:
        never: Future[Any] = Future()  # a task that never answers
        stalled = Recording(threads, fail_first=lambda: never)
        started = time.monotonic()
        got = Library(library, today=TODAY, executor=stalled, cache=False)
        assert time.monotonic() - started < 30
        assert never.cancelled()
    assert_same(serial, got)


def test_an_executor_that_refuses_work_leaves_it_to_this_process(
    library: Path, serial: Library
) -> None:
    closed = ThreadPoolExecutor(1)
    closed.shutdown()
    assert_same(serial, Library(library, today=TODAY, executor=closed, cache=False))


class Answering(Executor):
    """An executor whose every task answers ``answer`` (not the digests it was asked for)."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(self.answer)
        return future


@pytest.mark.parametrize("answer", [None, "digests", [1, 2], ["too few"]])
def test_an_executor_that_answers_something_else_leaves_the_work_to_this_process(
    library: Path, serial: Library, answer: object
) -> None:
    """It made an AttributeError traceback deep in the scan."""
    assert_same(serial, Library(library, today=TODAY, executor=Answering(answer), cache=False))


def test_the_scan_runs_on_a_dask_cluster(library: Path, serial: Library) -> None:
    from distributed import Client, LocalCluster

    with (
        # the nanny sets its workers' environment (PYTHONHASHSEED, OMP_NUM_THREADS...) in ours
        unittest.mock.patch.dict(os.environ),
        LocalCluster(
            processes=True,
            n_workers=2,
            threads_per_worker=1,
            dashboard_address=None,
            host="127.0.0.1",  # loopback only
        ) as cluster,
        Client(cluster) as client,
    ):
        dask = Recording(client.get_executor())
        got = Library(library, today=TODAY, executor=dask, cache=False)
        assert len(dask.futures) > 1
        assert all(f.exception() is None for f in dask.futures)
    assert_same(serial, got)
