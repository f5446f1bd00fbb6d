"""The review widget in a real JupyterLab: open the quickstart notebook (on a scratch copy), run
all cells, accept one change and reject another in the widget, write back — then check the bytes
of the file on disk are exactly what those decisions give, computed independently from the saved
proposal."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.agent.pending import open_review
from oo_nb.format.document import Document
from oo_nb.review import ReviewSession
from oo_nb.store import store
from tests.browser.conftest import LabServer, Probe

NOTEBOOK = "notebooks/01-quickstart.ipynb"
DOC = "notebooks/scratch/quickstart/heat-pumps-in-europe.o-o.html"  # what the notebook reviews

NOTEBOOK_READY = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const ctx = w && w.sessionContext;
  return !!(ctx && ctx.isReady && ctx.session && ctx.session.kernel
            && ctx.session.kernel.status === 'idle' && w.content && w.content.widgets.length);
}"""
RUN_FINISHED = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const code = w.content.widgets.filter(c => c.model.type === 'code');
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  return kernel && kernel.status === 'idle'
      && code.every(c => c.model.executionCount !== null && !c.node.querySelector('.jp-InputPrompt')?.textContent.includes('*'));
}"""


def _decidable(page: Any) -> list[tuple[str, int]]:
    """(hunk class list, index) of every decidable hunk view in the widget, in order."""
    classes = page.evaluate(
        "() => [...document.querySelectorAll('.oo-review .oo-hunk:not(.oo-derived)')].map(e => e.className)"
    )
    out = []
    for cls in classes:
        m = re.search(r"\boo-hunk-(\d+)\b", cls)
        assert m, cls
        out.append((cls, int(m.group(1))))
    return out


def test_review_widget_in_jupyterlab_writes_exactly_what_was_decided(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1400, "height": 1000})
    page = probe.page
    page.set_default_timeout(60_000)
    page.goto(lab_server.lab_url(NOTEBOOK))
    # Run All before the kernel is ready can silently do nothing (notes): wait for it.
    page.wait_for_function(NOTEBOOK_READY, polling=200, timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(RUN_FINISHED, polling=250, timeout=120_000)
    page.screenshot(path=str(artifacts / "lab-1-run-all.png"))
    errors = page.locator(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]'
    )
    assert errors.count() == 0, errors.all_inner_texts()

    path = lab_server.root / DOC
    before = path.read_bytes()
    pending = open_review(path)  # what the widget reviews, saved by `%oo update` and rebuilt
    assert not pending.stale and pending.rebuilt

    widget = page.locator(".oo-review").first
    widget.wait_for(state="visible")
    hunks = _decidable(page)
    assert len(hunks) >= 2, f"the review shows {len(hunks)} changes"
    session = ReviewSession(pending.original, pending.candidate, pending.run)
    by_index = {h.index: h for h in session.diff.decidable}
    assert sorted(by_index) == sorted(i for _, i in hunks)
    accepted, rejected = hunks[0][1], hunks[1][1]

    views = page.locator(".oo-review .oo-hunk:not(.oo-derived)")
    views.nth(0).locator(".oo-accept").click()
    views.nth(1).locator(".oo-reject").click()
    page.wait_for_function(
        "() => document.querySelector('.oo-review .oo-hunk.oo-decided-accept') && document.querySelector('.oo-review .oo-hunk.oo-decided-reject')"
    )
    assert "1 accepted" in widget.locator(".oo-counts").inner_text()
    assert "1 rejected" in widget.locator(".oo-counts").inner_text()
    assert path.read_bytes() == before, "a decision alone wrote the file"
    widget.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "lab-2-decided.png"))

    widget.locator(".oo-write-back").first.click()
    status = widget.locator(".oo-status").first
    page.wait_for_function(
        "el => /Wrote version/.test(el.textContent)", arg=status.element_handle(), timeout=30_000
    )
    page.screenshot(path=str(artifacts / "lab-3-written.png"))
    assert widget.locator(".oo-error").first.inner_text().strip() == ""

    # The same decisions, applied outside the browser, give the bytes on disk exactly.
    session.accept(by_index[accepted].id)
    session.reject(by_index[rejected].id)
    expected = session.result().document.with_path(path).to_bytes()
    after = path.read_bytes()
    assert after != before
    assert after == expected
    # and the decisions are visible in the file: the accepted change is in, the rejected one not
    text = after.decode()
    acc, rej = by_index[accepted], by_index[rejected]
    if acc.after_text:
        assert _plain(acc.after_text)[:60] in _plain(Document.parse(after).article_html)
    if rej.kind == "added" and rej.after_text:
        assert _plain(rej.after_text)[:60] not in _plain(Document.parse(after).article_html)
    # the previous version is in the history, byte for byte; the proposal is gone
    old_version = Document.parse(before).manifest.version
    assert store.version_bytes(path, old_version) == before
    assert Document.parse(after).manifest.version == old_version + 1
    assert "OO_HTML" in text
    assert probe.network_requests == [], probe.network_requests
    assert probe.dialogs == []


def _plain(html_text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_text)).strip()
