"""What a migrated o-o page looks like in Chromium (issue 28, item 16): the small grey note an
o-o article may end with (`<p class="doc-footer">`) stays small and grey after `oo sync
--migrate`, and the search box of a library index is styled both on an o-o index oo_nb synced
and on the index `oo index` writes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from oo_nb.cli.main import main as oo_main
from tests.browser.conftest import Probe
from tests.conftest import CORPUS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_STYLE = """(sel) => { const s = getComputedStyle(document.querySelector(sel));
  return {size: parseFloat(s.fontSize), color: s.color, border: s.borderTopWidth,
          radius: s.borderTopLeftRadius, padding: parseFloat(s.paddingLeft)}; }"""


def test_a_doc_footer_stays_small_and_grey(tmp_path: Path, open_page: Callable[..., Probe]) -> None:
    page = tmp_path / "refs-outlet-footer.o-o.html"
    shutil.copy(FIXTURES / "issue12" / page.name, page)
    assert oo_main(["sync", str(tmp_path), "--migrate"]) == 0
    probe = open_page()
    probe.open(page)
    footer = probe.page.evaluate(_STYLE, "#article .doc-footer")
    text = probe.page.evaluate(_STYLE, "#article p")
    note = probe.page.evaluate(_STYLE, "footer#run-meta")
    assert footer["size"] < text["size"]
    assert footer["color"] != text["color"] and footer["color"] == note["color"]  # muted


def _marker_index(folder: Path) -> Path:
    """The corpus index in o-o's marker layout (its stylesheet between OO:CSS markers), as
    o-o's later versions write it."""
    text = (CORPUS / "index.o-o.html").read_text("utf-8")
    start, end = text.index("<style>"), text.index("</style>") + len("</style>\n")
    text = (
        text[:start]
        + "<!-- OO:CSS:START -->\n<style>\n</style>\n<!-- OO:CSS:END -->\n"
        + text[end:]
    )
    index = folder / "index.o-o.html"
    index.write_text(text, "utf-8")
    return index


def test_the_search_box_of_a_synced_and_a_written_index_is_styled(
    tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    synced = tmp_path / "synced"
    synced.mkdir()
    shutil.copy(CORPUS / "agi-declared.o-o.html", synced)
    index = _marker_index(synced)
    assert oo_main(["sync", str(synced)]) == 0
    assert oo_main(["index", str(synced)]) == 0
    written = tmp_path / "written"
    written.mkdir()
    shutil.copy(CORPUS / "agi-declared.o-o.html", written)
    assert oo_main(["index", str(written)]) == 0
    for page in (index, written / "index.o-o.html"):
        probe = open_page()
        probe.open(page)
        box = probe.page.evaluate(_STYLE, "#search-input")
        assert box["border"] == "1px" and box["radius"] != "0px" and box["padding"] >= 8, page
