"""A new living document: ``new_document`` writes it from a ``NewRequest`` into a library folder
(what the request leaves out taken from the folder's defaults, ``bash index.o-o.html --set``,
else oo_nb's), then runs its first update. ``oo new`` and ``%oo new`` are skins over it: they
make the request (from arguments, or from answers to questions asked in a terminal) and print
the ``NewDocument`` it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from oo_nb.api.document import Document
from oo_nb.edit.new import (
    DEFAULT_AUDIENCE,
    DEFAULT_BUDGET_USD,
    DEFAULT_EVERY_DAYS,
    DEFAULT_TONE,
    NewSpec,
    parse_budget,
    parse_days,
    split_title,
)
from oo_nb.errors import OOError, ValidationError

if TYPE_CHECKING:
    from collections.abc import Callable

    from oo_nb.api.proposal import Proposal
    from oo_nb.edit.new_defaults import LibraryDefaults

__all__ = [
    "NO_AGENT",
    "NewDefaults",
    "NewDocument",
    "NewRequest",
    "new_defaults",
    "new_document",
    "parse_budget",
]

# why a first update could not run here; each skin says what to run after it
NO_AGENT = (
    "no research agent here (no ANTHROPIC_API_KEY, no `claude` command on PATH, no recorded "
    "run for it)"
)


@dataclass(frozen=True)
class NewRequest:
    """What a new document is about. A field left ``None`` takes the folder's default for new
    documents, else oo_nb's.

    Attributes
    ----------
    title : str
        The subject; it names the file.
    scope : str
        What it should cover (empty: the title).
    audience, tone : str or None
        Who reads it, how it is written.
    budget : float or str or None
        Most an update may cost, in US dollars (``"0.50"`` or ``"$0.50"`` as typed).
    every_days : int or str or None
        The update cadence in days.
    sentinel : str or None
        Makes it a sentinel document watching for this event.
    criteria : tuple of str
        With ``sentinel``: what would count as the event happening.

    Examples
    --------
    >>> from oo_nb.api.new import NewRequest
    >>> NewRequest.from_text("Tide power / tidal stream projects", budget="2")
    NewRequest(title='Tide power', scope='tidal stream projects', audience=None, tone=None, budget='2', every_days=None, sentinel=None, criteria=())
    """

    title: str
    scope: str = ""
    audience: str | None = None
    tone: str | None = None
    budget: float | str | None = None
    every_days: int | str | None = None
    sentinel: str | None = None
    criteria: tuple[str, ...] = ()

    @classmethod
    def from_text(cls, text: str, **fields: Any) -> NewRequest:
        """A request from ``"Title / scope"``: everything after the first `` / `` is the scope.

        Parameters
        ----------
        text : str
            The title, then optionally `` / `` and the scope.
        **fields
            The request's other fields.

        Returns
        -------
        NewRequest

        Raises
        ------
        oo_nb.errors.ValidationError
            ``text`` holds no title.
        """
        title, scope = split_title(text)
        return cls(title=title, scope=scope, **fields)


@dataclass(frozen=True)
class NewDefaults:
    """What a new document in a folder starts with when its request leaves a field out."""

    audience: str = DEFAULT_AUDIENCE
    tone: str = DEFAULT_TONE
    budget_usd: float = DEFAULT_BUDGET_USD
    every_days: int = DEFAULT_EVERY_DAYS


@dataclass
class NewDocument:
    """What ``new_document`` did.

    Attributes
    ----------
    document : oo_nb.Document
        The new document as it was created (version 0); ``read()`` reads it as it is now.
    first_update : {"ran", "not asked", "no agent", "failed"}
        Whether its first update ran: ``proposal`` holds what it did; ``update=False`` asked
        for none; nothing could research it here (``NO_AGENT`` says why); it failed
        (``error``; the document stays).
    proposal : oo_nb.Proposal or None
        The first update's proposal (written, saved for review, or not saved).
    error : oo_nb.OOError or None
        Why the first update failed.
    set_aside : pathlib.Path or None
        A proposal left awaiting review by a deleted document of the same file name, set aside
        under this name so it is never taken for the new document's (``Document.proposals()``
        lists it).

    Examples
    --------
    The demo library holds a recorded first run for this sentinel document, so its first
    update replays offline:

    >>> from oo_nb.api.new import NewRequest, new_document
    >>> made = new_document(
    ...     NewRequest.from_text(
    ...         "Artemis Moon landing / astronauts back on the lunar surface under NASA's "
    ...         "Artemis programme",
    ...         sentinel="Astronauts land on the Moon under NASA's Artemis programme",
    ...     ),
    ...     demo,
    ... )
    >>> made.first_update, made.proposal.status, made.document.version, made.read().version
    ('ran', 'written', 0, 1)
    """

    document: Document
    first_update: Literal["ran", "not asked", "no agent", "failed"] = "not asked"
    proposal: Proposal | None = None
    error: OOError | None = field(default=None)
    set_aside: Path | None = None

    @property
    def path(self) -> Path:
        """The new file."""
        return self.document.path

    def read(self) -> Document:
        """The document as it is now (its first update may have written version 1).

        Returns
        -------
        oo_nb.Document
        """
        return Document.read(self.path)


def new_defaults(folder: str | Path = ".") -> NewDefaults:
    """The defaults a new document in ``folder`` starts with: the folder's own (``bash
    index.o-o.html --set``), else oo_nb's.

    Parameters
    ----------
    folder : str or pathlib.Path, default "."
        A library folder (none yet: oo_nb's defaults).

    Returns
    -------
    NewDefaults

    Raises
    ------
    oo_nb.OOError
        The folder's defaults file is damaged (the error names it).

    Examples
    --------
    >>> from oo_nb.api.new import new_defaults
    >>> new_defaults(demo).budget_usd
    0.5
    """
    return _defaults_from(_library_defaults(folder))


def _defaults_from(library: LibraryDefaults) -> NewDefaults:
    fields = library.fields
    budget, every = fields.get("budget"), fields.get("update_every_days")
    return NewDefaults(
        audience=fields.get("audience") or DEFAULT_AUDIENCE,
        tone=fields.get("tone") or DEFAULT_TONE,
        budget_usd=parse_budget(budget) if budget is not None else DEFAULT_BUDGET_USD,
        every_days=parse_days(every) if every is not None else DEFAULT_EVERY_DAYS,
    )


def new_document(
    request: NewRequest | str,
    folder: str | Path = ".",
    *,
    suffix: bool = False,
    update: bool = True,
    review: bool = False,
    agent: str | None = None,
    progress: Callable[[str], None] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> NewDocument:
    """Write a new document into ``folder``, then run its first update.

    A new document has nothing to protect: its first update is written (within its budget)
    unless ``review`` asks to keep it for review.

    Parameters
    ----------
    request : NewRequest or str
        What it is about; a string is ``"Title / scope"``.
    folder : str or pathlib.Path, default "."
        Made when missing; its defaults for new documents apply.
    suffix : bool, default False
        When the title's file name is taken, use the next free ``-2``, ``-3``… instead of
        failing.
    update : bool, default True
        Run the first update (False: only create the file).
    review : bool, default False
        Keep the first update as a proposal for review instead of writing it.
    agent : {"anthropic", "claude-code", "replay"}, optional
        The research backend of the first update (default: as ``Document.update`` chooses).
    progress, on_start : callable, optional
        Told each research step, and the agent's name when research begins.

    Returns
    -------
    NewDocument

    Raises
    ------
    oo_nb.errors.ValidationError
        A field of the request (or ``agent``) is not valid: the error names it; nothing is
        created.
    oo_nb.OOError
        The file name is taken (and not ``suffix``), or ``folder`` is a file.

    Examples
    --------
    >>> from oo_nb.api.new import new_document
    >>> made = new_document("Tide power / tidal stream projects", demo, update=False)
    >>> made.path.name, made.document.version, made.first_update
    ('tide-power.o-o.html', 0, 'not asked')
    >>> made.document.contract.scope
    'tidal stream projects'
    """
    if isinstance(request, str):
        request = NewRequest.from_text(request)
    if update and agent is not None:
        _check_agent(agent)
    doc = _write(request, folder, suffix=suffix)
    aside = _set_aside_leftover(doc.path)
    if not update:
        return NewDocument(doc, set_aside=aside)
    if not _agent_at_hand(doc.path, agent):
        return NewDocument(doc, "no agent", set_aside=aside)
    from oo_nb.api.update import propose_update

    try:
        proposal = propose_update(
            doc.path,
            Document.read,
            yes=not review,
            agent=agent,
            progress=progress,
            on_start=on_start,
        )
    except OOError as exc:
        return NewDocument(doc, "failed", error=exc, set_aside=aside)
    return NewDocument(doc, "ran", proposal, set_aside=aside)


def _set_aside_leftover(path: Path) -> Path | None:
    """A proposal awaiting review at a file name nobody held until now was made for a deleted
    document: it is set aside (kept, it was paid for), never reviewed, applied or awaited as the
    new document's. Done once the new file exists, so a name that was taken moves nothing."""
    from oo_nb.store.proposals import set_aside_pending

    return set_aside_pending(path)


def _library_defaults(folder: str | Path) -> LibraryDefaults:
    from oo_nb.edit.new_defaults import LibraryDefaults, read_defaults

    return read_defaults(folder) if Path(folder).is_dir() else LibraryDefaults()


def _spec(request: NewRequest, defaults: NewDefaults) -> NewSpec:
    return NewSpec(
        title=request.title,
        scope=request.scope,
        audience=request.audience or defaults.audience,
        tone=request.tone or defaults.tone,
        budget_usd=(
            parse_budget(request.budget) if request.budget is not None else defaults.budget_usd
        ),
        every_days=(
            parse_days(request.every_days)
            if request.every_days is not None
            else defaults.every_days
        ),
        sentinel=request.sentinel,
        criteria=tuple(request.criteria),
    )


def _write(request: NewRequest, folder: str | Path, *, suffix: bool) -> Document:
    """The file written, with the folder's ``model`` and ``review`` defaults set in its contract
    (the spec carries the others)."""
    from oo_nb.edit.contract import plan_edits
    from oo_nb.edit.new import create_document as write_new
    from oo_nb.edit.new_defaults import LibraryDefaults
    from oo_nb.format.document import Document as Codec

    library = _library_defaults(folder)
    spec = _spec(request, _defaults_from(library))
    rest = LibraryDefaults(
        {k: v for k, v in library.fields.items() if k in ("model", "review")}, library.lists
    )
    edits = rest.edits(sentinel=spec.sentinel is not None)

    def adjust(doc: Codec) -> Codec:
        return plan_edits(doc, edits)[0] if edits else doc

    return Document(write_new(spec, folder, suffix=suffix, adjust=adjust))


def _check_agent(agent: str) -> None:
    from oo_nb.agent.run import AGENTS

    if agent not in AGENTS:
        raise ValidationError(
            f"unknown agent {agent!r}: one of {', '.join(AGENTS)}; nothing created", key="agent"
        )


def _agent_at_hand(path: Path, agent: str | None) -> bool:
    """False when nothing could research ``path`` here: no ``agent`` asked for (nor
    ``OO_AGENT``), no API key, no recorded run for the document, no ``claude`` command."""
    from oo_nb.agent.cassettes import find_cassette
    from oo_nb.agent.run import choose_agent

    try:
        chosen = choose_agent(agent, path)
    except OOError:
        return True  # (an unknown OO_AGENT: the update says so)
    return chosen != "replay" or bool(agent) or find_cassette(path) is not None
