"""The review widget's button: an ipywidgets ``Button`` that lets go of keyboard focus when
clicked in the browser, so the keys typed next do not run notebook commands.

JupyterLab runs a command-mode shortcut ("d d" deletes the cell, "m" makes it Markdown) when the
key's target is any focused element inside a notebook in command mode (the selector
``.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus``); Lumino skips an element
only if it or an element between it and the match carries ``data-lm-suppress-shortcuts``, and
ipywidgets stops keys only in its text fields. A clicked ``<button>`` keeps focus, so the next
"d d" deleted the widget's own cell. A stock widget cannot set that attribute (that would need
front-end code), but it can blur (ipywidgets 8's ``DOMWidget.blur``): focus goes back to the
page, where no notebook command matches. The blur is sent before the click's handlers run, so
it reaches the browser before anything the click changes.

The cost: a keyboard user who presses Space on one starts tabbing again from the page. So the
paging buttons ("Show more") stay stock buttons that keep focus (Enter again shows the next page),
and keys typed after clicking one of them still reach the notebook.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

__all__ = ["Button"]


class Button(widgets.Button):  # type: ignore[misc]
    """``widgets.Button`` that blurs itself when the browser reports a click."""

    def _handle_button_msg(self, widget: Any, content: dict[str, Any], buffers: Any) -> None:
        if content.get("event") == "click":
            self.blur()
        super()._handle_button_msg(widget, content, buffers)
