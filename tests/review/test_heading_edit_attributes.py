"""A section heading's edit is read by its attributes, not by a search for ``id=``: a
``data-id`` or an ``id="…"`` inside another attribute's value is not the heading's id (it was
refused as an attempt to change the id), and an unquoted ``id=other`` is (it was ignored)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.errors import ValidationError
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from tests.support.tiny_docs import page, source, updated

_HEADING = '<h2 id="tides">Tides</h2>'


def _session(tmp_path: Path) -> tuple[ReviewSession, str]:
    paras = [("aaaaaaa1", "Old [s1]."), ("aaaaaaa2", "Second.")]
    original = page(paras, [source(1)])
    candidate = updated(paras, [source(1)])
    candidate = candidate.with_article(
        candidate.article_html.replace(_HEADING, '<h2 id="tides">Tides and currents</h2>')
    )
    path = tmp_path / "h.o-o.html"
    path.write_bytes(original.to_bytes())
    session = ReviewSession(Document.read(path), candidate)
    (hunk,) = [h for h in session.diff.decidable if h.tag == "h2"]
    return session, hunk.id


@pytest.mark.parametrize(
    "typed",
    [
        '<h2 data-id="zz">Tidal flows</h2>',
        "<h2 title='id=\"zz\"'>Tidal flows</h2>",
        '<h2 id="tides" data-id="zz">Tidal flows</h2>',
        # issue 26: read as a browser reads it, a "</h2>" or ">" inside a value ends nothing
        '<h2 title="</h2>">Tidal flows</h2>',
        '<h2 id="tides" title="a>b">Tidal flows</h2>',
    ],
)
def test_other_attributes_are_not_the_id(tmp_path: Path, typed: str) -> None:
    session, hid = _session(tmp_path)
    assert session.edit(hid, typed) == '<h2 id="tides">Tidal flows</h2>'


@pytest.mark.parametrize("typed", ["<h2 id=other>Tidal flows</h2>", "<h2 ID = 'other'>x</h2>"])
def test_a_different_id_is_refused_however_written(tmp_path: Path, typed: str) -> None:
    session, hid = _session(tmp_path)
    with pytest.raises(ValidationError, match="the heading's id is 'tides'"):
        session.edit(hid, typed)


def test_a_heading_without_an_id_can_be_edited_and_stays_without(tmp_path: Path) -> None:
    # a hand-written page (or an agent's new section) may have a bare <h2>: its edit was
    # refused whatever was typed ("heading id '' is not usable"), even the proposal unchanged
    paras = [("aaaaaaa1", "Old [s1].")]
    original = page(paras, [source(1)])
    original = original.with_article(original.article_html.replace(_HEADING, "<h2>Tides</h2>"))
    candidate = updated(paras, [source(1)])
    candidate = candidate.with_article(
        candidate.article_html.replace(_HEADING, "<h2>Tides and more</h2>")
    )
    path = tmp_path / "bare.o-o.html"
    path.write_bytes(original.to_bytes())
    session = ReviewSession(Document.read(path), candidate)
    (hunk,) = [h for h in session.diff.decidable if h.tag == "h2"]
    assert session.edit(hunk.id, session.editor_text(hunk.id)) == "<h2>Tides and more</h2>"
    assert session.edit(hunk.id, "Tidal <em>flows</em>") == "<h2>Tidal <em>flows</em></h2>"
    with pytest.raises(ValidationError, match="not usable"):
        session.edit(hunk.id, '<h2 id="a b">x</h2>')
