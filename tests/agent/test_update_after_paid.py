"""Issue 26 attack 3: a failure after the paid request (here: building the candidate raises, as
a RecursionError did on a deeply nested article) states the cost, keeps the proposal in the
history, writes nothing; update-all reports that document as failed and goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent import candidate
from oo_nb.agent.many import update_library
from oo_nb.agent.run import UpdateOptions
from oo_nb.cli.main import main
from oo_nb.store.history_place import history_folder
from tests.support.agent_helpers import DOCS, MARKER, copy_doc, start_mock
from tests.support.mock_scenarios import research_scenario


def _breaks_on(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = candidate.build_candidate

    def build(doc: Any, *args: Any, **kwargs: Any) -> Any:
        if doc.path is not None and doc.path.name == name:
            raise RecursionError("maximum recursion depth exceeded")
        return real(doc, *args, **kwargs)

    monkeypatch.setattr(candidate, "build_candidate", build)


def _kept(path: Path) -> list[dict[str, Any]]:
    folder = history_folder(path)
    return [json.loads(p.read_text()) for p in sorted(folder.glob("refused-*.json"))]


def test_update_keeps_the_paid_proposal_and_says_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mock = start_mock(research_scenario(with_image=False))
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    path = copy_doc(tmp_path)
    base = path.read_bytes()
    _breaks_on(path.name, monkeypatch)
    try:
        code = main(["update", str(path), "--force", "--yes", "--base-url", mock.base_url])
    finally:
        mock.stop()
    err = capsys.readouterr().err
    assert code == 2, err
    assert "RecursionError" in err and "cost so far $" in err and "kept in" in err
    assert "Traceback" not in err
    assert path.read_bytes() == base
    [kept] = _kept(path)
    assert kept["proposal"] and kept["cost_usd"] > 0 and "RecursionError" in kept["reason"]


def test_update_all_reports_the_document_as_failed_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock = start_mock(research_scenario(with_image=False))
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    paths = [copy_doc(tmp_path, name) for name in DOCS[:3]]
    _breaks_on(paths[0].name, monkeypatch)
    try:
        outcome = update_library(
            tmp_path,
            UpdateOptions(force=True, base_url=mock.base_url),
            concurrency=2,
            yes=True,
            progress=False,
        )
    finally:
        mock.stop()
    assert set(outcome.failures) == {paths[0]}
    assert "cost so far $" in outcome.failures[paths[0]]
    assert len(outcome.by_status("proposed")) == 2
    assert _kept(paths[0])
