"""Files named like documents that a library scan does not read are said, not dropped: a second
name for a file (a link beside it) is one document, not two; a suffix in upper case and a fifo
are named; hidden folders are not searched (docs/library.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oo_nb.api.library import Library
from oo_nb.cli.main import main
from tests.support.agent_helpers import copy_doc

DOC = "yc-w26-batch.o-o.html"


def test_a_link_beside_a_document_is_one_document_named_as_the_same_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_doc(tmp_path, DOC)
    copy_doc(tmp_path, "agi-declared.o-o.html")
    (tmp_path / "alias.o-o.html").symlink_to(DOC)  # sorts before the real name
    lib = Library(tmp_path)
    assert sorted(lib.documents["slug"]) == ["agi-declared", "yc-w26-batch"]
    alone = Library(tmp_path / DOC)
    assert len(lib.sources) == len(alone.sources) + len(
        Library(tmp_path / "agi-declared.o-o.html").sources
    )
    assert lib.left_out == [(str(tmp_path / "alias.o-o.html"), f"same file as {DOC}")]
    assert main(["library", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert f"1 file named like documents left out: alias.o-o.html (same file as {DOC})" in err


def test_an_upper_case_suffix_and_a_fifo_are_named_hidden_folders_are_not_searched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_doc(tmp_path, DOC)
    (tmp_path / DOC).rename(tmp_path / "UPPER.O-O.HTML")
    copy_doc(tmp_path, "agi-declared.o-o.html")
    copy_doc(tmp_path / ".drafts", DOC)
    os.mkfifo(tmp_path / "pipe.o-o.html")
    lib = Library(tmp_path)
    assert list(lib.documents["slug"]) == ["agi-declared"]
    reasons = {Path(path).name: why for path, why in lib.left_out}
    assert reasons == {
        "UPPER.O-O.HTML": "its suffix is not .o-o.html in lower case",
        "pipe.o-o.html": "not a regular file (a fifo, socket or device, or a link to one)",
    }
    assert main(["library", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "2 files named like documents left out: UPPER.O-O.HTML (its suffix" in err
    assert "pipe.o-o.html (not a regular file" in err
