"""A scan of a library holding a link, named like a document, to a fifo ends (it used to block
for ever opening the fifo): the link is passed over as the fifo itself is."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from oo_nb.library.library import Library


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos")
def test_a_scan_of_a_library_holding_a_link_to_a_fifo_ends(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "x.o-o.html").symlink_to("pipe")
    found: list[list[Path]] = []
    scan = threading.Thread(
        target=lambda: found.append(Library(tmp_path, cache=False, workers=1).paths), daemon=True
    )
    scan.start()
    scan.join(20)
    blocked = scan.is_alive()
    if blocked:  # let the blocked read go: a writer that opens and closes gives it an end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        scan.join(20)
    assert not blocked, "the scan blocked reading a fifo"
    assert found == [[]]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos")
def test_a_file_swapped_for_a_fifo_after_the_walk_is_an_error_row_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from oo_nb.library import library as library_module

    fifo = tmp_path / "swapped.o-o.html"
    os.mkfifo(fifo)  # listed as the plain file it was when the folder was walked
    monkeypatch.setattr(
        library_module, "discover", lambda root, recursive=True, left_out=None: [fifo]
    )
    found: list[Library] = []
    scan = threading.Thread(
        target=lambda: found.append(Library(tmp_path, cache=False, workers=1)), daemon=True
    )
    scan.start()
    scan.join(20)
    blocked = scan.is_alive()
    if blocked:  # let the blocked read go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        scan.join(20)
    assert not blocked, "the scan blocked reading a fifo"
    (failure,) = found[0].failures
    assert failure.slug == "swapped" and "not a plain file" in failure.message
