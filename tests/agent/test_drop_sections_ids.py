"""A section whose h2 id is not a slug (capitals, a dot: a hand-written page) can still be
removed as a reviewed change. The prompt offered it for removal once the contract no longer
required it, then the validator refused the model's ``drop_sections`` naming it (the paid run
failed, nothing written); Claude Code's copy without it kept it silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.proposal import validate_proposal
from oo_nb.errors import AgentError
from oo_nb.format.document import Document

FIXTURE = Path(__file__).parents[1] / "fixtures" / "issue12" / "section-id-not-slug.o-o.html"
SID = "Recent_Releases.2026"


def _proposal(drop: list[object]) -> dict[str, object]:
    return {
        "summary": "Removed a section.",
        "sections": [{"id": "overview", "title": "Overview", "html": "<p>Text [s1].</p>"}],
        "drop_sections": drop,
    }


def test_drop_sections_accepts_the_id_the_article_has() -> None:
    assert validate_proposal(_proposal([SID])).drop_sections == (SID,)


@pytest.mark.parametrize(
    "bad", ["<img src=x onerror=alert(1)>", 'a" onclick="x', "two words", "", "x" * 200, 1]
)
def test_drop_sections_still_refuses_what_no_id_is(bad: object) -> None:
    with pytest.raises(AgentError, match=r"drop_sections\[0\]"):
        validate_proposal(_proposal([bad]))


def test_claude_codes_copy_without_the_section_proposes_its_removal() -> None:
    original = Document.read(FIXTURE)
    html = original.article_html
    start = html.index(f'<h2 id="{SID}">')
    start = html.rindex("<!--", 0, start)  # its pid comment goes with it
    end = html.index('<h2 id="references">')
    edited = original.with_article(html[:start] + html[end:])
    assert proposal_from_copy(original, edited)["drop_sections"] == [SID]
