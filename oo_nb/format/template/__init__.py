"""oo_nb's own page code (package data): stylesheets, browser scripts and shell tails for
document pages and the library index, and the functions that render pages from them."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["asset"]


@cache
def asset(name: str) -> str:
    """The text of one asset file of this package (``base.css``, ``document.js``…)."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
