"""An element of the page's own markup (outside the article) with a JSON block's id, before that
block: a browser's ``getElementById`` finds the element, so the page shows its content while
oo_nb reads the block. ``oo check`` and the audit call it an error (``shadowed-block``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.library.library import Library
from tests.conftest import CORPUS

PAGE = (CORPUS / "agi-declared.o-o.html").read_text()


def _planted(markup: str, where: str = "</article>") -> str:
    at = PAGE.index(where) + (len(where) if where == "</article>" else 0)
    return PAGE[:at] + markup + PAGE[at:]


@pytest.mark.parametrize(
    "markup",
    [
        '<div id="oo-manifest">{"title": "x"}</div>',
        "<span id=oo-contract></span>",
        '<p id="oo&#45;source-cache">x</p>',  # the id as a browser decodes it
        '<p title="x" id="liki-changelog">x</p>',  # the legacy spelling names the same block
    ],
)
def test_an_element_with_a_block_id_before_the_block_is_an_error(
    tmp_path: Path, markup: str
) -> None:
    path = tmp_path / "a.o-o.html"
    path.write_text(_planted(markup))
    doc = Document.read(path)
    assert [line for _, line in doc.page_shadows()] == [
        PAGE[: PAGE.index("</article>")].count("\n") + 1
    ]
    found = [f for f in check_path(path) if f.code == "shadowed-block"]
    assert len(found) == 1 and found[0].severity == "error"
    audit = Library(tmp_path).audit()
    row = audit[audit["code"] == "shadowed-block"]
    assert list(row["severity"]) == ["error"]


@pytest.mark.parametrize(
    "markup",
    [
        '<div title="id=oo-manifest">x</div>',  # in an attribute's value, not an id
        "<!-- <div id=oo-manifest> -->",  # in a comment
        '<div data-id="oo-manifest">x</div>',
        '<div id="oo-manifesto">x</div>',
    ],
)
def test_text_that_only_looks_like_one_is_not(tmp_path: Path, markup: str) -> None:
    path = tmp_path / "a.o-o.html"
    path.write_text(_planted(markup))
    assert Document.read(path).page_shadows() == []
    assert not [f for f in check_path(path) if f.code == "shadowed-block"]


def test_one_after_the_block_shadows_nothing_and_genuine_pages_have_none(tmp_path: Path) -> None:
    marker = "</body>"
    assert marker in PAGE
    path = tmp_path / "a.o-o.html"
    path.write_text(_planted('<div id="oo-manifest">x</div>', marker))
    assert Document.read(path).page_shadows() == []
    for page in sorted(CORPUS.glob("*.o-o.html")):
        assert Document.read(page).page_shadows() == [], page.name
