"""The research backend on the ``anthropic`` SDK (2.x, on ``httpx2``), sync and async.

Server tools web search (``web_search_20250305``, ``max_uses`` from the budget plan; the contract's
``deny_domains`` enforced on the answers by ``deny_filter``, not as ``blocked_domains``, so that
every document shares the cached tools) and web fetch (``web_fetch_20250910``); the strict client tool
``submit_proposal``. ``tool_choice`` is NOT forced (it returns 400 on current models): the system
prompt asks for the tool and the conversation re-prompts once. The SDK retries 408/409/429/5xx
and connection errors itself (``max_retries``, honouring ``retry-after-ms``); what still fails
becomes an ``AgentError`` naming the cause and the cost so far. The whole run has one deadline
(``deadline_s``, ``oo update --timeout``): each attempt may wait at most what is left of it, and
the wait is watched from outside the SDK (``agent.deadline``), with a progress line every
``HEARTBEAT_S`` while one request is outstanding.

``base_url`` (or ``ANTHROPIC_BASE_URL``) points it at any Anthropic-compatible endpoint or the
loopback mock; ``http_client`` lets the replay backend feed recorded exchanges through this same
code path.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import anthropic
import httpx2

from oo_nb.agent.backends.conversation import AgentSettings, Conversation
from oo_nb.agent.backends.follow_ups import follow_ups_for
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import AgentContext
from oo_nb.agent.deadline import (
    DEFAULT_DEADLINE_S,
    Deadline,
    DeadlinePassed,
    await_with_deadline,
    call_with_deadline,
)
from oo_nb.agent.models import API_KEY_ENV, DEFAULT_MODEL, MODEL_ALIASES, has_api_key, resolve_model
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError, register_secret
from oo_nb.format.vocab import truncate
from oo_nb.redaction import register_base_url, split_credentials

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_ALIASES",
    "AnthropicBackend",
    "api_failure",
    "api_failure_text",
    "has_api_key",
    "resolve_model",
    "unreadable_answer",
]

DEFAULT_TIMEOUT_S = 600.0  # one attempt (the SDK's own timeout); the whole run: deadline_s
_KEY_ENV = API_KEY_ENV
# The count only sharpens the budget: a proxy that hangs on it or rate-limits it must not hold
# up the run, so one try with a short timeout, then the estimate.
COUNT_OPTIONS: dict[str, Any] = {"max_retries": 0, "timeout": 10.0}
_STREAM_LOST = "the API stream broke off: the connection was lost after the answer began ({})"
_BODY_LOST = "the API answer broke off: the connection was lost after the answer began ({})"


def api_failure(exc: BaseException, conv: Conversation, *, retries: int, where: str) -> AgentError:
    """A clear ``AgentError`` for an SDK exception that survived the SDK's own retries."""
    return conv.fail(api_failure_text(exc, retries=retries, where=where))


def api_failure_text(exc: BaseException, *, retries: int, where: str) -> str:
    """What went wrong with an SDK call, in one line (without the cost)."""
    tries = f"after {retries} retr{'y' if retries == 1 else 'ies'}"
    if isinstance(exc, anthropic.APITimeoutError):
        return f"the API at {where} did not answer in time ({tries})"
    if isinstance(exc, anthropic.APIConnectionError):
        return f"cannot reach the API at {where}: connection failed ({tries})"
    if isinstance(exc, anthropic.APIStatusError):
        kind = exc.type or "error"
        text = exc.api_message or str(exc)
        if exc.status_code == 200:  # an `error` event inside a stream: not retried by the SDK
            return f"the API stream broke off with an error event ({kind}: {text})"
        if exc.status_code == 401:
            return (
                f"the API at {where} rejected the credentials (401 {kind}); check ANTHROPIC_API_KEY"
            )
        retried = (
            f", {tries}" if exc.status_code in (408, 409, 429) or exc.status_code >= 500 else ""
        )
        return f"API error {exc.status_code} ({kind}): {text}{retried}"
    if isinstance(exc, anthropic.APIResponseValidationError):
        return f"the API answered with data that is not a valid message: {exc}"
    return f"the API call failed: {exc}"


def unreadable_answer(exc: BaseException) -> str:
    """One line for an answer the SDK could not parse (the tool input of a stream nested past
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


class _Lost(Exception):
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


class _StreamUsage:
    """The usage a stream reported as it went: ``message_start`` carries the input tokens,
    each ``message_delta`` the usage so far, the last one the final figures (output tokens,
    server tool uses). A stream that breaks off was billed: before its final ``message_delta``
    by an unknown amount (the request's bound is charged), after it by what it said."""

    def __init__(self) -> None:
        self.usage: dict[str, Any] | None = None
        self.final = False  # its final message_delta came: the usage is known
        self.billed = False  # the deadline may end the wait mid-stream: charge it once

    def take(self, event: Any) -> None:
        if event.type == "message_start":
            self.usage = event.message.usage.model_dump()
        elif event.type == "message_delta" and event.usage is not None:
            self.usage = {**(self.usage or {})}
            self.usage.update({k: v for k, v in event.usage.model_dump().items() if v is not None})
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

    def lost(self, exc: BaseException | None, *, retries: int, where: str) -> _Lost:
        """What a stream that broke off with ``exc`` (None: it just ended) tells the user."""
        exc = _unwrapped(exc)
        if _cut(exc):
            message, what, retry = _STREAM_LOST.format(type(exc).__name__), "stream cut", True
        elif isinstance(exc, anthropic.AnthropicError):  # an `error` event: not retried
            message = api_failure_text(exc, retries=retries, where=where)
            what, retry = "stream ended by an error event", False
        elif exc is None:
            message = "the API stream ended before the message did"
            what, retry = "stream cut", True
        elif isinstance(exc, (ValueError, RecursionError)):  # the SDK cannot parse the answer
            message, what, retry = unreadable_answer(exc), "stream unreadable", False
        else:  # the SDK could not read what came (events out of order...)
            message = f"the API stream could not be read ({_named(exc)}); nothing was proposed"
            what, retry = "stream unreadable", False
        return _Lost(message, what, self.usage, known=self.final, retry=retry)


def _unwrapped(exc: BaseException | None) -> BaseException | None:
    """The failure behind ``exc`` as the SDK's oldest supported version raised it. From 2.17 the
    SDK reads a body through ``iter_response_bytes``, which wraps what stopped the read in an
    ``APIConnectionError`` (``APITimeoutError`` for a timeout) with the original as
    ``__cause__``; up to 2.16 the httpx2 error itself came out. A wrapper without a cause is
    kept: raised while an answer is read, it too means the connection was lost."""
    seen: set[int] = set()
    while (
        isinstance(exc, anthropic.APIConnectionError)
        and exc.__cause__ is not None
        and id(exc) not in seen
    ):
        seen.add(id(exc))
        exc = exc.__cause__
    return exc


def _cut(exc: BaseException | None) -> bool:
    """Whether ``exc`` (unwrapped) is a connection lost while an answer was being read."""
    return isinstance(exc, (httpx2.TransportError, anthropic.APIConnectionError))


def _body_lost(exc: BaseException) -> _Lost:
    """A 200 whose body was cut (a transport error, wrapped or not) or is not a message."""
    exc = _unwrapped(exc) or exc
    if _cut(exc):
        return _Lost(_BODY_LOST.format(type(exc).__name__), "answer cut", retry=True)
    if isinstance(exc, RecursionError):  # nested past the JSON parser's limit: one line
        return _Lost(unreadable_answer(exc), "answer unreadable", retry=False)
    message = (
        f"the API answered with a body that is not a message ({_named(exc)}); nothing was proposed"
    )
    return _Lost(message, "answer unreadable", retry=False)


def _named(exc: BaseException) -> str:
    text = str(exc).strip()[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _message_of(parsed: Any) -> Any:
    if not isinstance(parsed, anthropic.types.Message):
        raise ValueError(f"a {type(parsed).__name__}, not a message object")
    return parsed


class AnthropicBackend:
    """Runs one research conversation per document through the Messages API."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: httpx2.Client | None = None,
        async_http_client: httpx2.AsyncClient | None = None,
        max_retries: int = 2,
        timeout: float = DEFAULT_TIMEOUT_S,
        deadline_s: float = DEFAULT_DEADLINE_S,
        settings: AgentSettings | None = None,
        recorded: bool = False,
        label: str = "anthropic",
    ) -> None:
        register_secret(api_key)  # redacted from every error and warning from now on
        self.model = model
        self.settings = replace(settings, model=model) if settings else AgentSettings(model=model)
        url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        # Credentials in the URL (a proxy's user:pass@) go as the Basic auth header they stand
        # for, never in the URL: the SDK and httpx log the URL, errors name it.
        self.base_url = register_base_url(url)
        _, user, password = split_credentials(url)
        self.credential_headers: dict[str, str] = {}
        if user or password:
            pair = f"{user or ''}:{password or ''}".encode()
            self.credential_headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        self._api_key = api_key
        self.http_client = http_client
        self.async_http_client = async_http_client
        self.max_retries = max_retries
        self.timeout = timeout
        self.deadline_s = deadline_s  # every request and retry of one run, together
        self.recorded = recorded
        self.name = label
        # An SDK client shared by many documents (update-all): building one costs ~85 ms of SSL
        # set-up on the event loop, so concurrent runs reuse one. Its owner closes it.
        self.shared_async: anthropic.AsyncAnthropic | None = None
        self.recorder: Any = None  # a RecordingTransport when the run is being recorded
        # update-all counts a document's prompt while other documents research (``count_ahead``)
        self.counted_ahead: asyncio.Future[Any] | None = None
        # told once, when the first request of an async run goes out (update-all reads further
        # documents only then: their reading would otherwise delay it)
        self.on_first_request: Callable[[], None] | None = None

    # ------------------------------------------------------------------ clients
    def ready(self) -> None:
        """Raise ``AgentError`` when a run could not start (no usable API key)."""
        self._key()

    def _key(self) -> str:
        source = "the api_key given"
        key = self._api_key
        if not key:
            source, key = next(
                ((n, os.environ[n]) for n in _KEY_ENV if os.environ.get(n)), ("", None)
            )
        if not key:
            raise AgentError(
                "no API key: set ANTHROPIC_API_KEY, or use --agent replay with a cassette "
                "(or --agent claude-code)"
            )
        if any(ch.isspace() for ch in key):
            # A pasted key often carries a newline; as a header value it fails as a connection
            # error, which would send the user looking at the network instead.
            raise AgentError(
                f"{source} contains whitespace (a pasted newline?); remove it and try again"
            )
        return key

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(
            api_key=self._key(),
            base_url=self.base_url,
            http_client=self.http_client,
            max_retries=self.max_retries,
            timeout=self.timeout,
            default_headers=self.credential_headers or None,
        )

    def async_client(self) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key=self._key(),
            base_url=self.base_url,
            http_client=self.async_http_client,
            max_retries=self.max_retries,
            timeout=self.timeout,
            default_headers=self.credential_headers or None,
        )

    def new_run(self, budget_usd: float) -> RunInfo:
        return RunInfo(
            backend=self.name, model=self.model, budget_usd=budget_usd, recorded=self.recorded
        )

    def conversation(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Conversation:
        # the documents of one update-all (one shared client) learn from each other's runs
        shared = None if self.shared_async is None else follow_ups_for(self.shared_async)
        return Conversation(ctx, self.settings, budget, run, validate, shared)

    # ------------------------------------------------------------------ token count
    def _counts_tokens(self) -> bool:
        """Count the first prompt exactly, except in a replay: cassettes keep no counts
        (RecordingTransport leaves them out), so a replay plans with the estimate."""
        return self.settings.exact_count and not self.recorded

    def _count_failed(self, run: RunInfo, exc: anthropic.AnthropicError) -> None:
        reason = api_failure_text(
            exc, retries=0, where=self.base_url
        )  # finish() redacts every warning
        run.warnings.append(
            f"the prompt's tokens could not be counted ({reason}); the budget uses the character estimate"
        )

    # ------------------------------------------------------------------ drivers
    def _late(self, conv: Conversation, deadline: Deadline, seen: _StreamUsage) -> AgentError:
        """The deadline passed while waiting: a stream that had begun is charged (once)."""
        note = seen.bill(conv, "stream cut by the deadline")
        message = (
            f"no answer from the API within the deadline ({deadline.describe()}, set by --timeout)"
        )
        return conv.fail(f"{message}; {note}" if note else message)

    def _count_options(self, deadline: Deadline) -> dict[str, Any]:
        return {**COUNT_OPTIONS, "timeout": min(COUNT_OPTIONS["timeout"], _left(deadline))}

    def _exchange(
        self, client: anthropic.Anthropic, params: dict[str, Any], seen: _StreamUsage
    ) -> Any:
        """One request: its message, or ``_Lost`` when the answer began but did not arrive
        whole. The body is read outside the SDK's retries: a cut 200 was billed, so sending it
        again is the budget's decision (``_lost``), not the SDK's. ``seen`` keeps what a stream
        reported, for the caller to charge if the deadline ends the wait first. Runs as the
        deadline's worker: it never touches the conversation (the caller charges, once)."""
        if self.settings.stream:
            with client.messages.stream(**params) as stream:
                try:
                    for event in stream:
                        seen.take(event)
                    message = stream.get_final_message()
                except Exception as exc:  # after a 200 anything that stops the stream loses it
                    raise seen.lost(exc, retries=self.max_retries, where=self.base_url) from None
                if not seen.final:
                    raise seen.lost(None, retries=self.max_retries, where=self.base_url)
                return message
        with client.messages.with_streaming_response.create(**params) as response:
            try:
                return _message_of(response.parse())
            except Exception as exc:
                raise _body_lost(exc) from None

    async def _aexchange(
        self, client: anthropic.AsyncAnthropic, params: dict[str, Any], seen: _StreamUsage
    ) -> Any:
        if self.settings.stream:
            async with client.messages.stream(**params) as astream:
                try:
                    async for event in astream:
                        seen.take(event)
                    message = await astream.get_final_message()
                except Exception as exc:
                    raise seen.lost(exc, retries=self.max_retries, where=self.base_url) from None
                if not seen.final:
                    raise seen.lost(None, retries=self.max_retries, where=self.base_url)
                return message
        async with client.messages.with_streaming_response.create(**params) as response:
            try:
                return _message_of(await response.parse())
            except Exception as exc:
                raise _body_lost(exc) from None

    def _lost(self, conv: Conversation, lost: _Lost, tries: int) -> None:
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

    def run(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Any:
        """Research until a valid proposal (returned, as ``validate`` made it) or an AgentError."""
        conv = self.conversation(ctx, budget=budget, run=run, validate=validate)
        deadline = Deadline(self.deadline_s)
        client = self.client()
        lost_tries = 0
        try:
            if self._counts_tokens():
                try:
                    counted = client.with_options(
                        **self._count_options(deadline)
                    ).messages.count_tokens(**conv.count_request())
                except anthropic.AnthropicError as exc:
                    self._count_failed(run, exc)
                else:
                    conv.calibrate(getattr(counted, "input_tokens", None))
            while not conv.done:
                params = conv.next_request()
                # each attempt may wait at most what is left; the wait itself is watched from
                # here (a progress line every HEARTBEAT_S, the deadline kept whatever the SDK does)
                attempt = client.with_options(timeout=min(self.timeout, _left(deadline)))
                seen = _StreamUsage()
                try:
                    message = call_with_deadline(
                        partial(self._exchange, attempt, params, seen),
                        deadline,
                        run.on_progress,
                    )
                except DeadlinePassed:
                    raise self._late(conv, deadline, seen) from None
                except _Lost as lost:
                    self._lost(conv, lost, lost_tries)
                    lost_tries += 1
                    continue
                except anthropic.AnthropicError as exc:
                    raise api_failure(
                        exc, conv, retries=self.max_retries, where=self.base_url
                    ) from None
                except RecursionError as exc:  # nested past the JSON parser's limit
                    raise conv.fail(unreadable_answer(exc)) from None
                except ValueError as exc:  # the SDK's own checks (e.g. streaming required)
                    raise conv.fail(f"the request was refused by the SDK: {exc}") from None
                conv.on_response(message)
        finally:
            if self.http_client is None:  # a client we were given stays open for its owner
                client.close()
        return conv.result

    async def _acount(
        self, client: anthropic.AsyncAnthropic, request: dict[str, Any], options: dict[str, Any]
    ) -> Any:
        """The API's count of a first prompt, or the ``AnthropicError`` that stopped it."""
        try:
            return await client.with_options(**options).messages.count_tokens(**request)
        except anthropic.AnthropicError as exc:
            return exc

    def count_ahead(self, ctx: AgentContext, budget_usd: float) -> None:
        """Start counting the first prompt of ``ctx`` now, on the shared client, so that the
        run finds the count ready instead of asking for it before its first request."""
        if self.shared_async is None or not self._counts_tokens():
            return
        request = Conversation.first_count_request(ctx, self.settings.model, budget_usd)
        self.counted_ahead = asyncio.ensure_future(
            self._acount(self.shared_async, request, dict(COUNT_OPTIONS))
        )

    async def arun(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Any:
        conv = self.conversation(ctx, budget=budget, run=run, validate=validate)
        deadline = Deadline(self.deadline_s)
        client = self.shared_async or self.async_client()
        lost_tries = 0
        try:
            if self._counts_tokens():
                ahead, self.counted_ahead = self.counted_ahead, None
                counted = await (
                    ahead
                    if ahead is not None
                    else self._acount(client, conv.count_request(), self._count_options(deadline))
                )
                if isinstance(counted, anthropic.AnthropicError):
                    self._count_failed(run, counted)
                else:
                    conv.calibrate(getattr(counted, "input_tokens", None))
            while not conv.done:
                params = conv.next_request()
                attempt = client.with_options(timeout=min(self.timeout, _left(deadline)))
                seen = _StreamUsage()
                told, self.on_first_request = self.on_first_request, None
                if told is not None:
                    told()
                try:
                    message = await await_with_deadline(
                        self._aexchange(attempt, params, seen), deadline, run.on_progress
                    )
                except DeadlinePassed:
                    raise self._late(conv, deadline, seen) from None
                except _Lost as lost:
                    self._lost(conv, lost, lost_tries)
                    lost_tries += 1
                    continue
                except anthropic.AnthropicError as exc:
                    raise api_failure(
                        exc, conv, retries=self.max_retries, where=self.base_url
                    ) from None
                except RecursionError as exc:
                    raise conv.fail(unreadable_answer(exc)) from None
                except ValueError as exc:
                    raise conv.fail(f"the request was refused by the SDK: {exc}") from None
                conv.on_response(message)
        finally:
            if conv.follow_ups is not None:
                conv.follow_ups.record(conv.answered)
            if self.async_http_client is None and client is not self.shared_async:
                await client.close()
        return conv.result


def _left(deadline: Deadline) -> float:
    """Seconds an attempt may still wait (never 0, which httpx would read as "no timeout")."""
    return max(deadline.remaining(), 0.05)
