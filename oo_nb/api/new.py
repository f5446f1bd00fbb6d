"""A new living document: written from a spec into a library folder, the folder's defaults
(``bash index.o-o.html --set``) applied, and whether a research agent is at hand for its first
update. ``oo new`` and ``%oo new`` call these; the spec itself (arguments or answered prompts)
is theirs to make."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from oo_nb.api.document import Document
from oo_nb.errors import OOError

if TYPE_CHECKING:
    from oo_nb.edit.new import NewSpec
    from oo_nb.edit.new_defaults import LibraryDefaults

__all__ = ["create_document", "library_defaults", "research_agent_at_hand"]


def library_defaults(folder: str | Path) -> LibraryDefaults:
    """The defaults a library folder sets for its new documents (none when it is no folder)."""
    from oo_nb.edit.new_defaults import LibraryDefaults, read_defaults

    return read_defaults(folder) if Path(folder).is_dir() else LibraryDefaults()


def create_document(spec: NewSpec, folder: str | Path = ".", *, suffix: bool = False) -> Document:
    """Write a new document from ``spec`` into ``folder``, with the folder's ``model`` and
    ``review`` defaults set in its contract (the spec carries the others).

    Parameters
    ----------
    spec : oo_nb.edit.new.NewSpec
        Title, scope, audience, tone, budget, cadence, sentinel.
    folder : str or pathlib.Path, default "."
        Made when missing.
    suffix : bool, default False
        When the title's name is taken, use the next free ``-2``, ``-3``… instead of failing.

    Returns
    -------
    Document
        The new document, version 0 until its first update.
    """
    from oo_nb.edit.contract import plan_edits
    from oo_nb.edit.new import create_document as write_new
    from oo_nb.edit.new_defaults import LibraryDefaults
    from oo_nb.format.document import Document as Codec

    defaults = library_defaults(folder)
    rest = LibraryDefaults(
        {k: v for k, v in defaults.fields.items() if k in ("model", "review")}, defaults.lists
    )
    edits = rest.edits(sentinel=spec.sentinel is not None)

    def adjust(doc: Codec) -> Codec:
        return plan_edits(doc, edits)[0] if edits else doc

    return Document(write_new(spec, folder, suffix=suffix, adjust=adjust))


def research_agent_at_hand(path: Path, agent: str | None) -> bool:
    """False when nothing could research ``path`` here: no ``agent`` asked for (nor
    ``OO_AGENT``), no API key, no recorded run for the document, no ``claude`` command."""
    from oo_nb.agent.cassettes import find_cassette
    from oo_nb.agent.run import choose_agent

    try:
        chosen = choose_agent(agent, path)
    except OOError:
        return True  # (an unknown agent: the update says so)
    return chosen != "replay" or bool(agent) or find_cassette(path) is not None
