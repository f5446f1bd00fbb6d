"""Advice from the lower layers names the fix as the caller types it (issue 26, left from the s34
attack: the refusal of unmodelled markup said `oo check`, the line endings finding `oo sync`, the
saved proposals `oo review DOC --list`, whatever the caller). Each is worded by ``oo_nb.skin``."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.many import find_documents
from oo_nb.agent.run import UpdateOptions, begin
from oo_nb.errors import OOError
from oo_nb.format.line_endings import crlf_message
from oo_nb.skin import Skin, speaking
from oo_nb.store.proposals import discard_proposal, pick_proposal
from tests.support.tiny_docs import page

SKINS: list[tuple[Skin, str]] = [("python", "oo_nb."), ("oo", "`oo "), ("%oo", "`%oo ")]


@pytest.mark.parametrize(("skin", "said"), SKINS)
def test_the_line_endings_fix_is_said_as_the_caller_types_it(skin: Skin, said: str) -> None:
    with speaking(skin):
        message = crlf_message(3, "docs")
    assert said in message
    expected = {
        "python": "oo_nb.edit.sync.sync_dir(folder, fix_line_endings=True)",
        "oo": "oo sync docs --fix-line-endings",
        "%oo": "%oo sync docs --fix-line-endings",
    }[skin]
    assert f"`{expected}`" in message


@pytest.mark.parametrize(("skin", "said"), SKINS)
def test_a_bad_saved_proposal_name_points_at_the_list_in_the_callers_words(
    tmp_path: Path, skin: Skin, said: str
) -> None:
    path = tmp_path / "tides.o-o.html"
    path.write_text(page([("00000001", "One.")]).text, "utf-8")
    for call, name in ((pick_proposal, "x.json"), (pick_proposal, "pending-1.json")):
        with speaking(skin), pytest.raises(OOError) as caught:
            call(path, name)
        assert said in str(caught.value) and "`oo review DOC" not in str(caught.value)
    for name in ("pending-2.json", "x.json"):
        with speaking(skin), pytest.raises(OOError) as caught:
            discard_proposal(path, name)
        assert said in str(caught.value) and "`oo review DOC" not in str(caught.value)
    if skin == "python":
        assert "saved_proposals(path)" in str(caught.value)


@pytest.mark.parametrize(("skin", "said"), SKINS)
def test_the_refusal_of_unmodelled_markup_names_check_as_the_caller_types_it(
    tmp_path: Path, skin: Skin, said: str
) -> None:
    path = tmp_path / "tides.o-o.html"
    nested = 'See <a href="https://x.example/1">x <a href="#y">y</a></a>.'
    path.write_text(page([("00000001", nested)]).text, "utf-8")
    with speaking(skin), pytest.raises(OOError) as caught:
        begin(path, UpdateOptions())
    message = str(caught.value)
    assert "reads otherwise" in message and said in message
    if skin == "python":
        assert "oo_nb.format.check.check_path(path)" in message and "`oo check" not in message


def test_a_file_given_for_a_folder_is_answered_in_python(tmp_path: Path) -> None:
    path = tmp_path / "tides.o-o.html"
    path.write_text(page([("00000001", "One.")]).text, "utf-8")
    with pytest.raises(OOError) as caught:
        find_documents(path)
    assert "doc.update()" in str(caught.value) and "`oo update" not in str(caught.value)


def test_an_audit_stored_by_one_skin_is_not_served_to_another(tmp_path: Path) -> None:
    """The audit's findings are stored beside the frames: the CRLF fix, worded for ``oo``, is
    not what a Python caller reads next."""
    from datetime import date

    from oo_nb.library.library import Library
    from tests.support.crlf import crlf_document

    crlf_document(tmp_path, page=True, shell=True)

    def messages() -> list[str]:
        found = Library(tmp_path, today=date(2026, 3, 1), workers=1).audit(all=True)
        return list(found.loc[found["code"] == "crlf-shell", "message"])

    with speaking("oo"):
        assert any("`oo sync " in m for m in messages())
    assert any("sync_dir(folder, fix_line_endings=True)" in m for m in messages())
