"""``tokenize`` reads markup as Chromium does: the elements (with their attributes) and comments
Chromium builds from a snippet inside a ``<div>`` are the start tags and comments ``tokenize``
reads from it, in the same order, and the text is the same. The snippets are the cases the
hand parsers got wrong (issue 26) and the comment, attribute and raw-text cases of the html5lib
tokenizer tests, in shapes where the tree builder adds and moves no element."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from oo_nb.format.html_tokens import tokenize

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

SNIPPETS = [
    '<p title="<ol></ol>">x</p>',
    "<!-- a --!><h2>b</h2>",
    '<ul><li title="</li>">L</li></ul>',
    '<a rel=\'noopener" autofocus tabindex="0" onfocus="x\'>t</a>',
    "<!-->x<!--->y<!---->z<!-- a -- b -->",
    "<!-- <!-- nested --> after",
    '<h2 id="a" ID="b" id=c>t</h2>',
    "<title>a<b>&amp;</title>",
    "<textarea>x</p>&lt;</textarea>",
    "<style>p{}</p>&amp;</style>",
    "<noscript><p>&amp;</noscript>",
    "<xmp><b></xmp>",
    "<noembed></x></noembed><noframes><i></noframes>",
    "<script><!--<script></script>--></script>",
    "<script>a</scripty></Script >",
    "<a href=x/>y</a>",
    '<input alt="<" value=x>',
    "<div a=1 b='2' c=\"3\" d e = f g=>h</div>",
    '<p a="&amp;" b="&ampx" c="&amp=" d=&lt; e="&notit;">&notin; &notit; &#x80; &#x110000;</p>',
    "<p a='x'b=\"y\"/c>k</p>",
    "<?xml version='1.0'?><!x><![CDATA[z]]></1>",
    "a < b</>c",
    "<P CLASS=Big>Text</P><BR/>",
]

_READ_DOM = """() => {
  const root = document.getElementById('root');
  const nodes = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.COMMENT_NODE) nodes.push(['comment', node.data]);
    else nodes.push(['start', node.localName, Array.from(node.attributes, a => [a.name, a.value])]);
  }
  return {nodes, text: root.textContent};
}"""


@pytest.fixture(scope="module")
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    yield context.new_page()
    context.close()


def _ours(snippet: str) -> dict[str, Any]:
    nodes: list[list[Any]] = []
    text = []
    for token in tokenize(snippet):
        if token.kind == "start":
            nodes.append(["start", token.name, [[a.name, a.value] for a in token.attrs]])
        elif token.kind == "comment":
            nodes.append(["comment", token.data])
        elif token.kind == "text":
            text.append(token.data)
    return {"nodes": nodes, "text": "".join(text)}


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_chromium_builds_what_the_tokens_read(page: Page, snippet: str) -> None:
    page.set_content(f'<!DOCTYPE html><html><body><div id="root">{snippet}</div></body></html>')
    assert page.evaluate(_READ_DOM) == _ours(snippet)
