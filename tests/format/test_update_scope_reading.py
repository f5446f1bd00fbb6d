"""Issue 26: the update scope reads a candidate's article as a browser does (``article_model``),
not as lxml does. Each case is markup where the two readings could differ; the browser check of
the same table is tests/browser/test_update_scope_dom.py."""

from __future__ import annotations

import pytest

from oo_nb.errors import FormatError
from oo_nb.format.document import Document
from oo_nb.format.update_scope import scope_problems
from tests.conftest import CORPUS

# html added to the article -> a text every finding list must hold ("" for none: inert markup)
READINGS = {
    # a browser adds these attributes to the page's own <html>/<body>: lxml dropped the tags
    "body start tag": ('<body onload="x()">', "a <body> element"),
    # a browser reads on after </body></html>: lxml dropped the rest of the article
    "after the page's end tags": ("</body></html><img src=x onerror=x()>", "onerror"),
    # inside SVG/MathML a <style> holds markup, and <img> breaks out of it as an HTML image
    "svg style": ("<svg><style><img src=x onerror=x()></style></svg>", "<img onerror="),
    "math style": ("<math><style><img src=x onerror=x()></style></math>", "<img onerror="),
    # the first of two attributes with one name is the one a browser keeps
    "second id unsafe": ('<p id="fine" id="toc">t</p>', ""),
    "first id unsafe": ('<p id="toc" id="fine">t</p>', "an id the page itself uses"),
    "second href unsafe": ('<a href="https://a.example/" href="javascript:x()">t</a>', ""),
    "first href unsafe": ('<a href="javascript:x()" href="https://a.example/">t</a>', "only http"),
    "second handler": ('<p title="a" onclick="x()" onclick="y()">t</p>', "<p onclick='x()'>"),
    # a "<" or quote inside a quoted value is the value's text
    "tag in a title": ('<p title="<a onclick=x()>">t</p>', ""),
    "script in a title": ('<p title="<script>x()</script>">t</p>', ""),
    "quote in a title": ("<p title='a\"b onclick=x()'>t</p>", ""),
    # a "<" starting an attribute name: the rest of the tag is more attributes
    "tag in a tag": ("<p title=a <a onclick=x()>t</p>", "<p onclick='x()'>"),
    # comment forms: "--!>" ends one, "-- >" does not
    "dash dash bang": ("<!-- a --!><img src=x onerror=x()>", "onerror"),
    "dash dash space": ("<!-- a -- ><img src=x onerror=x()> -->", ""),
    "abrupt comment": ("<!--><img src=x onerror=x()>", "onerror"),
    "comment end in a value": ('<p title="--><img src=x onerror=x()>">t</p>', ""),
    # raw text is text in HTML
    "markup in a textarea": ("<textarea><img src=x onerror=x()></textarea>", "a <textarea>"),
}


def _with(html: str) -> tuple[Document, Document]:
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    return doc, doc.with_article(doc.article_html + html)


@pytest.mark.parametrize("case", list(READINGS))
def test_the_scope_reads_the_article_as_a_browser_does(case: str) -> None:
    html, named = READINGS[case]
    problems = scope_problems(*_with(html))
    if named:
        assert any(named in p for p in problems), problems
    else:
        assert problems == []


def test_an_html_start_tag_in_the_article_is_refused() -> None:
    """A browser adds its attributes to the page's <html>. (Today the model keeps it open, so
    ``</article>`` does not close the article, and the file is refused as it is read.)"""
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    at = doc.text.index("</article>")
    try:
        candidate = Document(doc.text[:at] + '<html onclick="x()">' + doc.text[at:])
    except FormatError as exc:
        assert "never closed" in exc.message
        return
    assert any("a <html> element" in p for p in scope_problems(doc, candidate))


def test_a_shown_element_is_its_own_text() -> None:
    """A refused element is quoted as the candidate holds it, not as a parser writes it again."""
    problems = scope_problems(*_with("<SCRIPT type=x>a</SCRIPT >"))
    assert problems == ["article: a <script> element '<SCRIPT type=x>a</SCRIPT >'"]


def test_markup_nested_deeper_than_is_read_again_is_named() -> None:
    nested = "<svg><style>" * 8 + "<img src=x onerror=x()></style></svg>"
    problems = scope_problems(*_with(nested))
    assert any("nested too deep to read" in p for p in problems), problems
