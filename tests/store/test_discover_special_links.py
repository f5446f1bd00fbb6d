"""A link named like a document that leads to a fifo or a device is not listed (as the fifo
itself is not): reading it would block for ever or never end. A dangling link, or a link loop,
still is, so its read reports it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oo_nb.store.discover import LeftOut, walk

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos and links")


def _doc(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("<!doctype html>\n", encoding="utf-8")
    return path


def test_links_to_a_fifo_or_a_device_are_not_listed(tmp_path: Path) -> None:
    plain = _doc(tmp_path, "a.o-o.html")
    os.mkfifo(tmp_path / "pipe.o-o.html")
    os.mkfifo(tmp_path / "hidden-pipe")
    (tmp_path / "to-pipe.o-o.html").symlink_to("hidden-pipe")
    (tmp_path / "index-pipe.o-o.html").symlink_to(tmp_path / "hidden-pipe")
    if Path("/dev/zero").exists():
        (tmp_path / "zero.o-o.html").symlink_to("/dev/zero")
    assert walk(tmp_path) == [plain]


def test_links_that_lead_to_no_file_are_still_listed(tmp_path: Path) -> None:
    plain = _doc(tmp_path, "b.o-o.html")
    linked = tmp_path / "c.o-o.html"
    linked.symlink_to(plain.name)
    dangling = tmp_path / "d.o-o.html"
    dangling.symlink_to("missing.o-o.html")
    loop = tmp_path / "e.o-o.html"
    loop.symlink_to(loop.name)
    left_out: list[LeftOut] = []
    try:
        listed = walk(tmp_path, left_out=left_out)
    finally:
        loop.unlink()  # pytest's clean-up of old temporary folders cannot resolve a loop
    assert listed == [plain, dangling, loop]
    # a link to a listed file is a second name for it: left out, and said (one document)
    assert left_out == [LeftOut(linked, "same file as b.o-o.html", plain)]
