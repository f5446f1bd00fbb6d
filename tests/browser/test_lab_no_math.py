"""In a real JupyterLab, update-all's "cost $0.0354 of $0.50" reads as text, its progress label on
one line: MathJax had set it
as the formula "0.0354𝑜𝑓0.50". A control cell of plain HTML with dollar signs is typeset in the
same page, so the check would see MathJax if it ran on our output. Screenshot in
test-artifacts/lab-no-math.png."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import LabServer, Probe
from tests.browser.test_lab_review import NOTEBOOK_READY, RUN_FINISHED

NOTEBOOK = "notebooks/scratch-no-math.ipynb"
CELLS = [
    "%load_ext oo_nb",
    "from oo_nb.demo import install_demo\ninstall_demo('scratch/no-math', index=False)",
    "%oo update-all scratch/no-math",
    "from IPython.display import HTML\nHTML('<p class=\"control\">paid $1 of $2</p>')",
]
TYPESET = "mjx-container, .MathJax, .MathJax_Preview"


def _notebook() -> str:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
        for src in CELLS
    ]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return json.dumps(
        {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    )


def test_update_all_costs_are_not_typeset(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    (lab_server.root / NOTEBOOK).write_text(_notebook(), "utf-8")
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1280, "height": 720})
    page = probe.page
    page.set_default_timeout(60_000)
    page.goto(lab_server.lab_url(NOTEBOOK))
    page.wait_for_function(NOTEBOOK_READY, polling=200, timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(RUN_FINISHED, polling=250, timeout=180_000)
    control = page.locator(".jp-OutputArea-output p.control")
    control.wait_for(state="attached")
    # MathJax loads and typesets after the output is shown: wait for it on the control
    page.wait_for_function(
        f"() => document.querySelector('.jp-OutputArea-output p.control')"
        f"?.querySelector('{TYPESET}')",
        polling=250,
        timeout=60_000,
    )
    report = page.locator(".jp-OutputArea-output ul.oo-update-all").first
    report.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "lab-no-math.png"))
    text = report.inner_text()
    assert "total cost $" in text and " of $" in text, text
    assert report.locator(TYPESET).count() == 0
    # the progress bar's label stays on one line ("update-/all" had wrapped at the hyphen)
    label = page.locator(".jp-OutputArea-output .widget-hbox .widget-html-content").first
    assert label.inner_text().startswith("update-all")
    lines = label.evaluate(
        """el => { const r = document.createRange(); r.selectNodeContents(el);
                   return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"""
    )
    assert lines == 1, f"the label takes {lines} lines"
