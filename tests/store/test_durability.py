"""Durability: the order of the system calls that make a write survive a power loss.

Crash tests (kill -9) cannot see a missing fsync: the page cache survives a killed process. After
a power loss, a rename that reached the disk before the file's data leaves a zero-length
document on some filesystems. So the order itself is the contract: write the temp file, fsync
it, rename it over the target, fsync the folder — for the document and for its history snapshot.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from oo_nb.format.document import Document
from oo_nb.store import atomic
from oo_nb.store.store import write_document


class Calls:
    """Records open / write / fsync / replace / link on real files (the calls still happen)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log: list[tuple[str, str]] = []
        self._paths: dict[int, str] = {}
        real_open, real_fsync, real_replace, real_link = os.open, os.fsync, os.replace, os.link

        def open_(path: str | Path, flags: int, mode: int = 0o777, **kw: object) -> int:
            fd = real_open(path, flags, mode, **kw)  # type: ignore[arg-type]
            self._paths[fd] = str(path)
            return fd

        def fsync(fd: int) -> None:
            self.log.append(("fsync", self._paths.get(fd, f"fd {fd}")))
            real_fsync(fd)

        def replace(src: str | Path, dst: str | Path) -> None:
            self.log.append(("replace", f"{src} -> {dst}"))
            real_replace(src, dst)

        def link(src: str | Path, dst: str | Path) -> None:
            self.log.append(("link", f"{src} -> {dst}"))
            real_link(src, dst)

        monkeypatch.setattr(atomic.os, "open", open_)
        monkeypatch.setattr(atomic.os, "fsync", fsync)
        monkeypatch.setattr(atomic.os, "replace", replace)
        monkeypatch.setattr(atomic.os, "link", link)

    def for_target(self, target: Path) -> list[str]:
        """The calls that concern ``target``: its temp file, the rename onto it, its folder."""
        out = []
        for call, what in self.log:
            if call in ("replace", "link") and what.endswith(f"-> {target}"):
                out.append(call)
            elif call == "fsync" and what == str(target.parent):
                out.append("fsync folder")
            elif call == "fsync" and Path(what).name.startswith(f".{target.name}."):
                out.append("fsync temp")
        return out


def test_the_temp_file_is_synced_before_the_rename_and_the_folder_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = Calls(monkeypatch)
    target = tmp_path / "doc.o-o.html"
    target.write_bytes(b"old")
    atomic.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert calls.for_target(target) == ["fsync temp", "replace", "fsync folder"]


def test_a_new_file_is_synced_before_it_is_linked_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = Calls(monkeypatch)
    target = tmp_path / "new.o-o.html"
    atomic.atomic_write_bytes(target, b"data", exclusive=True)
    assert calls.for_target(target) == ["fsync temp", "link", "fsync folder"]


def test_a_document_write_syncs_the_snapshot_fully_before_replacing_the_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus_dir: Path
) -> None:
    path = tmp_path / "agi-declared.o-o.html"
    shutil.copy(corpus_dir / "agi-declared.o-o.html", path)
    before = path.read_bytes()
    doc = Document.read(path)
    manifest = doc.block_json("oo-manifest")
    changed = doc.with_block("oo-manifest", {**manifest, "title": "Retitled"})
    calls = Calls(monkeypatch)
    write_document(changed, expected=before, action="test")

    snapshots = [Path(what.split(" -> ")[1]) for call, what in calls.log if call == "replace"]
    snapshot = next(p for p in snapshots if p != path)
    assert snapshot.read_bytes() == before
    assert synced_in_order(calls.for_target(snapshot))
    assert calls.for_target(path) == ["fsync temp", "replace", "fsync folder"]
    # the snapshot is durable before the document is replaced: never only the new one on disk
    # (after it, the folder is synced again for the copy of the state written, last-written.snap)
    order = [f"{c} {w}" for c, w in calls.log]
    snapshot_placed = next(i for i, e in enumerate(order) if e.endswith(f" -> {snapshot}"))
    snapshot_sync = order.index(f"fsync {snapshot.parent}", snapshot_placed)
    document_replace = order.index(f"replace {next(iter(_temps(calls, path)))} -> {path}")
    assert snapshot_sync < document_replace


def synced_in_order(calls: list[str]) -> bool:
    """fsync of the temp file, then the rename, then (at least once) an fsync of the folder."""
    if "fsync temp" not in calls or "replace" not in calls:
        return False
    rename = calls.index("replace")
    return calls.index("fsync temp") < rename and "fsync folder" in calls[rename:]


def _temps(calls: Calls, target: Path) -> list[str]:
    return [
        what.split(" -> ")[0]
        for call, what in calls.log
        if call == "replace" and what.endswith(f"-> {target}")
    ]
