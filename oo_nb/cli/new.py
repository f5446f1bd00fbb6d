"""``oo new "Title / scope"``: create a living document, then run its first update."""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oo_nb.api.document import Document
from oo_nb.api.new import create_document, library_defaults, research_agent_at_hand
from oo_nb.edit.new import (
    DEFAULT_AUDIENCE,
    DEFAULT_BUDGET_USD,
    DEFAULT_EVERY_DAYS,
    DEFAULT_TONE,
    NewSpec,
    parse_budget,
    parse_days,
    prompt_spec,
)
from oo_nb.edit.new_defaults import LibraryDefaults
from oo_nb.errors import OOError

__all__ = ["HELP", "NewResult", "add_arguments", "first_update", "no_agent_note", "run"]

HELP = 'create a living document from "Title / scope", then run its first update'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "title",
        nargs="?",
        help='"Title / scope": everything after the first " / " is the scope. '
        "Leave it out to be asked for title, scope, audience, tone and budget (answers may "
        "also be piped in, one a line).",
    )
    parser.add_argument("--dir", default=".", help="folder for the new file (default: here)")
    parser.add_argument("--audience", help=f'who reads it (default "{DEFAULT_AUDIENCE}")')
    parser.add_argument("--tone", help=f'how it is written (default "{DEFAULT_TONE}")')
    parser.add_argument(
        "--budget",
        metavar="USD",
        help=f"most an update may cost (default {DEFAULT_BUDGET_USD:.2f})",
    )
    parser.add_argument(
        "--every", metavar="DAYS", help=f"update cadence in days (default {DEFAULT_EVERY_DAYS})"
    )
    parser.add_argument(
        "--sentinel", metavar="EVENT", help="make it a sentinel document watching for EVENT"
    )
    parser.add_argument(
        "--criteria",
        metavar="TEXT",
        action="append",
        default=[],
        help="with --sentinel: what would count as EVENT happening (repeat for several)",
    )
    parser.add_argument(
        "--no-update", action="store_true", help="only create the file; no first update"
    )
    parser.add_argument(
        "--suffix",
        action="store_true",
        help="when NAME.o-o.html exists, create NAME-2.o-o.html (the next free name) instead of "
        "stopping with an error",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="write the first update without review (the default: a new document has nothing "
        "to protect)",
    )
    parser.add_argument(
        "--review",
        action="store_true",
        help="keep the first update as a proposal for review (oo review) instead of writing it",
    )
    parser.add_argument("--agent", help="research backend for the first update")


@dataclass
class NewResult:
    document: Document
    update_result: Any = None
    notes: list[str] = field(default_factory=list)
    exit_code: int = 0

    @property
    def path(self) -> Path:
        return self.document.path

    @property
    def value(self) -> Document:
        return self.document

    def to_text(self) -> str:
        # The path comes first and alone on its line, so `$(oo new ... --no-update)` captures it.
        lines = [str(self.path)]
        if self.update_result is not None:
            text = self.update_result.to_text()
            if text:
                lines.append(text)
        lines.extend(self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()


def _spec(ns: argparse.Namespace, defaults: LibraryDefaults) -> NewSpec:
    # an option given wins over the library's default (bash index.o-o.html --set), which wins
    # over oo_nb's
    fields = defaults.fields
    budget = ns.budget if ns.budget is not None else fields.get("budget")
    every = ns.every if ns.every is not None else fields.get("update_every_days")
    options: dict[str, Any] = {
        "audience": ns.audience or fields.get("audience") or DEFAULT_AUDIENCE,
        "tone": ns.tone or fields.get("tone") or DEFAULT_TONE,
        "budget_usd": parse_budget(budget) if budget is not None else DEFAULT_BUDGET_USD,
        "every_days": parse_days(every) if every is not None else DEFAULT_EVERY_DAYS,
        "sentinel": ns.sentinel,
        "criteria": tuple(ns.criteria),
    }
    if ns.title is not None:
        return NewSpec.from_text(ns.title, **options)
    if sys.stdin is not None and sys.stdin.isatty():
        asked = prompt_spec(sentinel=ns.sentinel, criteria=tuple(ns.criteria))
    else:
        # answers piped in, one a line, as o-o's `read -p` takes them: no prompts (stdout keeps
        # the new file's path), what is said goes to stderr, and the end of input answers ""
        asked = prompt_spec(
            ask=_piped_answer,
            say=lambda text: print(text, file=sys.stderr),
            sentinel=ns.sentinel,
            criteria=tuple(ns.criteria),
        )
    return NewSpec(
        title=asked.title,
        scope=asked.scope,
        audience=ns.audience or _asked(asked.audience, DEFAULT_AUDIENCE, options["audience"]),
        tone=ns.tone or _asked(asked.tone, DEFAULT_TONE, options["tone"]),
        budget_usd=(
            options["budget_usd"]
            if ns.budget is not None or asked.budget_usd == DEFAULT_BUDGET_USD
            else asked.budget_usd
        ),
        every_days=options["every_days"],
        sentinel=ns.sentinel,
        criteria=asked.criteria,
    )


def _asked(answer: str, builtin: str, library: str) -> str:
    """A prompt's answer; the prompt's own default (an empty answer) is the library's."""
    return library if answer == builtin else answer


def _piped_answer(_prompt: str) -> str:
    if sys.stdin is None:  # stdin closed (`<&-`): the end of input
        return ""
    return sys.stdin.readline().rstrip("\r\n")


def first_update(
    path: Path, *, yes: bool = False, agent: str | None = None
) -> tuple[Any, list[str], int]:
    """Run the ``update`` verb on a new document if this oo_nb has one. Returns (result, notes,
    exit code); a failed update leaves the created document in place."""
    try:
        update_verb = importlib.import_module("oo_nb.cli.update")
    except ModuleNotFoundError as exc:
        if exc.name == "oo_nb.cli.update":
            return None, ["first update not run: this oo_nb has no update verb"], 0
        raise
    parser = argparse.ArgumentParser(prog="oo update", add_help=False)
    update_verb.add_arguments(parser)
    argv = [str(path), *(["--yes"] if yes else []), *(["--agent", agent] if agent else [])]
    try:
        update_ns = parser.parse_args(argv)
    except SystemExit:
        return None, [f"first update not run: `oo update` does not take {' '.join(argv[1:])}"], 2
    update_ns.verb = "update"
    try:
        result = update_verb.run(update_ns)
    except OOError as exc:
        return (
            None,
            [
                f"first update failed: {exc}",
                f"the document is there; try again with: oo update {path}",
            ],
            1,
        )
    return result, [], int(getattr(result, "exit_code", 0))


def run(ns: argparse.Namespace) -> NewResult:
    spec = _spec(ns, library_defaults(ns.dir))
    doc = create_document(spec, ns.dir, suffix=getattr(ns, "suffix", False))
    result = NewResult(doc)
    if not ns.no_update:
        missing = no_agent_note(doc.path, ns.agent)
        if missing is not None:  # said once, with what to run; not an update that failed
            result.notes, result.exit_code = [missing], 1
            return result
        # A brand-new document has nothing to protect: its first version is written (within
        # its budget) unless --review asks to look first.
        result.update_result, result.notes, result.exit_code = first_update(
            doc.path, yes=not getattr(ns, "review", False), agent=ns.agent
        )
    return result


def no_agent_note(path: Path, agent: str | None) -> str | None:
    """What to run, when no research agent is at hand here: no ``--agent``/``OO_AGENT``, no
    API key, no recorded run for the document, no ``claude`` command (None: one is)."""
    if research_agent_at_hand(path, agent):
        return None
    return (
        "not researched yet: no research agent here (no ANTHROPIC_API_KEY, no `claude` command "
        "on PATH, no recorded run for it); give it one of the first two, then run: "
        f"bash {path}"
    )
