"""The seam between the core and a notebook's rich display.

A ``Document`` (and the index page's result) shows as a sandboxed preview in a notebook, but the
core must not import the notebook layer. So the core asks this module for HTML, and the package
root installs the renderer (``oo_nb/__init__.py``), importing the notebook layer only when a
front-end asks for HTML — as nbdime keeps its web app out of a normal import.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "HtmlRenderer",
    "as_named",
    "no_typesetting",
    "render_html",
    "set_html_renderer",
    "wants_html",
]

# object -> HTML for a notebook, or None when the object has no HTML view
HtmlRenderer = Callable[[Any], "str | None"]

_renderer: HtmlRenderer | None = None


def set_html_renderer(renderer: HtmlRenderer | None) -> None:
    global _renderer
    _renderer = renderer


def render_html(obj: Any) -> str | None:
    """The object's HTML from the installed renderer; None without one (plain Python)."""
    return _renderer(obj) if _renderer is not None else None


def wants_html(include: Any, exclude: Any) -> bool:
    """Whether a ``_repr_mimebundle_(include, exclude)`` call asks for ``text/html``."""
    return not ((exclude and "text/html" in exclude) or (include and "text/html" not in include))


# MathJax in JupyterLab (and nbconvert, VS Code) typesets HTML outputs: "cost $0.0354 of $0.50"
# showed as the formula "0.0354 of 0.50". Its classes for "leave this alone", old and new.
_NO_MATH = "mathjax_ignore tex2jax_ignore"


def no_typesetting(markup: str) -> str:
    """``markup`` in a block that notebook front-ends show as written: dollar signs stay text."""
    return f'<div class="{_NO_MATH}">{markup}</div>'


def as_named(path: Path) -> Path:
    """``path`` as the user would name it: from the working folder when inside it, else whole.
    Objects keep absolute paths (a later ``%cd`` must not move them); what they say stays short."""
    here = Path.cwd()
    return path.relative_to(here) if path.is_relative_to(here) else path
