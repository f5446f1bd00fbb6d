"""``oo review DOC``: review the saved proposal (per change y/n/e/a/d/q, or ``--accept-all`` /
``--reject-all``) and write what was accepted through the store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from oo_nb.api.document import Document
from oo_nb.api.proposal import Proposal, ProposalOutdated
from oo_nb.api.saved import discard_saved, pick_saved, saved_proposals
from oo_nb.cli.verbs import TextResult
from oo_nb.errors import NotFound
from oo_nb.skin import saved_advice, update_advice

HELP = "review the saved proposal change by change and write what you accept"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc", help="the .o-o.html document with a saved proposal (from `oo update`)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--accept-all", action="store_true", help="accept every change without asking"
    )
    mode.add_argument(
        "--reject-all", action="store_true", help="reject every change and discard the proposal"
    )
    mode.add_argument(
        "--widget",
        action="store_true",
        help="show the review widget (the default inside a notebook kernel)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="review even though the document changed since the proposal was made (the diff then also shows those changes undone)",
    )
    p.add_argument(
        "--color",
        action="store_true",
        default=None,
        help="colour the diff even when not on a terminal",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--list",
        action="store_true",
        help="list the saved proposals (the current one and earlier ones set aside); review nothing",
    )
    which.add_argument(
        "--pick",
        metavar="NAME",
        help="review the set-aside proposal NAME (from --list) instead; the current one is set aside in its place",
    )
    which.add_argument(
        "--discard",
        nargs="+",
        metavar="NAME",
        help="delete the saved proposal(s) NAME (from --list; pending.json is the current one) for good; review nothing",
    )


# What reviewing a proposal made before the document changed means: a rebuilt one is applied to
# the file as it is now; an older file's candidate replaces the file, undoing those changes.
_STALE = {
    True: "it is applied to the file as it is now, but its research did not see those changes",
    False: "reviewing it would undo those changes",
}


class WidgetRequest:
    """Review in the widget: the notebook layer turns this into the review widget. The verb
    only decides that the widget is wanted (``--widget``, or inside a notebook kernel)."""

    exit_code = 0

    def __init__(self, path: Path, *, force: bool) -> None:
        self.path = path
        self.force = force
        self.value = path

    def to_text(self) -> str:
        return f"review widget for {self.path}"


def _in_kernel() -> bool:
    """Inside a notebook kernel nobody can answer prompts on stdin: show the widget instead."""
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _list(path: Path) -> TextResult:
    found = saved_proposals(path)
    if not found:
        return TextResult(f"{path}: no saved proposals (run `{update_advice(path)}` first)")
    lines = [f"{path}: {len(found)} saved proposal(s)"] + [f"  {p.line()}" for p in found]
    if any(not p.current for p in found):
        lines.append(f"review a set-aside one with `{saved_advice(path, 'pick', 'NAME')}`")
    return TextResult("\n".join(lines), value=found)


def _discard(path: Path, names: list[str]) -> TextResult:
    lines = []
    for name in dict.fromkeys(names):
        info = discard_saved(path, name)
        cost = f"; its research (${info.cost_usd:.4f}) is gone" if info.cost_usd is not None else ""
        lines.append(f"{path}: discarded {name}{cost}")
    left = saved_proposals(path)
    lines.append(
        f"{len(left)} saved proposal(s) left"
        + (f" (see `oo review {path.name} --list`)" if left else "")
    )
    return TextResult("\n".join(lines))


def _only_set_aside(path: Path, ns: argparse.Namespace) -> TextResult:
    """No current proposal, only earlier ones set aside: say which and how to go on. Asking
    to review is not a failure then (exit 0); asking to accept or reject all is (exit 1), as
    there is nothing current to accept or reject."""
    listing = _list(path)
    action = ns.accept_all or ns.reject_all
    head = f"{path}: no current proposal to review" + ("; nothing written" if action else "")
    hint = (
        f"review one with `oo review {path.name} --pick NAME`, "
        f"or delete ones you do not want with `oo review {path.name} --discard NAME`"
    )
    body = [
        line
        for line in listing.to_text().splitlines()[1:]
        if not line.startswith("review a set-aside")
    ]
    return TextResult(
        "\n".join([head, "set aside:", *body, hint]),
        value=listing.value,
        exit_code=1 if action else 0,
    )


def run(ns: argparse.Namespace) -> TextResult | WidgetRequest:
    path = Path(ns.doc)
    if getattr(ns, "list", False):
        return _list(path)
    if getattr(ns, "discard", None):
        return _discard(path, ns.discard)
    warning = ""
    if getattr(ns, "pick", None):
        previous = pick_saved(path, ns.pick)
        warning = (
            f"reviewing {ns.pick}"
            + (f"; the proposal it replaces was set aside as {previous.name}" if previous else "")
            + "\n"
        )
    try:
        # The saved file is untrusted: the candidate is rebuilt from its proposal data through
        # the agent's validation and sanitiser (or an older file's candidate is checked).
        proposal = Proposal.saved(path, Document.read, force=ns.force)
    except NotFound:
        if not any(not p.current for p in saved_proposals(path)):
            raise
        return _only_set_aside(path, ns)
    except ProposalOutdated as stale:
        return TextResult(
            f"{warning}{path}: the document changed since this proposal was made ({stale.created}); "
            f"{_STALE[stale.rebuilt]}. Research again with `{update_advice(path, force=True)}` "
            "(a plain update does "
            "not while this proposal awaits review), or pass --force here to review it against "
            "the current file. Nothing written.",
            exit_code=1,
        )
    if proposal.stale:
        warning += f"warning: the document changed since the proposal was made; {_STALE[proposal.rebuilt]}\n"
    if ns.widget or (not (ns.accept_all or ns.reject_all) and _in_kernel()):
        return WidgetRequest(path, force=ns.force)
    if warning:
        print(warning.rstrip(), file=sys.stderr)
    finished = proposal.review_in_terminal(
        accept_all=ns.accept_all, reject_all=ns.reject_all, color=ns.color
    )
    if not finished:
        return TextResult(
            f"{warning}{path}: review ended early; nothing written, the proposal is kept",
            exit_code=1,
        )
    doc = proposal.write()
    if proposal.written_to is None:
        return TextResult(
            f"{warning}{path}: nothing accepted; the document is unchanged and the proposal discarded"
        )
    return TextResult(
        f"{warning}{path}: wrote version {doc.version} (the previous file is kept in history)",
        value=path,
    )
