"""The Python API: the calls a notebook user makes, which the ``oo`` CLI and the ``%oo`` magic
both call. ``oo_nb`` re-exports the public names (``oo_nb.Library``, ``oo_nb.open`` …).

The names load on first use (``oo_nb.api.widgets``, the review widget's seam, is imported with
``oo_nb`` and must not bring pandas or lxml with it)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oo_nb.api.document import Document
    from oo_nb.api.history import Diff, Rollback
    from oo_nb.api.library import Library
    from oo_nb.api.proposal import Proposal

__all__ = ["Diff", "Document", "Library", "Proposal", "Rollback"]

_WHERE = {
    "Diff": "history",
    "Document": "document",
    "Library": "library",
    "Proposal": "proposal",
    "Rollback": "history",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"oo_nb.api.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'oo_nb.api' has no attribute {name!r}")
