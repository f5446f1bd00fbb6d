"""Digest many files on a ``concurrent.futures.Executor``: a process pool of the standard
library by default, or any executor a caller brings (a Dask cluster's, ``client.get_executor()``).

Our own pool starts its processes from the forkserver (spawn where there is none), never by a
fork of this process, which in a Jupyter kernel runs threads (a forked child can deadlock on a
lock one of them held). As with any ``multiprocessing`` program, a script that opens a large
library at its top level needs ``if __name__ == "__main__":`` (or ``workers=1``): each worker
imports the main script. The work goes out in small chunks; a chunk that does not come back (its
worker died, the pool broke, the executor refused it or stalled on it) is read in this process,
so the scan ends with every file read, never in a hang."""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor

from oo_nb.library.digest_codec import pack_many

__all__ = ["CHUNK", "digest_on", "owned_pool", "process_pool"]

CHUNK = 16  # files per task: small enough to balance, large enough to amortise pickling
# Waiting for a chunk: the first may include the workers' start (imports), so up to STALL_S;
# later ones up to STALL_CHUNKS times the longest gap between two answers so far, at least
# STALL_MIN_S: a stopped or stalled worker delays a scan by seconds, not minutes.
STALL_S = 120.0
STALL_MIN_S = 5.0
STALL_CHUNKS = 10

Result = str | bytes  # a digest as cache text, packed (``digest_codec.pack_result``)
Items = list[tuple[str, str]]


def process_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` processes with a safe start method; the forkserver imports the digest code
    once and each worker is forked from it, ready (not importing it again)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        context.set_forkserver_preload(["oo_nb.library.digest_codec"])
    return ProcessPoolExecutor(workers, mp_context=context)


@contextlib.contextmanager
def owned_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A ``process_pool`` closed on exit without waiting for a stalled worker (killed)."""
    pool = process_pool(workers)
    try:
        yield pool
    finally:
        # the processes, before shutdown forgets them (3.14 has terminate_workers for this)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + 5.0
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)


def prestart(executor: Executor, workers: int) -> None:
    """Have ``executor`` start its processes now (while the library is still being stat'ed):
    a process pool starts one per task submitted while none is idle."""
    for _ in range(workers):
        executor.submit(int)


def digest_on(executor: Executor, items: Items, *, pack: bool, workers: int = 2) -> list[Result]:
    """``digest_codec.pack_many(items, pack)``, in chunks on ``executor``; results keep the
    input order. A chunk the executor does not answer is done here."""
    chunks = _chunks(items, workers)
    futures: list[Future[list[Result]] | None] = []
    for chunk in chunks:
        try:
            futures.append(executor.submit(pack_many, chunk, pack))
        except Exception:  # broken or shut down: this chunk and the rest are done here
            futures.append(None)
    out: list[Result] = []
    gap, last = 0.0, time.monotonic()
    for chunk, future in zip(chunks, futures, strict=True):
        wait = STALL_S if gap == 0.0 else min(STALL_S, max(STALL_MIN_S, STALL_CHUNKS * gap))
        answer = _answer(future, wait)
        now = time.monotonic()
        if answer is None or len(answer) != len(chunk):
            answer = pack_many(chunk, pack)
        else:
            gap = max(gap, now - last)
        last = time.monotonic()
        out.extend(answer)
    return out


def _answer(future: Future[list[Result]] | None, wait: float) -> list[Result] | None:
    """The chunk's results, or None when they did not come: whatever went wrong there (a
    killed worker, a broken pool, a timeout), the chunk is read here, where a real error in
    the reading shows with its own traceback."""
    if future is None:
        return None
    try:
        answer = future.result(timeout=wait)
    except Exception:
        future.cancel()
        return None
    # an executor that answers something else than pack_many's list (a caller's own, wrapping
    # or mocking the call) made an AttributeError deep in the scan: its chunk is read here too
    if not isinstance(answer, list) or not all(isinstance(r, str | bytes) for r in answer):
        return None
    return answer


def _chunks(items: Items, workers: int) -> list[Items]:
    """``items`` in chunks of ``CHUNK``, the last few quarter-size: the processes then finish
    within a small chunk of each other, not a whole one."""
    small = max(1, CHUNK // 4)
    cut = max(0, len(items) - 2 * CHUNK * workers) // CHUNK * CHUNK
    return [items[i : i + CHUNK] for i in range(0, cut, CHUNK)] + [
        items[i : i + small] for i in range(cut, len(items), small)
    ]
