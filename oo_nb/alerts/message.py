"""One alert's words: a subject and a body for one event or a digest of many, and the JSON bodies
the webhook services expect (Slack: ``text``; Discord: ``content``, at most 2000 characters;
ntfy: ``topic``/``title``/``message``; plain JSON: the events as data). Event text comes from file
names, web pages and error messages: where a service reads markup, it is escaped so that it can
never mention everyone or show a disguised link (``plain_markup``, ``_discord_text``)."""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from oo_nb.alerts.events import Event

__all__ = ["Message", "compose", "plain_markup", "webhook_body"]

_DISCORD_LIMIT = 2000
_LABELS = {
    "sentinel": "sentinel occurred",
    "proposal": "awaiting review",
    "failed": "update failed",
    "budget": "out of budget",
    "links": "source dead or moved",
}


# Discord's markdown: emphasis, code, spoilers, quotes, headings and masked links [text](url)
_DISCORD_MARKUP = re.compile(r"([\\*_~`|\[\]()<>#])")
# nobody is pinged whatever the text says (@everyone, @here, <@id>, <@&role>)
_DISCORD_NO_MENTIONS: dict[str, list[str]] = {"parse": []}


def plain_markup(text: str) -> str:
    """``text`` as a service that reads ``& < >`` as markup shows it: Slack's escaping rule
    (``<!channel>``, ``<url|label>``), the same as notify-send's body markup needs."""
    return html.escape(text, quote=False)


def _discord_text(text: str) -> str:
    return _DISCORD_MARKUP.sub(r"\\\1", text)


@dataclass(frozen=True)
class Message:
    subject: str
    body: str
    events: tuple[Event, ...]

    @property
    def is_digest(self) -> bool:
        return len(self.events) > 1


def compose(library: str, events: list[Event]) -> Message:
    """One message for ``events``: the event itself when there is one, else a digest that counts
    them by kind and lists each."""
    if len(events) == 1:
        e = events[0]
        return Message(f"[oo {library}] {e.title}", e.text(), (e,))
    counts = Counter(e.kind for e in events)
    summary = ", ".join(f"{n} {_LABELS.get(k, k)}" for k, n in sorted(counts.items()))
    blocks = [f"{len(events)} events in {library}: {summary}", ""]
    for e in events:
        blocks.append(f"• [{_LABELS.get(e.kind, e.kind)}] " + e.text().replace("\n", "\n  "))
    return Message(
        f"[oo {library}] {len(events)} events: {summary}", "\n".join(blocks), tuple(events)
    )


def webhook_body(message: Message, fmt: str, options: dict[str, Any]) -> dict[str, Any]:
    """The JSON body of a webhook POST in the format its service reads."""
    if fmt == "slack":
        return {"text": f"*{plain_markup(message.subject)}*\n{plain_markup(message.body)}"}
    if fmt == "discord":
        text = f"**{_discord_text(message.subject)}**\n{_discord_text(message.body)}"
        if len(text) > _DISCORD_LIMIT:
            text = text[: _DISCORD_LIMIT - 1].rstrip("\\") + "…"  # no escape cut in half
        return {"content": text, "allowed_mentions": _DISCORD_NO_MENTIONS}
    if fmt == "ntfy":
        tags = ["rotating_light"] if any(e.kind == "sentinel" for e in message.events) else ["bell"]
        return {
            "topic": options["topic"],
            "title": message.subject,
            "message": message.body,
            "tags": tags,
            "priority": 4 if "rotating_light" in tags else 3,
        }
    return {
        "subject": message.subject,
        "text": message.body,
        "events": [
            {
                "key": e.key,
                "kind": e.kind,
                "document": e.document,
                "title": e.title,
                "details": list(e.details),
                "sources": list(e.sources),
            }
            for e in message.events
        ],
    }
