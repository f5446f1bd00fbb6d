"""The page around the article is read by the tokenizer, as a browser reads it: a comment ends
where a browser ends it, ``<script`` in an attribute's value opens no script, a block's text ends
at the end tag the script states let through. (Each case made the page unreadable, or a block
other than the browser's, while Chromium showed it as usual.)"""

from __future__ import annotations

import pytest

from oo_nb.errors import BlockError
from oo_nb.format.document import Document
from tests.conftest import CORPUS

PAGE = (CORPUS / "yc-w26-batch.o-o.html").read_text()
HEAD = PAGE.index("<head>") + len("<head>")


def _with(markup: str, at: int = HEAD) -> Document:
    return Document(PAGE[:at] + markup + PAGE[at:])


ORIGINAL = Document(PAGE)


@pytest.mark.parametrize(
    "markup",
    [
        "<!-- a comment a browser ends here --!>",
        "<!-->",
        "<!--->",
        '<meta name="x" content="<script>">',
        "<meta content='<!--'>",
        '<link title="<article id=article>">',
        "<?php bogus comment ?>",
        "<style>/* </article> <script> */</style>",
        "<title><!-- </title>",
        "<noscript><script id=oo-manifest></noscript>",
    ],
)
def test_markup_in_the_head_leaves_the_article_and_blocks_where_a_browser_has_them(
    markup: str,
) -> None:
    doc = _with(markup)
    shift = len(markup)
    assert doc.article_span is not None and ORIGINAL.article_span is not None
    assert doc.article_span.start == ORIGINAL.article_span.start + shift
    assert doc.article_html == ORIGINAL.article_html
    assert {k: (v.start - shift, v.end - shift) for k, v in doc.blocks.items()} == {
        k: (v.start, v.end) for k, v in ORIGINAL.blocks.items()
    }


def test_a_block_id_written_with_a_character_reference_is_that_block() -> None:
    """``getElementById`` finds ``oo&#45;manifest`` as "oo-manifest": so does the page scan (a
    second manifest is refused as one)."""
    with pytest.raises(BlockError, match="appears twice"):
        _with('<script type="application/json" id="oo&#45;manifest">{}</script>')


def test_a_script_double_escaped_runs_on_as_a_browser_reads_it() -> None:
    """In a script, ``<!--<script>`` makes the next ``</script>`` part of the script's text
    (the script data states); the block then holds what a browser gives it."""
    at = PAGE.index('<script id="oo-changelog"')
    body = PAGE.index(">", at) + 1
    planted = PAGE[:body] + "<!--<script>" + PAGE[body:]
    doc = Document(planted)
    start = doc.blocks["oo-changelog"].start
    assert doc.blocks["oo-changelog"].end > planted.index("</script>", start)


@pytest.mark.parametrize(
    "markup", ["<html lang=x>", '<body onload="x()">', "<head>", "<frameset>", "<frame>"]
)
def test_a_page_level_start_tag_in_the_article_opens_nothing(markup: str) -> None:
    """In a body a browser opens no element for these (``<html>``/``<body>`` give their
    attributes to the page's own): the article still ends at its ``</article>`` and what
    follows the tag is not inside it. The tag stays in the model, for the update's scope check
    to see its attributes."""
    at = PAGE.index('<article id="article">') + len('<article id="article">')
    doc = Document(PAGE[:at] + markup + "<p>after</p>" + PAGE[at:])
    model = doc.article_model
    assert doc.article_html == markup + "<p>after</p>" + ORIGINAL.article_html
    name = markup[1:].split()[0].rstrip(">")
    (node,) = model.elements(name)
    assert node.children == [] and node.end == len(markup)
    assert model.blocks[0].tag == "p" and model.blocks[0].node.parent is model.root
