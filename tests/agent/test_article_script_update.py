"""An update of a document whose article already holds markup that can run script (``oo check``'s
``article-script``) keeps that markup where it is and says so in the proposal's warnings, with
the line: the reviewer of a cloned page learns of it even when no section holding it changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.run import UpdateOptions, prepare_update
from tests.support.agent_helpers import TODAY, copy_doc
from tests.support.fake_claude import fake_claude_env

HANDLER = '<p>Chart <img src=x onerror="steal()"></p>'


def _update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str) -> tuple[list[str], str]:
    for key, value in fake_claude_env(tmp_path / "fake").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "edit-section")
    monkeypatch.setenv("FAKE_CLAUDE_DROP", "status")
    monkeypatch.setenv("FAKE_CLAUDE_TEXT", "Still undeclared this week [s1].")
    path = copy_doc(tmp_path / "docs")
    text = path.read_text("utf-8")
    anchor = '<h2 id="what-would-constitute-agi">'
    path.write_text(text.replace(anchor, extra + "\n" + anchor, 1), "utf-8")
    line = text[: text.index(anchor)].count("\n") + 1
    result = prepare_update(path, UpdateOptions(force=True, agent="claude-code", today=TODAY))
    assert result.candidate is not None and result.candidate.sections_replaced == ["status"]
    assert extra in result.candidate.document.article_html  # kept where it was
    return result.warnings, f"line {line}"


def test_the_proposal_names_script_markup_already_in_the_article(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warnings, line = _update(tmp_path, monkeypatch, HANDLER)
    (note,) = [w for w in warnings if "can run script" in w]
    assert "<img onerror='steal()'> (an event handler)" in note and f"({line})" in note


def test_an_article_without_it_gives_no_such_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warnings, _ = _update(tmp_path, monkeypatch, "<p>Chart</p>")
    assert [w for w in warnings if "can run script" in w] == []
