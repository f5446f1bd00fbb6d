"""`%oo update` names the agent the update will choose, Claude Code included (o-o's default)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from oo_nb.notebook.update_view import _agent_label
from tests.support.agent_helpers import copy_doc
from tests.support.fake_claude import research_claude_env


def test_the_label_follows_the_agent_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = copy_doc(tmp_path / "lib")
    ns = argparse.Namespace(doc=str(doc), agent=None, cassette=None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert _agent_label(ns) == "replay (recorded)"
    for name, value in research_claude_env(tmp_path / "fake").items():
        monkeypatch.setenv(name, value)
    assert _agent_label(ns) == "claude-code"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-NOT-REAL")
    assert _agent_label(ns) == "anthropic"
    monkeypatch.setenv("OO_AGENT", "nonsense")
    assert _agent_label(ns) == "nonsense"
