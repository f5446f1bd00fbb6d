from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oo_nb.errors import ConflictError, LockedError, NotFound, OOError
from oo_nb.format.document import Document
from oo_nb.store import store


def bumped(doc: Document, version: int, summary: str = "s") -> Document:
    new = doc.edit_block("oo-manifest", lambda m: m.update(version=version))
    return new.edit_block(
        "oo-changelog",
        lambda c: c["entries"].append(
            {"version": version, "timestamp": "2026-11-29", "summary": summary, "cost_usd": 0.25}
        ),
    )


def test_write_keeps_history_mode_and_rollback_restores_bytes(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    p.chmod(0o755)
    v1 = p.read_bytes()
    store.write_document(bumped(Document.read(p), 2, "second"), expected=v1, action="update")
    v2 = p.read_bytes()
    store.write_document(bumped(Document.read(p), 3, "third"), expected=v2, action="update")
    assert os.stat(p).st_mode & 0o777 == 0o755
    hist = store.read_history(p)
    assert [(e.version, e.snapshot is None) for e in hist] == [(1, False), (2, False), (3, True)]
    assert hist[-1].summary == "third" and hist[-1].cost_usd == 0.25
    store.rollback(p, 1)
    assert p.read_bytes() == v1
    assert [e.version for e in store.read_history(p)] == [1, 2, 3, 1]
    store.rollback(p, 3)  # the rollback itself was recorded, so it can be undone
    assert Document.read(p).manifest.version == 3
    with pytest.raises(NotFound, match="known: 1, 2, 3"):
        store.rollback(p, 7)


def test_lost_update_is_refused(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    original = p.read_bytes()
    doc = Document.read(p)
    store.write_document(bumped(doc, 2), expected=original, action="a")
    with pytest.raises(ConflictError, match="changed on disk"):
        store.write_document(bumped(doc, 5), expected=original, action="b")
    assert Document.read(p).manifest.version == 2


def test_new_file_is_never_overwritten(tmp_path: Path, corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html").with_path(tmp_path / "n.o-o.html")
    store.write_document(doc, expected=None, action="new")
    with pytest.raises(OOError, match="already exists"):
        store.write_document(doc, expected=None, action="new")


def test_invalid_document_is_not_written(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    original = p.read_bytes()
    broken = Document.read(p)
    span = broken.blocks["oo-manifest"]
    bad = Document(broken.text[: span.start] + "{not json" + broken.text[span.end :], path=p)
    with pytest.raises(OOError, match="invalid JSON"):
        store.write_document(bad, expected=original, action="x")
    assert p.read_bytes() == original


def _hold_lock(
    path: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event
) -> None:
    with store.document_lock(Path(path), "holder test"):
        ready.set()
        release.wait(10)


def test_second_writer_waits_then_names_the_holder(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lock, args=(str(p), ready, release))
    proc.start()
    try:
        assert ready.wait(20)
        with pytest.raises(LockedError, match=r"locked by pid \d+ .*holder test"):
            store.write_document(
                bumped(Document.read(p), 2), expected=p.read_bytes(), action="t", timeout=0.3
            )
    finally:
        release.set()
        proc.join(10)
    store.write_document(bumped(Document.read(p), 2), expected=p.read_bytes(), action="t")


WRITER = """
import sys
from pathlib import Path
from oo_nb import store
from oo_nb.format.document import Document
p = Path(sys.argv[1])
doc = Document.read(p)
big = doc.with_article(doc.article_html + "<p>" + "x" * 4_000_000 + "</p>")
print("ready", flush=True)
store.write_document(big, expected=p.read_bytes(), action="big")
"""


def test_writer_killed_mid_write_leaves_old_or_new_file(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    original = p.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(p)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"ready"
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    data = p.read_bytes()
    assert data == original or b"x" * 4_000_000 in data
    Document.parse(data).manifest  # noqa: B018 - whichever it is, it parses
    leftovers = [f for f in p.parent.iterdir() if f.name.endswith(".tmp")]
    assert len(leftovers) <= 1  # a killed writer may leave its temp file, never a broken target


def test_pending_proposal_round_trip(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    base = p.read_bytes()
    cand = bumped(Document.read(p), 2)
    store.save_pending(p, cand, {"cost_usd": 0.1}, base)
    pending = store.load_pending(p)
    assert pending.candidate.to_bytes() == cand.to_bytes() and not pending.stale
    p.write_bytes(base + b"\n")
    assert store.load_pending(p).stale
    store.discard_pending(p)
    with pytest.raises(NotFound):
        store.load_pending(p)


def test_temp_files_of_dead_writers_are_swept(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = p.parent / f".{p.name}.{dead.stdout.strip()}.123.tmp"
    stale.write_bytes(b"half a document")
    mine = p.parent / f".{p.name}.{os.getpid()}.456.tmp"
    mine.write_bytes(b"in progress")
    store.write_document(bumped(Document.read(p), 2), expected=p.read_bytes(), action="t")
    assert not stale.exists()
    assert mine.exists()  # a live writer's temp file is left alone


def test_a_torn_last_log_line_does_not_block_later_writes(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    store.write_document(bumped(Document.read(p), 2), expected=p.read_bytes(), action="a")
    log = store.history_dir(p) / "log.jsonl"
    with open(log, "ab") as fh:
        fh.write(b'{"seq": 2, "file": "00002-v')  # a writer killed mid-append
    assert [e.version for e in store.read_history(p)] == [1, 2]
    store.write_document(bumped(Document.read(p), 3), expected=p.read_bytes(), action="b")
    assert [e.version for e in store.read_history(p)] == [1, 2, 3]
    assert log.read_bytes().endswith(b"\n")
    store.rollback(p, 1)
    assert Document.read(p).manifest.version == 1


def test_a_symlinked_document_stays_a_link_to_the_updated_file(corpus_copy: Path) -> None:
    real = corpus_copy / "yc-w26-batch.o-o.html"
    link = corpus_copy / "link.o-o.html"
    link.symlink_to(real.name)
    store.write_document(bumped(Document.read(link), 2), expected=link.read_bytes(), action="t")
    assert link.is_symlink() and Document.read(real).manifest.version == 2
    assert [e.version for e in store.read_history(link)] == [1, 2]
    store.rollback(link, 1)
    assert link.is_symlink() and Document.read(real).manifest.version == 1


def test_seq_reaches_every_state_and_a_damaged_snapshot_names_its_seq(corpus_copy: Path) -> None:
    p = corpus_copy / "yc-w26-batch.o-o.html"
    v1 = p.read_bytes()
    same_version = Document.read(p).edit_block(
        "oo-contract", lambda c: c.setdefault("identity", {}).update(tone="dry")
    )
    store.write_document(same_version, expected=v1, action="contract edit")
    edited = p.read_bytes()
    assert [(e.seq, e.version) for e in store.read_history(p)] == [(1, 1), (2, 1)]
    assert store.seq_bytes(p, 1) == v1 and store.seq_bytes(p, 2) == edited
    assert store.version_bytes(p, 1) == edited  # by number alone: still the newest state of it
    pick = store.pick_entry(p, version=1, avoid=edited)
    assert (
        pick.entry.seq == 1
        and pick.data == v1
        and pick.others == (2,)
        and pick.same_version == (1, 2)
    )
    snap = store.read_history(p)[0].snapshot
    assert snap is not None
    snap.write_bytes(b"tampered")
    with pytest.raises(OOError, match=r"seq 1 \(version 1\) is damaged \(checksum\)"):
        store.rollback(p, seq=1)
    assert p.read_bytes() == edited
    with pytest.raises(OOError, match="exactly one of a version or a seq"):
        store.rollback(p)
