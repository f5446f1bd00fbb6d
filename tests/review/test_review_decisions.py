"""Each decision takes effect exactly: a moved paragraph sits in one place only (its new one if
the move was accepted, its old one otherwise, never both or neither), an edit of a new or a
removed paragraph keeps that paragraph's pid, and the counts the review reports (and writes into
the changelog) are the decisions as made."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.review.blocks import changelog_entries
from oo_nb.review.session import ReviewSession
from oo_nb.review.units import split_units
from tests.support.tiny_docs import page, updated

PARAS = [
    ("00000001", "One."),
    ("00000002", "Two."),
    ("00000003", "Three."),
    ("00000004", "Four."),
]


def _order(doc: Document) -> list[str]:
    """The paragraphs' texts in order."""
    units, _ = split_units(doc.article_html)
    return [u.body.removeprefix("<p>").removesuffix("</p>") for u in units if u.tag == "p"]


def _moved() -> tuple[Document, Document, ReviewSession, str, str]:
    """Four moved to the front, Two revised."""
    doc = page(PARAS)
    cand = updated([PARAS[3], PARAS[0], ("00000002", "Two, revised."), PARAS[2]])
    session = ReviewSession(doc, cand)
    move = next(h.id for h in session.diff.decidable if h.moved)
    change = next(h.id for h in session.diff.decidable if not h.moved)
    return doc, cand, session, move, change


def test_a_moved_paragraph_is_in_one_place_whatever_the_decision() -> None:
    _, _, session, move, change = _moved()
    session.accept(change)
    session.reject(move)
    final = session.apply()
    assert (
        final.article_html
        == page([*PARAS[:1], ("00000002", "Two, revised."), *PARAS[2:]]).article_html
    )
    session.reject(change)
    session.accept(move)
    final = session.apply()
    assert final.article_html == page([PARAS[3], *PARAS[:3]]).article_html
    session.edit(move, "<p>Four, edited.</p>")
    final = session.apply()
    assert _order(final) == ["Four, edited.", "One.", "Two.", "Three."]
    assert final.article_html.count("pid:tides:00000004") == 1


def test_an_edit_of_a_new_or_a_removed_paragraph_keeps_its_pid() -> None:
    doc = page(PARAS)
    cand = updated([PARAS[0], ("00000005", "Five, new."), PARAS[2], PARAS[3]])  # Two removed
    session = ReviewSession(doc, cand)
    added = next(h.id for h in session.diff.decidable if h.kind == "added")
    removed = next(h.id for h in session.diff.decidable if h.kind == "removed")
    session.edit(added, "<p>Five, in my words.</p>")
    session.reject(removed)
    final = session.apply().article_html
    assert "<!-- pid:tides:00000005 -->\n<p>Five, in my words.</p>" in final
    assert "<!-- pid:tides:00000002 -->\n<p>Two.</p>" in final
    # the user keeps a removed paragraph in other words: at its place, with its pid
    session.reject(added)
    session.edit(removed, "<p>Two, in my words.</p>")
    final_doc = session.apply()
    assert "<!-- pid:tides:00000002 -->\n<p>Two, in my words.</p>" in final_doc.article_html
    assert _order(final_doc) == ["One.", "Two, in my words.", "Three.", "Four."]


def test_the_counts_are_the_decisions_as_made() -> None:
    doc = page(PARAS)
    cand = updated([("00000001", "One, revised."), ("00000002", "Two, revised."), *PARAS[2:]])
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="Tides, revised"))
    session = ReviewSession(doc, cand)
    a1, a2, title = (h.id for h in session.diff.decidable)
    session.edit(a1, "<p>One, mine.</p>")
    session.accept(a2)  # the title: still pending, so rejected
    result = session.result()
    assert (result.accepted, result.rejected, result.edited) == (1, 1, 1)
    entry = changelog_entries(result.document.block_json("oo-changelog"))[-1]
    assert entry["review"] == {"accepted": 1, "rejected": 1, "edited": 1}
    assert entry["summary"].endswith("(Review: 1 of 3 proposed changes rejected.)")
    session.accept(title)
    result = session.result()
    assert (result.accepted, result.rejected, result.edited) == (2, 0, 1)
    entry = changelog_entries(result.document.block_json("oo-changelog"))[-1]
    assert entry["review"] == {"accepted": 2, "rejected": 0, "edited": 1}
    assert entry["summary"] == "Update 2."  # nothing rejected: no note
    session.accept(a1)
    result = session.result()
    assert (result.accepted, result.rejected, result.edited) == (3, 0, 0)
    assert result.document.to_bytes() == cand.to_bytes() and not result.notes
    session.reject_all()
    result = session.result()
    assert (result.accepted, result.rejected, result.edited) == (0, 3, 0)
    assert result.notes == ("nothing accepted: the document stays as it was",)


def test_a_removed_section_is_one_change(corpus_dir: Path) -> None:
    """A section the candidate removes whole (heading and text) is one change, decided as one
    (issue 12): accepted, it is gone; rejected, every byte of it stays."""
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    units, tail = split_units(doc.article_html)
    h2s = [i for i, u in enumerate(units) if u.tag == "h2"]
    cand = doc.with_article(
        "".join(u.raw for i, u in enumerate(units) if not h2s[0] <= i < h2s[1]) + tail
    )
    session = ReviewSession(doc, cand)
    (removal,) = [h for h in session.diff.decidable if h.area == "article"]
    assert removal.whole_section and removal.kind == "removed" and removal.key == "overview"
    assert removal.title == "removed section · Overview"
    lines = removal.before_text.splitlines()
    assert lines[0] == "Overview" and len(lines) == h2s[1] - h2s[0]
    session.accept_all()
    result = session.result()
    assert result.document.to_bytes() == cand.to_bytes() and not result.notes
    session.reject(removal.id)
    assert session.result().document.article_html == doc.article_html
