"""A block the agent is never shown (a ``<template>``, a ``<script>``, a ``<style>``...) in a
section it rewrites keeps its bytes and its place (issue 26, left from the s34 attack: the
template was dropped on apply and the review listed it as removed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.sections import UNSEEN_TAGS
from oo_nb.errors import AgentError
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from tests.agent.test_update_keeps_bytes import section_as_seen, update

SID, TITLE = "pricing-comparison", "Pricing Comparison"
UNSEEN = {
    "template": '<template id="tpl"><p>kept [s1]</p></template>',
    "script": '<script type="application/json" id="data">{"a": 1}</script>',
    "style": "<style>.price { color: red; }</style>",
    "noscript": "<noscript><p>no script</p></noscript>",
}


@pytest.fixture
def doc(corpus_dir: Path) -> Document:
    return Document.read(corpus_dir / "ai-model-landscape.o-o.html")


def _with_block(doc: Document, block: str, after: str) -> tuple[Document, str]:
    """``doc`` with ``block`` on its own line after the paragraph starting ``after``."""
    html = doc.article_html
    at = html.index("\n", html.index(after)) + 1
    return doc.with_article(html[:at] + "\n" + block + "\n" + html[at:]), block


@pytest.mark.parametrize("kind", list(UNSEEN))
def test_a_rewritten_section_keeps_a_block_the_agent_never_saw(doc: Document, kind: str) -> None:
    assert kind in UNSEEN_TAGS
    before, block = _with_block(doc, UNSEEN[kind], "<p>Output tokens consistently cost")
    seen = section_as_seen(before, SID)
    assert kind not in seen  # (never shown to the model)
    old = "Output tokens consistently cost"
    cand = update(before, SID, TITLE, seen.replace(old, "Output tokens still cost")).document
    after = cand.article_html
    assert after.count(block) == 1
    assert after == before.article_html.replace(old, "Output tokens still cost")
    session = ReviewSession(before, cand)
    article = [h for h in session.diff.decidable if h.area == "article"]
    assert [h.kind for h in article] == ["changed"]  # not "removed template"
    session.reject_all()
    assert session.apply().article_html == before.article_html


def test_a_block_the_agent_never_saw_stays_after_a_new_paragraph_s_neighbour(doc: Document) -> None:
    before, block = _with_block(doc, UNSEEN["template"], "<p>Output tokens consistently cost")
    seen = section_as_seen(before, SID)
    cand = update(before, SID, TITLE, seen + "<p>Prices fell again [s8].</p>").document
    after = cand.article_html
    assert after.count(block) == 1
    # still right after the paragraph it followed
    lead = after.index("Output tokens consistently cost")
    assert after.index(block) > lead
    assert after.index("Prices fell again") > after.index(block)


SVG = '<svg width="10" height="10"><rect width="10" height="10"/></svg>'


@pytest.mark.parametrize("where", ["block", "inline"])
def test_an_svg_echoed_as_its_placeholder_keeps_its_bytes(doc: Document, where: str) -> None:
    """The agent is shown an SVG as a placeholder: a section echoed unchanged wrote the
    placeholder's text in place of the graphic."""
    if where == "block":
        before, _ = _with_block(doc, SVG, "<p>Output tokens consistently cost")
    else:
        html = doc.article_html.replace(
            "Output tokens consistently cost", f"Output tokens {SVG} consistently cost", 1
        )
        before = doc.with_article(html)
    seen = section_as_seen(before, SID)
    assert "inline SVG graphic omitted" in seen
    cand = update(before, SID, TITLE, seen + "<p>Prices fell again [s8].</p>").document
    assert cand.article_html.count(SVG) == 1
    assert "inline SVG graphic omitted" not in cand.article_html
    article = [h for h in ReviewSession(before, cand).diff.decidable if h.area == "article"]
    assert [h.kind for h in article] == ["added"]


def test_an_svg_block_whose_placeholder_the_agent_left_out_is_kept(doc: Document) -> None:
    before, _ = _with_block(doc, SVG, "<p>Output tokens consistently cost")
    seen = section_as_seen(before, SID).replace(
        '<span class="oo-omitted">[inline SVG graphic omitted]</span>', ""
    )
    # the section would be written as it was: nothing changes, so no version is made
    with pytest.raises(AgentError, match="the proposal changes nothing"):
        update(before, SID, TITLE, seen)


def test_an_edited_paragraph_gets_its_svg_back_for_the_placeholder(doc: Document) -> None:
    html = doc.article_html.replace(
        "Output tokens consistently cost", f"Output tokens {SVG} consistently cost", 1
    )
    before = doc.with_article(html)
    seen = section_as_seen(before, SID)
    edited = seen.replace("consistently cost", "still cost", 1)
    assert edited != seen
    after = update(before, SID, TITLE, edited).document.article_html
    assert after == html.replace(f"{SVG} consistently cost", f"{SVG} still cost", 1)


def test_placeholders_that_cannot_be_told_apart_are_not_given_a_graphic(doc: Document) -> None:
    """Two placeholders echoed for one SVG: which is the graphic cannot be told."""
    html = doc.article_html.replace(
        "Output tokens consistently cost", f"Output tokens {SVG} consistently cost", 1
    )
    before = doc.with_article(html)
    seen = section_as_seen(before, SID)
    placeholder = '<span class="oo-omitted">[inline SVG graphic omitted]</span>'
    edited = seen.replace("consistently cost", f"{placeholder} still cost", 1)
    after = update(before, SID, TITLE, edited).document.article_html
    assert SVG not in after
