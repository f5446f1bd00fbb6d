"""`%oo update` says "Researching … with the X agent" when research begins, naming the agent
that runs (Claude Code included, o-o's default), and never before a gate's answer: a fresh
document, a missing agent, or a proposal still awaiting review (whose widget a re-run returns)."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.notebook.review_widget import ReviewWidget
from tests.support.fake_claude import research_claude_env
from tests.support.magic_helpers import oo


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from oo_nb.demo import install_demo

    monkeypatch.setenv("OO_TODAY", "2026-12-01")
    install_demo(tmp_path / "lib", index=False)
    monkeypatch.chdir(tmp_path)
    return Path("lib")


HEAT = "lib/heat-pumps-in-europe.o-o.html"


def test_the_recorded_agent_is_named_once_research_begins(
    shell: InteractiveShell, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert isinstance(oo(shell, f"update {HEAT}").review(), ReviewWidget)
    out = capsys.readouterr().out
    assert out.count("Researching") == 1
    assert out.startswith("Researching heat-pumps-in-europe.o-o.html with the replay (recorded)")


def test_claude_code_is_named_when_it_runs(
    shell: InteractiveShell,
    demo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in research_claude_env(tmp_path / "fake").items():
        monkeypatch.setenv(name, value)
    oo(shell, f"update {HEAT} --agent claude-code")
    assert "Researching heat-pumps-in-europe.o-o.html with the claude-code agent" in (
        capsys.readouterr().out
    )


def test_no_agent_is_said_before_research_when_none_can_run(
    shell: InteractiveShell,
    demo: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the API asked for, no key: refused before any research
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        oo(shell, f"update {HEAT} --agent anthropic")
    assert "Researching" not in capsys.readouterr().out


def test_a_fresh_document_is_not_said_to_be_researched(
    shell: InteractiveShell, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proposal = oo(shell, "update lib/perovskite-solar-cells.o-o.html")
    out = capsys.readouterr().out
    assert "Researching" not in out and "Use --force to update anyway" in proposal.message


def test_a_rerun_shows_the_proposal_awaiting_review(
    shell: InteractiveShell, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Re-running `review = %oo update DOC` returned None and advised a shell command."""
    first = oo(shell, f"update {HEAT}").review()
    assert isinstance(first, ReviewWidget)
    capsys.readouterr()
    again = oo(shell, f"update {HEAT}")
    out = capsys.readouterr().out
    assert again.status == "awaiting" and isinstance(again.review(), ReviewWidget)
    assert again.review().summary_text() == first.summary_text()
    assert "Researching" not in out and "oo review" not in out
    assert "awaits your review below" in out and f"%oo update {HEAT} --force" in out
