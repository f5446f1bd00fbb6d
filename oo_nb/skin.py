"""Where the user is, and advice said as they would type it there (issue 27: "errors that name
the fix as the user would type it in the place they are in").

The same update is asked for from Python (``doc.update()``), the ``oo`` command or the ``%oo``
magic, and what it says next ("research anyway", "review it") is a different thing to type in
each. The lower layers ask this module for the words; only the skins set it: ``oo`` for the
command's run (``cli.main``), ``%oo`` for the magic's (``notebook.magics``). Python is the
default, so a call from a script or a notebook cell is answered in Python.

The skin is one value for the process, not a context variable: ``update-all`` researches in
worker threads, which a context variable would not reach; a process runs one command, and a
kernel one cell at a time.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

__all__ = [
    "Skin",
    "check_advice",
    "current",
    "force_advice",
    "history_advice",
    "new_advice",
    "option_said",
    "review_advice",
    "saved_advice",
    "speaking",
    "sync_advice",
    "trust_advice",
    "update_advice",
    "update_all_advice",
    "verb_prefix",
]

Skin = Literal["python", "oo", "%oo"]
_current: list[Skin] = ["python"]


def current() -> Skin:
    """The skin the user is in: ``python``, ``oo`` (the command) or ``%oo`` (the magic)."""
    return _current[-1]


@contextmanager
def speaking(skin: Skin) -> Iterator[None]:
    """Say advice as ``skin``'s user types it while the block runs (then as before)."""
    _current.append(skin)
    try:
        yield
    finally:
        _current.pop()


def verb_prefix(verb: str) -> str:
    """How a message of ``verb`` starts: ``oo update``, ``%oo update`` (in Python the verb
    alone: the exception's type and traceback say where it came from)."""
    skin = current()
    return verb if skin == "python" else f"{skin} {verb}"


def option_said(name: str, value: str = "") -> str:
    """An option as the user passes it: ``--seq N`` to ``oo`` and ``%oo``, ``seq=N`` in Python
    (``name`` in the command's spelling, without the dashes)."""
    if current() == "python":
        return f"{name.replace('-', '_')}={value}"
    return f"--{name} {value}".rstrip()


def force_advice(doing: str = "update") -> str:
    """One sentence: how to ``doing`` anyway (research a fresh document, or set aside a
    proposal that awaits review)."""
    if current() == "python":
        return f"Pass force=True to {doing} anyway."
    return f"Use --force to {doing} anyway."  # the option of `oo` and `%oo` alike


def review_advice(path: str | Path, *, stale: bool = False) -> str:
    """What opens the proposal that awaits review for ``path``: in Python the ``Proposal`` the
    update returned (``doc.proposal()`` reads it again) is it. A ``stale`` one (the document
    changed since it was made) opens only when asked to review it against the current file:
    the update returns no reviewable ``Proposal`` for it."""
    skin = current()
    if skin == "python":
        return "doc.proposal(force=True).review()" if stale else "proposal.review()"
    return f"{skin} review {shlex.quote(str(path))}" + (" --force" if stale else "")


# the saved proposals' calls in Python (oo_nb.api.saved), by the `review` option that does each
_SAVED_CALLS = {
    "list": "oo_nb.api.saved.saved_proposals(path)",
    "pick": "oo_nb.api.saved.pick_saved(path, {name!r})",
    "discard": "oo_nb.api.saved.discard_saved(path, {name!r})",
}


def saved_advice(
    path: str | Path, action: Literal["list", "pick", "discard"], name: str = ""
) -> str:
    """What lists the proposals saved for ``path``, makes ``name`` the current one, or deletes
    it: ``oo review DOC --pick NAME`` on the command line, ``pick_saved(path, NAME)`` in Python."""
    skin = current()
    if skin == "python":
        return _SAVED_CALLS[action].format(name=name)
    return f"{skin} review {shlex.quote(str(path))} --{action}" + (f" {name}" if name else "")


def _said(python: str, verb: str, target: str | Path) -> str:
    """``python`` in Python; else the verb on ``target`` as the user's command or magic."""
    skin = current()
    return python if skin == "python" else f"{skin} {verb} {shlex.quote(str(target))}"


def history_advice(path: str | Path) -> str:
    """What lists the kept versions of ``path``."""
    return _said("oo_nb.open(path).history()", "history", path)


def update_advice(path: str | Path, *, force: bool = False) -> str:
    """What researches ``path`` again (``force``: even while a proposal awaits review)."""
    if force:
        return _said("doc.update(force=True)", "update", path) + (
            "" if current() == "python" else " --force"
        )
    return _said("doc.update()", "update", path)


def new_advice(title: str, *, sentinel: bool = False) -> str:
    """What creates a document titled ``title`` (``sentinel``: one that watches for an event,
    its options left for the user to fill in)."""
    skin = current()
    if skin == "python":
        request = f"NewRequest({title!r}, sentinel=EVENT, criteria=(TEXT,))" if sentinel else ""
        return f"oo_nb.api.new.new_document({request or repr(title)})"
    return f'{skin} new "{title}"' + (" --sentinel EVENT --criteria TEXT" if sentinel else "")


def update_all_advice(folder: str | Path) -> str:
    """What updates every stale document under ``folder``."""
    return _said("oo_nb.Library(folder).update_all()", "update-all", folder)


def check_advice(path: str | Path) -> str:
    """What lists the findings of the document at ``path`` (``oo check``'s)."""
    return _said("oo_nb.format.check.check_path(path)", "check", path)


def sync_advice(folder: str | Path, option: Literal["migrate", "fix_line_endings"]) -> str:
    """What gives the pages under ``folder`` this version's page code with ``option``
    (``--migrate``: also an original o-o page's; ``--fix-line-endings``: LF in the shell part)."""
    skin = current()
    if skin == "python":
        return f"oo_nb.edit.sync.sync_dir(folder, {option}=True)"
    return f"{skin} sync {shlex.quote(str(folder))} --{option.replace('_', '-')}"


def trust_advice(folder: str | Path) -> str:
    """What confirms the library ``folder``'s settings from elsewhere as the user's (its
    alerts, ``.oo/env``, its contracts' ``review: "auto"``): the command, in Python too (no call
    does it: the user's own act, in a terminal)."""
    skin = current()
    return f"{'oo' if skin == 'python' else skin} alerts {shlex.quote(str(folder))} --trust"
