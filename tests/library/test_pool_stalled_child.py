"""A worker that stops answering (stopped, swapped out, stuck) while it holds chunks delays a
scan by seconds, not the two minutes it used to: once this process has done its share it waits
ten times its slowest chunk (at least 5 s), then kills the child and does its chunks itself."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import IO

import pytest

from oo_nb.library import pool
from oo_nb.library.digest_codec import pack_many

DEMO = Path(pool.__file__).parents[1] / "demo" / "data" / "documents"


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs SIGSTOP")
def test_a_stopped_child_s_chunks_are_done_here_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = sorted(str(p) for p in DEMO.glob("*.o-o.html"))
    items = [(docs[i % len(docs)], f"doc-{i}") for i in range(40 * pool.CHUNK)]
    helpers = pool.Helpers(1)
    child = helpers._children[0].proc
    assert child is not None
    time.sleep(1.0)  # its imports done, it is ready before this process is through
    send = pool._send
    stopped: list[int] = []

    def send_then_stop(stream: IO[bytes], data: bytes) -> None:
        send(stream, data)
        if not stopped:  # the child now holds a chunk, and stops
            os.kill(child.pid, signal.SIGSTOP)
            stopped.append(child.pid)

    monkeypatch.setattr(pool, "_send", send_then_stop)
    real_work = pool.pack_many

    def slow_work(chunk: list[tuple[str, str]], pack: bool) -> list[str | bytes]:
        time.sleep(0.05)  # this process slow: the child gets a chunk even if it starts late
        return real_work(chunk, pack)

    monkeypatch.setattr(pool, "pack_many", slow_work)
    monkeypatch.setattr(pool, "_STALL_S", 60.0)
    started = time.monotonic()
    try:
        results = pool.digest_parallel(items, 2, pack=False, helpers=helpers)
    finally:
        helpers.close()
        if child.poll() is None:
            child.kill()
    took = time.monotonic() - started
    assert stopped
    assert results == pack_many(items, False)
    assert took < 30, f"waited {took:.0f} s for a stopped child"
