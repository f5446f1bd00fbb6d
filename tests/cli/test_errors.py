"""Clear one-line errors instead of silence or tracebacks: a folder verb given a missing folder
or a file, and operating-system errors (a path that cannot be read or written), in the CLI and
in the %oo magic."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.agent.many import find_documents
from oo_nb.cli.main import main
from oo_nb.errors import NotFound
from tests.support.bad_text import plant_lone_surrogate, undecodable_name
from tests.support.magic_helpers import oo


# ----------------------------------------------------------------------------- update-all's folder
def test_find_documents_refuses_a_missing_folder_and_a_file(
    tmp_path: Path, corpus_dir: Path
) -> None:
    with pytest.raises(NotFound, match="no such folder") as missing:
        find_documents(tmp_path / "nope")
    assert missing.value.file == str(tmp_path / "nope")
    doc = shutil.copy(corpus_dir / "agi-declared.o-o.html", tmp_path)
    with pytest.raises(NotFound, match="is a file, not a folder") as file:
        find_documents(doc)
    assert file.value.file == str(doc)
    assert find_documents(tmp_path) == [Path(doc)]  # a real folder still works


def test_cli_update_all_of_a_missing_folder_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nonexistent"
    assert main(["update-all", str(missing), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no "0 proposed, 0 fresh, 0 failed"
    assert captured.err.strip() == f"oo update-all: error: {missing}: no such folder"
    assert not missing.exists()


def test_cli_update_all_of_a_file_is_an_error(
    tmp_path: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = shutil.copy(corpus_dir / "agi-declared.o-o.html", tmp_path)
    before = Path(doc).read_bytes()
    assert main(["update-all", str(doc), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "is a file, not a folder" in captured.err and "0 proposed" not in captured.out
    assert Path(doc).read_bytes() == before


def test_magic_update_all_of_a_missing_folder_is_a_usage_error(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    with pytest.raises(UsageError, match="no such folder") as err:
        oo(shell, f"update-all {tmp_path / 'nosuchdir'} --no-progress")
    assert str(tmp_path / "nosuchdir") in str(err.value)


# ----------------------------------------------------------------------------- operating-system errors
@pytest.fixture
def lib(tmp_path: Path, corpus_dir: Path) -> Path:
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(corpus_dir / "agi-declared.o-o.html", folder)
    return folder


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


def test_cli_history_of_a_folder_names_the_folder(
    lib: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", str(lib)]) == 2
    assert (
        _one_error_line(capsys) == f"oo history: error: cannot read {lib}: is a folder, not a file"
    )


def test_cli_new_in_an_impossible_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    target = blocker / "docs"
    assert main(["new", "Tides / sea level", "--dir", str(target), "--no-update"]) == 2
    line = _one_error_line(capsys)
    assert line.startswith("oo new: error: cannot create the folder ") and str(blocker) in line
    assert blocker.read_text() == "not a folder"


def test_cli_demo_and_index_in_an_impossible_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["demo", str(blocker / "demo")]) == 2
    assert _one_error_line(capsys).startswith(f"oo demo: error: cannot create the folder {blocker}")


def _disk_full(monkeypatch: pytest.MonkeyPatch) -> None:
    from oo_nb.store import store

    def atomic_write_bytes(
        path: Path, data: bytes, **kwargs: object
    ) -> None:  # the store's, failing
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(store, "atomic_write_bytes", atomic_write_bytes)


def test_cli_index_on_a_full_disk(
    lib: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _disk_full(monkeypatch)
    assert main(["index", str(lib)]) == 2
    assert (
        _one_error_line(capsys)
        == f"oo index: error: cannot write {lib / 'index.o-o.html'}: no space left on the device"
    )
    assert not (lib / "index.o-o.html").exists()


def test_cli_keeps_tracebacks_for_programming_errors(
    monkeypatch: pytest.MonkeyPatch, lib: Path
) -> None:
    from oo_nb.cli.verbs import load

    def broken(ns: object) -> object:
        raise ValueError("a bug")

    monkeypatch.setattr(load("history"), "run", broken)
    with pytest.raises(ValueError, match="a bug"):
        main(["history", str(lib)])


def test_describe_os_error_without_a_path() -> None:
    from oo_nb.cli.main import describe_os_error

    assert (
        describe_os_error(OSError(28, "No space left on device"))
        == "[Errno 28] No space left on device"
    )
    with pytest.raises(OSError) as err:
        Path("/nonexistent-oo-dir/x").read_bytes()
    assert (
        describe_os_error(err.value) == "cannot read /nonexistent-oo-dir/x: no such file or folder"
    )
    with pytest.raises(OSError) as err:
        Path("/nonexistent-oo-dir/a").rename("/nonexistent-oo-dir/b")
    assert (
        describe_os_error(err.value)
        == "cannot write /nonexistent-oo-dir/a to /nonexistent-oo-dir/b: no such file or folder"
    )


def _failing(name: str) -> OSError:
    """The OSError raised inside a function called ``name``, with its traceback."""

    def fail() -> None:
        raise OSError(errno.ENOENT, "No such file or directory", "/x")

    fail.__code__ = fail.__code__.replace(co_name=name)
    try:
        fail()
    except OSError as exc:
        return exc
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("name", "operation"),
    [
        ("deepcopy", "use"),
        ("download", "use"),
        ("status", "use"),
        ("this_is_it", "use"),
        ("reload_config", "use"),
        ("copyright", "use"),
        ("readme", "use"),
        ("copy2", "copy"),
        ("read_text", "read"),
        ("stat", "read"),
        ("iterdir", "read"),
        ("makedirs", "create the folder"),
        ("rmtree", "remove"),
        ("write_bytes", "write"),
        ("open", "open"),
    ],
)
def test_the_operation_is_named_by_whole_function_names(name: str, operation: str) -> None:
    from oo_nb.cli.main import describe_os_error

    assert describe_os_error(_failing(name)) == f"cannot {operation} /x: no such file or folder"


def test_a_precise_frame_wins_over_open(tmp_path: Path) -> None:
    from oo_nb.cli.main import describe_os_error

    missing = tmp_path / "no-such-folder" / "x"
    with pytest.raises(OSError) as err:
        missing.write_bytes(b"x")  # Path.write_bytes runs Path.open, the innermost frame
    assert describe_os_error(err.value) == f"cannot write {missing}: no such file or folder"
    with pytest.raises(OSError) as err:
        missing.open("rb")
    assert describe_os_error(err.value) == f"cannot open {missing}: no such file or folder"


def test_magic_history_of_a_folder_is_a_usage_error(shell: InteractiveShell, lib: Path) -> None:
    with pytest.raises(UsageError) as err:
        oo(shell, f'history "{lib}"')
    assert str(err.value) == f"%oo history: cannot read {lib}: is a folder, not a file"
    assert isinstance(err.value.__cause__, IsADirectoryError)


def test_magic_new_demo_index_in_impossible_folders(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(UsageError, match=r"^%oo new: cannot create the folder .*a-file"):
        oo(shell, f'new "x / y" --dir "{blocker}/nope" --no-update')
    with pytest.raises(UsageError, match=r"^%oo demo: cannot create the folder .*a-file"):
        oo(shell, f'demo "{blocker}/x"')


def test_magic_index_on_a_full_disk(
    shell: InteractiveShell, lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _disk_full(monkeypatch)
    with pytest.raises(UsageError) as err:
        oo(shell, f'index "{lib}"')
    assert (
        str(err.value)
        == f"%oo index: cannot write {lib / 'index.o-o.html'}: no space left on the device"
    )


def test_magic_keeps_tracebacks_for_programming_errors(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch, lib: Path
) -> None:
    def broken(path: object) -> object:
        raise KeyError("a bug")

    monkeypatch.setattr("oo_nb.api.history.read_entries", broken)  # what `%oo history` calls
    with pytest.raises(KeyError):
        oo(shell, f'history "{lib}"')


# ----------------------------------------------------------------------------- text that is not UTF-8
@pytest.fixture
def lone_surrogate_lib(tmp_path: Path, corpus_dir: Path) -> tuple[Path, Path, int, int]:
    """A folder of two documents, one with a "\\ud800" escape in its manifest."""
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(corpus_dir / "yc-w26-batch.o-o.html", folder)
    data, line, column = plant_lone_surrogate((corpus_dir / "agi-declared.o-o.html").read_bytes())
    bad = folder / "agi-declared.o-o.html"
    bad.write_bytes(data)
    return folder, bad, line, column


def test_every_reader_reports_a_lone_surrogate_alike(
    lone_surrogate_lib: tuple[Path, Path, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    """`oo check` said valid while show, library and index crashed for the whole folder: now
    each names the file, block, line and column, and the folder verbs read the rest."""
    folder, bad, line, column = lone_surrogate_lib
    where = f"{bad}: block oo-manifest, line {line}, column {column}: invalid JSON: \\ud800 is a lone surrogate"

    assert main(["show", str(bad)]) == 2
    assert _one_error_line(capsys).startswith(f"oo show: error: {where}")

    assert main(["check", str(bad)]) == 1
    assert f"{bad}: error: invalid-json: block oo-manifest, line {line}, column {column}:" in (
        capsys.readouterr().out
    )

    assert main(["library", str(folder)]) == 0
    assert "Y Combinator W26 Batch" in capsys.readouterr().out
    assert main(["library", str(folder), "--frame", "errors"]) == 0
    out = capsys.readouterr().out
    assert "oo-manifest" in out and f"{line}" in out and "lone surrogate" in out

    assert main(["audit", str(folder)]) == 1
    assert "invalid-json" in capsys.readouterr().out

    assert main(["index", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "1 document" in out and f"agi-declared.o-o.html: block oo-manifest, line {line}" in out


def test_folder_verbs_print_a_file_name_that_is_not_utf8(
    tmp_path: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Printing a name held with a surrogate escape to a strict UTF-8 stdout (pytest's capture is
    one) ended `oo library` in a traceback; it shows U+FFFD instead."""
    shutil.copy(corpus_dir / "agi-declared.o-o.html", undecodable_name(tmp_path))
    for verb in ("library", "audit"):
        assert main([verb, str(tmp_path)]) in (0, 1)
        captured = capsys.readouterr()
        assert "caf\ufffd" in captured.out and "Traceback" not in captured.err
    assert main(["index", str(tmp_path)]) == 0


def test_new_with_a_title_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`oo new $'\\xff\\xfe bad'`: argv bytes that are not UTF-8 arrive as surrogate escapes and
    crashed the write; the argument is named and its bytes shown, nothing is created."""
    title = os.fsdecode(b"\xff\xfe bad")
    assert main(["new", title, "--dir", str(tmp_path), "--no-update"]) == 2
    assert _one_error_line(capsys) == (
        "oo new: error: key 'title': \"\\xff\\xfe bad\" is not valid UTF-8 text "
        "(bytes in another encoding?): type it again in UTF-8"
    )
    assert list(tmp_path.iterdir()) == []
    assert (
        main(["new", "Tides", "--audience", os.fsdecode(b"caf\xe9"), "--dir", str(tmp_path)]) == 2
    )
    assert "key 'audience'" in _one_error_line(capsys)
