"""A budget that holds: every request is bounded BEFORE it is sent.

Adding up ``usage`` afterwards is not enough (Claude Code's ``--max-budget-usd`` checks after each
call and overshoots). Before each request we compute an upper bound of its cost and only send it
if the rest of the budget covers it, while keeping enough back for one wrap-up request (the
submission without tools). When nothing fits, the run stops with ``BudgetExceeded`` carrying the
cost so far.

The bound of one request with server tools: each tool use adds a sampling pass that re-reads the
grown context, so with ``n`` tool uses the input is at most ``Σ_{i=0..n} (prompt + G_1 + … + G_i)``
with the largest growths first (a search adds ≈ ``search_tokens``, a fetch at most its
``max_content_tokens`` plus overhead), output at most ``max_tokens``, plus $0.01 per search. With
prompt caching (``cache_writes``) the prompt as sent is priced at the cache-write rate (1.25x
input: its breakpoints may be written once); reads (0.1x) only ever make it cheaper. There
is no offline tokenizer, so prompt tokens are estimated pessimistically (``text_tokens``): ASCII
at 2.5 characters per token, every other character at one token per UTF-8 byte. If the API still
reports more than the bound and the spend goes over the limit, ``overspent`` is set: the caller
must not write anything automatically. A request whose usage is not known (a 200 whose body was
cut or is not a message, a stream that broke off before its final usage) is charged its bound:
counting it as free would let the run, and the next ones, spend it again.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from oo_nb.agent.pricing import SEARCH_USD, Price, UsageFigures, cost_usd
from oo_nb.errors import BudgetExceeded

__all__ = [
    "CHARS_PER_TOKEN",
    "Budget",
    "RequestPlan",
    "clip_to_tokens",
    "estimate_tokens",
    "text_tokens",
]

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
    # a shortcut: at exactly the limit the bisection below returns the whole text as well
    if text_tokens(text) <= tokens:  # pragma: no mutate
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
    total = sum(
        text_tokens(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False)) for p in payload
    )
    return math.ceil(total) + TOOL_OVERHEAD_TOKENS


def _ladder(max_tokens: int, min_tokens: int) -> list[int]:
    """Output allowances to try, largest first: ``max_tokens``, then 3/4 steps down to ``min_tokens``."""
    out, steps = max_tokens, []
    while out >= min_tokens:
        steps.append(out)
        out = max(min_tokens, out * 3 // 4) if out > min_tokens else min_tokens - 1
    return steps


def _research_options(searches: int, fetches: int) -> list[tuple[int, int]]:
    """(searches, fetches) pairs with at least one tool use, most research first."""
    return sorted(
        ((s, f) for s in range(searches, -1, -1) for f in range(fetches, -1, -1) if s + f > 0),
        key=lambda sf: (-(sf[0] + sf[1]), -sf[0]),
    )


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
    # The requests carry cache breakpoints: a prompt may be billed as a cache write, which costs
    # more than plain input (1.25x). The conversation sets it from ``AgentSettings.prompt_cache``.
    cache_writes: bool = False

    @property
    def remaining_usd(self) -> float:
        return self.limit_usd - self.spent_usd

    # ------------------------------------------------------------------ bounds
    def bound(
        self, prompt_tokens: int, max_tokens: int, searches: int = 0, fetches: int = 0
    ) -> float:
        growth = sorted(
            [self.fetch_tokens + self.fetch_overhead_tokens] * fetches
            + [self.search_tokens] * searches,
            reverse=True,
        )
        passes, context = prompt_tokens, prompt_tokens
        for g in growth:
            context += g
            passes += context
        factor = self.price.factor_for(context) * (0.5 if self.batch else 1.0)
        # Only the prompt as sent holds breakpoints, so only it can be written to the cache (once);
        # what the server tools add is read again at most at the input price. A read costs less.
        first = (
            max(self.price.input, self.price.cache_write) if self.cache_writes else self.price.input
        )
        tokens = (
            prompt_tokens * first
            + (passes - prompt_tokens) * self.price.input
            + max_tokens * self.price.output
        ) / 1e6
        return tokens * factor + searches * SEARCH_USD

    def wrapup_prompt(
        self, prompt_tokens: int, max_tokens: int, searches: int, fetches: int
    ) -> int:
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
        require_research: bool = False,
    ) -> RequestPlan:
        """The most research the rest of the budget allows for the next request (with a wrap-up
        kept in reserve); else a submission without tools, with fewer output tokens if need be.
        Raises ``BudgetExceeded`` when not even that fits.

        ``require_research`` (the first request: a proposal without research is not wanted):
        research with fewer output tokens, down to ``min_tokens``, instead of no research; when
        not even the smallest research request and its wrap-up fit, ``BudgetExceeded`` says how
        much that would need."""
        rem = self.remaining_usd
        ladder = _ladder(max_tokens, min_tokens)
        for out in ladder if require_research else [max_tokens]:
            for s, f in _research_options(searches, fetches):
                cost = self.bound(prompt_tokens, out, s, f)
                reserve = self.bound(self.wrapup_prompt(prompt_tokens, out, s, f), out)
                if cost + reserve <= rem + _EPS:
                    return self._keep(RequestPlan(out, s, f, cost, reserve))
        if require_research and searches + fetches > 0:
            raise BudgetExceeded(
                self._research_refusal(prompt_tokens, min_tokens, searches, fetches),
                cost_usd=self.spent_usd,
            )
        for out in ladder:
            cost = self.bound(prompt_tokens, out)
            if cost <= rem + _EPS:
                return self._keep(RequestPlan(out, 0, 0, cost, 0.0))
        raise BudgetExceeded(
            f"budget reached: ${self.spent_usd:.4f} of ${self.limit_usd:.2f} spent; the next request "
            f"could cost up to ${self.bound(prompt_tokens, min_tokens):.4f} and the rest "
            f"(${max(rem, 0):.4f}) cannot cover it",
            cost_usd=self.spent_usd,
        )

    def research_minimum(
        self, prompt_tokens: int, min_tokens: int, searches: int, fetches: int
    ) -> RequestPlan:
        """The cheapest research request (one tool use, ``min_tokens`` out) with its wrap-up."""
        plans = [
            RequestPlan(
                min_tokens,
                s,
                f,
                self.bound(prompt_tokens, min_tokens, s, f),
                self.bound(self.wrapup_prompt(prompt_tokens, min_tokens, s, f), min_tokens),
            )
            for s, f in ((1, 0), (0, 1))
            if s <= searches and f <= fetches
        ]
        return min(plans, key=lambda p: p.bound_usd + p.reserve_usd)

    def _research_refusal(
        self, prompt_tokens: int, min_tokens: int, searches: int, fetches: int
    ) -> str:
        p = self.research_minimum(prompt_tokens, min_tokens, searches, fetches)
        need = p.bound_usd + p.reserve_usd
        what = "one web search" if p.searches else "one page fetch"
        have = (
            f"${self.limit_usd:.2f}"
            if self.spent_usd <= 0
            else f"the rest of the budget (${max(self.remaining_usd, 0):.4f} of ${self.limit_usd:.2f})"
        )
        return (
            f"budget reached: {have} cannot cover one research request; the smallest ({what}, "
            f"{min_tokens:,} output tokens) could cost up to ${p.bound_usd:.4f} plus ${p.reserve_usd:.4f} "
            f"kept for its wrap-up: ${need:.4f} in all (a budget of at least ${math.ceil(need * 100) / 100:.2f})"
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

    def record_unknown(self, reported: UsageFigures | None = None) -> float:
        """Charge a request whose usage never arrived whole (its answer was cut, or carried no
        usage): it was billed, by an amount only its bound limits, so the bound is spent (or
        what the answer reported before it broke off, if that is more). Returns the charge."""
        plan, self.last_plan = self.last_plan, None
        bound = plan.bound_usd if plan is not None else 0.0
        partial = cost_usd(reported, self.price, batch=self.batch) if reported else 0.0
        charge = max(bound, partial)
        self.spent_usd += charge
        if self.spent_usd > self.limit_usd + _EPS:
            self.overspent = True
        return charge
