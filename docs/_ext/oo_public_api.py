"""``.. oo-public-api::``: autodoc of every name in ``oo_nb.__all__``, so the API page follows the
package's public face as it changes (a name added to ``__all__`` is documented, with no edit
here). The examples in each name's docstrings form a doctest group of their own, so each starts
on a fresh demo library (docs/conf.py's setup runs once per group), as tests/api runs them."""

from __future__ import annotations

import importlib
import inspect

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class PublicAPI(SphinxDirective):
    required_arguments = 1  # the module whose __all__ is documented

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        module = importlib.import_module(name)
        found: list[nodes.Node] = []
        for public in module.__all__:
            obj = getattr(module, public)
            if inspect.isclass(obj):
                directive = "autoclass"
            elif callable(obj):
                directive = "autofunction"
            elif inspect.ismodule(obj):
                directive = "automodule"
            else:
                directive = "autodata"
            container = nodes.section()
            lines = StringList([f".. {directive}:: {name}.{public}", ""], source=f"{name}.__all__")
            self.state.nested_parse(lines, 0, container)
            for block in container.findall(nodes.doctest_block):
                block["groups"] = [f"{name}.{public}"]
            found += container.children
        return found


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("oo-public-api", PublicAPI)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
