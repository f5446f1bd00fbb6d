"""What ``write_document`` does in the cases around the normal update: a document without a
path, a write that changes nothing, an index page, an invalid contract, and a disk that fails
(the error says whether the file on disk is the old or the new version)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.store import atomic, store
from oo_nb.store.history import CHANGED_OUTSIDE

DOC = "yc-w26-batch.o-o.html"


def _bumped(p: Path) -> Document:
    return Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=2))


def test_a_document_without_a_path_is_refused(corpus_dir: Path) -> None:
    doc = Document((corpus_dir / DOC).read_text(encoding="utf-8"))
    with pytest.raises(OOError, match="no path"):
        store.write_document(doc, expected=None)


def test_a_new_document_is_created_executable(tmp_path: Path, corpus_dir: Path) -> None:
    """An o-o document is also a bash script (``bash doc.o-o.html``)."""
    target = tmp_path / "new.o-o.html"
    store.write_document(Document.read(corpus_dir / DOC).with_path(target), expected=None)
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert not store.history_dir(target).joinpath("log.jsonl").exists()


def test_writing_the_bytes_already_on_disk_writes_nothing(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    before, mtime = p.read_bytes(), p.stat().st_mtime_ns
    assert store.write_document(Document.read(p), expected=before, action="no-op") == p
    assert p.read_bytes() == before and p.stat().st_mtime_ns == mtime
    assert [e.action for e in store.read_history(p)] == ["current"]  # no snapshot, no log row


def test_an_index_page_is_written_with_history_and_rolled_back(corpus_copy: Path) -> None:
    p = corpus_copy / "index.o-o.html"
    before = p.read_bytes()
    page = Document.parse(before.replace(b"2026-02-17 00:05", b"2026-03-01 09:30"), path=p)
    assert page.kind == "index"
    store.write_document(page, expected=before, action="oo index")
    after = p.read_bytes()
    hist = store.read_history(p)
    assert [(e.seq, e.version, e.summary, e.action) for e in hist] == [
        (1, None, "index page", "oo index"),
        (2, None, "index page", "current"),
    ]
    assert all(e.as_of == "" and e.cost_usd is None for e in hist)
    done = store.restore(p, seq=1)
    assert done.written is True and done.path == p and p.read_bytes() == before
    assert done.current_seq == 2
    assert [e.action for e in store.read_history(p)] == [
        "oo index",
        "rollback to v- (seq 1)",
        "current",
    ]
    assert store.seq_bytes(p, 2) == after


@pytest.mark.parametrize(
    ("block", "change"),
    [
        ("oo-contract", lambda c: c.update(identity="not an object")),
        ("oo-changelog", lambda c: c.update(entries="not a list")),
        ("oo-source-cache", lambda c: c.update(sources="not a list")),
    ],
)
def test_a_document_with_an_invalid_block_is_not_written(
    corpus_copy: Path, block: str, change: object
) -> None:
    p = corpus_copy / DOC
    before = p.read_bytes()
    bad = Document.read(p).edit_block(block, change)  # type: ignore[arg-type]
    with pytest.raises(OOError) as info:
        store.write_document(bad, expected=before, action="x")
    assert info.value.block == block and info.value.file == str(p)
    assert p.read_bytes() == before and len(store.read_history(p)) == 1


def test_a_full_disk_says_the_document_is_unchanged(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = corpus_copy / DOC
    before = p.read_bytes()
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == p:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(OOError) as info:
        store.write_document(_bumped(p), expected=before, action="update")
    err = info.value
    assert err.file == str(p)
    assert "No space left on device" in err.message and "the document is unchanged" in err.message
    assert "in place" not in err.message
    assert p.read_bytes() == before
    assert not [f for f in p.parent.iterdir() if f.name.endswith(".tmp")]


def test_a_history_log_that_is_a_folder_is_named_in_the_error(corpus_copy: Path) -> None:
    """The error names the path it failed on, not only the system's reason: the user has to
    find the part of the history that is broken."""
    p = corpus_copy / DOC
    before = p.read_bytes()
    log = store.history_dir(p) / "log.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.mkdir()
    with pytest.raises(OOError) as info:
        store.write_document(_bumped(p), expected=before, action="update")
    err = info.value
    # refused as the log is read (``read_kept_file``), before anything is written
    assert err.file == str(log) and f"{log} is not a regular file" in err.message
    assert "the document is unchanged" in err.message and p.read_bytes() == before


def test_a_failed_sync_after_the_replace_says_the_new_version_is_in_place(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = corpus_copy / DOC
    before = p.read_bytes()
    new = _bumped(p)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if os.path.samestat(os.fstat(fd), os.stat(p.parent)):
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    with pytest.raises(OOError) as info:
        store.write_document(new, expected=before, action="update")
    err = info.value
    assert err.file == str(p)
    assert "Input/output error" in err.message and "the new version is in place" in err.message
    assert "unchanged" not in err.message
    assert p.read_bytes() == new.to_bytes()


def test_a_new_document_over_quota_is_not_created(
    tmp_path: Path, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "new.o-o.html"

    def link(src: str | Path, dst: str | Path) -> None:
        raise OSError("Disk quota exceeded on /home")  # no errno: the text is all there is

    monkeypatch.setattr(atomic.os, "link", link)
    with pytest.raises(OOError) as info:
        store.write_document(Document.read(corpus_dir / DOC).with_path(target), expected=None)
    assert info.value.file == str(target)
    assert "Disk quota exceeded on /home" in info.value.message
    assert "in place" not in info.value.message
    assert not target.exists() and not [f for f in tmp_path.iterdir() if f.suffix == ".tmp"]


def test_a_waiting_writer_is_told_which_write_holds_the_document(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = corpus_copy / DOC
    seen: list[str] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == p:  # while the document is being replaced, another writer tries
            try:
                with store.document_lock(p, "other", timeout=0):
                    pass
            except OOError as exc:
                seen.append(exc.message)
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)
    store.write_document(_bumped(p), expected=p.read_bytes(), action="update (reviewed)")
    assert len(seen) == 1 and "(update (reviewed))" in seen[0]


def test_a_lost_update_names_the_document(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    with pytest.raises(OOError, match="changed on disk") as info:
        store.write_document(_bumped(p), expected=b"what I read earlier", action="update")
    assert info.value.file == str(p)


def test_a_hand_broken_document_can_be_rolled_back_and_restored_again(corpus_copy: Path) -> None:
    """The broken file is kept in history as "(unreadable)" so even that state can come back."""
    p = corpus_copy / DOC
    v1 = p.read_bytes()
    store.write_document(_bumped(p), expected=v1, action="update")
    broken = p.read_bytes().replace(b'"version": 2', b'"version": 2,,', 1)
    assert broken != p.read_bytes()
    p.write_bytes(broken)
    current = store.read_history(p)[-1]
    assert (current.version, current.summary, current.as_of) == (None, "(unreadable)", "")
    written = store.read_history(p)[1]  # what oo wrote before the hand edit is kept as seq 2
    assert (written.seq, written.version, written.action) == (2, 2, CHANGED_OUTSIDE)
    store.rollback(p, 1)
    assert p.read_bytes() == v1
    kept = store.read_history(p)[2]
    assert (kept.seq, kept.version, kept.summary, kept.cost_usd) == (3, None, "(unreadable)", None)
    assert kept.as_of == "" and kept.action == "rollback to v1"
    assert store.seq_bytes(p, 3) == broken


def test_a_document_without_a_date_or_changelog_reads_with_empty_fields(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    bare = Document.read(p).edit_block("oo-manifest", lambda m: m.update(as_of=""))
    bare = bare.edit_block("oo-changelog", lambda c: c.update(entries=[]))
    store.write_document(bare, expected=p.read_bytes(), action="strip")
    current = store.read_history(p)[-1]
    assert (current.as_of, current.summary, current.cost_usd) == ("", "", None)
