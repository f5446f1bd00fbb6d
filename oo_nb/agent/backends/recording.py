"""Recording API exchanges into cassettes, and the reference replay through the SDK.

``RecordingTransport`` wraps the real transport: a live run or a run against the loopback mock is
written to a cassette with NO request headers at all and every occurrence of the credential
scrubbed, so a cassette never carries an API key or auth header.

``sdk_replay(cassette)`` plays a cassette the way replays went before they left the SDK: its
responses fed to ``AnthropicBackend`` through ``httpx2.MockTransport`` (``ReplayTransport``). It
is the reference the SDK-free ``ReplayBackend`` is tested against, on every cassette in the
repository; it imports the SDK, so nothing but that test and recording tools should use it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2

from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.backends.replay import (
    REPLAY_BASE_URL,
    Cassette,
    mismatch_body,
    next_recorded,
)
from oo_nb.errors import AgentError
from oo_nb.redaction import scrub, secrets_now

__all__ = ["RecordingTransport", "ReplayTransport", "sdk_replay"]

_KEEP_RESPONSE_HEADERS = ("content-type", "retry-after", "retry-after-ms", "x-should-retry")
_REDACTED = "[REDACTED]"
# The body is handed on decoded and whole: these headers no longer describe it.
_TRANSFER_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
REPLAY_KEY = "replay-no-key"  # the SDK needs some credential; this one never leaves the process


class ReplayTransport(httpx2.MockTransport):
    """Answers each request with the next recorded response (method and path must match)."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.position = 0
        super().__init__(self._answer)

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        found = next_recorded(self.cassette, self.position, request.method, request.url.path)
        self.position += 1
        if isinstance(found, str):
            return httpx2.Response(
                400,
                headers={"content-type": "application/json", "x-should-retry": "false"},
                content=mismatch_body(found).encode(),
                request=request,
            )
        headers = {k: str(v) for k, v in (found.get("headers") or {}).items()}
        return httpx2.Response(
            int(found.get("status", 200)),
            headers=headers,
            content=str(found.get("body", "")).encode("utf-8"),
            request=request,
        )


def sdk_replay(
    cassette: Cassette | str | Path,
    *,
    model: str | None = None,
    settings: AgentSettings | None = None,
) -> Any:
    """An ``AnthropicBackend`` fed from ``cassette`` through the SDK (the reference replay), set
    as ``ReplayBackend`` sets itself (model, stream, label)."""
    from oo_nb.agent.backends.anthropic import AnthropicBackend
    from oo_nb.agent.backends.replay import ReplayBackend

    plain = ReplayBackend(cassette, model=model, settings=settings)
    transport = ReplayTransport(plain.cassette)
    return AnthropicBackend(
        model=plain.model,
        api_key=REPLAY_KEY,
        base_url=REPLAY_BASE_URL,
        http_client=httpx2.Client(transport=transport),
        async_http_client=httpx2.AsyncClient(transport=transport),
        max_retries=0,
        settings=plain.settings,
        recorded=True,
        label="replay",
    )


def _secrets_of(request: httpx2.Request) -> list[str]:
    found = []
    auth = request.headers.get("authorization", "")
    if auth:
        found.append(auth.split(" ", 1)[-1])
    for name in ("x-api-key", "anthropic-api-key"):
        if request.headers.get(name):
            found.append(request.headers[name])
    return [s for s in found if len(s) >= 4]


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, _REDACTED)
    # and what redact finds (an answer that echoes part of the key, in any case), never across
    # the JSON syntax of the body
    return scrub(text, keep='"\\', secrets=secrets_now())[0]


class RecordingTransport(httpx2.BaseTransport):
    """Passes requests to ``inner`` and keeps each exchange for a cassette. Request headers are
    never kept; the credential is scrubbed from every body."""

    def __init__(self, inner: httpx2.BaseTransport | None = None) -> None:
        self.inner = inner or httpx2.HTTPTransport()
        self.cassette = Cassette(
            meta={"recorded_at": datetime.now(UTC).isoformat(timespec="seconds")}
        )
        self._secrets: set[str] = set()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        secrets = _secrets_of(request)
        self._secrets.update(secrets)
        response = self.inner.handle_request(request)
        body = response.read()
        passed = {k: v for k, v in response.headers.items() if k.lower() not in _TRANSFER_HEADERS}
        if request.url.path.endswith("/count_tokens"):
            # Not kept: a replay does not count (its budget uses the estimate), so a cassette
            # plays the same whether or not the live run was able to count.
            return httpx2.Response(
                response.status_code, headers=passed, content=body, request=request
            )
        text = body.decode("utf-8", "replace")
        try:
            sent: Any = json.loads(
                _scrub(request.content.decode("utf-8", "replace"), secrets) or "null"
            )
        except json.JSONDecodeError:
            sent = None
        headers = {k: v for k, v in response.headers.items() if k.lower() in _KEEP_RESPONSE_HEADERS}
        self.cassette.interactions.append(
            {
                "request": {"method": request.method, "path": request.url.path, "body": sent},
                "response": {
                    "status": response.status_code,
                    "headers": headers,
                    "body": _scrub(text, secrets),
                },
            }
        )
        return httpx2.Response(response.status_code, headers=passed, content=body, request=request)

    def save(self, path: str | Path, **meta: Any) -> Path:
        self.cassette.meta.update(meta)
        data = json.dumps(self.cassette.to_json(), ensure_ascii=False)
        if any(secret in data for secret in self._secrets):  # belt and braces: never write a key
            raise AgentError("refusing to write a cassette that contains the credential")
        return self.cassette.save(path)

    def close(self) -> None:
        self.inner.close()
