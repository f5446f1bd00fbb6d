"""The proposals saved for one document: the current one (``pending.json``, what
``doc.proposal()`` opens) and earlier ones set aside by ``update(force=True)``, listed, picked
to be current, or discarded for good. ``oo review --list/--pick/--discard`` call these."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oo_nb.store.proposals import ProposalInfo

__all__ = ["discard_saved", "pick_saved", "saved_proposals"]


def saved_proposals(path: str | Path) -> list[ProposalInfo]:
    """The proposals saved for ``path``, the current one first.

    Parameters
    ----------
    path : str or pathlib.Path
        The document (it need not be readable: its proposals are files of its own).

    Returns
    -------
    list of ProposalInfo
        Each with ``name``, ``created``, ``version``, ``cost_usd``, ``stale``, ``damaged`` and
        ``current`` (True for ``pending.json``).
    """
    from oo_nb.store.proposals import list_proposals

    return list_proposals(Path(path))


def pick_saved(path: str | Path, name: str) -> Path | None:
    """Make the set-aside proposal ``name`` the current one; the current one is set aside.

    Parameters
    ----------
    path : str or pathlib.Path
        The document.
    name : str
        A name from ``saved_proposals`` (``pending-<ns>.json``).

    Returns
    -------
    pathlib.Path or None
        Where the proposal it replaced was set aside (None: there was none).
    """
    from oo_nb.store.proposals import pick_proposal

    return pick_proposal(Path(path), name)


def discard_saved(path: str | Path, name: str) -> ProposalInfo:
    """Delete the saved proposal ``name`` for good (its research is gone).

    Parameters
    ----------
    path : str or pathlib.Path
        The document.
    name : str
        A name from ``saved_proposals`` (``pending.json`` is the current one).

    Returns
    -------
    ProposalInfo
        The proposal deleted (its ``cost_usd`` says what its research cost).
    """
    from oo_nb.store.proposals import discard_proposal

    return discard_proposal(Path(path), name)
