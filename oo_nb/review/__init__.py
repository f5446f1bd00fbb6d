"""Review before write-back: the diff as data (``diff``), decisions and the final document
(``session``), and the terminal review (``terminal``). Nothing here writes a file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oo_nb.review.diff import DocumentDiff, diff_documents
    from oo_nb.review.hunks import Hunk
    from oo_nb.review.session import ReviewSession
    from oo_nb.review.terminal import review_in_terminal

__all__ = ["DocumentDiff", "Hunk", "ReviewSession", "diff_documents", "review_in_terminal"]

_LAZY = {
    "DocumentDiff": "diff",
    "diff_documents": "diff",
    "Hunk": "hunks",
    "ReviewSession": "session",
    "review_in_terminal": "terminal",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
