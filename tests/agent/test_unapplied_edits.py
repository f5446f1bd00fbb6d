"""An edit the splice does not carry into the article (a class or lang added to a kept
paragraph, two wrappers' classes swapped, a dash rewritten as ``&mdash;``) writes the section
byte for byte as it was: it is never recorded as "edited", and when nothing else changes there is
no new version, with the reason said (the outside attack's G8/G8b, s36)."""

from __future__ import annotations

import pytest

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.errors import AgentError
from oo_nb.format.document import Document
from tests.support.one_word_edit import DEMO, RUN, TODAY

FIRST_P = "<p>This document"
WRAPPED_P = '<div class="a"><p>This document'


def _demo() -> str:
    return (DEMO / "heat-pumps-in-europe.o-o.html").read_text()


def _two_wrappers() -> str:
    """The demo with the Overview's two paragraphs each in a classed div."""
    text = _demo()
    head = '<h2 id="overview">Overview</h2>\n'
    at = text.index(head) + len(head)
    stop = text.index("\n\n", at)
    first, second = text[at:stop].split("\n", 1)[0], text[at:stop].split("\n", 1)[1]
    body = f'<div class="a">{first}</div>\n<div class="b">{second}</div>'
    return text[:at] + body + text[stop:]


def _candidate(before: str, after: str):  # type: ignore[no-untyped-def]
    doc = Document(before)
    edited = doc.with_article(after)
    assert edited.article_html != doc.article_html  # the agent did change the article
    raw = proposal_from_copy(doc, edited)
    return doc, build_candidate(doc, validate_proposal(raw), RUN, today=TODAY)


def _swap(article: str) -> str:
    return (
        article.replace('class="a"', "class=X", 1)
        .replace('class="b"', 'class="a"', 1)
        .replace("class=X", 'class="b"', 1)
    )


@pytest.mark.parametrize(
    ("source", "edit"),
    [
        (_demo, lambda a: a.replace(FIRST_P, '<p class="note">This document', 1)),
        (_demo, lambda a: a.replace(FIRST_P, '<p lang="de">This document', 1)),
        (_demo, lambda a: a.replace(" — ", " &mdash; ")),
        (_two_wrappers, _swap),
    ],
    ids=["class", "lang", "entity", "wrapper-classes"],
)
def test_an_edit_that_writes_nothing_makes_no_version(source, edit) -> None:  # type: ignore[no-untyped-def]
    text = source()
    doc = Document(text)
    with pytest.raises(AgentError, match="the agent's article edits were not applied") as err:
        _candidate(text, edit(doc.article_html))
    assert "overview" in str(err.value)


def test_an_unwritten_section_is_not_listed_as_edited_beside_a_real_edit() -> None:
    text = _demo()
    doc = Document(text)
    article = doc.article_html.replace(FIRST_P, '<p class="note">This document', 1)
    # a real edit in the next section
    head = article.index("<h2", article.index('<h2 id="overview">') + 1)
    p_at = article.index("<p>", head) + len("<p>")
    article = article[:p_at] + "Edited: " + article[p_at:]
    _, cand = _candidate(text, article)
    assert "overview" not in cand.sections_replaced
    assert len(cand.sections_replaced) == 1
    assert any("the agent's article edits were not applied" in w for w in cand.warnings)
    assert "Edited: " in cand.document.article_html
    assert '<p class="note">' not in cand.document.article_html
    assert cand.document.manifest.version == doc.manifest.version + 1
