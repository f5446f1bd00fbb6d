"""What the nested-splice tests share: the run a Claude Code copy is built under, and the demo
heat-pumps document's one-word edit of its first paragraph with the pids around it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.types import RunInfo

DEMO = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"
TODAY = date(2026, 12, 1)
RUN = RunInfo(
    backend="claude-code", model="claude-test", usage=UsageFigures(input_tokens=1, output_tokens=1),
    cost_usd=0.01, seen_urls=set(),
)  # fmt: skip
OLD = "across European markets."
NEW = "across European markets, and it was edited."
FIRST = "<!-- pid:overview:ecfcac73 -->"
SECOND = "<!-- pid:overview:030632e6 -->"
