"""A proposal adding 1,200 sources: the review widget builds the widgets of a group's changes only
when the group is shown (a page at a time), yet every change stays decidable, its group's header
counts it, and what is written is exactly what the same decisions give on a ``ReviewSession``.
(How long building takes is a figure in benchmarks/review_diff.py, not a test.)"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as widgets
import pytest
from ipywidgets.widgets import widget as widget_module

from oo_nb.format.document import Document
from oo_nb.notebook.review_group import PAGE
from oo_nb.notebook.review_widget import EAGER, SECTIONS_PAGE, ReviewWidget
from oo_nb.review.session import ReviewSession
from tests.conftest import corpus_file
from tests.support.review_samples import (
    many_sections_candidate,
    many_sources_candidate,
    synthetic_candidate,
)

NAME = "ai-model-landscape.o-o.html"
MANY = 1200


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Document]:
    path = corpus_file(NAME, tmp_path_factory.mktemp("scale"))
    return path, many_sources_candidate(Document.read(path), MANY)


def _fresh(big: tuple[Path, Document], tmp_path: Path) -> tuple[Path, Document]:
    path = tmp_path / NAME
    path.write_bytes(big[0].read_bytes())
    return path, big[1]


def _sources_group(w: ReviewWidget) -> object:
    return next(g for g in w.groups if g.name == "Sources")


def test_a_thousand_sources_build_few_widgets_until_their_group_is_opened(
    big: tuple[Path, Document],
) -> None:
    before = set(widget_module._instances)
    w = ReviewWidget(big[0], big[1])
    made = len(set(widget_module._instances) - before)
    decidable = w.session.diff.decidable
    sources = [h.id for h in decidable if h.area == "sources"]
    assert len(sources) == MANY + 1  # the synthetic update's own new source too
    # the article's few changes are shown; the 1,201 sources wait under their header
    assert len(w.hunk_views) == len(decidable) - len(sources) <= EAGER
    # about 30 models a change shown (with their layouts and styles), a dozen a group: 235 here,
    # where building every change made about 35,000
    assert made < 400, made
    group = _sources_group(w)
    assert not group.is_open and group.built == 0 and group.rows.children == ()
    assert group.toggle.description == "▸ Sources · 1,201 changes · 0 accepted · 1,201 undecided"
    assert repr(w).splitlines()[1].startswith(f"{len(decidable)} change(s): 0 accepted")

    group.toggle.click()  # opening builds one page, with a button for the next
    assert group.is_open and group.built == PAGE
    more = group.more_button
    assert more is not None and more.description == f"Show {PAGE} more (1,151 not shown)"
    assert list(group.rows.children) == group.views
    assert list(group.body.children) == [group.rows, more]
    assert [v.hunk.id for v in group.views] == sources[:PAGE]
    more.click()
    assert group.body.children[-1] is more  # the same button, below the rows
    assert group.built == 2 * PAGE and f"({MANY + 1 - 2 * PAGE:,} not shown)" in more.description
    group.toggle.click()  # folding keeps what was built
    assert not group.is_open and group.built == 2 * PAGE
    assert group.toggle.description.startswith("▸ Sources · 1,201 changes")


def test_decisions_on_built_and_unbuilt_changes_write_what_a_session_gives(
    big: tuple[Path, Document], tmp_path: Path
) -> None:
    path, cand = _fresh(big, tmp_path)
    w = ReviewWidget(path, cand)
    ids = [h.id for h in w.session.diff.decidable]
    sources = [i for i in ids if i.startswith("src:")]
    article = [i for i in ids if not i.startswith("src:")]
    group = _sources_group(w)
    assert group.accept_button is not None
    group.accept_button.click()  # the whole group, though none of it is built
    assert group.toggle.description.endswith("1,201 changes · 1,201 accepted · all decided")
    far = sources[-7]  # far past the first page: view() builds the pages up to it
    w.view(far).reject_button.click()
    assert group.is_open and group.built == len(sources) - 6 and far in w.hunk_views
    w.view(sources[3]).reject_button.click()
    w.hunk_views[article[0]].accept_button.click()
    w.hunk_views[article[1]].reject_button.click()
    assert "1,199 accepted · 2 rejected · all decided" in group.toggle.description
    assert w.hunk_views[sources[5]].state.value == "accepted"  # built after the group decision

    session = ReviewSession(Document.read(path), cand.with_path(path))
    for i in sources:
        session.accept(i)
    for i in (far, sources[3], article[1]):
        session.reject(i)
    session.accept(article[0])
    expected = session.apply().to_bytes()
    assert w.session.apply().to_bytes() == expected
    w.write_button.click()
    assert w.error.value == "" and path.read_bytes() == expected
    # after writing back, changes shown later are there to read, not to decide
    assert group.accept_button.disabled and w.view(sources[-1]).accept_button.disabled


def test_bulk_and_group_decisions_keep_edits_and_match_a_session(tmp_path: Path) -> None:
    """A normal update (every group open, as before) with the group buttons: Reject group and
    Accept all keep an edit, and the result is the session's."""
    path = corpus_file(NAME, tmp_path)
    doc = Document.read(path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(path, cand)
    assert len(w.hunk_views) == len(w.session.diff.decidable)  # all built, all shown
    assert all(g.is_open for g in w.groups)
    several = next(g for g in w.groups if len(g.ids) > 1)
    edited = next(i for i in several.ids if w.session.hunk(i).editable)
    view = w.view(edited)
    assert view.edit_button is not None
    view.edit_button.click()
    assert view.editor is not None and view.save_edit_button is not None
    view.editor.value = "<p>Written by the reviewer.</p>"
    view.save_edit_button.click()
    assert several.reject_button is not None
    several.reject_button.click()
    assert "your 1 edited change(s) are kept" in w.status.value
    assert w.session.decision(edited) == "edit"
    assert all(w.session.decision(i) == "reject" for i in several.ids if i != edited)
    w.accept_all_button.click()
    session = ReviewSession(doc, cand.with_path(path))
    session.accept_all()
    session.edit(edited, "<p>Written by the reviewer.</p>")
    assert w.session.apply().to_bytes() == session.apply().to_bytes()
    assert "Written by the reviewer." in w.session.apply().article_html
    assert all(v.state.value in ("accepted", "edited") for v in w.hunk_views.values())


def test_groups_open_within_the_budget_and_single_changes_have_no_group_buttons(
    big: tuple[Path, Document],
) -> None:
    w = ReviewWidget(big[0], big[1])
    for g in w.groups:
        if len(g.ids) == 1:
            assert g.accept_button is None and g.box.children[0] is g.toggle
        else:
            head = g.box.children[0]
            assert isinstance(head, widgets.HBox) and g.toggle in head.children
    assert sum(g.built for g in w.groups) <= EAGER
    assert all(g.is_open == (g.built > 0) for g in w.groups)


def test_a_hundred_new_sections_build_their_groups_a_page_at_a_time(tmp_path: Path) -> None:
    """Each group is a dozen widget models: past ``SECTIONS_PAGE`` sections, the groups wait
    behind "Show more sections"; the areas' groups (here the sources a bulk candidate adds)
    are always there, and decisions reach the sections not shown."""
    path = corpus_file(NAME, tmp_path)
    doc = Document.read(path)
    extra = many_sections_candidate(many_sources_candidate(doc, 3), 100)
    w = ReviewWidget(path, extra)
    decidable = w.session.diff.decidable
    sections = {h.section for h in decidable if h.area == "article"}
    assert len(sections) == 100 + 3  # the synthetic update's sections too
    names = [g.name for g in w.groups]
    assert len(names) == SECTIONS_PAGE + 1 and names[-1] == "Sources"
    assert sum(g.built for g in w.groups) <= EAGER
    more = w._more_sections
    assert more is not None
    hidden = [h for h in decidable if h.area == "article" and h.id not in w._group_of]
    assert len({h.section for h in hidden}) == 63 and len(hidden) > 63
    assert (
        more.description
        == f"Show 40 more sections (63 sections with {len(hidden)} changes not shown)"
    )
    more.click()
    assert len(w.groups) == 2 * SECTIONS_PAGE + 1 and w.groups[-1].name == "Sources"
    assert "(23 sections with" in more.description
    w.accept_all_button.click()
    article = [h for h in decidable if h.area == "article"]
    last = [h.id for h in article if h.section == article[-1].section]
    assert last and last[0] not in w.hunk_views
    view = w.view(last[0])  # builds the sections' groups up to it
    assert view.state.value == "accepted" and more.layout.display == "none"
    assert len(w.groups) == len(sections) + 1
    view.reject_button.click()
    session = ReviewSession(doc, extra.with_path(path))
    session.accept_all()
    session.reject(last[0])
    assert w.session.apply().to_bytes() == session.apply().to_bytes()
    assert "Extra section 99" in w.session.apply().article_html
