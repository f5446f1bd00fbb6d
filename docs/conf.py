"""Sphinx settings for the oo_nb reference (``make docs``; tests/test_docs.py builds it too)."""

from __future__ import annotations

import doctest
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # oo_nb from this checkout, not from an installed copy
sys.path.insert(0, str(HERE / "_ext"))

import oo_nb  # noqa: E402

project = "oo_nb"
release = version = oo_nb.__version__
author = "the oo_nb team"
copyright = "the oo_nb team"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "numpydoc",
    "sphinxarg.ext",
    "myst_parser",
    "oo_public_api",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3
myst_enable_extensions = ["deflist"]
smartquotes = False  # `--yes` in a help text stays two hyphens, not an en dash

html_theme = "furo"
html_title = f"oo_nb {release}"

# Cross-references are checked (the build runs with -n -W): every name the API's signatures and
# docstrings point at must resolve. Only names from other projects are let through, since their
# inventories would be fetched from the network (intersphinx) and the build runs offline.
nitpicky = True
_OTHER_PROJECTS = (
    "pd|pandas|np|numpy|matplotlib|ipywidgets|IPython|Figure|DataFrame",
    "concurrent|pathlib|os|datetime|date|collections|typing|types|argparse|Path|Executor",
)
nitpick_ignore_regex = [(r"py:.*", rf"({'|'.join(_OTHER_PROJECTS)})(\..*)?")]
nitpick_ignore = [("py:obj", "True"), ("py:obj", "False")]  # constants: nothing to link to
# Objects of the lower layers that the API hands on without documenting them as API: the format
# layer's document (wrapped by oo_nb.Document), an update-all run's records (shown by its
# to_text/frames) and the review widget (reached through Proposal.review).
_INTERNAL = (
    "oo_nb.format.document.Document",
    "oo_nb.agent.types.LibraryUpdate",
    "LibraryUpdate",
    "oo_nb.notebook.review_widget.ReviewWidget",
)
nitpick_ignore += [(role, name) for name in _INTERNAL for role in ("py:class", "py:obj")]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True}
numpydoc_show_class_members = False  # autodoc lists the members; numpydoc would list them twice
numpydoc_xref_param_type = True  # a type named in Parameters/Returns must resolve too
# numpydoc's own aliases point builtins at Python's inventory (``python:str``), which is not here
# offline; the plain names resolve (Sphinx knows the builtins).
_BUILTINS = ("str", "int", "float", "bool", "list", "tuple", "dict", "set", "bytes", "object")
numpydoc_xref_aliases = {
    **{name: f":class:`{name}`" for name in _BUILTINS},
    "string": ":class:`str`",
    "boolean": ":class:`bool`",
    "None": ":obj:`None`",
    "True": ":obj:`True`",
    "False": ":obj:`False`",
    "callable": ":class:`~collections.abc.Callable`",
    "iterable": ":class:`~collections.abc.Iterable`",
    "sequence": ":class:`~collections.abc.Sequence`",
}
numpydoc_xref_ignore = {"optional", "default", "or", "of", "to", "keyword-only"}
numpydoc_validation_checks: set[str] = set()

# Examples run on a fresh copy of the demo library in a temp folder, offline, on the day its
# research was recorded (OO_TODAY): an update replays it (no API key, no network). Each page's
# examples share one copy, each public name's docstring examples have their own (oo_public_api).
# Names the examples may use: ``oo_nb``, ``demo`` (the library's folder, also ./demo-library).
doctest_global_setup = """
import os, tempfile
from pathlib import Path
import oo_nb
from oo_nb.demo import demo_today, install_demo
_oo_docs_env = {k: os.environ.pop(k, None) for k in (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OO_AGENT", "OO_MODEL",
    "OO_TODAY")}
os.environ["OO_TODAY"] = demo_today()
_oo_docs_tmp = tempfile.TemporaryDirectory(prefix="oo-docs-")
demo = Path(_oo_docs_tmp.name) / "demo-library"
install_demo(demo, quiet=True)
_oo_docs_cwd = os.getcwd()
os.chdir(_oo_docs_tmp.name)
"""
doctest_global_cleanup = """
os.chdir(_oo_docs_cwd)
_oo_docs_tmp.cleanup()
for _oo_key, _oo_value in _oo_docs_env.items():
    if _oo_value is None:
        os.environ.pop(_oo_key, None)
    else:
        os.environ[_oo_key] = _oo_value
"""
# as the API's own doctest run (tests/api) compares output
doctest_default_flags = (
    doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.IGNORE_EXCEPTION_DETAIL
)
