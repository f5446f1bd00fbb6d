"""The request loop every Messages API backend runs, without the ``anthropic`` SDK.

``MessagesDriver.run`` / ``arun`` turn a ``Conversation`` into requests, one at a time, under one
deadline (``agent.deadline``: a progress line while a request is outstanding), and settle what
each attempt ended with: a message (to the conversation), an answer that began but was lost
(``Lost``: charged, tried again while ``max_retries`` allows), an API failure (its text from the
subclass's ``failure_text``), the deadline. How a request travels is the subclass's: the live
backend sends it through the SDK (``backends.anthropic``), the replay reads it from a cassette
(``backends.replay``) and so never imports the SDK.
"""

from __future__ import annotations

import contextlib
import re
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from oo_nb.agent.backends.conversation import AgentSettings, Conversation
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import AgentContext
from oo_nb.agent.deadline import (
    DEFAULT_DEADLINE_S,
    Deadline,
    DeadlinePassed,
    await_with_deadline,
    call_with_deadline,
)
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError
from oo_nb.format.vocab import truncate

__all__ = [
    "Lost",
    "MessagesDriver",
    "StreamUsage",
    "left",
    "named",
    "not_a_message",
    "status_failure_text",
    "unreadable_answer",
]

# what one attempt does: (request parameters, what its stream reported, the deadline) -> message
Send = Callable[[dict[str, Any], "StreamUsage", Deadline], Any]
AsyncSend = Callable[[dict[str, Any], "StreamUsage", Deadline], Awaitable[Any]]


def status_failure_text(status: int, kind: str, text: str, *, retries: int, where: str) -> str:
    """One line for an answer with an error status (``status`` 200: an ``error`` event inside a
    stream), ``kind`` and ``text`` as the error body names them."""
    tries = f"after {retries} retr{'y' if retries == 1 else 'ies'}"
    if status == 200:  # an `error` event inside a stream: not retried by the SDK
        return f"the API stream broke off with an error event ({kind}: {text})"
    if status == 401:
        return f"the API at {where} rejected the credentials (401 {kind}); check ANTHROPIC_API_KEY"
    retried = f", {tries}" if status in (408, 409, 429) or status >= 500 else ""
    return f"API error {status} ({kind}): {text}{retried}"


def unreadable_answer(exc: BaseException) -> str:
    """One line for an answer that could not be parsed (the tool input of a stream nested past
    its parser's limit, or holding a lone surrogate): the reason without the answer's JSON,
    which the SDK appends whole."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    found = re.search(r"Error: (.*?)(?: JSON: |$)", text)
    reason = found.group(1) if found else text.split(" JSON: ", 1)[0]
    if isinstance(exc, RecursionError):
        reason = "nested too deeply for the JSON parser"
    reason = reason.rstrip(". ")
    if "tool parameter JSON" in text:
        reason = f"its tool input: {reason}"
    reason = truncate(reason, 160)
    return f"the API's answer could not be read ({reason}); nothing was proposed"


def named(exc: BaseException) -> str:
    """An exception as ``Type: text`` (its first 200 characters) for a one-line message."""
    text = str(exc).strip()[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Lost(Exception):
    """An answer began (HTTP 200) but did not arrive whole. ``usage`` is what it reported before
    it broke off, ``known`` whether that is its final usage (a stream's ``message_delta``);
    ``retry``: a lost connection, worth one more try if the budget allows it."""

    def __init__(
        self, message: str, what: str, usage: Any = None, *, known: bool = False, retry: bool
    ) -> None:
        super().__init__(message)
        self.message, self.what, self.usage, self.known, self.retry = (
            message,
            what,
            usage,
            known,
            retry,
        )


class StreamUsage:
    """The usage a stream reported as it went: ``message_start`` carries the input tokens,
    each ``message_delta`` the usage so far, the last one the final figures (output tokens,
    server tool uses). A stream that breaks off was billed: before its final ``message_delta``
    by an unknown amount (the request's bound is charged), after it by what it said."""

    def __init__(self) -> None:
        self.usage: dict[str, Any] | None = None
        self.final = False  # its final message_delta came: the usage is known
        self.billed = False  # the deadline may end the wait mid-stream: charge it once

    def start(self, usage: dict[str, Any]) -> None:
        """``message_start``'s usage (as JSON)."""
        self.usage = usage

    def delta(self, usage: dict[str, Any]) -> None:
        """A ``message_delta``'s usage (as JSON): its figures replace those so far."""
        self.usage = {**(self.usage or {})}
        self.usage.update({k: v for k, v in usage.items() if v is not None})
        self.final = True

    def bill(self, conv: Conversation, what: str) -> str:
        """Charge, once, what a stream reported before the deadline ended the wait: its usage
        when its final figures came, else its request's bound. Returns a note ("" if none)."""
        if self.usage is None or self.billed:
            return ""
        self.billed = True
        if self.final:
            conv.record_partial(self.usage)
            conv.run.requests += 1
            return ""
        return conv.charge_unknown(what, self.usage)

    def lost_as(self, message: str, what: str, *, retry: bool) -> Lost:
        """The stream broke off (``what``), said as ``message``: with what it reported."""
        return Lost(message, what, self.usage, known=self.final, retry=retry)

    def ended_early(self) -> Lost:
        """The stream ended (cleanly) before its final ``message_delta``."""
        return self.lost_as("the API stream ended before the message did", "stream cut", retry=True)

    def unreadable(self, exc: BaseException) -> Lost:
        """What came could not be read: ``exc`` as the parser or the accumulation raised it."""
        if isinstance(exc, (ValueError, RecursionError)):  # the answer cannot be parsed
            return self.lost_as(unreadable_answer(exc), "stream unreadable", retry=False)
        # events out of order, a delta for a block that does not exist...
        message = f"the API stream could not be read ({named(exc)}); nothing was proposed"
        return self.lost_as(message, "stream unreadable", retry=False)


def not_a_message(exc: BaseException) -> Lost:
    """A 200 whose whole body is not a message (``exc``: what parsing it raised)."""
    if isinstance(exc, RecursionError):  # nested past the JSON parser's limit: one line
        return Lost(unreadable_answer(exc), "answer unreadable", retry=False)
    message = (
        f"the API answered with a body that is not a message ({named(exc)}); nothing was proposed"
    )
    return Lost(message, "answer unreadable", retry=False)


def left(deadline: Deadline) -> float:
    """Seconds an attempt may still wait (never 0, which httpx would read as "no timeout")."""
    return max(deadline.remaining(), 0.05)


class MessagesDriver(ABC):
    """The research loop of a Messages API backend. A subclass says how a request travels
    (``session`` / ``asession``, which yield the function sending one attempt) and which of its
    exceptions are API failures (``failure_text``)."""

    name = "messages"
    model: str
    settings: AgentSettings
    base_url: str
    max_retries: int
    deadline_s: float = DEFAULT_DEADLINE_S
    recorded: bool = False
    # told once, when the first request of an async run goes out (update-all reads further
    # documents only then: their reading would otherwise delay it)
    on_first_request: Callable[[], None] | None = None

    def new_run(self, budget_usd: float) -> RunInfo:
        return RunInfo(
            backend=self.name, model=self.model, budget_usd=budget_usd, recorded=self.recorded
        )

    def conversation(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Conversation:
        return Conversation(ctx, self.settings, budget, run, validate, None)

    # ------------------------------------------------------------------ what a subclass says
    @abstractmethod
    def session(
        self, conv: Conversation, deadline: Deadline
    ) -> contextlib.AbstractContextManager[Send]:
        """The sender of a run's requests, open while the run lasts (a client, a cassette)."""

    @abstractmethod
    def asession(
        self, conv: Conversation, deadline: Deadline
    ) -> contextlib.AbstractAsyncContextManager[AsyncSend]:
        """``session`` for an asyncio run."""

    def failure_text(self, exc: BaseException) -> str | None:
        """The one line for ``exc`` when it is an API failure of this backend, else None."""
        return None

    # ------------------------------------------------------------------ settling an attempt
    def _late(self, conv: Conversation, deadline: Deadline, seen: StreamUsage) -> AgentError:
        """The deadline passed while waiting: a stream that had begun is charged (once)."""
        note = seen.bill(conv, "stream cut by the deadline")
        message = (
            f"no answer from the API within the deadline ({deadline.describe()}, set by --timeout)"
        )
        return conv.fail(f"{message}; {note}" if note else message)

    def _lost(self, conv: Conversation, lost: Lost, tries: int) -> None:
        """Account for an answer that was lost; raise unless another try is allowed (a lost
        connection, retries left: the next request is planned within what is left, so the
        budget, not the SDK, decides whether it is sent). ``tries``: how many times a lost
        answer was already tried again in this run."""
        said = lost.message
        if lost.retry:  # the real count, whichever way the run goes on
            said = f"{said}; tried again {tries} of {self.max_retries} times"
            if tries >= self.max_retries:
                said = f"{said}; nothing was proposed"
        if lost.known:
            conv.record_partial(lost.usage)
            conv.run.requests += 1
            message = said
        else:
            message = f"{said}; {conv.charge_unknown(lost.what, lost.usage)}"
        if not (lost.retry and tries < self.max_retries):
            raise conv.fail(message)
        conv.run.warnings.append(
            f"{lost.message}: trying again ({tries + 1} of {self.max_retries})"
        )

    def _settle(
        self,
        conv: Conversation,
        exc: Exception,
        deadline: Deadline,
        seen: StreamUsage,
        tries: int,
    ) -> None:
        """An attempt raised ``exc``: return when the lost answer may be tried again, else
        raise the run's ``AgentError`` (or ``exc`` itself, when it is no failure of the API's)."""
        if isinstance(exc, DeadlinePassed):
            raise self._late(conv, deadline, seen) from None
        if isinstance(exc, Lost):
            self._lost(conv, exc, tries)
            return
        said = self.failure_text(exc)
        if said is not None:
            raise conv.fail(said) from None
        if isinstance(exc, RecursionError):  # nested past the JSON parser's limit
            raise conv.fail(unreadable_answer(exc)) from None
        if isinstance(exc, ValueError):  # the SDK's own checks (e.g. streaming required)
            raise conv.fail(f"the request was refused by the SDK: {exc}") from None
        raise exc

    # ------------------------------------------------------------------ the loops
    def run(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Any:
        """Research until a valid proposal (returned, as ``validate`` made it) or an AgentError."""
        conv = self.conversation(ctx, budget=budget, run=run, validate=validate)
        deadline = Deadline(self.deadline_s)
        lost_tries = 0
        with self.session(conv, deadline) as send:
            while not conv.done:
                params = conv.next_request()
                seen = StreamUsage()
                try:
                    # the wait is watched from here: a progress line every HEARTBEAT_S, the
                    # deadline kept whatever the request does
                    message = call_with_deadline(
                        partial(send, params, seen, deadline), deadline, run.on_progress
                    )
                except Exception as exc:
                    self._settle(conv, exc, deadline, seen, lost_tries)
                    lost_tries += 1
                    continue
                conv.on_response(message)
        return conv.result

    async def arun(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Any:
        conv = self.conversation(ctx, budget=budget, run=run, validate=validate)
        deadline = Deadline(self.deadline_s)
        lost_tries = 0
        async with self.asession(conv, deadline) as send:
            while not conv.done:
                params = conv.next_request()
                seen = StreamUsage()
                told, self.on_first_request = self.on_first_request, None
                if told is not None:
                    told()
                try:
                    message = await await_with_deadline(
                        _awaited(send(params, seen, deadline)), deadline, run.on_progress
                    )
                except Exception as exc:
                    self._settle(conv, exc, deadline, seen, lost_tries)
                    lost_tries += 1
                    continue
                conv.on_response(message)
        return conv.result


async def _awaited(pending: Awaitable[Any]) -> Any:
    """``pending`` as the coroutine ``await_with_deadline`` takes (a send returns an awaitable)."""
    return await pending
