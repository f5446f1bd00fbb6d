"""``.. oo-public-api::``: autodoc of every name in ``oo_nb.__all__``, so the API page follows the
package's public face as it changes (a name added to ``__all__`` is documented, with no edit
here)."""

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
        lines: list[str] = []
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
            lines += [f".. {directive}:: {name}.{public}", ""]
        container = nodes.section()
        self.state.nested_parse(StringList(lines, source=f"{name}.__all__"), 0, container)
        return list(container.children)


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("oo-public-api", PublicAPI)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
