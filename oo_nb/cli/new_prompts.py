"""``oo new`` with no title: the questions for a new document, asked as the original's
interactive ``--new`` asks them (in a terminal, or answers piped in one a line).

An empty answer keeps the default shown in brackets, the folder's own (``NewDefaults``); the
answers make the API's ``NewRequest``, which ``new_document`` resolves and checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from oo_nb.api.new import NewDefaults, NewRequest, parse_budget
from oo_nb.errors import ValidationError

__all__ = ["ask_request"]

_MAX_ASKED_CRITERIA = 20
_SPACES = re.compile(r"\s+")


def ask_request(
    defaults: NewDefaults,
    ask: Callable[[str], str] | None = None,
    say: Callable[[str], None] | None = None,
    *,
    sentinel: str | None = None,
    criteria: tuple[str, ...] = (),
) -> NewRequest:
    """Ask for title, scope, audience, tone and budget; for a sentinel document given no
    ``criteria``, also for what would count as the event. Answers left empty are ``None`` in
    the request (the folder's default)."""
    ask = ask or input  # looked up at call time, so a patched input() is used
    say = say or print
    say("New living document")
    title = ""
    for _ in range(3):
        title = _SPACES.sub(" ", ask("  Title: ")).strip()
        if title:
            break
        say("  A title is needed.")
    if not title:
        raise ValidationError("no title given; nothing created", key="title")
    scope = ask("  Scope (what should it cover?) [same as title]: ").strip()
    audience = ask(f"  Audience [{defaults.audience}]: ").strip() or None
    tone = ask(f"  Tone [{defaults.tone}]: ").strip() or None
    budget: float | None = None
    for _ in range(3):
        answer = ask(f"  Budget per update, USD [{defaults.budget_usd:.2f}]: ").strip()
        try:
            budget = parse_budget(answer) if answer else None
            break
        except ValidationError as exc:
            say(f"  {exc.message}")
    else:
        raise ValidationError("no valid budget given; nothing created", key="budget")
    if sentinel is not None and not criteria:
        say(
            "  What would count as the event happening? One criterion per line; an empty line ends."
        )
        asked: list[str] = []
        while len(asked) < _MAX_ASKED_CRITERIA:
            answer = ask(f"  Criterion {len(asked) + 1}: ").strip()
            if not answer:
                break
            asked.append(answer)
        criteria = tuple(asked)
    return NewRequest(
        title=title,
        scope=scope,
        audience=audience,
        tone=tone,
        budget=budget,
        sentinel=sentinel,
        criteria=criteria,
    )
