"""Issue 27 (5, 9, 11) in a real JupyterLab at 1280x720, as a newcomer meets them: a paragraph
edited as plain text keeps its ``[sN]`` citation and its ``<p>``; a typed ``<script>`` is said to
go before the edit is used; rejecting a source that kept text cites is asked about before
anything is written; the widget speaks the reader's words (no hunk, pid, block ids). Screenshots
in test-artifacts/lab-review-plain/ (looked at: see the branch report)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.agent.pending import open_review
from oo_nb.format.document import Document
from oo_nb.review import ReviewSession
from tests.browser.conftest import LabServer, Probe
from tests.browser.lab_notebook import open_and_run

NOTEBOOK = "notebooks/scratch-review-plain.ipynb"
LIB = "notebooks/scratch/plain"
DOC = f"{LIB}/heat-pumps-in-europe.o-o.html"
CELLS = [
    "%load_ext oo_nb",
    "%oo demo scratch/plain --no-index --reset",
    "review = %oo update scratch/plain/heat-pumps-in-europe.o-o.html\nreview",
]
# What the widget must not say (issue 27, 11): the file's and the code's words, not the reader's.
JARGON = re.compile(
    r"\bhunks?\b|pid:|oo-manifest|oo-source-cache|oo-contract|\(follows\)|marker layout"
    r"|string-facts|orphan-reference|key '",
    re.IGNORECASE,
)


def _shot(page: Any, artifacts: Path, name: str) -> None:
    folder = artifacts / "lab-review-plain"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def test_plain_text_edit_and_a_conflict_asked_before_writing(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1280, "height": 720})
    page = probe.page
    open_and_run(page, lab_server, NOTEBOOK, CELLS)
    path = lab_server.root / DOC
    before = path.read_bytes()
    pending = open_review(path)
    session = ReviewSession(pending.original, pending.candidate, pending.run)
    paragraph = next(
        h
        for h in session.diff.decidable
        if h.tag == "p" and h.kind == "added" and re.search(r"\[s\d+\]", h.after_text)
    )
    sid = re.findall(r"\[(s\d+)\]", paragraph.after_text)[0]
    typed = f"Typed as plain text: installers want grant rules that stay put [{sid}]."

    widget = page.locator(".oo-review").first
    widget.wait_for(state="visible")
    page.evaluate("el => el.scrollIntoView({block: 'start'})", widget.element_handle())
    widget.locator(".oo-accept-all").click()
    view = widget.locator(f".oo-hunk.oo-hunk-{paragraph.index}:not(.oo-derived)")
    view.locator(".oo-edit").click()
    area = view.locator(".oo-editor textarea")
    area.wait_for(state="visible")
    start = area.input_value()
    assert not start.lstrip().startswith("<p") and f"[{sid}]" in start, start  # text, not HTML
    view.scroll_into_view_if_needed()
    _shot(page, artifacts, "1-editor-plain-text")

    # a typed <script> is said to go, and the edit waits for a second click
    area.fill(f"{typed}<script>alert(1)</script>")
    view.locator(".oo-save-edit").click()
    error = view.locator(".oo-hunk-error")
    page.wait_for_function(
        "el => /will be removed/.test(el.textContent)", arg=error.element_handle()
    )
    assert "<script> with everything in it" in error.inner_text()
    assert "oo-decided-edit" not in (view.get_attribute("class") or "")
    page.evaluate("el => el.scrollIntoView({block: 'end'})", error.element_handle())
    _shot(page, artifacts, "2-script-removed-asked")
    view.locator(".oo-save-edit").click()
    page.wait_for_function(
        "el => el.classList.contains('oo-decided-edit')", arg=view.element_handle()
    )
    after_frame = view.locator(".oo-hunk-preview iframe").last.get_attribute("srcdoc") or ""
    assert f"<p>{typed}</p>" in after_frame

    # rejecting the source the edit cites: asked before writing, nothing written meanwhile
    source = widget.locator(f".oo-hunk.oo-area-sources:has-text('source {sid}:')")
    if source.count() == 0:  # the Sources group is folded: open it
        widget.locator(".oo-group-toggle", has_text="Sources").click()
    source.first.locator(".oo-reject").click()
    widget.locator(".oo-write-back").click()
    box = widget.locator(".oo-conflict")
    box.wait_for(state="visible")
    assert f"You rejected the new source {sid}" in box.inner_text()
    assert path.read_bytes() == before
    page.evaluate("el => el.scrollIntoView({block: 'start'})", widget.element_handle())
    _shot(page, artifacts, "3-conflict-asked")
    text = widget.inner_text()
    assert not JARGON.search(text), JARGON.search(text)

    for button in box.locator(".widget-button").all():  # their labels are read whole
        assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), button.inner_text()
    box.locator(".oo-conflict-keep").click()
    status = widget.locator(".oo-status").first
    page.wait_for_function(
        "el => /Wrote version/.test(el.textContent)", arg=status.element_handle()
    )
    _shot(page, artifacts, "4-written")
    written = Document.read(path)
    assert f"<p>{typed}</p>" in written.article_html
    assert sid in [s.id for s in written.source_cache.sources]
    assert sid in written.article.cited_ids
    assert "<script" not in written.article_html
    assert probe.network_requests == [], probe.network_requests
