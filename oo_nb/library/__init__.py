"""A folder of documents as data: the walk's per-document digests (``digest``, ``pool``), the
pandas frames (``frames``, ``library``), the audit, plots, and the index page. Reads documents;
writes only the index page, through the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oo_nb.library.library import Library

__all__ = ["Library"]


def __getattr__(name: str) -> Any:
    # `from oo_nb.library import Library` as before the package split, without loading pandas
    # machinery for code that only needs one of its modules
    if name == "Library":
        from oo_nb.library.library import Library

        return Library
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
