"""The research conversation as a state machine, independent of how requests travel.

``next_request()`` gives the parameters of the next Messages API call (bounded by the budget);
``on_response(message)`` takes the answer. The sync and async drivers and the batch driver all
run this same machine, so pause_turn continuations, the re-prompt when the model ends without
``submit_proposal``, the one correction round for an invalid proposal, the wrap-up without tools
and every failure message behave the same everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from oo_nb.agent.backends.cache_points import with_breakpoints
from oo_nb.agent.backends.deny_filter import drop_denied
from oo_nb.agent.backends.follow_ups import FollowUps
from oo_nb.agent.budget import (
    TOOL_OVERHEAD_TOKENS,
    Budget,
    RequestPlan,
    clip_to_tokens,
    estimate_tokens,
)
from oo_nb.agent.context import AgentContext
from oo_nb.agent.pricing import usage_figures
from oo_nb.agent.proposal import MAX_DEPTH
from oo_nb.agent.quotes import api_texts
from oo_nb.agent.types import PROPOSAL_SCHEMA, RunInfo
from oo_nb.errors import AgentError, BudgetExceeded
from oo_nb.format.jsonblock import too_deep
from oo_nb.format.surrogates import scrub
from oo_nb.format.vocab import domain_patterns, terminal_safe, truncate

__all__ = [
    "SUBMIT_TOOL",
    "AgentSettings",
    "Conversation",
    "collect_urls",
    "compact_history",
    "read_urls",
    "usage_known",
]

SUBMIT_TOOL: dict[str, Any] = {
    "name": "submit_proposal",
    "description": (
        "Hand back the document update. Call exactly once, at the end of your research. Only "
        "`summary` and `sections` are required; see the system prompt for every field."
    ),
    "input_schema": PROPOSAL_SCHEMA,
    "strict": True,
}
FETCH_EXCERPT_CHARS = 3_000
# The same excerpt in estimated tokens, so a CJK page (3 tokens a character) stays inside the
# wrap-up reserve (Budget.compact_fetch_tokens) like an English one.
FETCH_EXCERPT_TOKENS = 1_200
# how much of a refused proposal's validation error the user is shown (it quotes agent text)
_REFUSAL_SHOWN = 400


@dataclass(frozen=True)
class AgentSettings:
    model: str
    max_tokens: int = 8_192
    min_tokens: int = 2_048  # a submission cut below this is not worth sending
    searches_per_request: int = 5
    fetches_per_request: int = 3
    fetch_max_content_tokens: int = 10_000
    max_continuations: int = 4  # pause_turn continuations before wrapping up
    max_requests: int = 8
    stream: bool = False
    # Ask the API (messages.count_tokens, free) for the first prompt's exact size: the character
    # estimate is an upper bound that can be 2-3x too high, which refuses budgets that would do.
    exact_count: bool = True
    # cache_control breakpoints (backends.cache_points): continuations and the documents of one
    # update-all read their shared prefix at 0.1x the input price instead of paying it again.
    prompt_cache: bool = True


# --------------------------------------------------------------------------- helpers
_COUNTED = ("cache_creation_input_tokens", "cache_read_input_tokens")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def usage_known(usage: Any) -> bool:
    """Does ``usage`` (a response's JSON) say what the request cost? Input and output token
    counts must be whole numbers; the cache and server-tool counts too when present (missing or
    null they count as zero). A negative cache read made the run's cost negative and gave the
    budget that much back; a count as a string was counted as zero. Such an answer is charged
    its bound instead."""
    if not isinstance(usage, dict):
        return False
    if not all(_count(usage.get(k)) for k in ("input_tokens", "output_tokens")):
        return False
    if not all(usage.get(k) is None or _count(usage[k]) for k in _COUNTED):
        return False
    server = usage.get("server_tool_use")
    if server is None:
        return True
    return isinstance(server, dict) and all(
        v is None or _count(v)
        for k, v in server.items()
        if k in ("web_search_requests", "web_fetch_requests")
    )


def collect_urls(blocks: list[dict[str, Any]]) -> set[str]:
    """Every URL in search results, fetch results and citations of one assistant turn."""
    urls = read_urls(blocks)
    for block in blocks:
        content = block.get("content")
        if block.get("type") == "web_search_tool_result" and isinstance(content, list):
            urls.update(
                r["url"] for r in content if isinstance(r, dict) and isinstance(r.get("url"), str)
            )
    return urls


def read_urls(blocks: list[dict[str, Any]]) -> set[str]:
    """The pages one assistant turn read: fetch results and the pages its citations quote (not
    a search's hits: a title in a list is no page read)."""
    urls: set[str] = set()
    for block in blocks:
        content = block.get("content")
        if block.get("type") == "web_fetch_tool_result" and isinstance(content, dict):
            if content.get("type") == "web_fetch_result" and isinstance(content.get("url"), str):
                urls.add(content["url"])
        elif block.get("type") == "text":
            for c in block.get("citations") or []:
                if isinstance(c, dict) and isinstance(c.get("url"), str):
                    urls.add(c["url"])
    return urls


def progress_lines(blocks: list[dict[str, Any]]) -> list[str]:
    """What one answer did, a line per step: searches, pages read, the proposal."""
    lines = []
    for block in blocks:
        raw_args = block.get("input")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        if block.get("type") == "server_tool_use" and block.get("name") == "web_search":
            lines.append(f"searched: {args.get('query', '')}")
        elif block.get("type") == "server_tool_use" and block.get("name") == "web_fetch":
            lines.append(f"read: {args.get('url', '')}")
        elif block.get("type") == "tool_use" and block.get("name") == "submit_proposal":
            lines.append("proposal received")
    return lines


def _compact_block(block: dict[str, Any]) -> dict[str, Any] | None:
    kind = block.get("type")
    content = block.get("content")
    if kind == "server_tool_use":
        args = block.get("input") or {}
        return {
            "type": "text",
            "text": f"[{block.get('name')}: {args.get('query') or args.get('url') or ''}]",
        }
    if kind == "web_search_tool_result":
        if not isinstance(content, list):
            return {
                "type": "text",
                "text": f"[search failed: {(content or {}).get('error_code', 'error')}]",
            }
        lines = [
            f"- {r.get('title', '')} — {r.get('url', '')}" for r in content if isinstance(r, dict)
        ]
        return {"type": "text", "text": "Search results:\n" + "\n".join(lines)}
    if kind == "web_fetch_tool_result":
        if not isinstance(content, dict) or content.get("type") != "web_fetch_result":
            return {
                "type": "text",
                "text": f"[fetch failed: {(content or {}).get('error_code', 'error')}]",
            }
        doc = content.get("content") or {}
        data = clip_to_tokens(
            str((doc.get("source") or {}).get("data", ""))[:FETCH_EXCERPT_CHARS],
            FETCH_EXCERPT_TOKENS,
        )
        return {
            "type": "text",
            "text": f"Fetched {content.get('url')} ({doc.get('title', '')}):\n{data}",
        }
    if kind == "text":
        cites = sorted(
            {c.get("url", "") for c in block.get("citations") or [] if isinstance(c, dict)} - {""}
        )
        suffix = f" (sources: {', '.join(cites)})" if cites else ""
        return {"type": "text", "text": str(block.get("text", "")) + suffix}
    if kind == "tool_use":
        return block
    return None  # thinking and unknown blocks are not needed for the wrap-up


def compact_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with server-tool blocks turned into plain text and citations into URL
    lists: valid without the server tools, and much smaller (no encrypted content)."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        if msg["role"] != "assistant" or isinstance(msg["content"], str):
            out.append(msg)
            continue
        blocks: list[dict[str, Any]] = []
        for block in msg["content"]:
            new = _compact_block(block)
            if new is None:
                continue
            if new["type"] == "text" and blocks and blocks[-1]["type"] == "text":
                blocks[-1] = {"type": "text", "text": blocks[-1]["text"] + "\n" + new["text"]}
            else:
                blocks.append(new)
        out.append(
            {"role": "assistant", "content": blocks or [{"type": "text", "text": "(no output)"}]}
        )
    return out


def _too_deep_block(blocks: Sequence[Any]) -> str | None:
    """Where the first content block (a JSON dict, or an SDK block whose tool input pydantic
    could not serialise) is nested deeper than ``MAX_DEPTH``, in words; None when none is."""
    for i, block in enumerate(blocks):
        if isinstance(block, dict):
            path = too_deep(block, MAX_DEPTH + 1)  # the block is one level itself
        else:
            inner = too_deep(getattr(block, "input", None), MAX_DEPTH)
            path = None if inner is None else "input" + ("" if inner[:1] == "[" else ".") + inner
        if path is not None:
            kind = " ".join(str(v) for v in (_field(block, "type"), _field(block, "name")) if v)
            return f"content[{i}] ({kind}) is nested deeper than {MAX_DEPTH} levels at {path}"
    return None


def _field(block: Any, key: str) -> Any:
    return block.get(key) if isinstance(block, dict) else getattr(block, key, None)


def _server_tools_in(messages: list[dict[str, Any]]) -> set[str]:
    return {
        str(b.get("name"))
        for m in messages
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "server_tool_use"
    }


# --------------------------------------------------------------------------- the machine
class Conversation:
    def __init__(
        self,
        ctx: AgentContext,
        settings: AgentSettings,
        budget: Budget,
        run: RunInfo,
        validate: Callable[[Any], Any],
        follow_ups: FollowUps | None = None,
    ) -> None:
        self.follow_ups = follow_ups  # the odds of a second request (update-all), if known
        # The model is told the budget that holds (``--budget`` may override the contract's).
        ctx = ctx.with_budget(budget.limit_usd)
        # a marked prefix may be written to the cache at more than the input price: bound it so
        budget.cache_writes = settings.prompt_cache
        self.ctx, self.settings, self.budget, self.run, self.validate = (
            ctx,
            settings,
            budget,
            run,
            validate,
        )
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": ctx.user}]
        self.wrapup: str | None = None  # why research stopped, once it has
        self.reprompted = False
        self.corrected = False
        # why the proposal was sent back for a correction: said again if the run then fails (a
        # replay that recorded no correction ends "cassette exhausted", which hides the cause)
        self.refused = ""
        self.continuations = 0
        self.answered = 0  # responses taken (a request whose answer was lost is not one)
        self.unknown: list[float] = []  # what each answer of unknown usage was charged
        self.done = False
        self.result: Any = None
        self.last_plan: RequestPlan | None = None
        blocked = sorted(domain_patterns(tuple(ctx.blocked_domains)))
        self.blocked = blocked
        # exact - estimate of the first prompt (system + first message), once the API counted it
        self.calibration = 0
        self._first_estimate = estimate_tokens(ctx.system, self.messages)

    def count_request(self) -> dict[str, Any]:
        """What ``messages.count_tokens`` needs to count the first prompt."""
        return {"model": self.settings.model, "system": self.ctx.system, "messages": self.messages}

    @staticmethod
    def first_count_request(ctx: AgentContext, model: str, budget_usd: float) -> dict[str, Any]:
        """``count_request`` of a conversation not begun yet (update-all counts ahead)."""
        ctx = ctx.with_budget(budget_usd)
        return {
            "model": model,
            "system": ctx.system,
            "messages": [{"role": "user", "content": ctx.user}],
        }

    def calibrate(self, exact_tokens: object) -> None:
        """Take the API's count of the first prompt in place of its character estimate, in this
        and every later bound (later prompts start with it; what they add stays estimated).

        The count is input from an endpoint that may be a proxy: it is used only when it is a
        whole number a tokenizer could give. No tokenizer packs more than about 8 bytes into a
        token on real text, so a count below a tenth of the prompt's bytes is refused (the
        estimate, an upper bound, stays)."""
        if self.run.requests > 0:
            return
        size = len(self.ctx.system.encode()) + len(
            json.dumps(self.messages, ensure_ascii=False).encode()
        )
        plausible = (
            isinstance(exact_tokens, int)
            and not isinstance(exact_tokens, bool)
            and exact_tokens >= size / 10
        )
        if not plausible:
            self.run.warnings.append(
                f"the API's token count ({str(exact_tokens)[:40]!r} for {size:,} bytes) is not believable; "
                "the budget uses the character estimate"
            )
            return
        assert isinstance(exact_tokens, int)
        self.calibration = exact_tokens - self._first_estimate + TOOL_OVERHEAD_TOKENS

    # ---------------------------------------------------------------- failures
    def fail(self, message: str, *, budget: bool = False) -> AgentError:
        cost = self.budget.spent_usd
        if self.unknown and "usage unknown" not in message:  # the cost is bounds: say so
            n, charged = len(self.unknown), sum(self.unknown)
            message += f"; usage unknown for {n} answer(s): charged their bound, ${charged:.4f}"
        if self.refused and self.refused not in message:
            message += f"; before that, the proposal was refused and sent back to be corrected: {self.refused}"
        text = f"{message} (cost so far ${cost:.4f})"
        return BudgetExceeded(text, cost_usd=cost) if budget else AgentError(text, cost_usd=cost)

    # ---------------------------------------------------------------- requests
    def _tools(self, plan: RequestPlan) -> list[dict[str, Any]]:
        # No blocked_domains here: the same tools for every contract keep the cached prefix
        # shared across documents; ``drop_denied`` enforces the deny list on each answer.
        tools: list[dict[str, Any]] = []
        if plan.searches:
            search: dict[str, Any] = {
                "type": "web_search_20250305",
                "name": "web_search",
                "max_uses": plan.searches,
            }
            tools.append(search)
        if plan.fetches:
            fetch: dict[str, Any] = {
                "type": "web_fetch_20250910",
                "name": "web_fetch",
                "max_uses": plan.fetches,
                "citations": {"enabled": True},
                "max_content_tokens": self.settings.fetch_max_content_tokens,
            }
            tools.append(fetch)
        tools.append(SUBMIT_TOOL)
        return tools

    def _say(self, text: str) -> None:
        """Append user text, merging into a trailing user message (roles must alternate)."""
        last = self.messages[-1]
        if last["role"] == "user":
            content = last["content"]
            blocks = (
                [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            )
            last["content"] = [*blocks, {"type": "text", "text": text}]
        else:
            self.messages.append({"role": "user", "content": [{"type": "text", "text": text}]})

    def _enter_wrapup(self, reason: str) -> None:
        if self.wrapup is None:
            self.wrapup = reason
            self.run.warnings.append(
                f"research stopped early ({reason}); the proposal was asked for without tools"
            )
        self._say(
            f"Stop researching now ({reason}). Call submit_proposal once with your update, based on "
            "what you have found; no other tool is available."
        )

    def next_request(self) -> dict[str, Any]:
        s = self.settings
        if self.run.requests >= s.max_requests:
            raise self.fail(f"no proposal after {self.run.requests} requests (the cap)")
        if self.wrapup is None and self.run.requests == s.max_requests - 1:
            self._enter_wrapup("request cap reached")
        while True:
            research = self.wrapup is None
            if not research and _server_tools_in(self.messages):
                # Compact before pricing: the wrap-up reserve was sized for the compacted history.
                self.messages = compact_history(self.messages)
                if (
                    self.messages[-1]["role"] == "assistant"
                ):  # a compacted paused turn is no prefill
                    self._say("Continue where you stopped, then call submit_proposal once.")
            tokens = self.calibration + estimate_tokens(
                self.ctx.system, self.messages, self._tools(RequestPlan(0, 1, 1, 0, 0))
            )
            try:
                plan = self.budget.plan(
                    tokens,
                    max_tokens=s.max_tokens,
                    min_tokens=s.min_tokens,
                    searches=s.searches_per_request if research else 0,
                    fetches=s.fetches_per_request if research else 0,
                    # The first request must research (a proposal from no research is not
                    # wanted): with fewer output tokens if need be, else a refusal that says
                    # what the smallest research request and its wrap-up need.
                    require_research=research and self.answered == 0,
                )
            except BudgetExceeded as exc:
                if research and self.run.requests > 0:  # the compacted wrap-up may still fit
                    self._enter_wrapup("budget nearly spent")
                    continue
                raise self.fail(exc.message, budget=True) from None
            if plan.research or not research:
                break
            self._enter_wrapup("budget nearly spent")
        self.last_plan = plan
        tools = self._tools(plan)
        offered = {t["name"] for t in tools}
        if not _server_tools_in(self.messages) <= offered:
            self.messages = compact_history(self.messages)
            if self.messages[-1]["role"] == "assistant":  # a compacted paused turn is no prefill
                self._say("Continue where you stopped, then call submit_proposal once.")
        params = {
            "model": s.model,
            "max_tokens": plan.max_tokens,
            "system": self.ctx.system,
            "messages": self.messages,
            "tools": tools,
        }
        if not s.prompt_cache:
            return params
        # a later request of this run can read this one's messages only while research goes on,
        # and the first request's only if a second one is likely enough (``follow_ups``)
        likely = self.follow_ups is None or self.follow_ups.likely(self.budget.price)
        read_later = (
            plan.research
            and self.run.requests < s.max_requests - 1
            and (self.run.requests > 0 or likely)
        )
        return with_breakpoints(params, read_later=read_later)

    # ---------------------------------------------------------------- responses
    def record_partial(self, usage: Any) -> None:
        """The usage of an answer that broke off after reporting it whole (billed, but no
        message to act on)."""
        if not usage_known(usage):  # absurd figures (a negative cache read): not a usage
            self.charge_unknown("the answer's usage could not be read", usage, count=False)
            return
        figures = usage_figures(usage)
        self.budget.record(figures)
        self.run.usage += figures
        self.run.cost_usd = self.budget.spent_usd

    def charge_unknown(self, what: str, reported: Any = None, *, count: bool = True) -> str:
        """A request was answered but its usage is not known (``what`` happened): charge its
        bound (``Budget.record_unknown``) and say so in the run's warnings. Returns the note.
        ``count``: add the request to the run's count (false: the caller counts it)."""
        figures = usage_figures(reported) if reported is not None else None
        charge = self.budget.record_unknown(figures)
        self.unknown.append(charge)
        run = self.run
        run.requests += 1 if count else 0
        if figures is not None:
            run.usage += figures
        run.cost_usd = self.budget.spent_usd
        run.overspent = run.overspent or self.budget.overspent
        note = f"usage unknown ({what}): charged the bound ${charge:.4f}"
        run.warnings.append(note)
        return note

    def on_response(self, msg: Any) -> None:
        """Take one answer (an SDK ``Message`` or its JSON dict). An answer without its usage
        is charged its request's bound. The answer is untrusted: one nested deeper than
        ``MAX_DEPTH`` ends the run (its cost counted, the place named); a lone surrogate in its
        text is replaced by U+FFFD (with a warning) before anything keeps it."""
        try:
            # no pydantic warning for an answer off its schema: the checks below say what is wrong
            raw: dict[str, Any] = (
                msg if isinstance(msg, dict) else msg.to_dict(mode="json", warnings=False)
            )
        except (ValueError, RecursionError) as exc:  # pydantic: "Maximum serialization depth"
            usage = getattr(msg, "usage", None)  # billed, whatever its content
            dump = getattr(usage, "model_dump", None)  # an SDK object: its JSON
            usage = dump() if callable(dump) else usage
            if usage_known(usage):
                self.record_partial(usage)
                self.run.requests += 1
            else:
                self.charge_unknown("the answer could not be read", usage)
            where = _too_deep_block(getattr(msg, "content", None) or [])
            raise self.fail(
                f"the API's answer could not be read: {where or exc}; nothing was proposed"
            ) from None
        run = self.run
        if usage_known(raw.get("usage")):
            usage = usage_figures(raw.get("usage"))
            self.budget.record(usage)
            run.requests += 1
            run.usage += usage
            run.cost_usd = self.budget.spent_usd
        else:
            self.charge_unknown("the answer carried no usage")
        self.answered += 1
        content = raw.get("content")
        if content is not None and not isinstance(content, list):  # an endpoint's or a cassette's
            raise self.fail(
                f"the API's answer could not be read: answer {self.answered}: `content` is "
                f"{type(content).__name__}, not a list; nothing was proposed"
            )
        blocks = [b for b in content or [] if isinstance(b, dict)]
        where = _too_deep_block(blocks)
        if where is not None:
            raise self.fail(f"the API's answer could not be read: {where}; nothing was proposed")
        blocks, repaired = scrub(blocks, "content")
        blocks, denied = drop_denied(blocks, self.blocked)
        if denied and run.on_progress is not None:  # as the API's blocked_domains: no warning
            run.on_progress("dropped (deny list): " + ", ".join(sorted(denied)[:10]))
        if repaired:
            run.warnings.append(
                "the API's answer held text that is not valid Unicode (lone surrogates), "
                f"replaced with U+FFFD in: {', '.join(repaired[:10])}"
            )
        run.seen_urls |= collect_urls(blocks)
        run.read_urls |= read_urls(blocks)
        api_texts(blocks, run.pages)
        if run.on_progress is not None:
            for line in progress_lines(blocks):
                run.on_progress(line)
        self._append_assistant(blocks)
        if self.budget.overshoots:
            for note in self.budget.overshoots:
                if note not in run.warnings:
                    run.warnings.append(note)
        if self.budget.overspent:
            run.overspent = True
        self._dispatch(str(raw.get("stop_reason") or ""), blocks)
        if self.budget.overspent and not self.done:
            raise self.fail(
                f"budget exceeded: the API reported more usage than bounded; ${self.budget.spent_usd:.4f} "
                f"of ${self.budget.limit_usd:.2f} spent and no proposal yet",
                budget=True,
            )

    def _append_assistant(self, blocks: list[dict[str, Any]]) -> None:
        last = self.messages[-1]
        if last["role"] == "assistant":  # a pause_turn continuation extends the same turn
            last["content"] = [*last["content"], *blocks]
        else:
            self.messages.append({"role": "assistant", "content": blocks})

    def _dispatch(self, stop: str, blocks: list[dict[str, Any]]) -> None:
        calls = [b for b in blocks if b.get("type") == "tool_use"]
        submits = [b for b in calls if b.get("name") == "submit_proposal"]
        if stop == "refusal":
            raise self.fail(
                "the model declined to continue (stop_reason: refusal); nothing was proposed"
            )
        if stop == "max_tokens":
            limit = self.last_plan.max_tokens if self.last_plan else self.settings.max_tokens
            raise self.fail(
                f"the answer was cut off at max_tokens ({limit}) before a complete submit_proposal"
            )
        if stop == "model_context_window_exceeded":
            raise self.fail("the conversation outgrew the model's context window")
        if submits:  # a complete client call waits for us whatever the stop reason says
            self._take(submits[-1], calls)
            return
        if stop == "pause_turn":
            self.continuations += 1
            if self.continuations > self.settings.max_continuations:
                self._enter_wrapup(f"the search loop paused {self.continuations} times")
            return
        if calls:  # client tools other than submit_proposal do not exist
            self._answer_calls(calls, "unknown tool: only submit_proposal is available")
        if self.reprompted:
            raise self.fail(
                "the model ended without calling submit_proposal, even when asked again"
            )
        self.reprompted = True
        self._say(
            "You ended your turn without calling submit_proposal. Call it now, exactly once, with your update."
        )

    def _answer_calls(
        self, calls: list[dict[str, Any]], error: str, ok_id: str | None = None
    ) -> None:
        results = [
            {"type": "tool_result", "tool_use_id": c.get("id"), "is_error": True, "content": error}
            for c in calls
            if c.get("id") != ok_id
        ]
        self.messages.append({"role": "user", "content": results})

    def _take(self, submit: dict[str, Any], calls: list[dict[str, Any]]) -> None:
        try:
            self.result = self.validate(submit.get("input"))
        except AgentError as exc:
            problem = str(exc)  # names the field (key 'sections[0].title')
            if self.corrected:
                raise self.fail(
                    f"submit_proposal was invalid again after a correction: {problem}"
                ) from None
            self.corrected = True
            self.refused = terminal_safe(truncate(problem, _REFUSAL_SHOWN))
            if self.run.on_progress is not None:
                self.run.on_progress(f"proposal refused, asked for a correction: {self.refused}")
            self._answer_calls(
                calls,
                f"Invalid proposal: {problem}. Call submit_proposal again with a corrected, complete proposal.",
            )
            self.wrapup = self.wrapup or "correcting an invalid proposal"
            return
        self.done = True
