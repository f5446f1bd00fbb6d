"""oo_nb: living research documents (``NAME.o-o.html``) in Python and Jupyter.

>>> lib = oo_nb.Library("docs/")                 # doctest: +SKIP
>>> doc = oo_nb.open("docs/heat-pumps.o-o.html")  # doctest: +SKIP
>>> proposal = doc.update()                       # doctest: +SKIP
>>> proposal.review()   # the widget; or proposal.accept_all().write()   # doctest: +SKIP

Public names: ``Library``, ``Document``, ``open``, ``Proposal``, ``Diff``, ``Rollback``,
``OOError``, and ``options`` (display settings: ``oo_nb.options.display_limit``). In a notebook,
``%load_ext oo_nb`` adds the ``%oo`` magic. Heavy modules (pandas,
lxml, the agent) load on first use so that ``import oo_nb`` is fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import OOError
from oo_nb.format.display import set_html_renderer

if TYPE_CHECKING:
    from oo_nb.agent.pending import Review
    from oo_nb.api import Diff, Document, Library, Proposal, Rollback
    from oo_nb.api.widgets import Commit
    from oo_nb.review.session import ReviewSession

__all__ = [
    "Diff",
    "Document",
    "Library",
    "OOError",
    "Proposal",
    "Rollback",
    "__version__",
    "load_ipython_extension",
    "open",
    "options",
]
__version__ = "0.1.0"

_LAZY = {
    name: ("oo_nb.api", name) for name in ("Diff", "Document", "Library", "Proposal", "Rollback")
}
# the frames' display settings belong to the notebook layer; one object, read where frames show
_LAZY["options"] = ("oo_nb.notebook.frame_display", "options")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'oo_nb' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


def open(path: str | Path) -> Document:  # shadows the builtin here only: oo_nb.open is the API
    """Read the living document at ``path``.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``NAME.o-o.html`` file.

    Returns
    -------
    Document

    Examples
    --------
    >>> oo_nb.open(demo / "heat-pumps-in-europe.o-o.html").title
    'Heat pumps in Europe'
    """
    from oo_nb.api import Document as _Document

    return _Document.read(path)


def _html_for(obj: Any) -> str | None:
    # the notebook layer draws rich displays; imported on the first display, not with oo_nb
    from oo_nb.notebook.preview import html_for

    return html_for(obj)


def _review_widget(review: Review, session: ReviewSession, commit: Commit) -> Any:
    from oo_nb.notebook.review_widget import ReviewWidget

    return ReviewWidget(
        review.original, review.candidate, review.run, session=session, commit=commit
    )


def _register_seams() -> None:
    set_html_renderer(_html_for)
    from oo_nb.api.widgets import set_review_widget_factory

    set_review_widget_factory(_review_widget)


_register_seams()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext oo_nb``: the ``%oo`` magic (run ``%oo --help`` for its verbs)."""
    from oo_nb.notebook.frame_display import register as show_frames
    from oo_nb.notebook.magics import register
    from oo_nb.notebook.warm import prewarm

    register(ipython)
    show_frames(ipython)  # library frames within a display limit, the audit per code
    prewarm(ipython)  # pandas, pyarrow and the SDK imported while the kernel is idle
