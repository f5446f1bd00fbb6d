"""Issue 27 item 4: with the result preview open, changes stay in view. The preview sat in the
sticky header, which then took 662 of 765 px at 1400x900 and the whole window at 1280x720; now it
is a sticky column beside the changes. Checked in a real JupyterLab at both sizes, at the top of
the review and after scrolling through the changes; screenshots in
test-artifacts/lab-preview-layout/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.browser.conftest import LabServer, Probe
from tests.browser.lab_notebook import open_and_run

NOTEBOOK = "notebooks/scratch-preview-layout.ipynb"
CELLS = [
    "%load_ext oo_nb\nimport os\nos.environ['OO_TODAY'] = '2026-12-01'  # the demo's replay day",
    "%oo demo scratch/preview-layout --no-index --reset",
    "review = %oo update scratch/preview-layout/heat-pumps-in-europe.o-o.html\nreview",
]
# What of the review the notebook's scroller shows, in px: the sticky header's height, the rows
# of each change and of the preview's frame that are visible below the header.
MEASURE = """w => {
  const scroller = w.closest('.jp-WindowedPanel-outer') || w.closest('.jp-Notebook');
  const box = scroller.getBoundingClientRect();
  const head = w.querySelector('.oo-head').getBoundingClientRect();
  const top = Math.max(box.top, head.bottom), bottom = box.bottom;
  const shown = r => Math.max(0, Math.min(r.bottom, bottom) - Math.max(r.top, top));
  const frame = w.querySelector('.oo-preview iframe');
  const fr = frame ? frame.getBoundingClientRect() : null;
  return {
    window: box.height,
    head: head.height,
    hunks: [...w.querySelectorAll('.oo-hunk:not(.oo-derived)')]
      .map(h => shown(h.getBoundingClientRect())).filter(px => px > 0),
    preview: fr ? Math.max(0, Math.min(fr.bottom, bottom) - Math.max(fr.top, box.top)) : 0,
    previewHeight: fr ? fr.height : 0,
  };
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1400, 900)], ids=["1280x720", "1400x900"])
def test_changes_stay_in_view_while_previewing(
    lab_server: LabServer,
    open_page: Callable[..., Probe],
    artifacts: Path,
    size: tuple[int, int],
) -> None:
    width, height = size
    folder = artifacts / "lab-preview-layout"
    folder.mkdir(exist_ok=True)
    probe = open_page(allow=(lab_server.url,), viewport={"width": width, "height": height})
    page = probe.page
    open_and_run(page, lab_server, NOTEBOOK, CELLS)
    widget = page.locator(".oo-review").first
    widget.wait_for(state="visible")
    page.evaluate("el => el.scrollIntoView({block: 'start'})", widget.element_handle())
    widget.locator(".oo-preview-button").click()
    widget.locator(".oo-preview iframe").wait_for(state="visible")
    page.wait_for_timeout(300)
    page.screenshot(path=str(folder / f"{width}x{height}-top.png"))
    top = widget.evaluate(MEASURE)
    assert top["hunks"] and max(top["hunks"]) >= 80, top  # at least one change readable
    assert top["preview"] >= min(300, top["previewHeight"]), top  # and the preview with it
    assert top["head"] < top["window"] / 2, top

    # scrolled down through the changes: the header and the preview stay, changes scroll by
    last = widget.locator(".oo-hunk:not(.oo-derived)").last
    page.evaluate("el => el.scrollIntoView({block: 'end'})", last.element_handle())
    page.wait_for_timeout(300)
    page.screenshot(path=str(folder / f"{width}x{height}-scrolled.png"))
    scrolled = widget.evaluate(MEASURE)
    assert scrolled["hunks"] and max(scrolled["hunks"]) >= 80, scrolled
    assert scrolled["preview"] >= min(300, scrolled["previewHeight"]), scrolled
    toolbar = widget.locator(".oo-toolbar").bounding_box()
    assert toolbar is not None and 0 <= toolbar["y"] < height / 2, toolbar
    print(f"{width}x{height}: top {top}, scrolled {scrolled}")
