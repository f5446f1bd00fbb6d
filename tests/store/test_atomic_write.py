"""The atomic write: the file's mode survives a replace, a private file is never readable by
others (not even its temp copy while it is written), a failed or refused write leaves the target
as it was and no temp file behind, a new file never overwrites one that appeared meanwhile, and
writing leaks no file descriptors (a notebook kernel writes for hours)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

import pytest

from oo_nb.errors import OOError
from oo_nb.store import atomic


def _temps(folder: Path) -> list[str]:
    return sorted(f.name for f in folder.iterdir() if f.name.endswith(".tmp"))


def test_a_replace_keeps_the_mode_the_file_had(tmp_path: Path) -> None:
    target = tmp_path / "doc.o-o.html"
    target.write_bytes(b"old")
    target.chmod(0o750)
    atomic.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750


def test_a_new_file_is_rw_for_the_owner_and_readable_by_others_unless_a_mode_is_given(
    tmp_path: Path,
) -> None:
    plain = tmp_path / "plain.json"
    atomic.atomic_write_bytes(plain, b"{}")
    assert stat.S_IMODE(plain.stat().st_mode) == 0o644
    script = tmp_path / "script.o-o.html"
    atomic.atomic_write_bytes(script, b"x", mode=0o755, exclusive=True)
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert _temps(tmp_path) == []


def test_a_private_file_is_never_readable_by_others_even_while_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temp file is a full copy of the new contents: until it takes the target's mode it
    must be private, and it must hold all the data when it is synced."""
    target = tmp_path / "private.o-o.html"
    target.write_bytes(b"old secret")
    target.chmod(0o600)
    data = b"new secret " * 10_000
    seen: list[tuple[int, int]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            seen.append((stat.S_IMODE(st.st_mode), st.st_size))
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    atomic.atomic_write_bytes(target, data)
    assert seen and all(mode & 0o077 == 0 for mode, _ in seen)
    assert seen[0][1] == len(data)  # everything written reaches the file before the fsync
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_bytes() == data


def test_exclusive_refuses_an_existing_file_and_leaves_it_alone(tmp_path: Path) -> None:
    target = tmp_path / "doc.o-o.html"
    target.write_bytes(b"theirs")
    with pytest.raises(OOError, match="already exists") as info:
        atomic.atomic_write_bytes(target, b"mine", exclusive=True)
    assert info.value.file == str(target)
    assert target.read_bytes() == b"theirs" and _temps(tmp_path) == []


def test_a_new_file_never_overwrites_one_that_appears_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process creates the name between the existence check and the link."""
    target = tmp_path / "doc.o-o.html"
    real_link = os.link

    def link(src: str | Path, dst: str | Path) -> None:
        Path(dst).write_bytes(b"theirs")
        real_link(src, dst)

    monkeypatch.setattr(atomic.os, "link", link)
    with pytest.raises(OOError, match="already exists") as info:
        atomic.atomic_write_bytes(target, b"mine", exclusive=True)
    assert info.value.file == str(target)
    assert target.read_bytes() == b"theirs" and _temps(tmp_path) == []


def test_a_failed_replace_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "doc.o-o.html"
    target.write_bytes(b"old")

    def replace(src: str | Path, dst: str | Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        atomic.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old" and _temps(tmp_path) == []


def _open_in(folder: Path) -> list[str]:
    """What this process holds open in ``folder`` (the folder itself or a file in it)."""
    held = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            where = os.readlink(fd)
            if where == str(folder) or where.startswith(f"{folder}/"):
                held.append(where)
    return held


def test_writing_leaks_no_file_descriptors(tmp_path: Path) -> None:
    if not Path("/proc/self/fd").exists():
        pytest.skip("needs /proc/self/fd")
    target = tmp_path / "doc.o-o.html"
    for n in range(20):
        atomic.atomic_write_bytes(target, b"version %d" % n)
    atomic.atomic_write_bytes(tmp_path / "new.o-o.html", b"x", exclusive=True)
    assert _open_in(tmp_path) == []
