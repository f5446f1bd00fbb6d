"""``oo library DIR`` says on stderr how many files it could not read (stdout unchanged)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from tests.conftest import CORPUS
from tests.support.lost_samples import mixed_folder


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return mixed_folder(tmp_path)


def test_unreadable_files_are_counted_on_stderr(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["library", str(folder)]) == 0  # a listing; `oo audit` is the verdict
    out, err = capsys.readouterr()
    assert err.strip().splitlines() == [
        f"oo library: 2 of 5 files could not be read (1 more only in part); "
        f"see `oo library {folder} --frame errors`"
    ]
    assert "corrupt" not in out and "good" in out  # stdout: the table as before
    assert main(["library", str(folder), "--format", "json"]) == 0
    assert "could not be read" in capsys.readouterr().err
    # the frame the note points at lists them and needs no note itself
    assert main(["library", str(folder), "--frame", "errors"]) == 0
    out, err = capsys.readouterr()
    assert "corrupt.o-o.html" in out and "binary.o-o.html" in out and err == ""


def test_a_fully_readable_folder_prints_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", tmp_path / "good.o-o.html")
    assert main(["library", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""
