"""The review widget in a real JupyterLab for a proposal adding 1,200 sources: it shows at once
with the sources folded under a header that counts them, opening the group shows one page of
them with a "Show 50 more" button, Accept group decides all 1,201 (built or not) and the file
written holds exactly what a ``ReviewSession`` gives for those decisions. Screenshots in
test-artifacts/lab-review-scale/ (folded, opened, its last row, decided)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.review import ReviewSession
from tests.browser.conftest import LabServer, Probe
from tests.browser.test_lab_review import NOTEBOOK_READY, RUN_FINISHED
from tests.support.corpus import corpus_dir
from tests.support.review_samples import many_sources_candidate

NAME = "ai-model-landscape.o-o.html"
MANY = 1200
CELLS = [
    "from oo_nb.format.document import Document\n"
    "from oo_nb.notebook.review_widget import ReviewWidget\n"
    "candidate = Document.read('candidate.html')",
    f"ReviewWidget('{NAME}', candidate)",
]


def _notebook(folder: Path) -> None:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in CELLS
    ]
    book = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (folder / "scale.ipynb").write_text(json.dumps(book), "utf-8")


def _shut_down(lab_server: LabServer, notebook: str) -> None:
    for session in json.loads(lab_server.api("/api/sessions")):
        if session.get("path") == notebook:
            lab_server.api(f"/api/sessions/{session['id']}", method="DELETE")


def test_review_of_1200_new_sources_in_jupyterlab(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    try:
        _review(lab_server, open_page, artifacts)
    finally:
        _shut_down(lab_server, "notebooks/scale/scale.ipynb")


def _review(lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path) -> None:
    folder = lab_server.root / "notebooks" / "scale"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    path.write_bytes((corpus_dir() / NAME).read_bytes())
    original = Document.read(path)
    candidate = many_sources_candidate(original, MANY)
    (folder / "candidate.html").write_bytes(candidate.to_bytes())
    _notebook(folder)
    shots = artifacts / "lab-review-scale"
    shots.mkdir(exist_ok=True)

    probe = open_page(allow=(lab_server.url,), viewport={"width": 1400, "height": 1000})
    page = probe.page
    page.set_default_timeout(60_000)
    # a workspace of its own, so the other Lab tests do not reopen this notebook (and its
    # session is shut down after, see _shut_down)
    page.goto(
        f"{lab_server.url}/lab/workspaces/oo-scale/tree/notebooks/scale/scale.ipynb"
        f"?token={lab_server.token}"
    )
    page.wait_for_function(NOTEBOOK_READY, polling=200, timeout=90_000)
    started = time.monotonic()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    widget = page.locator(".oo-review").first
    widget.wait_for(state="visible", timeout=120_000)
    print(f"run all to the widget shown: {time.monotonic() - started:.1f} s")
    page.wait_for_function(RUN_FINISHED, polling=250, timeout=120_000)

    sources = widget.locator(".oo-group", has=page.locator(".oo-group-toggle", has_text="Sources"))
    toggle = sources.locator(".oo-group-toggle")
    assert toggle.inner_text() == "▸ Sources · 1,201 changes · 0 accepted · 1,201 undecided"
    assert widget.locator(".oo-hunk.oo-area-sources").count() == 0
    assert widget.locator(".oo-hunk:not(.oo-derived)").count() == 4  # the article's changes
    page.evaluate("el => el.scrollIntoView({block: 'center'})", sources.element_handle())
    page.screenshot(path=str(shots / "1-folded.png"))

    toggle.click()  # one page of sources, and the button for the next
    hunks = sources.locator(".oo-hunk.oo-area-sources")
    page.wait_for_function(
        "n => document.querySelectorAll('.oo-review .oo-hunk.oo-area-sources').length === n",
        arg=50,
    )
    assert toggle.inner_text().startswith("▾ Sources · 1,201 changes")
    more = sources.locator(".oo-show-more")
    assert more.inner_text() == "Show 50 more (1,151 not shown)"
    page.evaluate("el => el.scrollIntoView({block: 'start'})", sources.element_handle())
    page.screenshot(path=str(shots / "2-opened.png"))
    page.evaluate("el => el.scrollIntoView({block: 'end'})", more.element_handle())
    page.screenshot(path=str(shots / "3-show-more.png"))
    more.focus()  # the keyboard reaches it, and Enter presses it
    page.keyboard.press("Enter")
    page.wait_for_function(
        "n => document.querySelectorAll('.oo-review .oo-hunk.oo-area-sources').length === n",
        arg=100,
    )
    assert more.inner_text() == "Show 50 more (1,101 not shown)"
    # the button stays (below the new rows) and keeps the focus: Enter again shows more
    assert page.evaluate("() => !!document.activeElement.closest('.oo-show-more')")

    sources.locator(".oo-accept-group").click()
    page.wait_for_function(
        "el => /1,201 accepted · all decided/.test(el.textContent)", arg=toggle.element_handle()
    )
    assert hunks.nth(99).get_attribute("class") is not None
    assert "oo-decided-accept" in (hunks.nth(99).get_attribute("class") or "")
    hunks.nth(1).locator(".oo-reject").click()
    page.wait_for_function(
        "el => /1,200 accepted · 1 rejected/.test(el.textContent)", arg=toggle.element_handle()
    )
    page.evaluate("el => el.scrollIntoView({block: 'start'})", sources.element_handle())
    page.screenshot(path=str(shots / "4-decided.png"))
    widget.locator(".oo-write-back").first.click()
    status = widget.locator(".oo-status").first
    page.wait_for_function(
        "el => /Wrote version/.test(el.textContent)", arg=status.element_handle(), timeout=60_000
    )

    session = ReviewSession(original, candidate.with_path(path))
    ids = [h.id for h in session.diff.decidable if h.area == "sources"]
    for hid in ids:
        session.accept(hid)
    session.reject(ids[1])
    assert path.read_bytes() == session.apply().to_bytes()
    assert probe.network_requests == [], probe.network_requests
