"""The seam through which a proposal becomes the review widget. The widget lives in the notebook
layer, above this one: ``oo_nb/__init__`` registers a factory that imports it on first use, so
``import oo_nb`` does not load ipywidgets and this layer never imports upwards."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from oo_nb.agent.pending import Review
    from oo_nb.format.document import Document
    from oo_nb.review.session import ReviewSession

__all__ = ["Commit", "make_review_widget", "set_review_widget_factory"]

# writes the final document for a proposal (its one write: Proposal._commit): the file written
# (None when nothing changed) and a note to show; raises once the proposal is written or discarded
Commit = Callable[["Document"], "tuple[Path | None, str]"]
# the widget of a proposal: its review, its decisions (shared with Python), its write
ReviewWidgetFactory = Callable[["Review", "ReviewSession", Commit], Any]
_factory: ReviewWidgetFactory | None = None


def set_review_widget_factory(factory: ReviewWidgetFactory | None) -> None:
    global _factory
    _factory = factory


def make_review_widget(review: Review, session: ReviewSession, commit: Commit) -> Any:
    if _factory is None:
        raise RuntimeError("no review widget is registered: import oo_nb (it registers one)")
    return _factory(review, session, commit)
