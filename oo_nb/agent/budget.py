"""A budget that holds: every request is bounded BEFORE it is sent.

Adding up ``usage`` afterwards is not enough (Claude Code's ``--max-budget-usd`` checks after each
call and overshoots). Before each request we compute an upper bound of its cost and only send it
if the rest of the budget covers it, while keeping enough back for one wrap-up request (the
submission without tools). When nothing fits, the run stops with ``BudgetExceeded`` carrying the
cost so far.

The bound of one request with server tools: each tool use adds a sampling pass that re-reads the
grown context, so with ``n`` tool uses the input is at most ``Σ_{i=0..n} (prompt + G_1 + … + G_i)``
with the largest growths first (a search adds ≈ ``search_tokens``, a fetch at most its
``max_content_tokens`` plus overhead), output at most ``max_tokens``, plus $0.01 per search. There
is no offline tokenizer, so prompt tokens are estimated pessimistically (``text_tokens``): ASCII
at 2.5 characters per token, every other character at one token per UTF-8 byte. If the API still
reports more than the bound and the spend goes over the limit, ``overspent`` is set: the caller
must not write anything automatically.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import BudgetExceeded
from .pricing import SEARCH_USD, Price, UsageFigures, cost_usd

__all__ = ["CHARS_PER_TOKEN", "Budget", "RequestPlan", "clip_to_tokens", "estimate_tokens", "text_tokens"]

CHARS_PER_TOKEN = 2.5  # ASCII only: English prose, HTML and JSON run at 3-4+ characters per token
TOOL_OVERHEAD_TOKENS = 3_000  # tool definitions, the server tools' own instructions, framing
_EPS = 1e-9


def text_tokens(text: str) -> float:
    """A pessimistic token count of ``text``: ASCII characters at ``CHARS_PER_TOKEN`` each, every
    other character at one token per UTF-8 byte.

    Why per byte: Claude's tokenizer is a byte-level BPE, so no character can take more tokens
    than it has UTF-8 bytes (a character without a vocabulary entry falls back to its bytes), and
    without the tokenizer we cannot tell which CJK characters, emoji or Cyrillic letters have one.
    So non-ASCII text is bounded by the hard limit: 3 tokens per CJK character (real text averages
    about 1-1.5), 2 per Cyrillic/Greek/accented letter, 4 per emoji code point (and a ZWJ sequence
    counts all its joiners and selectors). A per-character rate would undercount CJK (it gave
    10,400 kanji 4,160 tokens). In the English corpus non-ASCII is under 0.3% of the prompt, so
    the price of this pessimism falls on the documents where the count is uncertain.
    """
    ascii_chars = len(text.encode("ascii", "ignore"))
    other_bytes = len(text.encode("utf-8", "surrogatepass")) - ascii_chars
    return ascii_chars / CHARS_PER_TOKEN + other_bytes


def clip_to_tokens(text: str, tokens: int) -> str:
    """The longest prefix of ``text`` whose ``text_tokens`` is at most ``tokens``."""
    if text_tokens(text) <= tokens:
        return text
    lo, hi = 0, len(text)  # text_tokens grows with the prefix length: bisect on it
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_tokens(text[:mid]) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def estimate_tokens(*payload: Any) -> int:
    """A pessimistic token count for what will be sent (JSON-serialisable parts)."""
    total = sum(text_tokens(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False)) for p in payload)
    return math.ceil(total) + TOOL_OVERHEAD_TOKENS


@dataclass(frozen=True)
class RequestPlan:
    """What the next request may use, and what it can cost at most."""

    max_tokens: int
    searches: int  # web_search max_uses for this request (0: no search tool)
    fetches: int  # web_fetch max_uses (0: no fetch tool)
    bound_usd: float
    reserve_usd: float  # kept back for a wrap-up request after this one

    @property
    def research(self) -> bool:
        return self.searches + self.fetches > 0


@dataclass
class Budget:
    limit_usd: float
    price: Price
    batch: bool = False
    search_tokens: int = 6_000  # what one web search adds to the context (results, encrypted)
    fetch_tokens: int = 10_000  # web_fetch max_content_tokens
    fetch_overhead_tokens: int = 1_000
    compact_search_tokens: int = 400  # one search as summarised for a wrap-up request
    compact_fetch_tokens: int = 1_500
    spent_usd: float = 0.0
    overspent: bool = False
    overshoots: list[str] = field(default_factory=list)
    last_plan: RequestPlan | None = None

    @property
    def remaining_usd(self) -> float:
        return self.limit_usd - self.spent_usd

    # ------------------------------------------------------------------ bounds
    def bound(self, prompt_tokens: int, max_tokens: int, searches: int = 0, fetches: int = 0) -> float:
        growth = sorted(
            [self.fetch_tokens + self.fetch_overhead_tokens] * fetches + [self.search_tokens] * searches,
            reverse=True,
        )
        passes, context = prompt_tokens, prompt_tokens
        for g in growth:
            context += g
            passes += context
        factor = self.price.factor_for(context) * (0.5 if self.batch else 1.0)
        tokens = (passes * self.price.input + max_tokens * self.price.output) / 1e6
        return tokens * factor + searches * SEARCH_USD

    def wrapup_prompt(self, prompt_tokens: int, max_tokens: int, searches: int, fetches: int) -> int:
        """The prompt of a wrap-up after a research request: results summarised as text, plus
        what the model wrote (at most ``max_tokens``)."""
        return (
            prompt_tokens
            + searches * self.compact_search_tokens
            + fetches * self.compact_fetch_tokens
            + max_tokens
        )

    # ------------------------------------------------------------------ planning
    def plan(
        self,
        prompt_tokens: int,
        *,
        max_tokens: int,
        min_tokens: int,
        searches: int,
        fetches: int,
    ) -> RequestPlan:
        """The most research the rest of the budget allows for the next request (with a wrap-up
        kept in reserve); else a submission without tools, with fewer output tokens if need be.
        Raises ``BudgetExceeded`` when not even that fits."""
        rem = self.remaining_usd
        options = sorted(
            ((s, f) for s in range(searches, -1, -1) for f in range(fetches, -1, -1) if s + f > 0),
            key=lambda sf: (-(sf[0] + sf[1]), -sf[0]),
        )
        for s, f in options:
            cost = self.bound(prompt_tokens, max_tokens, s, f)
            reserve = self.bound(self.wrapup_prompt(prompt_tokens, max_tokens, s, f), max_tokens)
            if cost + reserve <= rem + _EPS:
                return self._keep(RequestPlan(max_tokens, s, f, cost, reserve))
        out = max_tokens
        while out >= min_tokens:
            cost = self.bound(prompt_tokens, out)
            if cost <= rem + _EPS:
                return self._keep(RequestPlan(out, 0, 0, cost, 0.0))
            out = max(min_tokens, out * 3 // 4) if out > min_tokens else min_tokens - 1
        raise BudgetExceeded(
            f"budget reached: ${self.spent_usd:.4f} of ${self.limit_usd:.2f} spent; the next request "
            f"could cost up to ${self.bound(prompt_tokens, min_tokens):.4f} and the rest "
            f"(${max(rem, 0):.4f}) cannot cover it",
            cost_usd=self.spent_usd,
        )

    def _keep(self, plan: RequestPlan) -> RequestPlan:
        self.last_plan = plan
        return plan

    # ------------------------------------------------------------------ accounting
    def record(self, usage: UsageFigures) -> float:
        """Add one response's cost. If it cost more than its bound, note it; if the total went
        over the limit, mark the run ``overspent`` (nothing may be written automatically)."""
        cost = cost_usd(usage, self.price, batch=self.batch)
        plan, self.last_plan = self.last_plan, None
        if plan is not None and cost > plan.bound_usd + _EPS:
            self.overshoots.append(
                f"a request cost ${cost:.4f}, more than its bound ${plan.bound_usd:.4f} "
                f"(the API reported {usage.prompt_tokens} prompt tokens)"
            )
        self.spent_usd += cost
        if self.spent_usd > self.limit_usd + _EPS:
            self.overspent = True
        return cost
