"""oo_nb: o-o living documents in Python and Jupyter.

Heavy modules (pandas, lxml, the agent) load on first use so that ``%load_ext oo_nb`` is fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oo_nb.errors import OOError

if TYPE_CHECKING:
    from oo_nb.format.document import Document

__all__ = ["Document", "OOError", "__version__", "load_ipython_extension"]
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


def load_ipython_extension(ipython: Any) -> None:
    from oo_nb.notebook.magics import register

    register(ipython)
