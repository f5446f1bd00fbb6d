"""The record of what the user confirmed (``.oo/alerts.trusted``) vouches only for the library it
was sealed for and the documents as they were confirmed: not through a linked ``.oo`` (s36
attack T1, T4, T5), not copied to another folder (T2), not for a document renamed onto a
confirmed name (T3); a ``.oo`` linked (even to nothing) is named, with what works: a folder of
its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oo_nb.alerts.config import load_config, private_dir
from oo_nb.alerts.deliver import alert_after_update
from oo_nb.cli.main import main
from oo_nb.edit.new import NewSpec, create_document
from oo_nb.errors import ValidationError
from oo_nb.store.library_trust import review_auto_problem
from tests.support.alert_settings import write_alerts

HOOK = {"type": "webhook", "name": "mine", "url": "https://hooks.example/mine"}


def _library(folder: Path, subject: str = "Solar storms") -> Path:
    """A library holding one document whose contract asks review: auto."""
    doc = create_document(NewSpec(subject, "grid"), folder).path
    assert doc is not None
    assert main(["contract", str(doc), "--set", "review", "auto"]) == 0
    return doc


def _confirmed(tmp_path: Path) -> Path:
    """The user's own library, its alerts and review: auto confirmed."""
    mine = tmp_path / "mine"
    _library(mine)
    write_alerts(mine, HOOK)
    assert review_auto_problem(mine / "solar-storms.o-o.html") is None
    return mine


def test_a_linked_oo_borrows_nothing_of_the_record_it_points_at(tmp_path: Path) -> None:
    _confirmed(tmp_path)
    evil = tmp_path / "evil"
    doc = _library(evil)
    (evil / ".oo").symlink_to("../mine/.oo")
    problem = review_auto_problem(doc)
    assert problem is not None and "is a symbolic link" in problem  # T1
    with pytest.raises(ValidationError, match="symbolic link"):  # T4: its alerts not sent
        load_config(evil)


def test_trust_refuses_a_linked_oo_and_leaves_the_record_it_points_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _confirmed(tmp_path)
    before = (mine / ".oo" / "alerts.trusted").read_bytes()
    evil = tmp_path / "evil"
    _library(evil, "Tides")
    (evil / ".oo").symlink_to("../mine/.oo")
    assert main(["alerts", str(evil), "--trust"]) != 0  # T5
    assert "symbolic link" in capsys.readouterr().err
    assert (mine / ".oo" / "alerts.trusted").read_bytes() == before
    assert review_auto_problem(mine / "solar-storms.o-o.html") is None


def test_a_record_linked_inside_a_real_oo_is_not_read(tmp_path: Path) -> None:
    mine = _confirmed(tmp_path)
    evil = tmp_path / "evil"
    doc = _library(evil)
    (evil / ".oo").mkdir()
    (evil / ".oo" / "alerts.trusted").symlink_to(mine / ".oo" / "alerts.trusted")
    problem = review_auto_problem(doc)
    assert problem is not None and "symbolic link" in problem


def test_a_record_copied_to_another_folder_confirms_nothing_there(tmp_path: Path) -> None:
    mine = _confirmed(tmp_path)
    other = tmp_path / "other"
    doc = _library(other)
    shutil.copytree(mine / ".oo", other / ".oo")  # T2: to reuse the channels
    problem = review_auto_problem(doc)
    assert problem is not None and "sealed for" in problem and str(mine.resolve()) in problem
    with pytest.raises(ValidationError, match="sealed for"):
        load_config(other)
    assert load_config(mine) is not None  # the original still holds


def test_a_document_renamed_onto_a_confirmed_name_is_not_confirmed(tmp_path: Path) -> None:
    mine = _confirmed(tmp_path)
    pulled = _library(tmp_path / "incoming", "Solar storms")
    assert main(["contract", str(pulled), "--set", "budget", "50"]) == 0
    target = mine / "solar-storms.o-o.html"
    pulled.replace(target)  # T3: a pull renames it onto the confirmed name
    problem = review_auto_problem(target)
    assert problem is not None and "asked after you last confirmed" in problem
    assert main(["alerts", str(mine), "--trust"]) == 0  # the user confirms it as it is now
    assert review_auto_problem(target) is None


def test_init_refuses_a_linked_oo_and_writes_nothing_through_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine"
    (mine / ".oo").mkdir(parents=True)
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / ".oo").symlink_to("../mine/.oo")
    assert main(["alerts", str(evil), "--init"]) != 0
    assert "symbolic link" in capsys.readouterr().err
    assert list((mine / ".oo").iterdir()) == []


def test_the_advice_for_a_linked_oo_is_to_replace_it_not_trust_which_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _confirmed(tmp_path)
    evil = tmp_path / "evil"
    doc = _library(evil)
    (evil / ".oo").symlink_to("../mine/.oo")
    problem = review_auto_problem(doc)
    assert problem is not None
    assert f"replace {evil / '.oo'} with a folder of its own, then `oo alerts" in problem
    assert main(["alerts", str(evil), "--show"]) != 0
    assert "replace it with a folder of its own" in capsys.readouterr().err


@pytest.mark.parametrize("verb", ["--trust", "--init", "--show", "--test", None])
def test_a_dangling_oo_is_named_in_one_line_by_every_alerts_verb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: str | None
) -> None:
    lib = tmp_path / "lib"
    _library(lib)
    (lib / ".oo").symlink_to(tmp_path / "nowhere")
    assert main(["alerts", str(lib), *([verb] if verb else [])]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{lib / '.oo'} is a symbolic link" in err and "folder of its own" in err
    assert not (tmp_path / "nowhere").exists()  # nothing made through it


def test_a_dangling_oo_is_named_by_update_all_alerts_and_the_review_auto_check(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "lib"
    doc = _library(lib)
    (lib / ".oo").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ValidationError, match="symbolic link"):  # not mkdir's FileExistsError
        private_dir(lib)
    lines = alert_after_update(lib).lines()
    assert any(f"{lib / '.oo'} is a symbolic link" in line for line in lines)
    problem = review_auto_problem(doc)
    assert problem is not None and f"{lib / '.oo'} is a symbolic link" in problem
    assert "with a folder of its own, then `oo alerts" in problem


def test_a_file_at_oo_is_named_not_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = tmp_path / "lib"
    _library(lib)
    (lib / ".oo").write_text("not settings")
    assert main(["alerts", str(lib), "--init"]) != 0
    err = capsys.readouterr().err
    assert f"{lib / '.oo'} is not a folder: replace it with a folder of its own" in err
    assert (lib / ".oo").read_text() == "not settings"
