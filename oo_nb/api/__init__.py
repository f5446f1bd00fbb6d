"""The Python API: the calls a notebook user makes, which the ``oo`` CLI and the ``%oo`` magic
both call. ``oo_nb`` re-exports the public names (``oo_nb.Library``, ``oo_nb.open`` …)."""

from __future__ import annotations

from oo_nb.api.document import Document, open_document
from oo_nb.api.history import Diff, Rollback
from oo_nb.api.library import Library
from oo_nb.api.proposal import Proposal

__all__ = ["Diff", "Document", "Library", "Proposal", "Rollback", "open_document"]
