"""Clear one-line errors instead of silence or tracebacks: a folder verb given a missing folder
or a file, and operating-system errors (a path that cannot be read or written), in the CLI and
in the %oo magic."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.agent.many import find_documents
from oo_nb.cli import main
from oo_nb.errors import NotFound


@pytest.fixture(scope="module")
def shell() -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("oo_nb")
    yield ip


def oo(shell: InteractiveShell, line: str) -> Any:
    return shell.run_line_magic("oo", line)


# ----------------------------------------------------------------------------- update-all's folder
def test_find_documents_refuses_a_missing_folder_and_a_file(tmp_path: Path, corpus_dir: Path) -> None:
    with pytest.raises(NotFound, match="no such folder") as missing:
        find_documents(tmp_path / "nope")
    assert missing.value.file == str(tmp_path / "nope")
    doc = shutil.copy(corpus_dir / "agi-declared.o-o.html", tmp_path)
    with pytest.raises(NotFound, match="is a file, not a folder") as file:
        find_documents(doc)
    assert file.value.file == str(doc)
    assert find_documents(tmp_path) == [Path(doc)]  # a real folder still works


def test_cli_update_all_of_a_missing_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nonexistent"
    assert main(["update-all", str(missing), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no "0 proposed, 0 fresh, 0 failed"
    assert captured.err.strip() == f"oo update-all: error: {missing}: no such folder"
    assert not missing.exists()


def test_cli_update_all_of_a_file_is_an_error(tmp_path: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = shutil.copy(corpus_dir / "agi-declared.o-o.html", tmp_path)
    before = Path(doc).read_bytes()
    assert main(["update-all", str(doc), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "is a file, not a folder" in captured.err and "0 proposed" not in captured.out
    assert Path(doc).read_bytes() == before


def test_magic_update_all_of_a_missing_folder_is_a_usage_error(shell: InteractiveShell, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such folder") as err:
        oo(shell, f"update-all {tmp_path / 'nosuchdir'} --no-progress")
    assert str(tmp_path / "nosuchdir") in str(err.value)
