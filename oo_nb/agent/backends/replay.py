"""Recorded API exchanges, played back through the same SDK code path.

A cassette is a JSON file holding, in order, each request the backend made (method, path, JSON
body) and the response it got (status, a few headers, the body text: JSON or SSE). Replaying
feeds those responses to the ``anthropic`` SDK through ``httpx2.MockTransport``, so the replayed
run goes through the exact code the live run uses (``AnthropicBackend``), only labelled
``recorded=True`` everywhere it shows. Used by the demo library, notebooks and Binder when no API
key is set.

Recording wraps the real transport: a live run or a run against the loopback mock is written to a
cassette with NO request headers at all and every occurrence of the credential scrubbed, so a
cassette never carries an API key or auth header.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2

from oo_nb.agent.backends.anthropic import AnthropicBackend
from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.errors import AgentError, FormatError
from oo_nb.redaction import scrub, secrets_now

__all__ = [
    "CASSETTE_FORMAT",
    "Cassette",
    "RecordingTransport",
    "ReplayBackend",
    "ReplayTransport",
]

CASSETTE_FORMAT = "oo-nb-cassette"
_KEEP_RESPONSE_HEADERS = ("content-type", "retry-after", "retry-after-ms", "x-should-retry")
_REDACTED = "[REDACTED]"
# The body is handed on decoded and whole: these headers no longer describe it.
_TRANSFER_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
REPLAY_KEY = "replay-no-key"  # the SDK needs some credential; this one never leaves the process
REPLAY_BASE_URL = "https://replay.invalid"


@dataclass
class Cassette:
    interactions: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        p = Path(path)
        try:
            raw = json.loads(p.read_text("utf-8"))
        except FileNotFoundError:
            raise FormatError("no such cassette", file=str(p)) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FormatError(f"cassette is not readable JSON: {exc}", file=str(p)) from None
        if (
            not isinstance(raw, dict)
            or raw.get("format") != CASSETTE_FORMAT
            or not isinstance(raw.get("interactions"), list)
        ):
            raise FormatError(
                f"not an oo_nb cassette (expected format {CASSETTE_FORMAT!r})", file=str(p)
            )
        for n, item in enumerate(raw["interactions"]):
            if not isinstance(item, dict) or not isinstance(item.get("response"), dict):
                raise FormatError(
                    f"interaction {n} has no response", file=str(p), key=f"interactions[{n}]"
                )
        meta = {k: v for k, v in raw.items() if k not in ("format", "interactions")}
        return cls(raw["interactions"], meta)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CASSETTE_FORMAT,
            "version": 1,
            **self.meta,
            "interactions": self.interactions,
        }

    def save(self, path: str | Path) -> Path:
        from oo_nb.store.store import atomic_write_bytes

        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(self.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
        atomic_write_bytes(p, data, mode=0o644)
        return p

    @property
    def streamed(self) -> bool:
        return any(
            "text/event-stream" in str(i["response"].get("headers", {}).get("content-type", ""))
            for i in self.interactions
        )


# --------------------------------------------------------------------------- playback
class ReplayTransport(httpx2.MockTransport):
    """Answers each request with the next recorded response (method and path must match)."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.position = 0
        super().__init__(self._answer)

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        items = self.cassette.interactions
        if self.position >= len(items):
            return _error(
                request,
                f"cassette exhausted: the replayed run made more than {len(items)} requests",
            )
        item = items[self.position]
        self.position += 1
        want = item.get("request", {})
        if (want.get("path") and want.get("path") != request.url.path) or want.get(
            "method", "POST"
        ) != request.method:
            return _error(
                request,
                f"cassette mismatch at request {self.position}: recorded {want.get('method')} {want.get('path')}, "
                f"replay asked {request.method} {request.url.path}",
            )
        response = item["response"]
        headers = {k: str(v) for k, v in (response.get("headers") or {}).items()}
        return httpx2.Response(
            int(response.get("status", 200)),
            headers=headers,
            content=str(response.get("body", "")).encode("utf-8"),
            request=request,
        )


def _error(request: httpx2.Request, text: str) -> httpx2.Response:
    body = json.dumps(
        {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
    )
    return httpx2.Response(
        400,
        headers={"content-type": "application/json", "x-should-retry": "false"},
        content=body.encode(),
        request=request,
    )


class ReplayBackend(AnthropicBackend):
    """``AnthropicBackend`` fed from a cassette: no network, no key, labelled as recorded."""

    def __init__(
        self,
        cassette: Cassette | str | Path,
        *,
        model: str | None = None,
        settings: AgentSettings | None = None,
    ) -> None:
        self.cassette = cassette if isinstance(cassette, Cassette) else Cassette.load(cassette)
        recorded_model = str(self.cassette.meta.get("model") or "") or None
        chosen = recorded_model or model or "claude-sonnet-5-5"
        base = settings or AgentSettings(model=chosen)
        self.transport = ReplayTransport(self.cassette)
        super().__init__(
            model=chosen,
            api_key=REPLAY_KEY,
            base_url=REPLAY_BASE_URL,
            http_client=httpx2.Client(transport=self.transport),
            async_http_client=httpx2.AsyncClient(transport=self.transport),
            max_retries=0,
            settings=AgentSettings(
                **{**base.__dict__, "model": chosen, "stream": self.cassette.streamed}
            ),
            recorded=True,
            label="replay",
        )

    def _key(self) -> str:
        return REPLAY_KEY


# --------------------------------------------------------------------------- recording
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
