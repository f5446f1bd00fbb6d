"""A snapshot in a document's history is never read through a link. Regression (s35 attack, K1):
a snapshot replaced by a symbolic link to a file outside the library, whose bytes matched the
log's checksum, was followed: ``oo rollback`` wrote that outside file into the document."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.errors import FormatError
from oo_nb.format.document import Document
from oo_nb.library.changes import document_changes
from oo_nb.store import store
from oo_nb.store.history import snapshot_state
from tests.conftest import CORPUS

NAME = "yc-w26-batch.o-o.html"


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    """A document written once: seq 1 keeps its first state, in ``snapshots/``."""
    (tmp_path / "lib").mkdir()
    doc = tmp_path / "lib" / NAME
    shutil.copyfile(CORPUS / NAME, doc)
    doc.chmod(0o644)
    old = doc.read_bytes()
    new = Document.read(doc).edit_block("oo-manifest", lambda m: m.update(version=2))
    store.write_document(new, expected=old, action="update")
    return doc


def _outside(tmp_path: Path, data: bytes) -> Path:
    """A file outside the library holding ``data`` (the checksum the log has for it)."""
    file = tmp_path / "elsewhere" / "outside.o-o.html"
    file.parent.mkdir(exist_ok=True)
    file.write_bytes(data)
    return file


def _snapshot(doc: Path) -> Path:
    return store.history_dir(doc) / "snapshots" / "00001-v1.snap"


def test_a_snapshot_that_is_a_link_is_not_restored(lib: Path, tmp_path: Path) -> None:
    snap = _snapshot(lib)
    outside = _outside(tmp_path, snap.read_bytes())
    snap.unlink()
    snap.symlink_to(outside)
    now = lib.read_bytes()
    with pytest.raises(FormatError, match=re.escape(f"{snap} is a symbolic link")) as info:
        store.restore(lib, seq=1)
    assert info.value.file == str(snap) and "seq 1 (version 1) is refused" in info.value.message
    assert lib.read_bytes() == now
    # the listing does not offer it as kept; the CLI refuses it too, naming the file
    hist = store.read_history(lib)
    assert snapshot_state(hist[0]) == "damaged"
    assert main(["rollback", str(lib), "--to", "1"]) != 0 and lib.read_bytes() == now
    assert main(["diff", str(lib), "--from-seq", "1"]) != 0
    # `oo changes` steps over it rather than compare the outside file
    assert document_changes(lib) == []


def test_a_snapshots_folder_swapped_for_a_link_is_not_read(lib: Path, tmp_path: Path) -> None:
    folder = _snapshot(lib).parent
    moved = tmp_path / "elsewhere" / "snapshots"
    moved.parent.mkdir()
    folder.rename(moved)
    folder.symlink_to(moved, target_is_directory=True)
    now = lib.read_bytes()
    with pytest.raises(FormatError, match=re.escape(f"{folder} is a symbolic link")):
        store.restore(lib, seq=1)
    assert lib.read_bytes() == now


def test_a_fifo_in_place_of_a_snapshot_is_refused_without_hanging(lib: Path) -> None:
    snap = _snapshot(lib)
    snap.unlink()
    os.mkfifo(snap)
    with pytest.raises(FormatError, match=re.escape(f"{snap} is not a regular file")):
        store.restore(lib, seq=1)
    assert snapshot_state(store.read_history(lib)[0]) == "damaged"


def test_a_plain_snapshot_is_still_restored(lib: Path) -> None:
    first = _snapshot(lib).read_bytes()
    assert store.restore(lib, seq=1).written and lib.read_bytes() == first
