"""Reliability part 8 (attacks, round two): "nothing lost, nothing hidden". Each row re-runs one
attack of issue 17 from outside (the CLI's ``main`` or the public functions, child processes for
signals) and counts the breaks found."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest.mock
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.claude_code import SCRATCH_PREFIX, ClaudeCodeBackend
from oo_nb.agent.budget import Budget
from oo_nb.agent.pricing import price_for
from oo_nb.agent.types import RunInfo
from oo_nb.cli.main import main
from oo_nb.edit.sync import sync_dir
from oo_nb.errors import OOError
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.store.stale import mark_scratch
from oo_nb.store.store import history_dir, read_history, save_pending, write_document
from tests.conftest import CORPUS, corpus_file
from tests.support.corpus import document_versions
from tests.support.crlf import bash_help, crlf_document, parts
from tests.support.fake_claude import BACKEND_CHILD, FAKE_MODES, fake_claude_env, gone, wait_for_log
from tests.support.figures import Figure
from tests.support.lost_samples import mixed_folder, three_writes

__all__ = ["attacks"]

PART = "8 attack"


def _row(measure: str, trials: int, breaks: int) -> Figure:
    return Figure(PART, measure, trials, breaks, "0", breaks == 0)


def _cli(*argv: str) -> tuple[int, str, str]:
    """``oo ARGV`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _copy(name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return corpus_file(name, folder)


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


# --------------------------------------------------------------------------- oo library
def _library_notes(workdir: Path) -> Figure:
    """A folder with files that cannot be read: ``oo library`` must say how many on stderr
    (and say nothing when every file was read)."""
    one_bad = workdir / "one-bad"
    one_bad.mkdir(parents=True)
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", one_bad / "good.o-o.html")
    (one_bad / "empty.o-o.html").write_bytes(b"")
    all_good = workdir / "all-good"
    all_good.mkdir()
    shutil.copy(CORPUS / "agi-declared.o-o.html", all_good / "good.o-o.html")
    cases = [
        (mixed_folder(workdir / "mixed"), "2 of 5 files could not be read"),
        (one_bad, "1 of 2 files could not be read"),
        (all_good, None),
    ]
    breaks = 0
    for folder, expected in cases:
        for fmt in ("table", "json"):
            code, out, err = _cli("library", str(folder), "--format", fmt)
            said = err.strip().splitlines()
            if expected is None:
                ok = said == []
            else:
                ok = len(said) == 1 and expected in said[0] and "--frame errors" in said[0]
            breaks += not ok or code != 0 or "could not be read" in out
    return _row("unreadable files not reported by oo library", len(cases) * 2, breaks)


# --------------------------------------------------------------------------- oo demo
def _demo_changes(workdir: Path) -> Figure:
    """``oo demo DIR`` again on a demo folder holding the user's work: refused, nothing touched;
    on an unchanged one: reinstalled."""
    from oo_nb.demo import MARKER, install_demo

    def edit(folder: Path, first: Path) -> None:
        first.write_bytes(first.read_bytes().replace(b"Overview", b"Overview (mine)", 1))

    def store_write(folder: Path, first: Path) -> None:
        doc = Document.read(first).edit_block("oo-manifest", lambda m: m.update(version=9))
        write_document(doc, expected=first.read_bytes(), action="edit")

    def pending(folder: Path, first: Path) -> None:
        save_pending(first, Document.read(first), {}, first.read_bytes())

    def other(folder: Path, first: Path) -> None:
        (folder / "mine.o-o.html").write_bytes(first.read_bytes())

    def appended(folder: Path, first: Path) -> None:  # same size class, one byte more
        first.write_bytes(first.read_bytes() + b"\n")

    changes: list[Callable[[Path, Path], None]] = [edit, store_write, pending, other, appended]
    breaks = 0
    for n, change in enumerate(changes):
        folder = workdir / f"demo-{n}"
        install_demo(folder, index=False)
        first = folder / json.loads((folder / MARKER).read_text())["documents"][0]
        change(folder, first)
        before = _files(folder)
        code, _, err = _cli("demo", str(folder), "--quiet", "--no-index")
        breaks += code != 2 or "--reset" not in err or _files(folder) != before
    unchanged = workdir / "demo-unchanged"
    install_demo(unchanged, index=False)
    code, out, err = _cli("demo", str(unchanged), "--quiet", "--no-index")
    breaks += code != 0 or out != "" or err != ""
    return _row("user edits deleted by oo demo", len(changes) + 1, breaks)


# --------------------------------------------------------------------------- CRLF
def _crlf(workdir: Path) -> Figure:
    """CR LF in the shell part: ``oo check`` must fail it; ``oo sync --fix-line-endings`` must
    make bash run it with every byte of the page kept. CR LF in the page alone is fine."""
    breaks = trials = 0
    variants = {"all": (True, True), "shell": (False, True), "head": (False, False)}
    for name, (page, shell) in variants.items():
        folder = workdir / f"crlf-{name}"
        folder.mkdir(parents=True)
        path = crlf_document(folder, page=page, shell=shell)
        if name == "head":  # only the lines before the page
            head, body, tail = parts(path.read_bytes())
            path.write_bytes(head.replace(b"\n", b"\r\n") + body + tail)
        before = path.read_bytes()
        trials += 1
        code, _, _ = _cli("check", str(path))
        flagged = any(f.code == "crlf-shell" and f.severity == "error" for f in check_path(path))
        breaks += code != 1 or not flagged
        trials += 1
        code, _, _ = _cli("sync", str(folder), "--fix-line-endings")
        head, body, tail = parts(path.read_bytes())
        fixed = body == parts(before)[1] and b"\r" not in head + tail
        breaks += code != 0 or not fixed or not bash_help(path).stdout.startswith("Usage")
    folder = workdir / "crlf-page-only"
    folder.mkdir()
    path = crlf_document(folder, page=True, shell=False)
    trials += 1
    breaks += any(f.code == "crlf-shell" for f in check_path(path))  # a false alarm is a break
    return _row("CRLF documents passed by oo check (or fixed wrongly)", trials, breaks)


# --------------------------------------------------------------------------- disk full
_IO_CALLS = ("open", "fsync", "replace", "link", "chmod", "mkdir")


class _FailOnCall:
    """Stands in for an ``os`` function: the ``k``-th call fails with ENOSPC."""

    def __init__(self, real: Any, k: int) -> None:
        self.real, self.k, self.seen = real, k, 0

    def __call__(self, *args: Any, **kw: Any) -> Any:
        self.seen += 1
        if self.seen == self.k:
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} (injected)")
        return self.real(*args, **kw)


def _log_rows(path: Path) -> list[dict[str, Any]]:
    log = history_dir(path) / "log.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_bytes().splitlines() if line.strip()]


def _disk_full(workdir: Path) -> Figure:
    """ENOSPC at the k-th call of each I/O primitive of a write (the snapshot's, the log's, the
    replace): a write that did not happen must leave no history row and no snapshot; one that
    did must leave exactly one row for the version it replaced."""
    name = "yc-w26-batch.o-o.html"
    data = (CORPUS / name).read_bytes()
    old, new = document_versions(data, 3)[1:]
    trials = breaks = 0
    for call in _IO_CALLS:
        for k in range(1, 8):
            folder = workdir / f"full-{call}-{k}"
            folder.mkdir(parents=True)
            path = folder / name
            path.write_bytes(data)
            write_document(Document.parse(old, path=path), expected=data, action="before")
            rows_before = _log_rows(path)
            snaps_before = sorted((history_dir(path) / "snapshots").iterdir())
            trials += 1
            failing = _FailOnCall(getattr(os, call), k)
            try:
                with unittest.mock.patch.object(os, call, failing):
                    write_document(Document.parse(new, path=path), expected=old, action="full")
            except OOError:
                pass
            rows = _log_rows(path)
            snaps = sorted((history_dir(path) / "snapshots").iterdir())
            if path.read_bytes() == old:
                breaks += rows != rows_before or snaps != snaps_before
            else:
                added = rows[len(rows_before) :]
                breaks += (
                    path.read_bytes() != new
                    or len(added) != 1
                    or added[0]["sha256"] != hashlib.sha256(old).hexdigest()
                )
    return _row("'replaced' entries for failed writes (ENOSPC at each I/O call)", trials, breaks)


# --------------------------------------------------------------------------- oo history
def _snapshots(workdir: Path) -> Figure:
    """A snapshot removed, damaged or replaced by a folder: ``oo history`` must flag that row
    (and only that row), not list it as kept or crash."""

    def remove(p: Path) -> None:
        p.unlink()

    def damage(p: Path) -> None:
        p.write_bytes(b"not the kept bytes")

    def folder_instead(p: Path) -> None:
        p.unlink()
        p.mkdir()

    cases: list[tuple[str, Callable[[Path], None] | None]] = [
        ("missing", remove),
        ("damaged", damage),
        ("damaged", folder_instead),
        ("", None),
    ]
    breaks = 0
    for n, (state, spoil) in enumerate(cases):
        path = three_writes(workdir / f"history-{n}")
        snapshot = read_history(path)[1].snapshot
        assert snapshot is not None
        if spoil is not None:
            spoil(snapshot)
        try:
            code, out, _ = _cli("history", str(path))
        except Exception:  # a crash is a break too
            breaks += 1
            continue
        flagged = [line for line in out.splitlines() if "[snapshot " in line]
        if state:
            ok = len(flagged) == 1 and flagged[0].startswith("2 ") and f"[snapshot {state}]" in out
        else:
            ok = not flagged
        breaks += code != 0 or not ok
    return _row("missing snapshots not flagged by oo history", len(cases), breaks)


def _written_states(workdir: Path) -> Figure:
    """The state a write produced, then the file changed outside oo (an editor's append, a
    `git checkout` of the state before, a truncation, a sync tool's other file, a deletion),
    after each kind of write (an update, a contract edit, `oo new`): `oo history` must list it
    and say so, and `oo rollback --seq N` give it back byte for byte (it kept only the states
    before each write: the paid update was gone)."""

    def by_update(folder: Path) -> Path:
        return three_writes(folder)

    def by_contract(folder: Path) -> Path:
        path = _copy("agi-declared.o-o.html", folder)
        _cli("contract", str(path), "--set", "tone", "dry")
        return path

    def by_new(folder: Path) -> Path:
        _cli("new", "Tidal stream power", "--dir", str(folder), "--no-update")
        return folder / "tidal-stream-power.o-o.html"

    def append(path: Path) -> None:
        path.write_bytes(path.read_bytes() + b"<!-- an editor touched it -->\n")

    def checkout(path: Path) -> None:  # the state before the write, or an older file
        kept = [e.snapshot for e in read_history(path) if e.snapshot is not None]
        path.write_bytes(kept[-1].read_bytes() if kept else b"checked out")

    def truncate(path: Path) -> None:
        path.write_bytes(path.read_bytes()[:100])

    def other_file(path: Path) -> None:
        path.write_bytes(corpus_file("ai-model-landscape.o-o.html", workdir).read_bytes())

    def delete(path: Path) -> None:
        path.unlink()

    trials = breaks = 0
    for write in (by_update, by_contract, by_new):
        for change in (append, checkout, truncate, other_file, delete):
            trials += 1
            path = write(workdir / f"{write.__name__}-{change.__name__}")
            written = path.read_bytes()
            change(path)
            try:
                code, out, _ = _cli("history", str(path))
                seq = next(e.seq for e in read_history(path) if e.action.endswith("outside oo"))
                restored, _, _ = _cli("rollback", str(path), "--seq", str(seq))
                ok = code == 0 and f"seq {seq} is what oo last wrote" in out
                ok = ok and restored == 0 and path.read_bytes() == written
            except Exception:  # a crash, or the state not listed (StopIteration), is a break
                ok = False
            breaks += not ok
    return _row("written states lost after a change made outside oo", trials, breaks)


# --------------------------------------------------------------------------- SIGTERM
_WRITER = r"""
import os, sys, time
from pathlib import Path
from oo_nb.format.document import Document
from oo_nb.store.store import write_document

path, stop_in = Path(sys.argv[1]), sys.argv[2]
real_fsync = os.fsync

def fsync(fd):
    name = os.readlink(f"/proc/self/fd/{fd}")
    if name.endswith(".tmp") and stop_in in os.path.basename(name):
        print("stopped", flush=True)
        time.sleep(60)
    real_fsync(fd)

os.fsync = fsync
doc = Document.read(path).edit_block("oo-manifest", lambda m: m.update(version=42))
write_document(doc, expected=path.read_bytes(), action="killed")
"""


def _temp_left(folder: Path) -> bool:
    return any(p.name.endswith(".tmp") for p in folder.rglob("*"))


def _sigterm(workdir: Path) -> Figure:
    """SIGTERM in the middle of a snapshot's and a document's write, and of a Claude Code run:
    no temp file, scratch folder or history row may stay. Leftovers of killed processes
    (dead PIDs) must go at the next write / run in that place."""
    trials = breaks = 0
    for stop_in in (".snap.", ".o-o.html."):
        folder = workdir / f"term-{stop_in.strip('.').replace('.', '-')}"
        folder.mkdir(parents=True)
        path = _copy("yc-w26-batch.o-o.html", folder)
        before = path.read_bytes()
        child = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), stop_in],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        trials += 1
        if not child.stdout.readline().startswith("stopped"):
            child.kill()
            child.wait()
            breaks += 1
            continue
        child.send_signal(signal.SIGTERM)
        status = child.wait(timeout=30)
        child.stdout.close()
        breaks += (
            status != -signal.SIGTERM
            or _temp_left(folder)
            or path.read_bytes() != before
            or bool(_log_rows(path))
        )
    # the Claude Code backend, run by itself in a child process
    scratch = workdir / "term-claude" / "tmp"
    scratch.mkdir(parents=True)
    env = {**fake_claude_env(workdir / "term-claude"), "FAKE_CLAUDE_MODE": "sleep"}
    claude_doc = _copy("agi-declared.o-o.html", workdir / "term-claude")
    claude = subprocess.Popen(
        [sys.executable, "-c", BACKEND_CHILD, str(claude_doc)],
        env={**os.environ, **env, "TMPDIR": str(scratch)},
        stderr=subprocess.DEVNULL,
    )
    trials += 2  # the scratch folder, and the claude process
    try:
        started = wait_for_log(env)
    except TimeoutError:
        claude.kill()
        claude.wait()
        breaks += 2
    else:
        claude.send_signal(signal.SIGTERM)
        status = claude.wait(timeout=30)
        breaks += status != -signal.SIGTERM or any(scratch.iterdir())
        breaks += not gone(int(started["pid"]), within=5)  # no Claude Code left running unseen
    # leftovers of killed processes: swept by the next write, the next run
    dead = _dead_pid()
    folder = workdir / "term-stale"
    folder.mkdir()
    path = _copy("yc-w26-batch.o-o.html", folder)
    (history_dir(path) / "snapshots").mkdir(parents=True)
    left = [
        folder / f".{path.name}.{dead}.1.tmp",
        history_dir(path) / "snapshots" / f".00001-v1.snap.{dead}.2.tmp",
    ]
    for p in left:
        p.write_bytes(b"a whole copy")
    next_doc = Document.read(path).edit_block("oo-manifest", lambda m: m.update(version=5))
    write_document(next_doc, expected=path.read_bytes(), action="next run")
    trials += len(left)
    breaks += sum(p.exists() for p in left)
    stale_scratch = scratch / f"{SCRATCH_PREFIX}{dead}-x1"
    stale_scratch.mkdir()
    mark_scratch(stale_scratch, dead)  # as the killed run wrote it
    with (
        _environment({**env, "FAKE_CLAUDE_MODE": "nochange"}, scratch),
        contextlib.suppress(OOError),
    ):
        _run_backend(_copy("agi-declared.o-o.html", workdir / "term-next"))
    trials += 1
    breaks += stale_scratch.exists()
    return _row("temp files left after SIGTERM or a kill (next run)", trials, breaks)


# --------------------------------------------------------------------------- scratch copy
@contextlib.contextmanager
def _environment(env: dict[str, str], tmp: Path) -> Iterator[None]:
    """``env`` set and ``tmp`` as the temp folder, for an in-process backend run."""
    saved = {k: os.environ.get(k) for k in env}
    saved_tmp = tempfile.tempdir
    os.environ.update(env)
    tempfile.tempdir = str(tmp)
    try:
        yield
    finally:
        tempfile.tempdir = saved_tmp
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def _fifo_writer_after(folder: Path, seconds: float) -> Iterator[None]:
    """Were a FIFO opened for reading after all, open it for writing after ``seconds`` so the
    read ends (counted as a break) instead of hanging the table."""
    stop = threading.Event()

    def unblock() -> None:
        if stop.wait(seconds):
            return
        for p in folder.rglob("*"):
            with contextlib.suppress(OSError):
                if stat.S_ISFIFO(p.lstat().st_mode):
                    os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))

    watchdog = threading.Thread(target=unblock, daemon=True)
    watchdog.start()
    try:
        yield
    finally:
        stop.set()
        watchdog.join()


def _run_backend(doc: Path) -> Any:
    from datetime import date
    from types import SimpleNamespace

    backend = ClaudeCodeBackend(model="claude-sonnet-5-5", doc_path=doc)
    ctx = SimpleNamespace(
        as_of=None,
        today=date(2026, 11, 29),
        next_source_id="s1",
        blocked_domains=(),
        sentinel=None,
        image_refs={},
    )
    budget = Budget(limit_usd=1.0, price=price_for("claude-sonnet-5-5"))
    run: RunInfo = backend.new_run(1.0)
    return backend.run(ctx, budget=budget, run=run, validate=lambda p: p)  # type: ignore[arg-type]


def _scratch_copy(workdir: Path) -> Figure:
    """Claude Code leaves a FIFO, a device, a socket, a link or a folder in place of the copy:
    it must be refused with a clear error (its cost named), never opened for reading."""
    modes = [m for m in FAKE_MODES if m != "device" or os.geteuid() == 0]
    breaks = 0
    for mode in modes:
        folder = workdir / f"scratch-{mode}"
        tmp = folder / "tmp"
        tmp.mkdir(parents=True)
        env = {**fake_claude_env(folder), "FAKE_CLAUDE_MODE": mode}
        doc = _copy("agi-declared.o-o.html", folder)
        message = ""
        with _environment(env, tmp), _fifo_writer_after(tmp, 10):
            try:
                _run_backend(doc)
            except OOError as exc:
                message = str(exc)
        breaks += "refused, not read" not in message or "(cost $0.0500)" not in message
        breaks += any(tmp.iterdir())  # the scratch folder went too
    return _row(
        "FIFOs, devices, sockets or links read in the Claude Code scratch copy", len(modes), breaks
    )


# --------------------------------------------------------------------------- sync vs check
def _json_lines(workdir: Path) -> Figure:
    """A damaged block in a document ``oo sync`` would change: its report must name the same
    line and column as ``oo check`` (dry run and real run)."""
    cases = [
        ("agi-declared.o-o.html", '"version": "2.0",', '"version": "2.0",,', False),
        ("agi-declared.o-o.html", '"version": 2,', '"version": "two",', False),
        ("agi-declared.o-o.html", '"tier": "', '"tier": ', False),
        ("yc-w26-batch.o-o.html", '"version": "2.0",', '"version": "2.0",,', True),
        ("ai-model-landscape.o-o.html", '"version": 1,', '"version": "one",', True),
    ]
    trials = breaks = 0
    for n, (name, old, new, migrate) in enumerate(cases):
        folder = workdir / f"lines-{n}"
        folder.mkdir(parents=True)
        path = _copy(name, folder)
        text = path.read_text("utf-8")
        if old not in text:
            raise AssertionError(f"{name}: {old!r} not found (the attack needs a new place)")
        path.write_text(text.replace(old, new, 1), "utf-8")
        found = [f.message for f in check_path(path) if f.code in ("invalid-json", "invalid-block")]
        for dry_run in (True, False):
            trials += 1
            report = sync_dir(folder, migrate=migrate, dry_run=dry_run).reports[0]
            breaks += report.status != "error" or [report.note] != found[:1] or not found
    return _row("sync/check JSON line mismatches", trials, breaks)


def attacks(workdir: Path) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    steps: list[Callable[[Path], Figure]] = [
        _library_notes,
        _demo_changes,
        _crlf,
        _disk_full,
        _snapshots,
        _written_states,
        _sigterm,
        _scratch_copy,
        _json_lines,
    ]
    return [step(workdir / step.__name__.strip("_")) for step in steps]


if __name__ == "__main__":  # quick look: python -m tests.support.attacks_lost
    from tests.support.figures import render_table

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        print(render_table(attacks(Path(tmp))))
        print(f"{time.perf_counter() - started:.1f} s")
