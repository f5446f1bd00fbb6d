"""The seam through which a proposal becomes the review widget. The widget lives in the notebook
layer, above this one: ``oo_nb/__init__`` registers a factory that imports it on first use, so
``import oo_nb`` does not load ipywidgets and this layer never imports upwards."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oo_nb.agent.pending import Review

__all__ = ["make_review_widget", "set_review_widget_factory"]

ReviewWidgetFactory = Callable[["Review"], Any]
_factory: ReviewWidgetFactory | None = None


def set_review_widget_factory(factory: ReviewWidgetFactory | None) -> None:
    global _factory
    _factory = factory


def make_review_widget(review: Review) -> Any:
    if _factory is None:
        raise RuntimeError("no review widget is registered: import oo_nb (it registers one)")
    return _factory(review)
