"""Research backends. Each one runs the research for one document and returns the validated
proposal, filling a ``RunInfo`` (tokens, searches, cost, the URLs it saw):

- ``anthropic``: the Messages API through the ``anthropic`` SDK (sync and async);
- ``replay``: recorded API exchanges played through the same research loop
  (``driver.MessagesDriver``) without the SDK, which it never imports;
- ``claude-code``: the ``claude`` CLI run on a scratch copy, its edits diffed into a proposal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from oo_nb.agent.budget import Budget
from oo_nb.agent.context import AgentContext
from oo_nb.agent.types import RunInfo

__all__ = ["Backend"]


class Backend(Protocol):
    name: str
    model: str

    def new_run(self, budget_usd: float) -> RunInfo: ...

    def run(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Any: ...
