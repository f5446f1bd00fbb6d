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


HEADING_EDIT = "Off-peak electricity tariffs"
PARAGRAPH_EDIT = "Edited in the browser: several utilities sell off-peak heat-pump tariffs [s7]."
IN_VIEW = """el => { const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.top < window.innerHeight; }"""


def _shot(page: Any, artifacts: Path, name: str) -> None:
    folder = artifacts / "lab-review"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def _edit(view: Any, text: Callable[[str], str]) -> None:
    view.locator(".oo-edit").click()
    area = view.locator(".oo-editor textarea")
    area.wait_for(state="visible")
    area.fill(text(area.input_value()))
    view.locator(".oo-save-edit").click()


def test_review_in_jupyterlab_layout_edits_preview_and_links(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    """Issue 13, proven in a real JupyterLab: accept, reject, edit a paragraph and a section
    heading, preview, write back. The toolbar stays in view while the changes scroll, the preview
    opens in view right under it, an edited heading stays the section's h2 with its id, preview
    links open outside the frame and citations jump inside it; the file holds exactly what was
    decided. Screenshots in test-artifacts/lab-review/."""
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1400, "height": 900})
    page = probe.page
    page.set_default_timeout(60_000)
    page.goto(lab_server.lab_url(NOTEBOOK))
    page.wait_for_function(NOTEBOOK_READY, polling=200, timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(RUN_FINISHED, polling=250, timeout=120_000)

    # the index preview's cards open the document as the Jupyter server serves it, in a new
    # tab (a relative link resolved against the notebook's address would open JupyterLab)
    index_frame = page.locator("iframe[title='preview of index.o-o.html']").first
    card = page.frame_locator("iframe[title='preview of index.o-o.html']").locator("a.card").first
    href = card.get_attribute("href") or ""
    assert href.startswith("/view/notebooks/scratch/quickstart/") and href.endswith(".o-o.html")
    index_frame.scroll_into_view_if_needed()
    with page.context.expect_page() as popup_info:
        card.click()
    popup = popup_info.value
    popup.wait_for_load_state("commit")
    assert f"{lab_server.url}{href}" == popup.url.split("?")[0], popup.url
    assert (
        page.frame_locator("iframe[title='preview of index.o-o.html']").locator("a.card").count()
        > 0
    )  # the frame still shows the index
    popup.close()

    path = lab_server.root / DOC
    before = path.read_bytes()
    pending = open_review(path)
    session = ReviewSession(pending.original, pending.candidate, pending.run)
    decidable = session.diff.decidable
    heading = next(h for h in decidable if h.tag == "h2" and h.kind == "added")
    paragraph = next(
        h for h in decidable if h.tag == "p" and h.kind == "added" and h.section == heading.section
    )
    others = [h for h in decidable if h.area == "article" and h not in (heading, paragraph)]
    accepted, rejected = others[0], others[1]

    widget = page.locator(".oo-review").first
    widget.wait_for(state="visible")
    widget.scroll_into_view_if_needed()
    page.evaluate("el => el.scrollIntoView({block: 'start'})", widget.element_handle())
    _shot(page, artifacts, "1-review-top")
    # the plain-text repr the notebook saves is the summary, not the widget's children
    assert "Review of heat-pumps-in-europe.o-o.html: version 1 → 2" in session_text(widget)
    # one group per section, the derived changes folded into one line
    toggles = widget.locator(".oo-group-toggle").all_inner_texts()
    assert any(t.startswith("▾ Overview") for t in toggles), toggles
    derived = widget.locator("details.oo-derived-all")
    assert derived.count() == 1 and not derived.evaluate("d => d.open")
    assert "Updated to match your decisions" in derived.locator("summary").inner_text()

    def view(hunk: Any) -> Any:
        return widget.locator(f".oo-hunk.oo-hunk-{hunk.index}:not(.oo-derived)")

    view(accepted).locator(".oo-accept").click()
    view(rejected).locator(".oo-reject").click()
    _edit(view(paragraph), lambda _: f"<p>{PARAGRAPH_EDIT}</p>")
    _edit(view(heading), lambda old: old.replace(re.sub(r"<[^>]+>", "", old), HEADING_EDIT))
    for hunk in (paragraph, heading):
        page.wait_for_function(
            "el => el.classList.contains('oo-decided-edit')", arg=view(hunk).element_handle()
        )
    # the diff line shows the edit, and the heading's own frame shows it as the section's h2
    assert "Edited in the browser" in view(paragraph).locator(".oo-diff").inner_text()
    assert HEADING_EDIT in view(heading).locator(".oo-diff").inner_text()
    frames = view(heading).locator(".oo-hunk-preview iframe")
    srcdoc = frames.last.get_attribute("srcdoc") or ""
    assert f'<h2 id="{heading.key}">{HEADING_EDIT}</h2>' in srcdoc
    assert (
        widget.locator(".oo-hunk-error").all_inner_texts()
        == [""] * widget.locator(".oo-hunk-error").count()
    )
    counts = widget.locator(".oo-counts").inner_text()
    assert "1 accepted · 2 edited · 1 rejected" in counts, counts
    view(heading).scroll_into_view_if_needed()
    _shot(page, artifacts, "2-edited")

    # scroll to the end of the changes: the toolbar is still in view (sticky header)
    page.evaluate(
        "el => el.scrollIntoView({block: 'end'})",
        widget.locator(".oo-derived-line").element_handle(),
    )
    page.wait_for_timeout(200)
    toolbar = widget.locator(".oo-toolbar")
    assert toolbar.evaluate(IN_VIEW), "the toolbar scrolled out of view"
    _shot(page, artifacts, "3-scrolled-toolbar-in-view")
    widget.locator(".oo-preview-button").click()
    frame_el = widget.locator(".oo-preview iframe")
    frame_el.wait_for(state="visible")
    page.wait_for_timeout(300)
    assert frame_el.evaluate(IN_VIEW), "the preview opened out of view"
    _shot(page, artifacts, "4-preview")
    sandbox = set((frame_el.get_attribute("sandbox") or "").split())
    assert sandbox == {"allow-popups", "allow-popups-to-escape-sandbox"}
    preview = page.frame_locator(".oo-review .oo-preview iframe")
    h2 = preview.locator(f"h2#{heading.key}")
    assert h2.inner_text() == HEADING_EDIT
    assert preview.locator("h3").filter(has_text=HEADING_EDIT).count() == 0
    assert preview.locator("base").get_attribute("target") == "_blank"
    links = preview.locator("a[href]")
    targets = links.evaluate_all(
        "as => as.map(a => [a.getAttribute('href'), a.target || document.querySelector('base').target])"
    )
    external = [t for h, t in targets if h.startswith("http")]
    assert external and set(external) == {"_blank"}, targets
    assert all(t == "_self" for h, t in targets if h.startswith("about:srcdoc#")), targets
    # a citation jumps to its reference inside the frame; the frame stays the preview
    cite = preview.locator("a.oo-cite").first
    ref = cite.get_attribute("href") or ""
    cite.click()
    page.wait_for_timeout(300)
    inner = next(f for f in page.frames if f.url.startswith("about:srcdoc#oo-ref-"))
    assert inner.url == ref
    assert inner.evaluate("() => !!document.querySelector('h1#doc-title') && scrollY > 0")
    _shot(page, artifacts, "5-citation-jump")

    widget.locator(".oo-write-back").click()
    status = widget.locator(".oo-status").first
    page.wait_for_function(
        "el => /Wrote version/.test(el.textContent)", arg=status.element_handle(), timeout=30_000
    )
    assert widget.locator(".oo-toolbar").evaluate(IN_VIEW)
    _shot(page, artifacts, "6-written")
    assert widget.locator(".oo-error").first.inner_text().strip() == ""

    # the same decisions outside the browser give the bytes on disk exactly
    session.accept(accepted.id)
    session.reject(rejected.id)
    session.edit(paragraph.id, f"<p>{PARAGRAPH_EDIT}</p>")
    session.edit(heading.id, heading.after_html.replace("Prices and Tariffs", HEADING_EDIT))
    after = path.read_bytes()
    assert after != before
    assert after == session.result().document.with_path(path).to_bytes()
    article = Document.parse(after).article_html
    assert f'<h2 id="{heading.key}">{HEADING_EDIT}</h2>' in article
    assert article.index(HEADING_EDIT) < article.index("Edited in the browser")

    # JupyterLab's dark theme: a preview made after the switch follows it (the kernel reads the
    # theme JupyterLab saved in its settings; the frame itself cannot see the page's theme)
    try:
        page.evaluate(
            "() => window.jupyterapp.commands.execute('apputils:change-theme',"
            " {theme: 'JupyterLab Dark'})"
        )
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        page.wait_for_timeout(1000)  # the settings file is written by the server
        widget.locator(".oo-preview-button").click()  # hide
        widget.locator(".oo-preview-button").click()  # and show again
        page.wait_for_function(
            "el => (el.querySelector('iframe') || {}).srcdoc?.includes('class=\"oo-dark\"')",
            arg=widget.locator(".oo-preview").element_handle(),
            timeout=15_000,
        )
        page.wait_for_timeout(300)
        _shot(page, artifacts, "7-dark-theme")
        dark = page.frame_locator(".oo-review .oo-preview iframe").locator("body")
        assert dark.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(17, 17, 17)"
    finally:
        page.evaluate(
            "() => window.jupyterapp.commands.execute('apputils:change-theme',"
            " {theme: 'JupyterLab Light'})"
        )
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
    assert probe.network_requests == [], probe.network_requests
    assert probe.dialogs == []


def session_text(widget: Any) -> str:
    """The widget's plain-text repr as the kernel reports it (the notebook's saved output)."""
    cell = widget.locator("xpath=ancestor::div[contains(@class,'jp-CodeCell')]").first
    return str(
        cell.evaluate(
            "c => { const w = window.jupyterapp.shell.currentWidget;"
            " const cell = w.content.widgets.find(x => x.node === c);"
            " const out = cell.model.outputs.get(0); return out.data['text/plain'] || ''; }"
        )
    )
