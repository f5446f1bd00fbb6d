"""Issue 27 item 1: a card of the ``%oo index`` preview opens its document, in a real
JupyterLab. The cards had linked to ``/files/...``, where the Jupyter server answers a GET only
with an XSRF token, its own token or a same-host ``Referer``; a link in the sandboxed preview
frame (an opaque origin) sends none of them, so the tab showed 403 "Blocking request from
unknown origin". The cards now open the server's ``/view/...`` page, which frames the file from
the server's own origin. Screenshot in test-artifacts/lab-index-card.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.format.document import Document
from tests.browser.conftest import LabServer, Probe
from tests.browser.lab_notebook import open_and_run

NOTEBOOK = "notebooks/scratch-index-links.ipynb"
FOLDER = "notebooks/scratch/index-links"
CELLS = [
    "%load_ext oo_nb",
    "%oo demo scratch/index-links --no-index --reset",
    "%oo index scratch/index-links",
]
FRAME = "iframe[title='preview of index.o-o.html']"


def test_an_index_card_opens_its_document(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1280, "height": 720})
    page = probe.page
    open_and_run(page, lab_server, NOTEBOOK, CELLS)
    page.locator(FRAME).first.scroll_into_view_if_needed()
    cards = page.frame_locator(FRAME).locator("a.card")
    assert cards.count() >= 2
    card = cards.first
    href = card.get_attribute("href") or ""
    assert href.startswith(f"/view/{FOLDER}/") and href.endswith(".o-o.html"), href
    name = href.rsplit("/", 1)[-1]
    title = Document.read(lab_server.root / FOLDER / name).manifest.title
    responses: list[Any] = []
    page.context.on("response", lambda r: responses.append(r))
    with page.context.expect_page() as popup_info:
        card.click()
    popup = popup_info.value
    popup.wait_for_load_state("load")
    document = popup.frame_locator("iframe").locator("h1").first
    document.wait_for(state="visible")
    popup.screenshot(path=str(artifacts / "lab-index-card.png"))
    # every request the tab made (the viewer, then the file it frames) was answered, none 403
    statuses = {r.url.split("?")[0].removeprefix(lab_server.url): r.status for r in responses}
    assert statuses[href] == 200, statuses
    assert statuses[f"/files/{FOLDER}/{name}"] == 200, statuses
    assert title and title in document.inner_text(), (title, document.inner_text())
    assert name in popup.title()
    popup.close()
    assert cards.count() >= 2  # the frame still shows the index
