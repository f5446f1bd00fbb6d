"""Shared helpers for the agent tests: the loopback mock, corpus copies, a backend pointed at it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.anthropic import AnthropicBackend
from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import build_context
from oo_nb.agent.pricing import price_for
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.conftest import CORPUS
from tests.support.mock_api import MockAPI

MARKER = "sk-ant-test-MARKER"
TODAY = date(2026, 11, 29)
DOCS = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]


def copy_doc(folder: Path, name: str = "agi-declared.o-o.html") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    shutil.copyfile(CORPUS / name, target)
    target.chmod(0o644)
    return target


def no_history_written(path: Path) -> bool:
    """Nothing of ``path``'s history was written (no snapshot, row or proposal): its folder is
    missing, or holds only the lock of the research claim a failed run took."""
    from oo_nb.store.history import history_dir
    from oo_nb.store.research_claim import RESEARCH_LOCK

    folder = history_dir(path)
    return not folder.exists() or [p.name for p in folder.iterdir()] == [RESEARCH_LOCK]


def start_mock(responder: Any = None, **kw: Any) -> MockAPI:
    """A started mock that insists on the test key (a responder, a list of replies, or none)."""
    return MockAPI(responder, api_key=MARKER, **kw).start()


def backend(
    mock: MockAPI, *, retries: int = 0, timeout: float = 10.0, **settings: Any
) -> AnthropicBackend:
    return AnthropicBackend(
        model="claude-sonnet-5-5",
        api_key=MARKER,
        base_url=mock.base_url,
        max_retries=retries,
        timeout=timeout,
        settings=AgentSettings(model="claude-sonnet-5-5", **settings),
    )


def run_backend(
    b: AnthropicBackend,
    name: str = "agi-declared.o-o.html",
    *,
    budget_usd: float = 5.0,
    validate: Callable[[Any], Any] = validate_proposal,
) -> tuple[Any, RunInfo, Budget]:
    doc = Document.read(CORPUS / name)
    ctx = build_context(doc, today=TODAY)
    budget = Budget(budget_usd, price_for(b.model))
    run = b.new_run(budget_usd)
    return b.run(ctx, budget=budget, run=run, validate=validate), run, budget


def assert_no_secret(folder: Path) -> None:
    """The test key must never be written anywhere (documents, history, pending, cassettes)."""
    for p in folder.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            assert MARKER.encode() not in data, f"API key written to {p}"
            assert b"sk-ant-" not in data, f"something key-like written to {p}"
