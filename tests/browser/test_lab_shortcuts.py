"""Issue 27 item 12: after clicking a button of the review widget, keys no longer run notebook
commands. JupyterLab (Lumino) runs "d d" (delete cell) when the key's target is any focused
element inside a notebook in command mode (``.jp-Notebook.jp-mod-commandMode:not(
.jp-mod-readWrite) :focus``); a clicked ``<button>`` is such an element, and ipywidgets stops
keys only in its text inputs. Screenshot in test-artifacts/lab-shortcuts.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import LabServer, Probe
from tests.browser.lab_notebook import open_and_run

NOTEBOOK = "notebooks/scratch-shortcuts.ipynb"
CELLS = [
    "%load_ext oo_nb\nimport os\nos.environ['OO_TODAY'] = '2026-12-01'  # the demo's replay day",
    "%oo demo scratch/shortcuts --no-index --reset",
    "review = %oo update scratch/shortcuts/heat-pumps-in-europe.o-o.html\nreview",
]
CELL_COUNT = "() => window.jupyterapp.shell.currentWidget.content.widgets.length"


def test_keys_after_clicking_accept_do_not_run_notebook_commands(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1280, "height": 720})
    page = probe.page
    open_and_run(page, lab_server, NOTEBOOK, CELLS)
    widget = page.locator(".oo-review").first
    widget.wait_for(state="visible")
    cells = page.evaluate(CELL_COUNT)
    change = widget.locator(".oo-hunk:not(.oo-derived)").first
    change.scroll_into_view_if_needed()
    # the notebook is in command mode, as after any click outside an editor
    assert page.evaluate("() => !!document.querySelector('.jp-Notebook.jp-mod-commandMode')")
    change.locator(".oo-accept").click()
    page.wait_for_function(
        "el => el.classList.contains('oo-decided-accept')", arg=change.element_handle()
    )
    page.keyboard.press("d")
    page.keyboard.press("d")
    page.keyboard.press("m")  # "change to Markdown"
    page.wait_for_timeout(500)
    page.screenshot(path=str(artifacts / "lab-shortcuts.png"))
    assert page.evaluate(CELL_COUNT) == cells, "a key after the click deleted a cell"
    assert widget.is_visible()
    kinds = page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets.map(c => c.model.type)"
    )
    assert kinds == ["code"] * cells, kinds
    # the widget still works by mouse after that
    second = widget.locator(".oo-hunk:not(.oo-derived)").nth(1)
    second.locator(".oo-reject").click()
    page.wait_for_function(
        "el => el.classList.contains('oo-decided-reject')", arg=second.element_handle()
    )
