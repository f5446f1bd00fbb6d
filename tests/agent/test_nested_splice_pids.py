"""A paragraph edited or deleted inside a wrapper keeps the pid the page binds to it, and the
pids of the paragraphs the agent kept (s36 outside attack 4: G1, G1b, G3, G4). The documents
are the attack's reproducers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.format.document import Document
from tests.support.one_word_edit import FIRST, NEW, OLD, RUN, SECOND, TODAY

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pids"


def _update(name: str, edit: Callable[[str], str]) -> tuple[str, str]:
    """The article before and after an update whose agent applied ``edit`` to it."""
    doc = Document((FIXTURES / f"{name}.o-o.html").read_text())
    raw = proposal_from_copy(doc, doc.with_article(edit(doc.article_html)))
    cand = build_candidate(doc, validate_proposal(raw), RUN, today=TODAY)
    return doc.article_html, cand.document.article_html


def _edit_first(article: str) -> str:
    return article.replace(OLD, NEW, 1)


def test_a_data_pid_paragraph_edited_inside_a_div_keeps_its_pid() -> None:
    before, after = _update("G3-data-pid-in-div", _edit_first)
    # cmp: only the edit's bytes change; the start tag keeps its data-pid
    assert after == before.replace(OLD, NEW, 1)


def test_a_data_pid_over_a_pid_comment_in_a_div_stays_bound_after_an_edit() -> None:
    before, after = _update("G4-comment-and-data-pid-in-div", _edit_first)
    # cmp: the data-pid the page binds (over the comment before it) is still written
    assert after == before.replace(OLD, NEW, 1)


def _delete_first(article: str) -> str:
    """The first Overview paragraph and its pid comment removed, as the agent does (G1)."""
    i = article.index(FIRST)
    return article[:i] + article[article.index("</p>", i) + len("</p>") :]


def test_deleting_the_first_of_two_same_text_paragraphs_keeps_the_seconds_pid() -> None:
    _, after = _update("G1-dup-delete-first-in-div", _delete_first)
    assert SECOND in after
    assert FIRST not in after


def test_editing_the_first_of_two_same_text_paragraphs_keeps_both_pids() -> None:
    before, after = _update("G1b-dup-edit-first-in-div", _edit_first)
    # cmp: the edited one keeps the first pid, the untouched one the second, bytes as before
    assert after == before.replace(OLD, NEW, 1)
