"""One living document as a Python object: read it, update it, review and write the proposal,
see its history, compare and roll back kept states.

The codec (``oo_nb.format.document``: spans, splicing, block bytes) stays behind this object;
what a user reads here is the document's content and the calls that change it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import NotFound, OOError
from oo_nb.format.document import Document as _Codec

if TYPE_CHECKING:
    import pandas as pd

    from oo_nb.api.history import Diff, Rollback
    from oo_nb.api.proposal import Proposal
    from oo_nb.format.article import Article
    from oo_nb.format.blocks import Changelog, Contract, Manifest, SourceCache

__all__ = ["Document", "NotADocument"]


class NotADocument(OOError):
    """The file is a library's index page (``index.o-o.html``), not a document: it has no
    manifest or contract. ``oo_nb.Library(folder)`` reads its folder."""


class Document:
    """A living document (``NAME.o-o.html``) as it was when read.

    Read one with ``oo_nb.open(path)`` or ``Document.read(path)``; a document is a snapshot:
    after a write, read it again (``write()`` and ``rollback()`` return or leave the new
    state on disk).

    Attributes
    ----------
    path : pathlib.Path
        The file.

    Examples
    --------
    >>> doc = oo_nb.open(demo / "heat-pumps-in-europe.o-o.html")
    >>> doc
    <oo_nb.Document heat-pumps-in-europe.o-o.html: 'Heat pumps in Europe', version 1>
    >>> doc.version, doc.manifest.cadence_days
    (1, 7)
    """

    __module__ = "oo_nb"

    def __init__(self, codec: _Codec) -> None:
        if codec.path is None:
            raise ValueError("a Document is read from a file: use oo_nb.open(path)")
        self._codec = codec
        self.path = Path(codec.path)

    @classmethod
    def read(cls, path: str | Path) -> Document:
        """Read the document at ``path``.

        Parameters
        ----------
        path : str or pathlib.Path
            A ``NAME.o-o.html`` file.

        Returns
        -------
        Document

        Raises
        ------
        oo_nb.OOError
            The file is not a document (``NotADocument``: an index page; or a damaged block:
            the error names the file, block, line and column).
        OSError
            The file cannot be read.

        Examples
        --------
        >>> oo_nb.Document.read(demo / "fusion-power-on-the-grid.o-o.html").title
        'Fusion power on the grid'
        """
        # absolute at open: a later %cd must not turn this object to another folder's file
        codec = _Codec.read(Path(path).absolute())
        if codec.kind != "document":
            raise NotADocument(
                "is a library index page, not a document: oo_nb.Library(folder) reads its folder",
                file=str(path),
            )
        return cls(codec)

    # the content, as typed views of the four blocks and the article
    @property
    def manifest(self) -> Manifest:
        """The manifest block: title, version, as-of date, cadence."""
        return self._codec.manifest

    @property
    def contract(self) -> Contract:
        """The operative contract: scope, audience, budget, cadence, sentinel criteria."""
        return self._codec.contract

    @property
    def sources(self) -> SourceCache:
        """The source cache: every source the article may cite, by id."""
        return self._codec.source_cache

    @property
    def changelog(self) -> Changelog:
        """The changelog block: one entry per update."""
        return self._codec.changelog

    @property
    def article(self) -> Article:
        """The article: sections, paragraphs with their ids, citations, references."""
        return self._codec.article

    @property
    def title(self) -> str:
        """The manifest's title."""
        return self.manifest.title

    @property
    def version(self) -> int:
        """The manifest's version (1 for a new document; each written update adds one)."""
        return self.manifest.version

    @property
    def article_html(self) -> str:
        """The article element's HTML as stored (untrusted: show it sandboxed)."""
        return self._codec.article_html

    def summary(self) -> str:
        """A readable summary, as ``oo show`` prints it.

        Returns
        -------
        str
            Title, version and dates, the contract, sources by tier, the sections.

        Examples
        --------
        >>> print(oo_nb.open(demo / "heat-pumps-in-europe.o-o.html").summary())
        Heat pumps in Europe
        ====================
        version 1, as of ...
        """
        from oo_nb.format.summary import summary_text

        return summary_text(self._codec)

    def to_dict(self) -> dict[str, Any]:
        """The normalised views (manifest, contract, sources, changelog, article), as
        ``oo show --json`` prints them.

        Returns
        -------
        dict
            JSON-ready: ``json.dumps`` takes it as it is.

        Examples
        --------
        >>> oo_nb.open(demo / "heat-pumps-in-europe.o-o.html").to_dict()["manifest"]["version"]
        1
        """
        from oo_nb.format.summary import summary_json

        return summary_json(self._codec)

    def to_bytes(self) -> bytes:
        """The file's bytes.

        Returns
        -------
        bytes
            As read (an original o-o document round-trips byte for byte).
        """
        return self._codec.to_bytes()

    # changing it
    def update(
        self,
        *,
        force: bool = False,
        model: str | None = None,
        budget: float | None = None,
        agent: str | None = None,
        timeout: float | None = None,
        dry_run: bool = False,
        yes: bool = False,
        auto: bool = False,
        progress: Callable[[str], None] | None = None,
        on_start: Callable[[str], None] | None = None,
        **agent_options: Any,
    ) -> Proposal:
        """Research what changed and propose an update; the file is not written unless
        ``yes`` (or ``auto`` and the proposal is clean).

        Parameters
        ----------
        force : bool, default False
            Research even when the document is fresh, or while an earlier proposal awaits
            review (it is set aside, not lost).
        model : str, optional
            A model id or family (``sonnet``, ``opus``, ``haiku``); default: the contract's.
        budget : float, optional
            Spend at most this many dollars (default: the contract's budget).
        agent : {"anthropic", "claude-code", "replay"}, optional
            The research backend (default: the API with a key, else the recorded run).
        timeout : float, optional
            Give up after this many seconds; nothing is written then.
        dry_run : bool, default False
            Say what would be sent; call nothing, write nothing.
        yes : bool, default False
            Write the update without review (history kept).
        auto : bool, default False
            Write it only when it is clean, else keep it for review.
        progress, on_start : callable, optional
            Told each research step, and the agent's name when research begins.
        **agent_options
            Further agent options: ``base_url``, ``cassette`` (a recorded run to replay),
            ``stream``, ``record`` (a cassette to write).

        Returns
        -------
        Proposal
            Status ``proposed`` (review it), ``awaiting`` (an earlier proposal, not researched
            again), ``written``, ``fresh``, ``planned`` or ``not saved``.

        Examples
        --------
        >>> fresh = oo_nb.open(demo / "perovskite-solar-cells.o-o.html").update(agent="replay")
        >>> fresh.status, fresh.reviewable
        ('fresh', False)
        """
        from oo_nb.api.update import propose_update

        return propose_update(
            self.path,
            Document.read,
            yes=yes,
            auto=True if auto else None,  # else the contract's `review` decides
            force=force,
            model=model,
            budget=budget,
            agent=agent,
            timeout=timeout,
            dry_run=dry_run,
            progress=progress,
            on_start=on_start,
            **agent_options,
        )

    def proposal(self, *, force: bool = False) -> Proposal:
        """The proposal awaiting review (saved by an earlier ``update()``).

        Parameters
        ----------
        force : bool, default False
            Review it even though the document changed since it was made.

        Returns
        -------
        Proposal

        Raises
        ------
        oo_nb.OOError
            None is saved (run ``doc.update()``), or it cannot be reviewed as it is.
        """
        from oo_nb.api.proposal import Proposal

        try:
            return Proposal.saved(self.path, Document.read, force=force)
        except NotFound:
            raise NotFound(
                "no proposal awaits review; doc.update() researches one", file=str(self.path)
            ) from None

    def history(self) -> pd.DataFrame:
        """Every kept state of the document, oldest first; the current file is the last row.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``seq``; columns version (Int64), as_of (datetime64), saved_at
            (datetime64, UTC), state (object), cost_usd (Float64), summary (object).

        Examples
        --------
        >>> oo_nb.open(demo / "fusion-power-on-the-grid.o-o.html").history()["state"].tolist()
        ['current']
        """
        from oo_nb.api.history import history_frame, read_entries

        return history_frame(read_entries(self.path))

    def diff(
        self,
        older: int | None = None,
        newer: int | None = None,
        *,
        from_seq: int | None = None,
        to_seq: int | None = None,
    ) -> Diff:
        """What changed between two kept states, as the review shows it.

        Parameters
        ----------
        older, newer : int, optional
            Manifest versions; ``newer`` left out: the current file.
        from_seq, to_seq : int, optional
            States by their ``history()`` seq instead (every state has one).

        Returns
        -------
        Diff
            Its ``changes`` (the review's diff as data) and a ``label`` naming the states.

        Examples
        --------
        >>> doc = oo_nb.open(demo / "heat-pumps-in-europe.o-o.html")
        >>> doc.update(agent="replay", yes=True).status
        'written'
        >>> print(doc.diff(1).label)
        /.../heat-pumps-in-europe.o-o.html: v1 → the current file (v2)
        """
        from oo_nb.api.history import diff_states

        return diff_states(self.path, older, newer, from_seq=from_seq, to_seq=to_seq)

    def rollback(
        self, to: int | None = None, *, seq: int | None = None, allow_unknown_code: bool = False
    ) -> Rollback:
        """Restore a kept state byte for byte; the replaced file stays in history.

        Parameters
        ----------
        to : int, optional
            The manifest version to restore (the newest state of it that differs from now).
        seq : int, optional
            The history entry to restore instead.
        allow_unknown_code : bool, default False
            Restore a state whose page code oo_nb does not know.

        Returns
        -------
        Rollback
            Which state is in place now, and whether anything was written.

        Examples
        --------
        >>> done = oo_nb.open(demo / "heat-pumps-in-europe.o-o.html").rollback(1)
        >>> done.written, done.version, done.previous_seq
        (True, 1, 2)
        """
        from oo_nb.api.history import roll_back

        return roll_back(self.path, to, seq=seq, allow_unknown_code=allow_unknown_code)

    def __repr__(self) -> str:
        return f"<oo_nb.Document {self.path.name}: {self.title!r}, version {self.version}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        bundle = self._codec._repr_mimebundle_(include, exclude)
        bundle["text/plain"] = repr(self)
        return bundle
