"""A library a thousand folders deep is walked: the folders still to list are kept on a
stack, not in Python's call stack (which raised RecursionError and stopped the scan)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from oo_nb.store.discover import walk


def test_a_tree_deeper_than_the_recursion_limit_is_walked(tmp_path: Path) -> None:
    depth = sys.getrecursionlimit() + 50
    folders = [str(tmp_path / "lib")]
    for _ in range(depth):
        folders.append(os.path.join(folders[-1], "d"))
    for folder in folders:
        os.mkdir(folder)
    top = Path(folders[0]) / "a.o-o.html"
    bottom = Path(folders[-1]) / "z.o-o.html"
    top.write_text("x", encoding="utf-8")
    bottom.write_text("x", encoding="utf-8")
    try:
        assert walk(folders[0]) == [top, bottom]
    finally:  # pytest's clean-up of old temporary folders recurses: leave no deep tree behind
        top.unlink()
        bottom.unlink()
        for folder in reversed(folders):
            os.rmdir(folder)
