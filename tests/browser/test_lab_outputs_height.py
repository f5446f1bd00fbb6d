"""Issue 27 (10, 11) in a real JupyterLab at 1280x720: ``lib.sources``, ``%oo audit`` and
``%oo diff`` fit in a height a reader takes in (``lib.sources`` on the four demo documents took
2,744 px, the diff 1,500 px for three paragraph changes), the audit reads per kind of finding with
its meaning, and none of them speaks the file's internal words. Screenshots in
test-artifacts/lab-outputs/ (looked at: see the branch report)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import LabServer, Probe
from tests.browser.lab_notebook import open_and_run

NOTEBOOK = "notebooks/scratch-outputs.ipynb"
DOC = "scratch/tall/heat-pumps-in-europe.o-o.html"
CELLS = [
    "%load_ext oo_nb",
    "%oo demo scratch/tall --no-index --reset",
    "lib = %oo library scratch/tall",
    "lib.sources",
    "%oo audit scratch/tall",
    f"proposal = %oo update {DOC}\nproposal.accept_all().write();",
    f"%oo diff {DOC} --from 1",
]
MAX_PX = 600  # most of a 720 px window: the next cell's start stays in reach
JARGON = re.compile(
    r"\bhunks?\b|pid:|oo-manifest|oo-source-cache|oo-contract|\(follows\)|marker layout|key '",
    re.IGNORECASE,
)


def test_outputs_fit_a_window_and_speak_plainly(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1280, "height": 720})
    page = probe.page
    open_and_run(page, lab_server, NOTEBOOK, CELLS)
    folder = artifacts / "lab-outputs"
    folder.mkdir(exist_ok=True)
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    assert errors.count() == 0, errors.all_inner_texts()
    for n, name in ((3, "sources"), (4, "audit"), (6, "diff")):
        output = cells.nth(n).locator(".jp-OutputArea").first
        output.scroll_into_view_if_needed()
        page.evaluate("el => el.scrollIntoView({block: 'start'})", output.element_handle())
        page.screenshot(path=str(folder / f"{n}-{name}.png"))
        height = output.evaluate("el => el.getBoundingClientRect().height")
        assert 0 < height <= MAX_PX, f"{name}: {height:.0f} px"
        text = output.inner_text()
        assert not JARGON.search(text), (name, JARGON.search(text))
    audit = cells.nth(4).locator(".jp-OutputArea").first.inner_text()
    assert "the document is due by its cadence" in audit  # each code with what it means
    assert cells.nth(3).locator(".oo-frame-box table").count() == 1  # in its scrolling box
    diff = cells.nth(6).locator(".jp-OutputArea").first
    assert diff.locator("details.oo-derived-all").count() == 1  # what came with it, folded
