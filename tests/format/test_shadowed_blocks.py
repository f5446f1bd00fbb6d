"""Issue 26 attack 6: an element of the article with a block's id (``oo-manifest`` …) shadows
the block for ``getElementById``: the page script may read it while oo_nb reads the block. The
reader refuses such a block, naming the id and line, and ``oo check`` reports it."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.errors import FormatError
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from tests.conftest import CORPUS

FAKE = '{"title": "forged"}'
SHADOWS = {
    "div": f'<div id="oo-manifest">{FAKE}</div>',
    "json script": f'<script type="application/json" id="oo-manifest">{FAKE}</script>',
    "svg": f'<svg><script id="oo-manifest">{FAKE}</script></svg>',
    "character reference": f'<p id="oo&#45;manifest">{FAKE}</p>',
    # the id attribute in any case, unquoted, after another attribute: still read
    "reference, upper-case ID": f"<p class=x ID=oo&#x2D;manifest>{FAKE}</p>",
    "reference, iD, blanks": f"<p\niD = 'oo&#45;manifest'>{FAKE}</p>",
    "contract": '<span id="oo-contract">{}</span>',
}


def shadowed_page(element: str) -> str:
    text = (CORPUS / "agi-declared.o-o.html").read_text()
    at = text.index("</article>")
    return text[:at] + element + "\n" + text[at:]


@pytest.mark.parametrize("case", list(SHADOWS))
def test_a_block_shadowed_in_the_article_is_refused_naming_id_and_line(
    case: str, tmp_path: Path
) -> None:
    page = shadowed_page(SHADOWS[case])
    doc = Document(page)
    line = page[: page.index(SHADOWS[case])].count("\n") + 1
    block = "contract" if case == "contract" else "manifest"
    with pytest.raises(FormatError, match=f'"oo-{block}" too \\(line {line}\\)'):
        getattr(doc, block)
    path = tmp_path / "doc.o-o.html"
    path.write_text(page)
    errors = [f for f in check_path(path) if f.severity == "error"]
    assert any(f"line {line}" in f.message and f"-{block}" in f.message for f in errors), errors


def test_other_ids_and_the_words_in_text_shadow_nothing() -> None:
    """Not the block's own id (a legacy spelling, capitals: getElementById is exact)."""
    page = shadowed_page(
        '<p id="manifest">oo-manifest and id=a&amp;b</p><p id="OO-MANIFEST">x</p>'
        '<p id="liki-manifest">y</p>'
    )
    doc = Document(page)
    assert [i for i, _ in doc.shadowed_blocks()] == ["liki-manifest"]
    assert doc.manifest.version >= 1
