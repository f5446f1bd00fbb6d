"""What ``%oo`` returns: each verb's shared ``run(ns)`` result turned into notebook data.

The CLI prints ``result.to_text()``; a notebook wants the object behind it. The rules, verb by
verb, live here so that ``magics.py`` stays a parser and the verb modules stay UI-free.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from oo_nb.skin import verb_prefix

if TYPE_CHECKING:
    from oo_nb.api.document import Document
    from oo_nb.api.history import Diff, Rollback
    from oo_nb.api.library import Library

__all__ = ["TextOutput", "adapt_parser", "run_verb"]

# Verbs whose first positional is a folder that the magic lets you leave out (then: ".").
_DIR_VERBS = {
    "library",
    "audit",
    "links",
    "index",
    "sync",
    "update-all",
    "changes",
    "alerts",
    "schedule",
}


class TextOutput:
    """A verb's text for display, with its data and exit code kept for code that wants them."""

    def __init__(self, text: str, value: Any = None, exit_code: int = 0) -> None:
        self.text = text
        self.value = value
        self.exit_code = exit_code

    def to_text(self) -> str:
        return self.text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


def adapt_parser(verb: str, parser: argparse.ArgumentParser) -> None:
    """Notebook conveniences on top of the CLI's arguments: an optional folder (default ".")."""
    if verb in _DIR_VERBS:
        for action in parser._actions:  # argparse has no public API to relax a positional
            if not action.option_strings and action.dest in ("dir", "directory", "folder", "path"):
                if action.nargs is None:
                    action.nargs = "?"
                    action.default = "."
                break


def run_verb(verb: str, ns: argparse.Namespace, *, cell: str | None = None) -> Any:
    if cell is not None:
        return _contract_cell(ns, cell)
    special = _SPECIAL.get(verb)
    if special is not None:
        return special(ns)
    from oo_nb.cli.verbs import load

    return _plain(load(verb).run(ns))


def _plain(result: Any) -> Any:
    """A rich result is returned as is; a text-only one keeps its text, data and exit code."""
    if any(hasattr(result, a) for a in ("_repr_mimebundle_", "_repr_html_", "_ipython_display_")):
        return result
    return TextOutput(result.to_text(), getattr(result, "value", None), int(result.exit_code))


def _run(verb: str, ns: argparse.Namespace) -> Any:
    from oo_nb.cli.verbs import load

    return load(verb).run(ns)


def _show(ns: argparse.Namespace) -> Any:
    from oo_nb.api.document import Document, NotADocument
    from oo_nb.notebook.preview import ArticlePreview, IndexPreview

    try:
        doc = Document.read(ns.doc)
    except NotADocument:  # `oo show` summarises documents only; an index page shows its cards
        return IndexPreview(ns.doc)
    if getattr(ns, "json", False):
        return doc.to_dict()
    return ArticlePreview(doc)


def _history(ns: argparse.Namespace) -> Any:
    from oo_nb.api.history import history_frame, read_entries

    entries = read_entries(ns.doc)  # a deleted document keeps its history: not Document.read
    if not entries:
        raise UsageError(
            f"{verb_prefix('history')}: {ns.doc}: no such document and no kept versions"
        )
    return history_frame(entries)


def _contract_cell(ns: argparse.Namespace, body: str) -> Any:
    from oo_nb.edit.contract_cells import apply_contract_body

    if getattr(ns, "set", None) or getattr(ns, "add", None) or getattr(ns, "remove", None):
        raise UsageError(
            "%%oo contract: put the edits either in the cell body or in --set/--add/--remove, not both"
        )
    return _plain_or_value(apply_contract_body(Path(ns.doc), body))


def _plain_or_value(result: Any) -> Any:
    if hasattr(result, "to_text") and hasattr(result, "exit_code"):
        return _plain(result)
    return result


def _new(ns: argparse.Namespace) -> Document:
    """``%oo new``: the API's ``new_document``, its first update narrated as ``%oo update``
    narrates one; returns the document as it is after it."""
    from oo_nb.api.new import NO_AGENT, new_document
    from oo_nb.cli.new import request_from
    from oo_nb.notebook.update_view import narration

    if ns.title is None:  # the kernel's stdin is no terminal, and no answers are piped to it
        raise UsageError('%oo new: give a title: %oo new "Title / scope"')
    made = new_document(
        request_from(ns),
        ns.dir,
        suffix=ns.suffix,
        update=not ns.no_update,
        review=ns.review,
        agent=ns.agent,
        **narration("the new document"),
    )
    where = shlex.quote(str(made.path))
    if made.set_aside is not None:
        from oo_nb.cli.new import leftover_note

        print(leftover_note(made))
    if made.first_update == "no agent":
        print(
            f"not researched yet: {NO_AGENT}; give it one of the first two, then run: %oo update {where}"
        )
    elif made.first_update == "failed":
        print(f"first update failed: {made.error}")
        print(f"the document is there; try again with: %oo update {where}")
    elif made.proposal is not None:
        print(made.proposal.text())
        if made.proposal.saved_to is not None:
            print(f"review it with: %oo review {where}")
    return made.read()  # as it is now (the first update may have written it)


def _library(ns: argparse.Namespace) -> Library:
    import sys

    from oo_nb.cli.library import left_out_note, open_library, unreadable_note

    if ns.frame != "documents" or ns.format != "table":  # one verb, one type: the Library
        raise UsageError(
            f"%oo library returns the Library; take a frame from it: lib = %oo library {ns.dir} "
            f"then lib.{ns.frame if ns.frame != 'audit' else 'audit(all=True)'}"
        )
    lib = open_library(ns)
    notes = (
        unreadable_note(lib, see="the Library's `.errors` frame (`lib.errors`)"),
        left_out_note(lib),
    )
    for note in filter(None, notes):
        print(f"note: {note}", file=sys.stderr)
    return lib


def _audit(ns: argparse.Namespace) -> Any:
    result = _run("audit", ns)
    print(result.summary())
    return result.value  # the findings frame


def _links(ns: argparse.Namespace) -> Any:
    result = _run("links", ns)  # its progress bar is a widget here (tqdm.auto)
    print(result.summary())
    return result.value  # the links frame


def _index(ns: argparse.Namespace) -> Any:
    from oo_nb.api.library import Library
    from oo_nb.notebook.preview import IndexPreview

    page = Library(ns.dir).index(title=ns.title)
    return IndexPreview(page.path, text=page.to_text())


def _review(ns: argparse.Namespace) -> Any:
    # A notebook cannot answer y/n prompts well: without --accept-all/--reject-all, the widget.
    if not (ns.accept_all or ns.reject_all):
        ns.widget = True
    from oo_nb.api.document import Document
    from oo_nb.cli.review import WidgetRequest

    result = _run("review", ns)
    if isinstance(result, WidgetRequest):
        return Document.read(result.path).proposal(force=result.force).review()
    return result.value if ns.widget and result.value is not None else _plain(result)


_SECTIONS = ("css", "js", "shell", "all")


def _sync(ns: argparse.Namespace) -> Any:
    # `%oo sync css` means the current folder's css, unless a folder really is called "css"
    if ns.dir in _SECTIONS and not Path(ns.dir).is_dir():
        ns.section, ns.dir = ns.dir, "."
    return _plain(_run("sync", ns))


def _changes(ns: argparse.Namespace) -> Any:
    from oo_nb.api.library import Library

    return Library(ns.dir).changes(since=ns.since, kind=ns.kind)


def _diff(ns: argparse.Namespace) -> Diff:
    from oo_nb.api.history import diff_states

    return diff_states(ns.doc, ns.v_from, ns.v_to, from_seq=ns.seq_from, to_seq=ns.seq_to)


def _rollback(ns: argparse.Namespace) -> Rollback:
    from oo_nb.api.history import roll_back

    return roll_back(ns.doc, ns.to, seq=ns.seq, allow_unknown_code=ns.allow_unknown_code)


def _update(ns: argparse.Namespace) -> Any:
    from oo_nb.notebook.update_view import run_update

    return run_update(ns)


_SPECIAL: dict[str, Callable[[argparse.Namespace], Any]] = {
    "show": _show,
    "history": _history,
    "new": _new,
    "library": _library,
    "audit": _audit,
    "links": _links,
    "index": _index,
    "review": _review,
    "update": _update,
    "sync": _sync,
    "changes": _changes,
    "diff": _diff,
    "rollback": _rollback,
}
