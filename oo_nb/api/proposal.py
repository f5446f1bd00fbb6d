"""A proposed update of one document, reviewed in Python or in the review widget.

``Document.update()`` and ``Document.proposal()`` return a ``Proposal``. Its decisions live in a
``ReviewSession`` (the same the widget and the terminal review use); ``write()`` writes what was
accepted through the store (lock, history snapshot, atomic replace) and discards the saved
proposal, as the widget's Write back does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import ConflictError, ValidationError
from oo_nb.format.display import no_typesetting

if TYPE_CHECKING:
    import pandas as pd

    from oo_nb.agent.pending import Review
    from oo_nb.api.document import Document
    from oo_nb.format.document import Document as Parsed
    from oo_nb.review.session import Conflict, ReviewSession

__all__ = ["STATUSES", "DecisionConflict", "Proposal", "ProposalOutdated"]

# proposed: research made one now; awaiting: an earlier run's, not yet reviewed; written: the
# update wrote it (yes/auto); fresh: nothing to do; planned: a dry run; kept: not saved (lost)
STATUSES = ("proposed", "awaiting", "written", "fresh", "planned", "busy", "not saved")
# what to do instead, for each status without a proposal to decide on
_NOTHING_TO_REVIEW = {
    "fresh": "doc.update(force=True) researches it anyway",
    "written": "the update is written already: oo_nb.open(path) reads the new version",
    "planned": "a dry run sends nothing: doc.update() without dry_run researches",
    "busy": "another run is researching it: doc.proposal() opens its proposal when it is done",
    "not saved": "its research is lost: run doc.update() again",
    "awaiting": "doc.proposal() says why it cannot be reviewed as it is",
    # saved, then set aside by another update of the same document before it could be opened
    "proposed": "another run set it aside: oo_nb.api.saved.saved_proposals(path) lists it",
}
CHANGE_COLUMNS = ("section", "kind", "title", "text", "decision")


class ProposalOutdated(ConflictError):
    """The document changed since the proposal was made (``doc.proposal(force=True)`` reviews
    it anyway).

    Attributes
    ----------
    created : str
        When the proposal was made (ISO time).
    rebuilt : bool
        True: reviewing it applies its changes to the file as it is now (its research did not
        see the later changes); False: it is an older file's candidate, and accepting it would
        undo them.
    """

    def __init__(self, message: str, *, file: str, created: str, rebuilt: bool) -> None:
        super().__init__(message, file=file)
        self.created = created
        self.rebuilt = rebuilt


class DecisionConflict(ConflictError):
    """Two decisions disagree (a source rejected while accepted text cites it, or its removal
    accepted while kept text still cites it): ``write()`` wrote nothing, and the message says
    the calls that settle each one.

    Attributes
    ----------
    conflicts : tuple of oo_nb.review.session.Conflict
        The disagreements, each with the source and the changes citing it.
    """

    def __init__(self, message: str, *, file: str, conflicts: tuple[Conflict, ...]) -> None:
        super().__init__(message, file=file)
        self.conflicts = conflicts


def _calls(decide: str, ids: list[str]) -> str:
    """``proposal.reject("a2").reject("a4")``: the chained calls that take ``decide`` on ids."""
    return "proposal" + "".join(f".{decide}({i!r})".replace("'", '"') for i in ids)


def conflict_fixes(session: ReviewSession, conflict: Conflict) -> str:
    """How to settle ``conflict`` in Python, as the user would type it: keep the source (its
    own change decided the other way), or reverse the decisions on the text citing it."""
    source = session.hunk(conflict.source_change)
    keep = _calls("accept" if source.kind == "added" else "reject", [source.id])
    if not conflict.drop_label:  # only a fact cites it: no change of text would settle it
        return f"keep the source: {keep}"
    reverse = {
        hid: "reject" if session.choice(hid).takes_candidate else "accept"
        for hid in conflict.citing
    }
    drop = " and ".join(
        _calls(decide, [h for h, d in reverse.items() if d == decide])
        for decide in ("reject", "accept")
        if decide in reverse.values()
    )
    return f"keep the source: {keep}; or {conflict.drop_label.lower()}: {drop}"


class Proposal:
    """A proposed update of a document and the decisions taken on it.

    Attributes
    ----------
    path : pathlib.Path
        The document.
    status : str
        One of ``proposed``, ``awaiting`` (an earlier run's proposal, not yet reviewed),
        ``written`` (the update wrote it), ``fresh`` (nothing was due), ``planned`` (a dry run),
        ``not saved`` (the research could not be kept).
    message : str
        What the update said, in one line.
    warnings : list of str
        The run's warnings (unverified sources, budget, …).
    cost_usd : float or None
        What the research cost, when known.
    made : str
        When the proposal was made (ISO time; "" when there is none to review).
    plan : dict
        A dry run's plan of the first request (searches, fetches, max_tokens, bound_usd; or
        error); empty otherwise.
    kept_because : list of str
        Why an update asked to write (``yes``/``auto``) was kept for review instead.
    not_saved : str
        Why the research could not be kept (status ``not saved``); "" otherwise.
    saved_to : pathlib.Path or None
        The file this update saved the proposal to, for review.
    written_to : pathlib.Path or None
        The file written, once the update (or ``write()``) changed the document.
    stale, rebuilt : bool
        The document changed since the proposal was made; its changes are then applied to the
        file as it is now (``rebuilt``), else it is an older file's candidate.

    Examples
    --------
    >>> doc = oo_nb.open(demo / "heat-pumps-in-europe.o-o.html")
    >>> proposal = doc.update(agent="replay")
    >>> proposal.status, proposal.reviewable, proposal.saved_to.name
    ('proposed', True, 'pending.json')
    >>> proposal.accept_all().write().version
    2
    >>> proposal.written_to.name, proposal.saved_to
    ('heat-pumps-in-europe.o-o.html', None)
    """

    __module__ = "oo_nb"

    def __init__(
        self,
        path: Path,
        status: str,
        message: str,
        *,
        warnings: list[str] | None = None,
        cost_usd: float | None = None,
        review: Review | None = None,
        reopen: Callable[[Path], Document] | None = None,
    ) -> None:
        self.path = path
        self._reopen = reopen  # reads the document after write() (Document.read)
        self.status = status
        self.message = message
        self.warnings = list(warnings or [])
        self.cost_usd = cost_usd
        self._review = review
        self.made = review.created if review is not None else ""
        self.stale = review.stale if review is not None else False
        self.rebuilt = review.rebuilt if review is not None else False
        self.plan: dict[str, Any] = {}
        self.kept_because: list[str] = []
        self.not_saved = ""
        self.saved_to: Path | None = None
        self.written_to: Path | None = None
        # the one set of decisions: Python's calls, the widget and a terminal review share it
        self._session: ReviewSession | None = None
        self._widget: Any = None
        self._written = False

    @classmethod
    def saved(
        cls,
        path: str | Path,
        reopen: Callable[[Path], Document],
        *,
        force: bool = False,
        status: str = "awaiting",
    ) -> Proposal:
        """The proposal saved for ``path``, rebuilt through the agent's checks.

        Parameters
        ----------
        path : str or pathlib.Path
            The document.
        reopen : callable
            Reads the document after ``write()`` (``Document.read``).
        force : bool, default False
            Review it even though the document changed since it was made.
        status : str, default "awaiting"
            The status to give it.

        Returns
        -------
        Proposal

        Raises
        ------
        oo_nb.OOError
            No proposal is saved (``NotFound``), it is damaged, or the document changed since
            (``ProposalOutdated``, a ``ConflictError``: pass ``force=True``, or update again).
        """
        from oo_nb.agent.pending import StaleProposal, open_review

        try:  # absolute: a later %cd must not turn its write to another folder's file
            review = open_review(Path(path).absolute(), force=force)
        except StaleProposal as exc:
            raise ProposalOutdated(
                f"changed since this proposal was made ({exc.created}); update again with "
                "doc.update(force=True), or review it anyway with doc.proposal(force=True)",
                file=str(path),
                created=exc.created,
                rebuilt=exc.rebuilt,
            ) from None
        run = review.run
        cost = run.get("cost_usd")
        return cls(
            review.path,
            status,
            f"proposal made {review.created} awaits review",
            warnings=[w for w in run.get("warnings") or [] if isinstance(w, str)],
            cost_usd=float(cost) if isinstance(cost, int | float) else None,
            review=review,
            reopen=reopen,
        )

    @property
    def reviewable(self) -> bool:
        """True when there is a proposal to decide on and write (status proposed or awaiting)."""
        return self._review is not None and not self._written

    def _decisions(self) -> ReviewSession:
        if self._review is None:
            fix = _NOTHING_TO_REVIEW.get(self.status, "see the message")
            raise ValidationError(
                f"nothing to review ({self.status}: {self.message}); {fix}", file=str(self.path)
            )
        if self._written:
            raise ValidationError(
                "already written; doc.proposal() after the next doc.update() opens a new one",
                file=str(self.path),
            )
        if self._session is None:
            from oo_nb.review.session import ReviewSession

            r = self._review
            self._session = ReviewSession(r.original, r.candidate, r.run)
        return self._session

    @property
    def changes(self) -> pd.DataFrame:
        """One row per change to decide, indexed by its id.

        Columns: section (object), kind (object: added, removed, changed, …), title (object),
        text (object: the proposed text, or the removed one), decision (object: pending,
        accept, reject or edit)."""
        import pandas as pd

        session = self._decisions()
        rows = [
            {
                "id": h.id,
                "section": h.section,
                "kind": h.kind,
                "title": h.title,
                "text": h.after_text or h.before_text,
                "decision": session.decision(h.id),
            }
            for h in session.diff.decidable
        ]
        return pd.DataFrame(rows, columns=["id", *CHANGE_COLUMNS]).set_index("id")

    def accept(self, change: str) -> Proposal:
        """Accept one change by its id (a row of ``changes``). Returns this proposal."""
        self._decisions().accept(change)
        return self._decided()

    def reject(self, change: str) -> Proposal:
        """Reject one change by its id (a row of ``changes``). Returns this proposal."""
        self._decisions().reject(change)
        return self._decided()

    def accept_all(self) -> Proposal:
        """Accept every change (hand edits are kept). Returns this proposal, to chain ``write()``."""
        self._decisions().accept_all()
        return self._decided()

    def reject_all(self) -> Proposal:
        """Reject every change (hand edits are kept). Returns this proposal."""
        self._decisions().reject_all()
        return self._decided()

    def _decided(self) -> Proposal:
        """The widget shown for this proposal shows decisions taken elsewhere too."""
        if self._widget is not None:
            self._widget.decisions_changed()
        return self

    def review_in_terminal(
        self, *, accept_all: bool = False, reject_all: bool = False, color: bool | None = None
    ) -> bool:
        """Ask about each change on the terminal (y/n/e/a/d/q), as ``oo review`` does; then
        ``write()`` writes what was accepted.

        Parameters
        ----------
        accept_all, reject_all : bool, default False
            Decide every change so, without asking.
        color : bool, optional
            Colour the diff (default: when the output is a terminal).

        Returns
        -------
        bool
            True when the review went to its end: its answers are this proposal's decisions
            (later calls may change them); False when it was quit early (the decisions stay as
            they were, and the saved proposal is kept).
        """
        session = self._decisions()  # raises, saying why there is nothing to review
        from oo_nb.review.session import ReviewSession
        from oo_nb.review.terminal import review_in_terminal

        r = self._review
        assert r is not None
        asked = ReviewSession(r.original, r.candidate, r.run, diff=session.diff)
        final = review_in_terminal(
            r.original,
            r.candidate,
            r.run,
            accept_all=accept_all,
            reject_all=reject_all,
            color=color,
            session=asked,
        )
        if final is None:
            return False
        session.take_decisions(asked)
        self._decided()
        return True

    def write(self, *, action: str = "review") -> Document:
        """Write what was accepted and discard the saved proposal (kept when changes were left
        undecided: ``doc.proposal(force=True)`` reviews them against the version written; the
        warnings say so).

        Parameters
        ----------
        action : str, default "review"
            What the history records this write as.

        Returns
        -------
        Document
            The document as it is now: the new version, or unchanged when everything was
            rejected.

        Raises
        ------
        oo_nb.OOError
            Nothing decided yet (call ``accept_all()`` or ``reject_all()`` first), two decisions
            disagree (``DecisionConflict``: a rejected source that accepted text cites), the
            file changed since the proposal was made or the review opened (``ConflictError``),
            the proposal was written or discarded already (by its widget, or another object of
            the same saved proposal), or the file is locked.
        """
        session = self._decisions()
        assert self._review is not None
        final = session.apply().with_path(self.path)
        undecided = session.pending
        if final.to_bytes() == self._review.expected and undecided:
            # the research is paid for: an unanswered review is no rejection
            raise ValidationError(
                f"nothing accepted and {len(undecided)} change(s) undecided: nothing written; "
                "call proposal.accept_all() or proposal.reject_all() (or accept/reject by id) "
                "first",
                file=str(self.path),
            )
        self._refuse_conflicts(session)
        written, note = self._commit(final, action=action)
        if self._widget is not None:  # the widget shown for it takes no more decisions
            self._widget.show_written(final, written, note)
        assert self._reopen is not None  # a proposal to write is always made with one
        return self._reopen(self.path)

    def _commit(self, final: Parsed, *, action: str = "review") -> tuple[Path | None, str]:
        """Write ``final`` when it changes the file, and discard this proposal's own saved file
        (never another's: a later ``update(force=True)`` saved one to review in its place); when
        changes were left undecided, the file is kept for them instead. The one write of every
        view: Python's ``write()``, the widget's Write back, a terminal review's. Returns the file
        written (None when nothing changed) and a note to show ("" when none)."""
        from oo_nb.store.proposals import discard_reviewed, reviewed_file
        from oo_nb.store.store import write_document

        undecided = len(self._decisions().pending)  # (raises once written)
        review = self._review
        assert review is not None
        if reviewed_file(self.path, review.saved_sha256) is None:
            raise ConflictError(
                "this proposal was written or discarded already (its saved file is gone): "
                "nothing written; doc.proposal() opens the one saved now, if any",
                file=str(self.path),
            )
        written = None
        if final.to_bytes() != review.expected:
            try:
                written = write_document(
                    final, expected=review.expected, action=action, scrub_secrets=True
                )
            except ConflictError:  # made (or opened) on an older file: it would undo the change
                raise ProposalOutdated(
                    f"changed since this proposal was made ({review.created}): nothing written; "
                    "doc.proposal(force=True) reviews it against the file as it is now",
                    file=str(self.path),
                    created=review.created,
                    rebuilt=review.rebuilt,
                ) from None
            self.written_to = written
        note = ""
        if written is not None and undecided:  # research paid for: an unanswered change stays
            self.saved_to = reviewed_file(self.path, review.saved_sha256)
            note = (
                f"{undecided} undecided change(s) not written, kept for a later review: "
                "doc.proposal(force=True) reviews them against the version written now"
            )
            self.warnings.append(note)
        else:
            discard_reviewed(self.path, review.saved_sha256)
            self.saved_to = None
        self._written = True
        return written, note

    def _refuse_conflicts(self, session: ReviewSession) -> None:
        """Decisions that disagree are the user's to settle, as the widget and the terminal
        review ask: writing would otherwise keep the source they rejected without a word."""
        conflicts = session.conflicts()
        if not conflicts:
            return
        said = " ".join(
            f"{c.question} To settle it, {conflict_fixes(session, c)}." for c in conflicts
        )
        raise DecisionConflict(
            f"nothing written: {len(conflicts)} decision(s) disagree. {said} Then call "
            "proposal.write() again.",
            file=str(self.path),
            conflicts=conflicts,
        )

    def review(self) -> Any:
        """The review widget of this proposal (one widget per proposal, shown again on each call).

        Returns
        -------
        oo_nb.notebook.review_widget.ReviewWidget
            Accept, reject or edit each change, then Write back.
        """
        if self._review is None or self._written:
            self._decisions()  # raises, saying why there is nothing to review
        if self._widget is None:
            from oo_nb.api.widgets import make_review_widget

            assert self._review is not None
            self._widget = make_review_widget(self._review, self._decisions(), self._commit)
        return self._widget

    def text(self) -> str:
        """The proposal in a few lines.

        Returns
        -------
        str
            Status, cost, the changes' count and decisions, the run's warnings.
        """
        cost = "" if self.cost_usd is None else f" (cost ${self.cost_usd:.4f})"
        said = self.message.removeprefix(f"{self.path.name}: ")  # the name leads once
        if self.plan:  # a dry run: what the first request would be
            said += "; first request plan: " + ", ".join(f"{k} {v}" for k, v in self.plan.items())
        if self.not_saved:
            said += f"; proposal NOT saved: {self.not_saved}"
        lines = [f"{self.path.name}: {self.status}{cost}: {said}"]
        if self.reviewable:
            session = self._decisions()
            counts = session.counts()
            lines.append(
                f"{sum(counts.values())} change(s): {counts['accept']} accepted, "
                f"{counts['reject']} rejected, {counts['edit']} edited, {counts['pending']} undecided"
            )
            if counts["pending"] < sum(counts.values()):  # undecided, nothing can disagree
                lines += [
                    f"to settle before write(): {c.question} ({conflict_fixes(session, c)})"
                    for c in session.conflicts()
                ]
        lines += [f"warning: {w}" for w in self.warnings]
        if self.kept_because:
            lines.append(
                "warning: not written automatically, kept for review: "
                + "; ".join(self.kept_because)
            )
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if self.reviewable:  # in a notebook, a proposal to review is its widget
            show = getattr(self.review(), "_repr_mimebundle_", None)  # None once closed
            bundle = show(include=include, exclude=exclude) if show is not None else None
            if bundle is not None:
                return dict(bundle)
        import html

        items = "".join(f"<li>{html.escape(line)}</li>" for line in self.text().splitlines())
        return {"text/plain": self.text(), "text/html": no_typesetting(f"<ul>{items}</ul>")}

    def __repr__(self) -> str:
        return self.text()
