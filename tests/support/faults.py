"""Crash safety and concurrency of ``store.write_document``, measured with real processes.

Crash safety: a forked writer replaces a document again and again (growing and shrinking
articles) and is killed with SIGKILL after a random delay; the file must then hold exactly the
version before or the version being written, every version a write replaced must have its own
history row and snapshot holding exactly those bytes, and the history must still parse and match
its checksums. Races: two forked processes read the same bytes and write their change with
``expected=`` those bytes; no success may be lost, and the loser must see a ConflictError or
LockedError (and retry), never a silent overwrite."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

from oo_nb.errors import ConflictError, LockedError, OOError
from oo_nb.format.document import Document
from oo_nb.store.store import document_lock, history_dir, read_history, rollback, write_document
from tests.support.corpus import corpus_documents, document_versions
from tests.support.figures import Figure

__all__ = ["crash_safety", "lock_contention", "races"]


def _count_row(part: str, measure: str, count: int, required: int | None) -> Figure:
    """How many trials ran: checked against the issue's minimum in a full run only."""
    if required is None:
        return Figure(part, measure, count, count, "info (reduced run)", None)
    return Figure(part, measure, count, count, f"≥ {required}", count >= required)


# --------------------------------------------------------------------------- crash safety
MIN_LANDED = 12  # kills inside a write-back, and versions replaced, a run must reach


def _writer_loop(
    path: Path, docs: list[Document], versions: list[bytes], start: int, out: int
) -> None:
    """Child: write version after version, announcing each attempt and completion on ``out``."""
    idx = start
    while True:
        nxt = (idx + 1) % len(versions)
        os.write(out, b"a%d\n" % nxt)
        write_document(docs[nxt], expected=versions[idx], action="crash test")
        os.write(out, b"d%d\n" % nxt)
        idx = nxt


def _fork_writer(
    path: Path, docs: list[Document], versions: list[bytes], start: int
) -> tuple[int, int]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        os.close(r)
        code = 0
        try:
            _writer_loop(path, docs, versions, start, w)
        except BaseException as exc:  # report, then die without running the parent's cleanup
            os.write(w, f"e{type(exc).__name__}: {exc}\n".encode()[:4000])
            code = 1
        os._exit(code)
    os.close(w)
    return pid, r


def _read_line(fd: int) -> str:
    """The child's first event line (blocks until it writes one, or exits)."""
    data = b""
    while not data.endswith(b"\n") and (byte := os.read(fd, 1)):
        data += byte
    return data.decode("utf-8", "replace")


def _read_all(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def _history_problems(path: Path, checked: dict[str, int]) -> list[str]:
    """Every log line parses, every snapshot it names exists and matches its sha256. Rows
    already verified (``checked``: file name -> row count) are not hashed again."""
    log = history_dir(path) / "log.jsonl"
    if not log.exists():
        return []
    problems = []
    lines = log.read_bytes().split(b"\n")
    if lines[-1]:
        problems.append("log.jsonl does not end with a newline (torn line)")
    rows = [ln for ln in lines if ln.strip()]
    for n, line in enumerate(rows[checked.get(path.name, 0) :], checked.get(path.name, 0) + 1):
        try:
            row = json.loads(line)
            snap = history_dir(path) / "snapshots" / row["file"]
            if hashlib.sha256(snap.read_bytes()).hexdigest() != row["sha256"]:
                problems.append(f"snapshot {row['file']} does not match its sha256")
        except (ValueError, KeyError, OSError) as exc:
            problems.append(f"log line {n}: {type(exc).__name__}: {exc}")
    checked[path.name] = len(rows)
    return problems


def _log_rows(path: Path) -> list[dict[str, Any]]:
    """The complete (newline-ended) rows of the history log that parse; damage is counted by
    ``_history_problems``."""
    log = history_dir(path) / "log.jsonl"
    if not log.exists():
        return []
    rows = []
    for line in log.read_bytes().split(b"\n")[:-1]:
        with contextlib.suppress(ValueError):
            row = json.loads(line)
            if isinstance(row, dict) and isinstance(row.get("seq"), int):
                rows.append(row)
    return rows


def _missing_snapshots(
    path: Path, last_seq: int, replaced: list[bytes], unfinished: bytes | None
) -> list[str]:
    """Every version this trial replaced must have its own new log row (in order) naming a
    snapshot that holds exactly its bytes. ``unfinished``: the version a killed write was about
    to replace; its snapshot may already be there (snapshot first, then replace)."""
    new = [r for r in _log_rows(path) if r["seq"] > last_seq]
    problems = []
    for n, data in enumerate(replaced):
        row = new[n] if n < len(new) else None
        if row is None or row.get("sha256") != hashlib.sha256(data).hexdigest():
            problems.append(
                f"{path.name}: replaced version {n + 1} of this trial has no history row"
            )
            continue
        snap = history_dir(path) / "snapshots" / str(row.get("file"))
        if not snap.is_file() or snap.read_bytes() != data:
            problems.append(
                f"{path.name}: snapshot {row.get('file')} missing or not the replaced bytes"
            )
    extra = new[len(replaced) :]
    if extra and (
        len(extra) > 1
        or unfinished is None
        or extra[0].get("sha256") != hashlib.sha256(unfinished).hexdigest()
    ):
        problems.append(
            f"{path.name}: {len(extra)} history rows for versions that were not replaced"
        )
    return problems


def _setup(
    workdir: Path, versions_per_doc: int, seed: int
) -> list[tuple[Path, list[bytes], list[Document]]]:
    setups = []
    for name, data in corpus_documents().items():
        folder = workdir / name.split(".")[0]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        versions = document_versions(data, versions_per_doc, seed=seed)
        path.write_bytes(versions[0])
        path.chmod(0o755)
        setups.append((path, versions, [Document.parse(v, path=path) for v in versions]))
    return setups


def _mean_write_s(workdir: Path, seed: int) -> float:
    (_path, versions, docs) = _setup(workdir / "calibrate", 2, seed)[0]
    started = time.perf_counter()
    for i in range(10):
        write_document(docs[(i + 1) % 2], expected=versions[i % 2], action="calibrate")
    return (time.perf_counter() - started) / 10


def crash_safety(
    kills: int,
    workdir: Path,
    *,
    seed: int = 1,
    versions_per_doc: int = 6,
    required: int | None = None,
) -> list[Figure]:
    """Kill ``kills`` writers at random moments; see the module doc."""
    rng = random.Random(seed)
    setups = _setup(workdir, versions_per_doc, seed)
    write_s = _mean_write_s(workdir, seed)
    outcomes: Counter[str] = Counter()
    bad_files: list[str] = []
    history: list[str] = []
    writer_errors: list[str] = []
    checked: dict[str, int] = {}
    unsnapshotted: list[str] = []
    replaced_total = 0
    trial = 0
    # ``kills`` trials, then more (up to 4×) while fewer than MIN_LANDED kills landed inside a
    # write-back or replaced a version: on a loaded machine the child runs slower than the
    # calibration, and kills land early, testing less.
    while trial < kills or (
        trial < 4 * kills
        and min(replaced_total, sum(outcomes[k] for k in ("old", "new", "torn"))) < MIN_LANDED
    ):
        path, versions, docs = setups[trial % len(setups)]
        before = path.read_bytes()
        if before not in versions:  # a torn file from the last trial (already counted): reset
            path.write_bytes(before := versions[0])
        start = versions.index(before)
        last_seq = max((r["seq"] for r in _log_rows(path)), default=0)
        pid, fd = _fork_writer(path, docs, versions, start)
        # The clock starts when the writer announces its first write-back, not at fork: on a
        # loaded machine a child may not run for a while, and a kill before it starts tests
        # nothing. Then kill within the first few write-backs: every moment equally likely.
        head = _read_line(fd)
        time.sleep(rng.uniform(0.0, 3.0 * write_s))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        events = (head + _read_all(fd)).split()
        writer_errors += [e[1:] for e in events if e.startswith("e")]
        attempts = [int(e[1:]) for e in events if e.startswith("a")]
        dones = [int(e[1:]) for e in events if e.startswith("d")]
        after = path.read_bytes()
        if not attempts:
            allowed = {before}
            outcomes["killed before its first write-back"] += 1
        else:
            last = attempts[-1]
            prev = versions[(last - 1) % len(versions)]
            allowed = {prev, versions[last]}
            if dones and dones[-1] == last:
                outcomes["killed between write-backs"] += 1
            else:
                outcomes[
                    "old" if after == prev else "new" if after == versions[last] else "torn"
                ] += 1
        if after not in allowed:
            bad_files.append(
                f"trial {trial}: {path.name} has {len(after)} bytes, neither old nor new"
            )
        # History intact: each version replaced in this trial (by a finished write, or by the
        # killed one if the new bytes are in place) was snapshotted before it was replaced.
        replaced = [versions[(d - 1) % len(versions)] for d in dones]
        unfinished = None
        if attempts and not (dones and dones[-1] == attempts[-1]):
            prev = versions[(attempts[-1] - 1) % len(versions)]
            if after == versions[attempts[-1]]:
                replaced.append(prev)
            else:
                unfinished = prev
        replaced_total += len(replaced)
        unsnapshotted += [
            f"trial {trial}: {p}" for p in _missing_snapshots(path, last_seq, replaced, unfinished)
        ]
        history += _history_problems(path, checked)
        trial += 1
    kills = trial
    leftovers = sum(1 for p, _, _ in setups for f in p.parent.rglob("*.tmp"))
    # After all that, every version kept in history still rolls back byte for byte.
    rollback_errors = 0
    for path, _, _ in setups:
        checked.pop(path.name, None)
        history += _history_problems(path, checked)
        kept = [e for e in read_history(path) if e.snapshot is not None and e.version is not None]
        if kept:
            entry = kept[rng.randrange(len(kept))]
            assert entry.snapshot is not None and entry.version is not None
            rollback(path, entry.version)
            if path.read_bytes() != entry.snapshot.read_bytes():
                rollback_errors += 1
    mid = outcomes["old"] + outcomes["new"] + outcomes["torn"]
    return [
        _count_row("1 crash", "writers killed (SIGKILL) mid-run", kills, required),
        Figure("1 crash", "killed inside write_document", kills, mid, "info", None),
        Figure(
            "1 crash",
            "… left old / new bytes",
            mid,
            f"{outcomes['old']} / {outcomes['new']}",
            "info",
            None,
        ),
        Figure(
            "1 crash", "files neither old nor new bytes", kills, len(bad_files), "0", not bad_files
        ),
        Figure("1 crash", "history damage (log, sha256)", kills, len(history), "0", not history),
        Figure(
            "1 crash",
            "replaced versions without their snapshot",
            replaced_total,
            len(unsnapshotted),
            "0",
            not unsnapshotted,
        ),
        Figure(
            "1 crash",
            "… first missing snapshot",
            len(unsnapshotted),
            unsnapshotted[0] if unsnapshotted else "none",
            "info",
            None,
        ),
        Figure(
            "1 crash",
            "writer errors before the kill",
            kills,
            len(writer_errors),
            "0",
            not writer_errors,
        ),
        Figure(
            "1 crash",
            "rollback to a kept version wrong",
            len(setups),
            rollback_errors,
            "0",
            rollback_errors == 0,
        ),
        Figure("1 crash", "temp files left by killed writers", kills, leftovers, "info", None),
        Figure("1 crash", "mean write-back time (ms)", 10, round(write_s * 1000, 2), "info", None),
    ]


# --------------------------------------------------------------------------- races
def _racer(path: Path, marker: str, ready: int, go: int, out: int, attempts: int) -> dict[str, Any]:
    conflicts = locked = 0
    for attempt in range(attempts):
        base = path.read_bytes()
        doc = Document.parse(base, path=path)
        new = doc.edit_block("oo-manifest", lambda m: {**m, "race": [*m.get("race", []), marker]})
        if attempt == 0:  # both racers hold the same bytes, then write at the same moment
            os.write(ready, b"r")
            os.read(go, 1)
        try:
            write_document(new, expected=base, action=marker, timeout=5.0)
            return {"ok": True, "conflicts": conflicts, "locked": locked}
        except ConflictError:
            conflicts += 1
        except LockedError:
            locked += 1
    return {"ok": False, "conflicts": conflicts, "locked": locked}


def _fork_racer(path: Path, marker: str, pipes: dict[str, tuple[int, int]], attempts: int) -> int:
    pid = os.fork()
    if pid != 0:
        return pid
    code = 0
    try:
        result = _racer(path, marker, pipes["ready"][1], pipes["go"][0], pipes["out"][1], attempts)
    except BaseException as exc:
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        code = 1
    os.write(pipes["out"][1], (json.dumps({"marker": marker, **result}) + "\n").encode())
    os._exit(code)


def races(
    count: int, workdir: Path, *, attempts: int = 20, required: int | None = None
) -> list[Figure]:
    """``count`` races of two processes updating the same document."""
    name, data = next(iter(corpus_documents().items()))
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / name
    path.write_bytes(data)
    results: list[dict[str, Any]] = []
    for race in range(count):
        pipes = {k: os.pipe() for k in ("ready", "go", "out")}
        pids = [_fork_racer(path, f"race{race}-p{child}", pipes, attempts) for child in (0, 1)]
        for fd in (pipes["ready"][1], pipes["go"][0], pipes["out"][1]):
            os.close(fd)
        ready = b""
        while len(ready) < 2 and (chunk := os.read(pipes["ready"][0], 2)):
            ready += chunk
        os.write(pipes["go"][1], b"gg")
        for pid in pids:
            os.waitpid(pid, 0)
        for fd in (pipes["ready"][0], pipes["go"][1]):
            os.close(fd)
        results += [json.loads(line) for line in _read_all(pipes["out"][0]).splitlines()]
    final = Document.read(path).block_json("oo-manifest").get("race", [])
    succeeded = [r["marker"] for r in results if r.get("ok")]
    lost = [m for m in succeeded if final.count(m) != 1]
    unclear = [r["error"] for r in results if "error" in r]
    gave_up = [r["marker"] for r in results if not r.get("ok") and "error" not in r]
    conflicts = sum(r.get("conflicts", 0) for r in results)
    writes = [e for e in read_history(path) if e.action.startswith("race")]
    return [
        _count_row("2 race", "races of two writers", count, required),
        Figure("2 race", "lost updates", len(succeeded), len(lost), "0", not lost),
        Figure(
            "2 race",
            "losers told ConflictError, retried",
            count,
            conflicts,
            f"≥ {count}",
            conflicts >= count,
        ),
        Figure(
            "2 race", "errors other than Conflict/Locked", 2 * count, len(unclear), "0", not unclear
        ),
        Figure("2 race", "writers that gave up", 2 * count, len(gave_up), "0", not gave_up),
        Figure(
            "2 race",
            "history rows = successful writes",
            len(succeeded),
            len(writes),
            str(len(succeeded)),
            len(writes) == len(succeeded),
        ),
    ]


# --------------------------------------------------------------------------- lock held
def lock_contention(trials: int, workdir: Path, *, timeout_s: float = 0.2) -> list[Figure]:
    """A slow writer holds the lock; a second writer with a short timeout must get a
    LockedError that names the holder (and write nothing). No timing: the holder says when it
    has the lock and keeps it until the second writer has had its answer."""
    name, data = next(iter(corpus_documents().items()))
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / name
    path.write_bytes(data)
    doc = Document.read(path).edit_block("oo-manifest", lambda m: {**m, "version": 999})
    clear = 0
    message = ""
    unchanged = True
    holder_errors: list[str] = []
    for _ in range(trials):
        held_r, held_w = os.pipe()  # child -> parent: "I hold the lock"
        done_r, done_w = os.pipe()  # parent -> child: "release it"
        pid = os.fork()
        if pid == 0:
            os.close(held_r)
            os.close(done_w)
            code = 0
            try:
                with document_lock(path, "slow writer"):
                    os.write(held_w, b"l")
                    os.read(done_r, 1)  # returns on the parent's byte, or at EOF if it died
            except BaseException as exc:
                os.write(held_w, f"e{type(exc).__name__}: {exc}".encode()[:2000])
                code = 1
            os._exit(code)
        os.close(held_w)
        os.close(done_r)
        said = os.read(held_r, 2000)
        os.close(held_r)
        try:
            if said != b"l":
                holder_errors.append(
                    said.decode("utf-8", "replace") or "holder died before locking"
                )
                continue
            try:
                write_document(doc, expected=data, timeout=timeout_s)
                unchanged = False
            except LockedError as exc:
                message = str(exc).replace(str(path), path.name)
                clear += f"pid {pid}" in str(exc) and "slow writer" in str(exc)
            except OOError as exc:
                message = f"{type(exc).__name__}: {exc}"
        finally:
            with contextlib.suppress(BrokenPipeError):  # a holder that died reads nothing
                os.write(done_w, b"g")
            os.close(done_w)
            _, status = os.waitpid(pid, 0)
        if status != 0:
            holder_errors.append(f"holder exited with status {status}")
        unchanged = unchanged and path.read_bytes() == data
    return [
        Figure(
            "2 race", "LockedError naming the holder", trials, clear, str(trials), clear == trials
        ),
        Figure("2 race", "… message shown", trials, message, "info", None),
        Figure("2 race", "writes while locked", trials, 0 if unchanged else 1, "0", unchanged),
        Figure(
            "2 race",
            "lock holder failures",
            trials,
            "; ".join(holder_errors) or 0,
            "0",
            not holder_errors,
        ),
    ]


# --------------------------------------------------------------------------- I/O errors
_IO_CALLS = ("open", "fsync", "replace", "link", "chmod", "mkdir")


class _FailOnCall:
    """Stands in for an ``os`` function: the ``k``-th call fails with ``code``."""

    def __init__(self, real: Any, k: int, code: int) -> None:
        self.real, self.k, self.code, self.seen = real, k, code, 0

    def __call__(self, *args: Any, **kw: Any) -> Any:
        self.seen += 1
        if self.seen == self.k:
            raise OSError(self.code, f"{os.strerror(self.code)} (injected)")
        return self.real(*args, **kw)


def io_faults(workdir: Path) -> list[Figure]:
    """Make the k-th call of each I/O primitive ``write_document`` uses fail with ENOSPC (disk
    full) and check that the file is old or new, the history still reads, and the caller gets
    an error it can show."""
    import errno
    import unittest.mock

    name, data = next(iter(corpus_documents().items()))
    new_bytes = document_versions(data, 2)[1]
    trials = wrong = torn = misleading = 0
    kinds: Counter[str] = Counter()
    for call in _IO_CALLS:
        for k in range(1, 8):
            folder = workdir / f"{call}-{k}"
            folder.mkdir(parents=True)
            path = folder / name
            path.write_bytes(data)
            doc = Document.parse(new_bytes, path=path)
            failing = _FailOnCall(getattr(os, call), k, errno.ENOSPC)
            trials += 1
            try:
                with unittest.mock.patch.object(os, call, failing):
                    write_document(doc, expected=data, action="io fault")
                kinds["no error (call not reached)"] += 1
            except OOError as exc:
                kinds[f"OOError: {exc.message[:40]}"] += 1
                said_unchanged = "unchanged" in exc.message
                misleading += said_unchanged != (path.read_bytes() == data)
            except OSError as exc:
                kinds[f"bare {type(exc).__name__}"] += 1
            after = path.read_bytes()
            torn += after not in (data, new_bytes)
            try:
                read_history(path)
            except OOError:
                wrong += 1
    bare = sum(v for k, v in kinds.items() if k.startswith("bare"))
    return [
        Figure("1 crash", "disk-full errors injected (I/O calls)", trials, trials, "info", None),
        Figure("1 crash", "… files neither old nor new", trials, torn, "0", torn == 0),
        Figure("1 crash", "… history unreadable afterwards", trials, wrong, "0", wrong == 0),
        Figure("1 crash", "… reported as bare OSError, not OOError", trials, bare, "0", bare == 0),
        Figure(
            "1 crash",
            "… message wrong about the file's state",
            trials,
            misleading,
            "0",
            misleading == 0,
        ),
    ]
