"""Sandboxed previews: escaped into srcdoc, no active content, no network, sensible sizes."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from oo_nb.format.document import Document
from oo_nb.notebook.preview import (
    MAX_HEIGHT,
    MIN_HEIGHT,
    PREVIEW_CSP,
    ArticlePreview,
    IndexPreview,
    clean_fragment,
    iframe,
)

HOSTILE = [
    "<script>window.pwned=1</script>",
    '<img src="x" onerror="alert(1)">',
    '<img src="https://evil.example/beacon.png">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<base href="https://evil.example/">',
    '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<a href="javascript:alert(1)">x</a>',
    '<svg onload="alert(1)"></svg>',
    '<form action="https://evil.example/"><input name="q"></form>',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    "<style>body{background:url(https://evil.example/b)}</style>",
    '<p style="background:url(https://evil.example/c)">styled</p>',
    '<object data="https://evil.example/x.swf"></object>',
    '<button data-commandlinker-command="terminal:create-new">run</button>',
]
PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def srcdoc(iframe_html: str) -> str:
    m = re.search(r'srcdoc="([^"]*)"', iframe_html)
    assert m, iframe_html[:200]
    return html.unescape(m.group(1))


def test_iframe_is_fully_sandboxed_and_escaped() -> None:
    out = iframe('<p title="a">x & y</p>', height=300)
    assert out.startswith('<iframe sandbox="" ')
    assert "allow-" not in out  # no allow-scripts, no allow-same-origin
    assert "height:300px" in out
    inner = out[out.index("srcdoc=") :]
    assert "<p" not in inner and '"a"' not in inner[8:-10]
    assert srcdoc(out) == '<p title="a">x & y</p>'


@pytest.mark.parametrize("payload", HOSTILE)
def test_clean_fragment_drops_active_and_loading_content(payload: str) -> None:
    cleaned = clean_fragment(f"<p>before</p>{payload}<p>after</p>")
    lowered = cleaned.lower()
    for bad in (
        "<script",
        "onerror",
        "onload",
        "<meta",
        "<base",
        "<iframe",
        "javascript:",
        "<form",
        "<input",
        "<link",
        "<style",
        "style=",
        "<object",
        "evil.example/beacon",
        "commandlinker",
        "<svg",
    ):
        assert bad not in lowered, (payload, cleaned)
    assert "<p>before</p>" in cleaned and "<p>after</p>" in cleaned


def test_clean_fragment_keeps_article_structure() -> None:
    fragment = (
        '<h2 id="overview">Overview</h2><p class="lead">Text [s1] <a href="https://example.org/a">link</a></p>'
        f'<figure class="fig-right"><img src="{PIXEL}" alt="dot"><figcaption>Cap <span class="img-src">Source</span></figcaption></figure>'
        '<div class="table-wrap"><table><thead><tr><th scope="col">A</th></tr></thead><tbody><tr><td colspan="2">1</td></tr></tbody></table></div>'
    )
    cleaned = clean_fragment(fragment)
    for kept in (
        'id="overview"',
        'class="lead"',
        'href="https://example.org/a"',
        f'src="{PIXEL}"',
        'class="fig-right"',
        "<figcaption>",
        'colspan="2"',
        'class="table-wrap"',
        "[s1]",
    ):
        assert kept in cleaned, kept


def test_article_preview_of_corpus_document(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    preview = ArticlePreview(doc)
    bundle = preview._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    page = srcdoc(bundle["text/html"])
    assert page.startswith("<!DOCTYPE html>")
    assert f'content="{PREVIEW_CSP}"' in page
    assert page.index("Content-Security-Policy") < page.index("<body>")
    # title, as-of and version come from the manifest (the original fills them by script)
    m = doc.manifest
    assert f'<h1 id="doc-title">{html.escape(m.title)}</h1>' in page
    assert f"As of {m.as_of} &bull; Version {m.version}" in page
    assert 'id="overview"' in page and "<script" not in page.lower()
    assert MIN_HEIGHT <= preview.height() <= MAX_HEIGHT
    assert repr(preview) == bundle["text/plain"]


def test_hostile_title_and_article_stay_inert(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    title = 'Q&A: "AI" </script><script>alert(1)</script>'
    doc = doc.edit_block("oo-manifest", lambda m: m.update(title=title))
    doc = doc.with_article("".join(HOSTILE) + "<p>kept</p>")
    page = srcdoc(ArticlePreview(doc).to_html())
    body = page[page.index("<body>") :]
    assert (
        "<script" not in body.lower()
        and "onerror" not in body
        and "evil.example/beacon" not in body
    )
    assert html.escape(title) in body
    assert "<p>kept</p>" in body


def test_explicit_height_wins(corpus_dir: Path) -> None:
    preview = ArticlePreview(Document.read(corpus_dir / "agi-declared.o-o.html"), height=777)
    assert "height:777px" in preview.to_html()


def test_short_article_gets_the_minimum_height(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html").with_article("<p>one line</p>")
    assert ArticlePreview(doc).height() == MIN_HEIGHT


def test_index_preview_shows_cards_between_markers(corpus_dir: Path) -> None:
    preview = IndexPreview(corpus_dir / "index.o-o.html")
    page = srcdoc(preview.to_html())
    assert 'class="card' in page and "<table" in page
    assert "search-input" not in page  # outside the markers: not part of the preview
    assert "<script" not in page.lower()
    assert preview.to_text().endswith("library index (25 card(s))")
