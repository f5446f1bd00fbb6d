"""The Examples of the API's docstrings run, each module on a fresh demo library (the same
examples the docs site shows)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import oo_nb

# each module and the public names it defines (classes say `__module__ = "oo_nb"`, which
# doctest's own search would take for names imported from elsewhere and skip)
MODULES = {
    "oo_nb": ["open"],
    "oo_nb.api.document": ["Document"],
    "oo_nb.api.library": ["Library"],
    "oo_nb.api.new": ["NewRequest", "NewDocument", "new_defaults", "new_document"],
    "oo_nb.api.proposal": ["Proposal"],
    "oo_nb.notebook.frame_display": ["DisplayOptions"],
}


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str, demo: Path) -> None:
    module = importlib.import_module(name)
    globs = {"oo_nb": oo_nb, "demo": demo}
    finder = doctest.DocTestFinder()
    # public classes say `__module__ = "oo_nb"`, which testmod would skip: each name of the
    # module's __all__ is searched itself (module=False: every method of a class is its own)
    tests = finder.find(module, name, globs=globs)[:1] + [
        test
        for public in MODULES[name]
        for test in finder.find(getattr(module, public), public, module=False, globs=globs)
    ]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in sorted({t.name: t for t in tests}.values(), key=lambda t: t.lineno or 0):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0


def test_every_public_call_has_examples_or_sections() -> None:
    """numpydoc: each public class, function and method says its Parameters or Returns."""
    missing = []
    for cls in (oo_nb.Library, oo_nb.Document, oo_nb.Proposal, oo_nb.Diff):
        for attr, value in vars(cls).items():
            if attr.startswith("_") or not callable(value):
                continue
            doc = value.__doc__ or ""
            if (
                "Returns" not in doc
                and "Returns this proposal" not in doc
                and "Returns self" not in doc
            ):
                missing.append(f"{cls.__name__}.{attr}")
    assert not missing, f"no Returns in: {missing}"
