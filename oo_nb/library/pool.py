"""Digest many files on several cores without fork and without re-importing ``__main__``.

Child interpreters are started with ``python -c`` (safe in a threaded Jupyter kernel, where fork
is not, and an unguarded user script is never run again, as multiprocessing's spawn would).
The work is cut into small chunks on a queue: this process digests chunks itself while one
helper thread per child feeds that child, so a child that is slow to start, or dies, costs at
most two chunks, which are then done here. Results keep the input order. ``Helpers`` starts the
children before the files to read are known: their start-up (imports, 0.2 s) then overlaps the
stat of the library instead of the first chunks."""

from __future__ import annotations

import collections
import contextlib
import fcntl
import gc
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from typing import IO

from oo_nb.library.digest_codec import pack_many

__all__ = ["CHUNK", "Helpers", "digest_parallel", "worker_main"]

CHUNK = 16  # files per message: small enough to balance, large enough to amortise pickling
WORKER_CODE = "import sys; from oo_nb.library.pool import worker_main; sys.exit(worker_main())"
# Once this process finished its share, a child that has not answered is killed (its chunks
# are then done here) after 10 times the slowest chunk this process did (it holds two at most),
# at least 5 s, at most 120 s: a stopped or stalled child delays a scan by seconds, not minutes.
_STALL_S = 120.0
_STALL_MIN_S = 5.0
_STALL_CHUNKS = 10
# A child gets its next chunk before it answers the last (it never waits for this process's
# helper thread, which waits for the GIL), but only while enough are left for this process too.
_AHEAD_WHILE = 4  # chunks still to hand out
_PIPE_BYTES = 1 << 20  # a chunk's answer (~250 KB unpacked) fits: the child never blocks on it

Result = str | bytes  # a digest as cache text, packed (``digest_codec.pack_result``)
Items = list[tuple[str, str]]


class _Child:
    """One child interpreter, fed by one helper thread."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.held: collections.deque[int] = collections.deque()  # chunks sent, not answered

    def start(self) -> _Child:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        with contextlib.suppress(OSError):  # no processes here: this process does all the work
            self.proc = subprocess.Popen(
                [sys.executable, "-c", WORKER_CODE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        if self.proc is not None and self.proc.stdout is not None:
            with contextlib.suppress(OSError, AttributeError):  # Linux only, and capped
                fcntl.fcntl(self.proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        return self

    def release(self) -> None:
        """Close this process's ends of the child's pipes (an exited child's too: unclosed,
        each is a ResourceWarning when collected)."""
        if self.proc is not None:
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()

    def stop_if_idle(self) -> None:
        if not self.held and self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # still starting or done: nothing to wait for


class Helpers:
    """``count`` child interpreters started now, for a ``digest_parallel`` call to come; the
    ones it does not take are killed by ``close``."""

    def __init__(self, count: int) -> None:
        self._children = [_Child().start() for _ in range(count)]

    def take(self, count: int) -> list[_Child]:
        taken, self._children = self._children[:count], self._children[count:]
        return taken

    def close(self) -> None:
        for child in self.take(len(self._children)):
            if child.proc is not None:
                child.proc.kill()
                child.proc.wait()
                child.release()


def digest_parallel(
    items: Items, workers: int, *, pack: bool = True, helpers: Helpers | None = None
) -> list[Result]:
    """``digest_codec.pack_many(items, pack)``, shared with ``workers - 1`` child processes
    (taken from ``helpers`` first)."""
    chunks = _chunks(items, workers)

    def work(chunk: Items) -> list[Result]:
        return pack_many(chunk, pack)

    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for i in range(len(chunks)):
        todo.put(i)
    results: list[list[Result] | None] = [None] * len(chunks)
    children = helpers.take(workers - 1) if helpers is not None else []
    children += [_Child() for _ in range(workers - 1 - len(children))]
    feeders = [
        threading.Thread(target=_feed, args=(c, chunks, todo, results, pack), daemon=True)
        for c in children
    ]
    for feeder in feeders:
        feeder.start()
    slowest = 0.0
    try:
        while True:
            try:
                i = todo.get_nowait()
            except queue.Empty:
                break
            started = time.monotonic()
            results[i] = work(chunks[i])
            slowest = max(slowest, time.monotonic() - started)
        for child in children:
            child.stop_if_idle()
        wait = min(_STALL_S, max(_STALL_MIN_S, _STALL_CHUNKS * slowest))
        deadline = time.monotonic() + wait  # one for all children, not one each
        for feeder in feeders:
            feeder.join(max(0.0, deadline - time.monotonic()))
    finally:
        for child in children:
            if child.proc is not None and child.proc.poll() is None:
                child.proc.kill()
        for feeder in feeders:
            feeder.join(5.0)
    for i, part in enumerate(results):  # chunks a dead or stalled child held
        if part is None:
            results[i] = work(chunks[i])
    return [r for part in results if part is not None for r in part]


def _chunks(items: Items, workers: int) -> list[Items]:
    """``items`` in chunks of ``CHUNK``, the last few quarter-size: the processes then finish
    within a small chunk of each other, not a whole one."""
    small = max(1, CHUNK // 4)
    cut = max(0, len(items) - 2 * CHUNK * workers) // CHUNK * CHUNK
    return [items[i : i + CHUNK] for i in range(0, cut, CHUNK)] + [
        items[i : i + small] for i in range(cut, len(items), small)
    ]


def _feed(
    child: _Child,
    chunks: list[Items],
    todo: queue.SimpleQueue[int],
    results: list[list[Result] | None],
    pack: bool,
) -> None:
    proc = child.proc if child.proc is not None else child.start().proc
    if proc is None:
        return  # no processes here: this process does all the work
    assert proc.stdin is not None and proc.stdout is not None
    answers = proc.stdout.fileno()  # read unbuffered: one system call (and GIL wait) per answer
    room = _pipe_room(proc.stdin)
    held = child.held
    ready: tuple[int, bytes] | None = None  # a chunk taken, to send when the child can take it
    try:
        if _read_exactly(answers, 1) != b"R":  # ready: imports done, it holds no chunk meanwhile
            return
        while True:
            while len(held) < (2 if todo.qsize() > _AHEAD_WHILE else 1):
                if ready is None:
                    try:
                        i = todo.get_nowait()
                    except queue.Empty:
                        break
                    message = pickle.dumps((pack, chunks[i]), protocol=pickle.HIGHEST_PROTOCOL)
                    ready = (i, message)
                i, message = ready
                # Sent ahead, a message larger than the child's input pipe blocks this thread
                # until the child reads it, while the child, busy with the chunk it holds, may
                # be blocked writing an answer larger than its output pipe, which this thread
                # reads only after sending: both would wait until the stall timeout. Such a
                # message waits for the answer instead.
                if held and len(message) + 8 > room:
                    break
                held.append(i)
                _send(proc.stdin, message)
                ready = None
            if not held:
                return
            results[held[0]] = pickle.loads(_receive(answers))
            held.popleft()
    except (OSError, EOFError, ValueError, pickle.UnpicklingError, AttributeError, ImportError):
        return  # the child died: what it held is redone by the caller
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()  # tells a healthy child to exit
        try:
            proc.wait(5.0)
        except subprocess.TimeoutExpired:
            proc.kill()
        child.release()


def _pipe_room(stream: IO[bytes]) -> int:
    """The bytes a pipe holds before a write to it blocks: its size on Linux (64 KB, less when
    the user's pipes are over their soft limit), elsewhere the least we count on."""
    try:
        return int(fcntl.fcntl(stream.fileno(), fcntl.F_GETPIPE_SZ))
    except (OSError, AttributeError, ValueError):
        return 4096


def _send(stream: IO[bytes], data: bytes) -> None:
    stream.write(struct.pack(">Q", len(data)))
    stream.write(data)
    stream.flush()


def _receive(fd: int) -> bytes:
    """One message, read unbuffered from ``fd`` (a child's answers, or a child's input)."""
    head = _read_exactly(fd, 8)
    if len(head) < 8:
        raise EOFError("worker closed its output")
    size = struct.unpack(">Q", head)[0]
    data = _read_exactly(fd, size)
    if len(data) < size:
        raise EOFError("worker output cut short")
    return data


def _read_exactly(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd``, fewer only at its end."""
    parts: list[bytes] = []
    while size > 0:
        part = os.read(fd, size)
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def worker_main() -> int:
    """Child side: say ready, then answer each pickled chunk with its digests' cache text."""
    gc.disable()  # a short-lived process building acyclic rows: the collector only costs time
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the protocol stream
    inp = sys.stdin.fileno()
    out.write(b"R")
    out.flush()
    while True:
        try:
            pack, items = pickle.loads(_receive(inp))
        except EOFError:
            return 0
        _send(out, pickle.dumps(pack_many(items, pack), protocol=pickle.HIGHEST_PROTOCOL))
