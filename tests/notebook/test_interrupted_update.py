"""Interrupting one document's update (a kernel's Interrupt, Ctrl-C): `%oo update` showed about
20 lines of the subprocess it waited on and no word of the cost, where `%oo update-all` and
`oo update` end with one line. Now the magic, the command and the API say the same line: the
document, nothing written, the cost so far."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.agent import run as agent_run
from oo_nb.agent.types import RunInfo
from oo_nb.cli.main import main
from oo_nb.store.proposals import awaiting_review
from tests.conftest import corpus_file
from tests.support.magic_helpers import oo

LINE = (
    "ai-model-landscape.o-o.html: interrupted by SIGINT during its research: nothing written; "
    "cost so far $0.0123 (Claude Code was ended before it reported its cost: at most its budget)"
)


class _InterruptedMidResearch:
    """A backend whose research is interrupted after it spent $0.0123."""

    name = "claude-code"
    model = "claude-test"

    def new_run(self, budget_usd: float) -> RunInfo:
        return RunInfo(backend=self.name, model=self.model, budget_usd=budget_usd)

    def run(self, ctx: Any, *, budget: Any, run: RunInfo, validate: Any) -> Any:
        run.cost_usd = 0.0123
        raise KeyboardInterrupt  # as a kernel's Interrupt arrives in subprocess.communicate


@pytest.fixture
def doc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(agent_run, "make_backend", lambda *a: _InterruptedMidResearch())
    return corpus_file("ai-model-landscape.o-o.html", tmp_path)


def test_an_interrupted_magic_update_ends_in_one_line_with_its_cost(
    doc: Path, shell: InteractiveShell
) -> None:
    before = doc.read_bytes()
    with pytest.raises(UsageError) as caught:
        oo(shell, f'update "{doc}" --agent claude-code --force')
    assert str(caught.value) == f"%oo update: {LINE}"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert doc.read_bytes() == before and awaiting_review(doc) is None


def test_the_command_and_the_api_say_the_same_line(
    doc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import oo_nb
    from oo_nb.agent.types import ResearchInterrupted

    assert main(["update", str(doc), "--agent", "claude-code", "--force"]) == 130
    assert capsys.readouterr().err.strip() == f"oo update: {LINE}"
    with pytest.raises(ResearchInterrupted, match=r"cost so far \$0\.0123"):
        oo_nb.open(doc).update(agent="claude-code", force=True)  # still a KeyboardInterrupt
