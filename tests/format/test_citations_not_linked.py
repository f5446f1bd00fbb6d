"""A citation is ``[sN]`` where the page links it (attack s36, #4): text inside ``<a>``,
``<code>``, ``<pre>``, ``<textarea>`` (and script, style, headings: the page script's
``SKIP_TEXT_IN``) shows no link, so the model counts none there. The documents are the attack's
reproducers; ``NOT_LINKED_IN`` is held equal to the page script's list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oo_nb.format.article_model import NOT_LINKED_IN
from oo_nb.format.document import Document

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "citations"
PAGE_JS = Path(__file__).resolve().parents[2] / "oo_nb" / "format" / "template" / "document.js"


@pytest.mark.parametrize("name", ["cite-in-a", "cite-in-code", "cite-in-pre", "cite-in-textarea-p"])
def test_a_citation_the_page_does_not_link_is_no_citation(name: str) -> None:
    doc = Document((FIXTURES / f"{name}.o-o.html").read_text())
    assert "[s2]" in doc.article_html
    assert "s2" not in [c.source_id for c in doc.article.citations]
    assert "s2" not in [c.source_id for c in doc.article_model.citations]


def test_the_elements_without_links_are_the_page_scripts() -> None:
    found = re.search(r"var SKIP_TEXT_IN = \{([^}]*)\}", PAGE_JS.read_text())
    assert found is not None
    names = {k.strip().lower() for k in re.findall(r"(\w+)\s*:", found.group(1))}
    assert names == NOT_LINKED_IN


def test_an_svg_link_and_a_foreign_object_do_not_hide_a_citation() -> None:
    from oo_nb.format.article_model import read_model

    html = "<p><svg><a>[s1]</a><foreignObject><a>[s2]</a>[s3]</foreignObject></svg></p>"
    assert [c.source_id for c in read_model(html).citations] == ["s1", "s3"]
