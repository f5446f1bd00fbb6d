"""Issue 28, item 6: a paid Claude Code run that edits a section whose id is not a slug
(``Recent_Releases.2026``, valid by ``oo check``) becomes a proposal, the id taken as written;
and a run the validator refuses states its cost and keeps what it proposed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.errors import AgentError
from oo_nb.store.history import history_dir
from tests.support.agent_helpers import TODAY
from tests.support.attacks_data import NOT_SLUG_ID, claude_code_edit, refuse_proposal
from tests.support.fake_claude import fake_claude_env


def test_an_edit_of_a_section_id_as_written_is_a_proposal(tmp_path: Path) -> None:
    got, said, _ = claude_code_edit(tmp_path)
    assert said == ""
    (section,) = [s for s in got.sections if s.id == NOT_SLUG_ID]
    assert "Newly released this week [s1]." in section.html


def test_the_update_applies_it_to_that_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.attacks_data import NOT_SLUG_FIXTURE

    for key, value in fake_claude_env(tmp_path / "fake").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "edit-section")
    monkeypatch.setenv("FAKE_CLAUDE_DROP", NOT_SLUG_ID)
    monkeypatch.setenv("FAKE_CLAUDE_TEXT", "Newly released this week [s1].")
    path = tmp_path / NOT_SLUG_FIXTURE.name
    path.write_bytes(NOT_SLUG_FIXTURE.read_bytes())
    result = prepare_update(path, UpdateOptions(force=True, agent="claude-code", today=TODAY))
    assert result.candidate is not None
    assert result.candidate.sections_replaced == [NOT_SLUG_ID]
    html = result.candidate.document.article_html
    head = html.index(f'<h2 id="{NOT_SLUG_ID}">')
    assert "Newly released this week" in html[head : html.index("<h2", head + 1)]


def test_ids_that_no_page_writes_are_still_refused() -> None:
    for bad in ['a" onclick="x', "two words", "<b>", "x" * 200, "oo-panel"]:
        proposal = {"summary": "s", "sections": [{"id": bad, "title": "T", "html": "<p>x</p>"}]}
        with pytest.raises(AgentError, match=r"sections\[0\]\.id"):
            validate_proposal(proposal)


def test_a_refusal_after_paying_states_the_cost_and_keeps_the_proposal(tmp_path: Path) -> None:
    got, said, doc = claude_code_edit(tmp_path, refuse_proposal)
    assert got is None
    assert "too long (cost $0.0500)" in said
    (kept,) = history_dir(doc).glob("refused-*.json")
    assert str(kept) in said
    record = json.loads(kept.read_text())
    assert record["cost_usd"] == 0.05 and "too long" in record["reason"]
    assert record["proposal"]["sections"][0]["id"] == NOT_SLUG_ID


def test_a_refusal_names_the_field_it_refuses(tmp_path: Path) -> None:
    def refuse_title(proposal: Any) -> Any:
        raise AgentError(
            "invalid submit_proposal input: must not be empty", key="sections[0].title"
        )

    got, said, _ = claude_code_edit(tmp_path, refuse_title)
    assert got is None
    assert "key 'sections[0].title': invalid submit_proposal input: must not be empty" in said
