"""Which model and which credentials: plain names and environment look-ups, without the SDK.

Kept apart from ``backends.anthropic`` so that what only plans (``oo update --dry-run``, the
freshness gate of update-all, ``oo show``) never imports the ``anthropic`` SDK, whose import
alone takes seconds.
"""

from __future__ import annotations

import os

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_MODEL",
    "MODEL_ALIASES",
    "has_api_key",
    "requested_agent",
    "resolve_model",
    "uses_the_api",
]

DEFAULT_MODEL = "claude-sonnet-5-5"
API_KEY_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

# The original o-o passed --model to the `claude` CLI, which takes family names; the API does not.
MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
    "fable": "claude-fable-5-2",
}


def resolve_model(cli: str | None, contract: str | None) -> str:
    """``--model``, else the contract's ``model``, else ``OO_MODEL``, else the default; a family
    name (``sonnet``, ``opus``…) means that family's current model."""
    chosen = (
        (cli or "").strip()
        or (contract or "").strip()
        or os.environ.get("OO_MODEL", "").strip()
        or DEFAULT_MODEL
    )
    return MODEL_ALIASES.get(chosen.lower(), chosen)


def has_api_key() -> bool:
    return any(os.environ.get(name) for name in API_KEY_ENV)


def requested_agent(requested: str | None = None) -> str | None:
    """The agent asked for: ``--agent``, else ``OO_AGENT``; None when neither names one."""
    return requested or os.environ.get("OO_AGENT", "").strip() or None


def uses_the_api(requested: str | None = None, api_key: str | None = None) -> bool:
    """Whether an update would go to the API, the one agent that needs the SDK: asked for, or
    the default with a key (without one the default is a replay or Claude Code)."""
    agent = requested_agent(requested)
    return agent == "anthropic" or (agent is None and bool(api_key or has_api_key()))
