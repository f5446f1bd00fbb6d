"""oo_nb: o-o living documents in Python and Jupyter.

Heavy modules (pandas, lxml, the agent) load on first use so that ``%load_ext oo_nb`` is fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oo_nb.errors import OOError
from oo_nb.format.display import set_html_renderer

if TYPE_CHECKING:
    from oo_nb.format.document import Document
    from oo_nb.library.library import Library

__all__ = ["Document", "Library", "OOError", "__version__", "load_ipython_extension"]
__version__ = "0.1.0"

_LAZY = {
    "Document": ("oo_nb.format.document", "Document"),
    "Library": ("oo_nb.library.library", "Library"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'oo_nb' has no attribute {name!r}")


def _html_for(obj: Any) -> str | None:
    # the notebook layer draws rich displays; imported on the first display, not with oo_nb
    from oo_nb.notebook.preview import html_for

    return html_for(obj)


set_html_renderer(_html_for)


def load_ipython_extension(ipython: Any) -> None:
    from oo_nb.notebook.frame_display import register as show_frames
    from oo_nb.notebook.magics import register
    from oo_nb.notebook.warm import prewarm_sdk

    register(ipython)
    show_frames(ipython)  # library frames within a display limit, the audit per code
    prewarm_sdk(ipython)  # the first %oo update waits no longer for the SDK import
