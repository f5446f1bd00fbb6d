"""An edit of a paragraph inside a container (``<details>``, ``<aside>``, a ``<div>`` with its
own attributes, a table cell, a list item...) is a splice at node boundaries (issue 26): only
that paragraph's bytes change, the container's start and end tags, the untouched paragraph and
both pid comments keep theirs. Where the edit sits in what an update cannot write (a ``<form>``,
an SVG ``foreignObject``), it is refused with a warning naming the element: the article is never
written changed or shortened. The documents are the outside attack's reproducers (s36)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.sections import PidKeeper
from oo_nb.agent.splice import splice_body
from oo_nb.errors import AgentError
from oo_nb.format.document import Document
from oo_nb.review.diff import diff_documents
from tests.support.one_word_edit import DEMO, FIRST, NEW, OLD, RUN, SECOND, TODAY

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "containers"


def _edited(doc: Document) -> Document:
    """The document as Claude Code leaves it after a one-word edit of the first paragraph."""
    assert doc.article_html.count(OLD) == 1
    return doc.with_article(doc.article_html.replace(OLD, NEW, 1))


def _update(doc: Document) -> tuple[str, list[str]]:
    raw = proposal_from_copy(doc, _edited(doc))
    cand = build_candidate(doc, validate_proposal(raw), RUN, today=TODAY)
    return cand.document.article_html, cand.warnings


def _wrapped(start: str, end: str) -> Document:
    """The demo document with the Overview's two paragraphs (and their pid comments) inside
    ``start`` ... ``end``."""
    text = (DEMO / "heat-pumps-in-europe.o-o.html").read_text()
    head = '<h2 id="overview">Overview</h2>\n'
    at = text.index(head) + len(head)
    stop = text.index("\n\n", at)
    return Document(text[:at] + start + text[at:stop] + end + text[stop:])


@pytest.mark.parametrize("name", ["details-two-paragraphs", "div-with-attributes", "fieldset"])
def test_an_edit_inside_a_container_changes_only_the_edited_paragraph(name: str) -> None:
    doc = Document((FIXTURES / f"{name}.o-o.html").read_text())
    after, _ = _update(doc)
    # cmp: every byte but the edit's is the original's (tags, summary, legend, both pids)
    assert after == doc.article_html.replace(OLD, NEW, 1)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("<main>", "</main>"),
        ("<aside>", "</aside>"),
        ("<header>", "</header>"),
        ("<nav>", "</nav>"),
        ("<center>", "</center>"),
        ('<font color="red">', "</font>"),
        ("<article>", "</article>"),
        ('<a href="https://x.example/">', "</a>"),
        ('<span class="k">', "</span>"),
        ("<dl><dd>", "</dd></dl>"),
        ('<figure><img src="data:image/png;base64,iVBORw0KGgo=" alt="chart">', "</figure>"),
        ("<table><tr><td>", "</td></tr></table>"),
        ("<ul><li>", "</li></ul>"),
        ("<div><section>", "</section></div>"),
        ('<section class="s">', "</section>"),
        ('<blockquote cite="https://q.example/">', "</blockquote>"),
        ("<ruby>", "<rt>annotation</rt></ruby>"),
    ],
)
def test_the_wrapper_and_the_untouched_paragraph_keep_their_bytes(start: str, end: str) -> None:
    doc = _wrapped(start, end)
    after, _ = _update(doc)
    assert after == doc.article_html.replace(OLD, NEW, 1)
    assert after.count(FIRST) == 1 and after.count(SECOND) == 1


def test_the_review_shows_one_change_and_writes_the_paragraph_once() -> None:
    doc = Document((FIXTURES / "details-two-paragraphs.o-o.html").read_text())
    raw = proposal_from_copy(doc, _edited(doc))
    cand = build_candidate(doc, validate_proposal(raw), RUN, today=TODAY)
    hunks = [h for h in diff_documents(doc, cand.document).hunks if h.area == "article"]
    assert len(hunks) == 1 and hunks[0].kind == "changed"
    assert cand.document.article_html.count("This document follows") == 1


def test_a_paragraph_added_inside_a_container_goes_in_after_its_neighbour() -> None:
    doc = _wrapped("<details><summary>S</summary>", "</details>")
    added = "<p>A third paragraph [s1].</p>"
    edited = doc.article_html.replace("</details>", "\n" + added + "</details>", 1)
    raw = proposal_from_copy(doc, doc.with_article(edited))
    after = build_candidate(doc, validate_proposal(raw), RUN, today=TODAY).document.article_html
    head, tail = after.split(added)
    assert head.startswith(doc.article_html[: doc.article_html.index("</details>")])
    assert tail.startswith("</details>")  # inside the details, after the second paragraph
    assert head.rstrip().endswith("-->")  # with a pid comment of its own


@pytest.mark.parametrize(("name", "element"), [("form", "<form>"), ("svg-foreign-object", "<svg>")])
def test_an_edit_inside_what_an_update_cannot_write_is_refused(name: str, element: str) -> None:
    doc = Document((FIXTURES / f"{name}.o-o.html").read_text())
    with pytest.raises(AgentError, match=element):
        _update(doc)


def test_a_refused_section_leaves_the_article_as_it_was_and_says_why() -> None:
    doc = Document((FIXTURES / "form.o-o.html").read_text())
    other = "Sales in Europe grew quickly"
    edited = _edited(doc).article_html.replace(other, other + " (edited)", 1)
    raw = proposal_from_copy(doc, doc.with_article(edited))
    cand = build_candidate(doc, validate_proposal(raw), RUN, today=TODAY)
    after = cand.document.article_html
    assert after == doc.article_html.replace(other, other + " (edited)", 1)
    assert any("<form>" in w and "not applied" in w for w in cand.warnings)


def test_a_paragraph_nested_thousands_deep_is_spliced_without_a_recursion_error() -> None:
    old = "<div>" * 3000 + "<!-- pid:a:00000001 -->\n<p>x</p>" + "</div>" * 3000
    keeper = PidKeeper([("pid:a:00000001", "p", "x")], [])
    out = splice_body(old, "<div><p>y</p></div>", keeper, "a", {"p"})
    assert "<p>y</p>" in out and "<p>x</p>" not in out


def test_a_pid_kept_by_a_proposal_that_drops_the_container_is_kept() -> None:
    """The recorded agent's proposal lists the section's paragraphs without the table they sat
    in (its own deletion, attack s36 #1c): the pid comments it kept stay, never new ones."""
    doc = _wrapped("<table><tr><td>", "</td></tr></table>")
    body = doc.article_html.split('<h2 id="overview">Overview</h2>')[1].split("<h2")[0]
    plain = body.replace("<table><tr><td>", "").replace("</td></tr></table>", "")
    proposal = {
        "summary": "edited",
        "sections": [{"id": "overview", "title": "Overview", "html": plain.replace(OLD, NEW)}],
    }
    cand = build_candidate(doc, validate_proposal(proposal), RUN, today=TODAY)
    after = cand.document.article_html
    assert after.count(FIRST) == 1 and after.count(SECOND) == 1, cand.notes


def test_a_paragraph_added_to_a_crlf_article_is_written_with_crlf() -> None:
    """An article whose every line ends in CR LF keeps them in the paragraph an update adds
    (attack s36, #13): no LF-only line is written."""
    plain = Document((DEMO / "heat-pumps-in-europe.o-o.html").read_text())
    doc = plain.with_article(plain.article_html.replace("\n", "\r\n"))
    end = "in buildings [s3].</p>"
    edited = doc.article_html.replace(end, end + "\r\n<p>Added [s2].</p>", 1)
    raw = proposal_from_copy(doc, doc.with_article(edited))
    after = build_candidate(doc, validate_proposal(raw), RUN, today=TODAY).document.article_html
    assert "<p>Added [s2].</p>" in after
    assert after.count("\n") == after.count("\r\n")
