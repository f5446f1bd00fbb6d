"""The Python API on real files in a temp folder: update with the recorded (replay) agent →
proposal → accept_all → write → history → diff → rollback, and the errors that name the fix."""

from __future__ import annotations

import pydoc
import re
from pathlib import Path

import pandas as pd
import pytest

import oo_nb
from oo_nb.errors import ConflictError, NotFound, OOError, ValidationError

HEAT = "heat-pumps-in-europe.o-o.html"
FRESH = "perovskite-solar-cells.o-o.html"


def test_update_accept_write_history_diff_rollback(demo: Path) -> None:
    doc = oo_nb.open(demo / HEAT)
    before = doc.to_bytes()
    proposal = doc.update(agent="replay")
    assert isinstance(proposal, oo_nb.Proposal) and proposal.status == "proposed"
    assert (demo / HEAT).read_bytes() == before  # proposed, not written
    assert (proposal.changes["decision"] == "pending").all() and len(proposal.changes) > 3

    again = oo_nb.open(demo / HEAT).update(agent="replay")  # not researched twice
    assert again.status == "awaiting" and len(again.changes) == len(proposal.changes)

    written = proposal.accept_all().write()
    assert isinstance(written, oo_nb.Document) and written.version == 2
    with pytest.raises(NotFound, match=r"doc\.update\(\)"):
        written.proposal()  # the saved proposal went with the write

    history = written.history()
    assert list(history.index) == [1, 2] and history["state"].tolist()[-1] == "current"
    assert str(history["version"].dtype) == "Int64"

    diff = written.diff(1)
    assert isinstance(diff, oo_nb.Diff) and diff.changes.hunks
    assert "v1 → the current file (v2)" in diff.label

    done = written.rollback(1)
    assert isinstance(done, oo_nb.Rollback) and done.written and done.version == 1
    assert (demo / HEAT).read_bytes() == before
    assert oo_nb.open(demo / HEAT).history().index.tolist() == [1, 2, 3]


def test_a_version_given_as_its_digits_is_that_version(demo: Path) -> None:
    """`rollback(to="1")` said "no version 1 in history (known: 1)": a str never equalled the
    int. The digits (as history() prints them) name that version, numpy's ints too; anything
    else is refused naming the field."""
    doc = oo_nb.open(demo / HEAT)
    before = doc.to_bytes()
    doc.update(agent="replay", yes=True)
    written = oo_nb.open(demo / HEAT)
    assert "v1 → the current file (v2)" in written.diff("1").label
    assert "v1 → v2" in written.diff(written.history()["version"].iloc[0], "2").label
    for bad in ("one", "1.5", 1.0, True):
        with pytest.raises(ValidationError, match=r"key 'version': must be a whole number, not "):
            written.rollback(to=bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"key 'seq': must be a whole number"):
        written.rollback(seq="first")  # type: ignore[arg-type]
    done = written.rollback(to="1")  # type: ignore[arg-type]
    assert done.written and done.version == 1 and (demo / HEAT).read_bytes() == before


def test_reject_all_writes_nothing_and_discards(demo: Path) -> None:
    before = (demo / HEAT).read_bytes()
    doc = oo_nb.open(demo / HEAT).update(agent="replay").reject_all().write()
    assert doc.version == 1 and (demo / HEAT).read_bytes() == before
    with pytest.raises(NotFound):
        doc.proposal()


def test_write_with_nothing_decided_names_the_fix(demo: Path) -> None:
    proposal = oo_nb.open(demo / HEAT).update(agent="replay")
    with pytest.raises(
        ValidationError, match=r"proposal\.accept_all\(\) or proposal\.reject_all\(\)"
    ):
        proposal.write()
    assert oo_nb.open(demo / HEAT).proposal().reviewable  # kept: the research is paid for


def test_a_fresh_document_has_nothing_to_review(demo: Path) -> None:
    proposal = oo_nb.open(demo / FRESH).update(agent="replay")
    assert proposal.status == "fresh" and not proposal.reviewable
    with pytest.raises(ValidationError, match=r"doc\.update\(force=True\)"):
        proposal.accept_all()


def test_a_written_update_says_where_the_new_version_is(demo: Path) -> None:
    proposal = oo_nb.open(demo / HEAT).update(agent="replay", yes=True)
    assert proposal.status == "written" and oo_nb.open(demo / HEAT).version == 2
    with pytest.raises(ValidationError, match=r"written already: oo_nb\.open\(path\)"):
        proposal.write()


def test_a_proposal_made_before_the_file_changed_names_force(demo: Path) -> None:
    oo_nb.open(demo / HEAT).update(agent="replay")
    path = demo / HEAT
    path.write_bytes(path.read_bytes().replace(b"</body>", b"<!-- edited --></body>", 1))
    with pytest.raises(ConflictError, match=r"force=True"):
        oo_nb.open(path).proposal()
    assert oo_nb.open(path).proposal(force=True).reviewable


def test_write_refuses_when_the_file_changed_since(demo: Path) -> None:
    proposal = oo_nb.open(demo / HEAT).update(agent="replay").accept_all()
    path = demo / HEAT
    path.write_bytes(path.read_bytes().replace(b"</body>", b"<!-- edited --></body>", 1))
    with pytest.raises(ConflictError):
        proposal.write()


def test_an_index_page_is_no_document(demo: Path) -> None:
    page = oo_nb.Library(demo).index()
    with pytest.raises(OOError, match=r"oo_nb\.Library\(folder\)"):
        oo_nb.open(page.path)


def test_a_missing_folder_is_said_at_once(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="no such folder"):
        oo_nb.Library(tmp_path / "missing")


def test_library_calls_return_their_types(demo: Path) -> None:
    lib = oo_nb.Library(demo)
    assert isinstance(lib["heat-pumps-in-europe"], oo_nb.Document)
    assert isinstance(lib.audit(), pd.DataFrame)
    assert lib.changes(kind=["fact"]).empty
    with pytest.raises(ValidationError, match="choose from fact, source, section, sentinel"):
        lib.changes(kind=["facts"])
    done = lib.update_all(agent="replay", progress=False)
    assert sorted(r.path.name for r in done.by_status("proposed")) == [
        HEAT,
        "open-weight-language-models.o-o.html",
    ]


def _documented_columns(doc: str) -> dict[str, str]:
    """``name (dtype)`` pairs of a frame's docstring."""
    text = " ".join(doc.split())
    return dict(re.findall(r"(\w+) \((\w+)", text.split("Columns:", 1)[1]))


@pytest.mark.parametrize(
    "name", ["documents", "sources", "facts", "changelog", "citations", "errors"]
)
def test_frame_docstrings_list_the_columns_and_dtypes(demo: Path, name: str) -> None:
    frame = getattr(oo_nb.Library(demo), name)
    documented = _documented_columns(getattr(oo_nb.Library, name).__doc__)
    actual = {c: str(t).split("[")[0] for c, t in frame.dtypes.items()}
    assert documented == actual


def test_proposal_changes_docstring_lists_its_columns(demo: Path) -> None:
    changes = oo_nb.open(demo / HEAT).update(agent="replay").changes
    doc = (oo_nb.Proposal.changes.__doc__ or "").split("Columns:", 1)[1]
    assert re.findall(r"(\w+) \(", " ".join(doc.split())) == list(changes.columns)


def test_changes_docstring_lists_its_columns(demo: Path) -> None:
    frame = oo_nb.Library(demo).changes()
    documented = _documented_columns(oo_nb.Library.changes.__doc__ or "")
    assert documented == {c: str(t).split("[")[0] for c, t in frame.dtypes.items()}


def test_the_package_face() -> None:
    assert set(dir(oo_nb)) >= {"Library", "Document", "open", "Proposal", "OOError"}
    assert "annotations" not in dir(oo_nb) and "set_html_renderer" not in dir(oo_nb)
    for cls in (oo_nb.Library, oo_nb.Document, oo_nb.Proposal, oo_nb.Diff, oo_nb.Rollback):
        assert repr(cls) == f"<class 'oo_nb.{cls.__name__}'>"


def test_help_shows_no_section_dividers() -> None:
    for cls in (oo_nb.Library, oo_nb.Document, oo_nb.Proposal):
        text = pydoc.plain(pydoc.render_doc(cls))
        assert "# ---" not in text and "# ----" not in text
        assert not re.search(r"^\s*# ", text, re.M), text


def test_the_codec_stays_off_the_document_face(demo: Path) -> None:
    public = {n for n in dir(oo_nb.open(demo / HEAT)) if not n.startswith("_")}
    codec = {"opener", "terminator", "replace_range", "span_text", "block_position", "newline_at"}
    assert not public & codec
    assert public >= {"update", "proposal", "history", "diff", "rollback", "manifest", "article"}


def test_a_proposal_carries_what_the_update_did(demo: Path) -> None:
    """The CLI and the magic print from these fields (issue 27: no layer parses another's text)."""
    planned = oo_nb.open(demo / HEAT).update(agent="replay", dry_run=True)
    assert planned.status == "planned" and set(planned.plan) >= {"searches", "bound_usd"}
    assert "; first request plan: searches " in planned.text()
    assert planned.saved_to is None and planned.written_to is None and not planned.not_saved

    proposal = oo_nb.open(demo / HEAT).update(agent="replay")
    assert proposal.saved_to is not None and proposal.saved_to.name == "pending.json"
    assert proposal.saved_to.is_file() and proposal.written_to is None
    assert not proposal.stale and not proposal.kept_because
    proposal.accept_all().write()
    assert proposal.written_to == demo / HEAT and proposal.saved_to is None

    written = oo_nb.open(demo / HEAT).update(agent="replay", force=True, yes=True)
    assert written.status == "written" and written.written_to == demo / HEAT


def test_the_terminal_review_decides_and_write_writes_it(
    demo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    proposal = oo_nb.open(demo / HEAT).update(agent="replay")
    assert proposal.review_in_terminal(reject_all=True)
    assert proposal.write().version == 1 and proposal.written_to is None  # nothing accepted
    again = oo_nb.open(demo / HEAT).update(agent="replay", force=True)
    assert again.review_in_terminal(accept_all=True)
    assert again.write(action="update (reviewed)").version == 2
    assert oo_nb.open(demo / HEAT).history()["state"].tolist()[-1] == "current"


def test_a_stale_proposal_says_when_it_was_made(demo: Path) -> None:
    from oo_nb.api.proposal import ProposalOutdated

    made = oo_nb.open(demo / HEAT).update(agent="replay").made
    path = demo / HEAT
    path.write_bytes(path.read_bytes().replace(b"</body>", b"<!-- edited --></body>", 1))
    with pytest.raises(ProposalOutdated) as caught:
        oo_nb.open(path).proposal()
    assert caught.value.created == made and caught.value.rebuilt
    assert oo_nb.open(path).proposal(force=True).stale


def test_after_a_hand_edit_the_update_names_what_reviews_the_proposal(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The update's advice was `proposal.review()`, and that Proposal had nothing to review (the
    document changed since): the advice names the call that opens it, and that call works."""
    from oo_nb.cli.main import main

    path = demo / HEAT
    oo_nb.open(path).update(agent="replay")
    path.write_bytes(path.read_bytes().replace(b"</body>", b"<!-- edited --></body>", 1))
    waiting = oo_nb.open(path).update(agent="replay")
    assert waiting.status == "awaiting" and not waiting.reviewable
    assert "doc.proposal(force=True).review()" in waiting.message
    assert "(proposal.review())" not in waiting.message
    with pytest.raises(ValidationError, match=re.escape("doc.proposal(force=True).review()")):
        waiting.review()
    assert oo_nb.open(path).proposal(force=True).reviewable  # what the advice names
    assert main(["update", str(path), "--agent", "replay"]) == 0
    assert f"oo review {path} --force reviews it" in capsys.readouterr().out


def test_a_dry_run_with_nothing_to_replay_says_the_run_would_fail(demo: Path) -> None:
    """The dry run said "with replay" for a document with no cassette, where the run itself
    then failed with "no API key, no cassette...": it says so before, not after."""
    from tests.conftest import corpus_file

    lone = corpus_file("ai-model-landscape.o-o.html", demo.parent)  # no cassette of its own
    plan = oo_nb.open(lone).update(agent="replay", dry_run=True, force=True)
    assert plan.status == "planned" and "with replay" in plan.message
    assert "But the run would fail: no API key (ANTHROPIC_API_KEY)" in plan.message
    with pytest.raises(OOError, match="no recorded cassette"):
        oo_nb.open(lone).update(agent="replay", force=True)  # as the dry run said
    recorded = oo_nb.open(demo / HEAT).update(agent="replay", dry_run=True)
    assert recorded.status == "planned" and "would fail" not in recorded.message


def test_document_summary_and_dict_are_oo_shows(demo: Path) -> None:
    from oo_nb.api.document import NotADocument

    doc = oo_nb.open(demo / HEAT)
    assert doc.summary().splitlines()[0] == doc.title
    assert doc.to_dict()["manifest"]["title"] == doc.title
    assert doc.article_html.startswith("<article") or "<p" in doc.article_html
    with pytest.raises(NotADocument):
        oo_nb.open(oo_nb.Library(demo).index().path)


def test_advice_is_said_in_python(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A proposal from the API names the fix as typed in Python (issue 27), not `oo`'s
    options; the command says the same in its own words."""
    from oo_nb.cli.main import main

    oo_nb.open(demo / HEAT).update(agent="replay")
    again = oo_nb.open(demo / HEAT).update(agent="replay")
    fresh = oo_nb.open(demo / FRESH).update(agent="replay")
    for said in (again.text(), fresh.text()):
        assert "force=True" in said and "--force" not in said and "oo review" not in said
    assert "proposal.review()" in again.text()
    assert main(["update", str(demo / HEAT), "--agent", "replay"]) == 0
    out = capsys.readouterr().out
    assert f"(oo review {demo / HEAT})" in out and "Use --force to research anyway" in out
    assert "force=True" not in out
    assert "force=True" in oo_nb.open(demo / FRESH).update(agent="replay").message


def test_update_all_shows_a_line_a_document(demo: Path) -> None:
    done = oo_nb.Library(demo).update_all(agent="replay", progress=False)
    lines = repr(done).splitlines()
    assert lines[0].startswith("update-all of 4 document(s): ") and "cost $" in lines[0]
    assert len(lines) == 5 and all(line.startswith("  ") for line in lines[1:])
    assert any(line.startswith(f"  {HEAT}: proposed (cost $") for line in lines)
    assert "b'" not in repr(done) and "original=" not in repr(done)
    assert "Pass force=True to update anyway" in repr(done) and "--force" not in repr(done)
    assert repr(done.results[0]).startswith("<UpdateResult ") and len(repr(done.results[0])) < 300


def test_a_set_aside_proposal_is_named_with_the_python_calls(demo: Path) -> None:
    oo_nb.open(demo / HEAT).update(agent="replay")
    again = oo_nb.open(demo / HEAT).update(agent="replay", force=True)
    kept = [w for w in again.warnings if "earlier unreviewed proposal was kept" in w]
    assert len(kept) == 1 and "oo review" not in kept[0]
    assert "`oo_nb.api.saved.saved_proposals(path)` shows it" in kept[0]
    assert "`oo_nb.api.saved.pick_saved(path, 'pending-" in kept[0]
