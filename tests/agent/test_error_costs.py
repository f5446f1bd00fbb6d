"""What a failed update cost: an ``AgentError`` carries the money spent before it, and the batch
total adds it up (``LibraryUpdate.failure_costs``). A refusal before any request costs nothing."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError, BudgetExceeded
from oo_nb.format.document import Document


def test_a_refusal_before_any_request_reports_no_cost(corpus_dir: Path) -> None:
    index = Document.read(corpus_dir / "index.o-o.html")
    with pytest.raises(AgentError) as caught:
        build_candidate(
            index,
            validate_proposal({"summary": "s", "sections": []}),
            RunInfo(backend="anthropic", model="m"),
            today=date(2026, 3, 1),
        )
    assert caught.value.cost_usd == 0.0


def test_the_cost_given_is_the_cost_reported() -> None:
    assert AgentError("failed", cost_usd=0.25, file="a.o-o.html").cost_usd == 0.25
    assert BudgetExceeded("over").cost_usd == 0.0
