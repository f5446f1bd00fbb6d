"""``oo new "Title / scope"``: create a living document, then run its first update.

A skin over ``oo_nb.api.new.new_document``: this verb makes the request (from its arguments, or
by asking the questions, ``new_prompts``) and prints what the API did."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.api.new import (
    NO_AGENT,
    NewDefaults,
    NewDocument,
    NewRequest,
    new_defaults,
    new_document,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from oo_nb.api.document import Document
    from oo_nb.cli.update import UpdateOutcome

__all__ = ["HELP", "NewResult", "add_arguments", "request_from", "run", "said"]

_BUILTIN = NewDefaults()  # oo_nb's own defaults, for the help (a folder may set others)
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
    parser.add_argument("--audience", help=f'who reads it (default "{_BUILTIN.audience}")')
    parser.add_argument("--tone", help=f'how it is written (default "{_BUILTIN.tone}")')
    parser.add_argument(
        "--budget",
        metavar="USD",
        help=f"most an update may cost (default {_BUILTIN.budget_usd:.2f})",
    )
    parser.add_argument(
        "--every", metavar="DAYS", help=f"update cadence in days (default {_BUILTIN.every_days})"
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
    """What ``oo new`` prints: the new file's path, then its first update's lines and notes."""

    made: NewDocument
    update_result: UpdateOutcome | None = None
    notes: list[str] = field(default_factory=list)
    exit_code: int = 0

    @property
    def path(self) -> Path:
        return self.made.path

    @property
    def value(self) -> Document:
        return self.made.document

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


def request_from(ns: argparse.Namespace) -> NewRequest:
    """The API's request from the verb's arguments; with no title, from the answers to its
    questions (asked in a terminal, else read from stdin one a line)."""
    # an option given wins over an answer, and both over the library's defaults (the API's)
    given: dict[str, Any] = {
        "audience": ns.audience,
        "tone": ns.tone,
        "budget": ns.budget,
        "every_days": ns.every,
        "sentinel": ns.sentinel,
        "criteria": tuple(ns.criteria),
    }
    if ns.title is not None:
        return NewRequest.from_text(ns.title, **given)
    from oo_nb.cli.new_prompts import ask_request

    defaults = new_defaults(ns.dir)
    criteria = tuple(ns.criteria)
    if sys.stdin is not None and sys.stdin.isatty():
        asked = ask_request(defaults, sentinel=ns.sentinel, criteria=criteria)
    else:
        # answers piped in, one a line, as o-o's `read -p` takes them: no prompts (stdout keeps
        # the new file's path), what is said goes to stderr, and the end of input answers ""
        asked = ask_request(
            defaults,
            ask=_piped_answer,
            say=lambda text: print(text, file=sys.stderr),
            sentinel=ns.sentinel,
            criteria=criteria,
        )
    options = {key: value for key, value in given.items() if value not in (None, "", ())}
    return dataclasses.replace(asked, **options)


def _piped_answer(_prompt: str) -> str:
    if sys.stdin is None:  # stdin closed (`<&-`): the end of input
        return ""
    return sys.stdin.readline().rstrip("\r\n")


def run(ns: argparse.Namespace) -> NewResult:
    made = new_document(
        request_from(ns),
        ns.dir,
        suffix=getattr(ns, "suffix", False),
        update=not ns.no_update,
        # A brand-new document has nothing to protect: its first version is written (within
        # its budget) unless --review asks to look first.
        review=getattr(ns, "review", False),
        agent=ns.agent,
        progress=None if ns.no_update else _progress(),
    )
    return said(made, yes=not getattr(ns, "review", False))


def _progress() -> Callable[[str], None]:
    # the update verb's own (loaded when there is an update: it imports the agent)
    from oo_nb.cli.update import print_progress

    return print_progress


def leftover_note(made: NewDocument) -> str:
    """The proposal a deleted document of this name left, set aside: named, never applied."""
    from oo_nb.skin import saved_advice

    return (
        f"a proposal left by a deleted document of this name was set aside as {made.set_aside} "
        f"(not this document's; `{saved_advice(made.path, 'list')}` lists it)"
    )


def said(made: NewDocument, *, yes: bool) -> NewResult:
    """What the CLI prints of ``made``, and its exit code."""
    result = NewResult(made)
    where = shlex.quote(str(made.path))
    result.notes = [leftover_note(made)] if made.set_aside is not None else []
    if made.first_update == "no agent":  # said once, with what to run; not an update that failed
        result.notes += [
            f"not researched yet: {NO_AGENT}; give it one of the first two, then run: bash {where}"
        ]
        result.exit_code = 1
    elif made.first_update == "failed" and made.error is not None:
        from oo_nb.cli.update import nothing_written
        from oo_nb.errors import AgentError

        error = nothing_written(made.error) if isinstance(made.error, AgentError) else made.error
        result.notes += [
            f"first update failed: {error}",
            f"the document is there; try again with: oo update {where}",
        ]
        result.exit_code = 1
    elif made.proposal is not None:
        from oo_nb.cli.update import outcome

        result.update_result = outcome(made.proposal, yes=yes)
        result.update_result.written_note = "its first researched version"
        result.exit_code = result.update_result.exit_code
    return result
