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
``HEARTBEAT_S`` while one request is outstanding. The loop, the deadline and the accounting of
lost answers are ``driver.MessagesDriver``'s, shared with the replay (which needs no SDK).

``base_url`` (or ``ANTHROPIC_BASE_URL``) points it at any Anthropic-compatible endpoint or the
loopback mock; ``http_client`` lets a recording (``backends.recording``) keep every exchange, and
lets its reference replay feed recorded exchanges back through this code path.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any

import anthropic
import httpx2

from oo_nb.agent.backends.conversation import AgentSettings, Conversation
from oo_nb.agent.backends.driver import (
    AsyncSend,
    Lost,
    MessagesDriver,
    Send,
    StreamUsage,
    left,
    not_a_message,
    status_failure_text,
    unreadable_answer,
)
from oo_nb.agent.backends.follow_ups import follow_ups_for
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import AgentContext
from oo_nb.agent.deadline import DEFAULT_DEADLINE_S, Deadline
from oo_nb.agent.models import API_KEY_ENV, DEFAULT_MODEL, MODEL_ALIASES, has_api_key, resolve_model
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError, register_secret
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
        return status_failure_text(exc.status_code, kind, text, retries=retries, where=where)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return f"the API answered with data that is not a valid message: {exc}"
    return f"the API call failed: {exc}"


def _take(seen: StreamUsage, event: Any) -> None:
    """What an SDK stream event says of the usage (as JSON) to ``seen``."""
    if event.type == "message_start":
        seen.start(event.message.usage.model_dump())
    elif event.type == "message_delta" and event.usage is not None:
        seen.delta(event.usage.model_dump())


def _stream_lost(seen: StreamUsage, exc: BaseException | None, *, retries: int, where: str) -> Lost:
    """What a stream that broke off with ``exc`` (None: it just ended) tells the user."""
    exc = _unwrapped(exc)
    if _cut(exc):
        return seen.lost_as(_STREAM_LOST.format(type(exc).__name__), "stream cut", retry=True)
    if isinstance(exc, anthropic.AnthropicError):  # an `error` event: not retried
        message = api_failure_text(exc, retries=retries, where=where)
        return seen.lost_as(message, "stream ended by an error event", retry=False)
    if exc is None:
        return seen.ended_early()
    return seen.unreadable(exc)  # the SDK could not parse or accumulate what came


class _StreamUsage(StreamUsage):
    """``StreamUsage`` read from the SDK's stream events."""

    def take(self, event: Any) -> None:
        _take(self, event)

    def lost(self, exc: BaseException | None, *, retries: int, where: str) -> Lost:
        return _stream_lost(self, exc, retries=retries, where=where)


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


def _body_lost(exc: BaseException) -> Lost:
    """A 200 whose body was cut (a transport error, wrapped or not) or is not a message."""
    exc = _unwrapped(exc) or exc
    if _cut(exc):
        return Lost(_BODY_LOST.format(type(exc).__name__), "answer cut", retry=True)
    return not_a_message(exc)


def _message_of(parsed: Any) -> Any:
    if not isinstance(parsed, anthropic.types.Message):
        raise ValueError(f"a {type(parsed).__name__}, not a message object")
    return parsed


class AnthropicBackend(MessagesDriver):
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
    def _count_options(self, deadline: Deadline) -> dict[str, Any]:
        return {**COUNT_OPTIONS, "timeout": min(COUNT_OPTIONS["timeout"], left(deadline))}

    def failure_text(self, exc: BaseException) -> str | None:
        if isinstance(exc, anthropic.AnthropicError):
            return api_failure_text(exc, retries=self.max_retries, where=self.base_url)
        return None

    def _exchange(
        self, client: anthropic.Anthropic, params: dict[str, Any], seen: StreamUsage
    ) -> Any:
        """One request: its message, or ``Lost`` when the answer began but did not arrive
        whole. The body is read outside the SDK's retries: a cut 200 was billed, so sending it
        again is the budget's decision (``_lost``), not the SDK's. ``seen`` keeps what a stream
        reported, for the caller to charge if the deadline ends the wait first. Runs as the
        deadline's worker: it never touches the conversation (the caller charges, once)."""
        if self.settings.stream:
            with client.messages.stream(**params) as stream:
                try:
                    for event in stream:
                        _take(seen, event)
                    message = stream.get_final_message()
                except Exception as exc:  # after a 200 anything that stops the stream loses it
                    raise _stream_lost(
                        seen, exc, retries=self.max_retries, where=self.base_url
                    ) from None
                if not seen.final:
                    raise seen.ended_early()
                return message
        with client.messages.with_streaming_response.create(**params) as response:
            try:
                return _message_of(response.parse())
            except Exception as exc:
                raise _body_lost(exc) from None

    async def _aexchange(
        self, client: anthropic.AsyncAnthropic, params: dict[str, Any], seen: StreamUsage
    ) -> Any:
        if self.settings.stream:
            async with client.messages.stream(**params) as astream:
                try:
                    async for event in astream:
                        _take(seen, event)
                    message = await astream.get_final_message()
                except Exception as exc:
                    raise _stream_lost(
                        seen, exc, retries=self.max_retries, where=self.base_url
                    ) from None
                if not seen.final:
                    raise seen.ended_early()
                return message
        async with client.messages.with_streaming_response.create(**params) as response:
            try:
                return _message_of(await response.parse())
            except Exception as exc:
                raise _body_lost(exc) from None

    @contextlib.contextmanager
    def session(self, conv: Conversation, deadline: Deadline) -> Iterator[Send]:
        """A client for one run: the first prompt counted, then each attempt sent on it, each
        allowed at most what is left of the deadline."""
        client = self.client()
        try:
            if self._counts_tokens():
                try:
                    counted = client.with_options(
                        **self._count_options(deadline)
                    ).messages.count_tokens(**conv.count_request())
                except anthropic.AnthropicError as exc:
                    self._count_failed(conv.run, exc)
                else:
                    conv.calibrate(getattr(counted, "input_tokens", None))

            def send(params: dict[str, Any], seen: StreamUsage, deadline: Deadline) -> Any:
                attempt = client.with_options(timeout=min(self.timeout, left(deadline)))
                return self._exchange(attempt, params, seen)

            yield send
        finally:
            if self.http_client is None:  # a client we were given stays open for its owner
                client.close()

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

    @contextlib.asynccontextmanager
    async def asession(self, conv: Conversation, deadline: Deadline) -> AsyncIterator[AsyncSend]:
        client = self.shared_async or self.async_client()
        try:
            if self._counts_tokens():
                ahead, self.counted_ahead = self.counted_ahead, None
                counted = await (
                    ahead
                    if ahead is not None
                    else self._acount(client, conv.count_request(), self._count_options(deadline))
                )
                if isinstance(counted, anthropic.AnthropicError):
                    self._count_failed(conv.run, counted)
                else:
                    conv.calibrate(getattr(counted, "input_tokens", None))

            async def send(params: dict[str, Any], seen: StreamUsage, deadline: Deadline) -> Any:
                attempt = client.with_options(timeout=min(self.timeout, left(deadline)))
                return await self._aexchange(attempt, params, seen)

            yield send
        finally:
            if conv.follow_ups is not None:
                conv.follow_ups.record(conv.answered)
            if self.async_http_client is None and client is not self.shared_async:
                await client.close()
