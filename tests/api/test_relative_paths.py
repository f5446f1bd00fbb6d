"""Objects opened with a relative path keep the file they were opened on: a notebook's ``%cd``
(``os.chdir``) afterwards must not turn them to another folder's files of the same names."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import oo_nb

HEAT = "heat-pumps-in-europe.o-o.html"


@pytest.fixture
def copy_elsewhere(demo: Path, tmp_path: Path) -> Path:
    """A byte-identical copy of the library (a backup, a second checkout) under other/lib."""
    other = tmp_path / "other"
    shutil.copytree(demo, other / "lib")
    (other / "lib" / "perovskite-solar-cells.o-o.html").unlink()  # the copy differs a little
    for lib in (demo, other / "lib"):
        (lib / "index.o-o.html").unlink()  # so index() writes one, and where is seen
    return other


def test_library_opened_relative_reads_its_own_folder_after_chdir(
    demo: Path, copy_elsewhere: Path
) -> None:
    lib = oo_nb.Library("lib")
    assert len(lib.documents) == 4
    os.chdir(copy_elsewhere)
    assert lib.root == demo
    assert len(lib.refresh().documents) == 4
    assert lib.index().path == demo / "index.o-o.html"
    assert not (copy_elsewhere / "lib" / "index.o-o.html").exists()


def test_proposal_opened_relative_writes_its_own_file_after_chdir(
    demo: Path, copy_elsewhere: Path
) -> None:
    proposal = oo_nb.open(f"lib/{HEAT}").update(agent="replay")
    os.chdir(copy_elsewhere)
    assert proposal.accept_all().write().version == 2
    assert oo_nb.open(demo / HEAT).version == 2
    assert oo_nb.open(copy_elsewhere / "lib" / HEAT).version == 1  # never asked to update


def test_a_review_widget_opened_relative_writes_its_own_file_after_chdir(
    demo: Path, copy_elsewhere: Path
) -> None:
    from oo_nb.notebook.review_widget import ReviewWidget

    oo_nb.open(demo / HEAT).update(agent="replay")  # saved for review
    widget = ReviewWidget.from_pending(f"lib/{HEAT}")
    os.chdir(copy_elsewhere)
    widget.accept_all_button.click()
    widget.write_button.click()
    assert widget.error.value == ""
    assert oo_nb.open(demo / HEAT).version == 2
    assert oo_nb.open(copy_elsewhere / "lib" / HEAT).version == 1
