"""What the sanitiser does to content: elements that hide or run things go with their text, every
other piece of text is kept in place (around removed comments, after an unclosed ``<!--``, in a
fragment lxml cannot read), and paragraph-id comments survive only when well formed."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from oo_nb.format.sanitize import remove_keeping_tail, sanitize_html

HIDING = [
    "script", "style", "iframe", "object", "applet", "svg", "math", "template", "noscript",
    "noembed", "noframes", "textarea", "select", "title", "xmp", "form",
]  # fmt: skip


@pytest.mark.parametrize("tag", HIDING)
def test_elements_that_hide_or_run_content_go_with_their_text(tag: str) -> None:
    out = sanitize_html(f"<p>before</p><{tag}>hidden text</{tag}><p>after</p>")
    assert out == "<p>before</p><p>after</p>"


def test_text_around_removed_comments_stays_in_place() -> None:
    assert (
        sanitize_html("lead<!-- c -->tail<p>x</p>between<!-- d -->after<?php x ?>end")
        == "leadtail<p>x</p>betweenafterend"
    )
    assert sanitize_html("<!-- pid:a:b -->after text<p>x</p>") == (
        "<!-- pid:a:b -->after text<p>x</p>"
    )
    assert sanitize_html("<p>a<!-- pid:s:p1 -->b</p>") == "<p>a<!-- pid:s:p1 -->b</p>"
    assert sanitize_html("<!-- first -->tail<p>x</p>") == "tail<p>x</p>"
    assert sanitize_html("<p><!-- first -->inside</p>") == "<p>inside</p>"


def test_malformed_pid_comments_are_dropped() -> None:
    for bad in ("pid:" + "a" * 81 + ":b", "pid:a:" + "b" * 41, "pid:a", "pid:a:b:c", "pid:a b:c"):
        assert sanitize_html(f"<!-- {bad} --><p>x</p>") == "<p>x</p>", bad
    # only a comment is a paragraph id, not a processing instruction that reads like one
    assert sanitize_html("<?x pid:a:b><p>x</p>") == "<p>x</p>"


def test_images_whose_source_was_refused_leave_nothing() -> None:
    out = sanitize_html(
        '<p>x</p><img alt="no source"><img src="https://evil.example/i.png" alt="remote">'
        '<img src="data:image/svg+xml;base64,PHN2Zz4=">'
    )
    assert out == "<p>x</p>"


@pytest.mark.parametrize(
    ("fragment", "out"),
    [
        ("<p>a</p><!--<!--<p>kept</p>", "<p>a</p>&lt;!--&lt;!--<p>kept</p>"),
        ("<!--1<!--2<!--3<p>kept</p>", "&lt;!--1&lt;!--2&lt;!--3<p>kept</p>"),
        ("<!--a--><!--b<!--c<p>kept</p>", "&lt;!--b&lt;!--c<p>kept</p>"),
        ("<p>a</p><!-- x <!--->  <p>b</p>", "<p>a</p>  <p>b</p>"),
        ("<p>a</p><!--x--><!--<p>kept</p>", "<p>a</p>&lt;!--<p>kept</p>"),
        ("<!--x--><p>a</p><!--<p>kept</p>", "<p>a</p>&lt;!--<p>kept</p>"),
        ("<p>a</p><!----><p>b</p>", "<p>a</p><p>b</p>"),
        # a stray "-->" just before an unclosed "<!--" does not close it
        ("<p>a</p>--><!--<p>kept</p>", "<p>a</p>--&gt;&lt;!--<p>kept</p>"),
        ("<p>a</p><!-- --><!-- pid:s:p2 --><p>b</p>", "<p>a</p><!-- pid:s:p2 --><p>b</p>"),
        # closed as a browser closes it (issue 26): dropped like any comment, not shown
        ("<p>a</p><!-- note --!><p>b</p>", "<p>a</p><p>b</p>"),
        ("<p>a</p><!----!><p>b</p>", "<p>a</p><p>b</p>"),
        ("<p>a</p><!---><p>b</p><!--><p>c</p>", "<p>a</p><p>b</p><p>c</p>"),
        ("<p>a</p><!--!><p>kept</p>", "<p>a</p>&lt;!--!&gt;<p>kept</p>"),  # "!>" ends none
        ("<p>a</p><!-- x --!><!--<p>kept</p>", "<p>a</p>&lt;!--<p>kept</p>"),
    ],
)
def test_an_unclosed_comment_is_shown_not_allowed_to_swallow_the_rest(
    fragment: str, out: str
) -> None:
    assert sanitize_html(fragment) == out


def test_a_control_character_is_removed_before_lxml_reads_the_fragment() -> None:
    # lxml refuses control characters: the whole fragment was kept as text; now only the
    # character goes and the markup is cleaned as any other
    assert sanitize_html('ok\x01<p onclick="x()">kept</p>') == "ok<p>kept</p>"


@pytest.mark.parametrize(
    ("fragment", "out"),
    [
        # found while writing these tests: "<html>" without a body failed an lxml assertion
        # (the update crashed), and text after </body> or </html> was silently dropped
        ("<html>", ""),
        ("<html><head><title>t</title></head></html>", ""),
        ("<p>a</p></body><p>b</p>", "<p>a</p><p>b</p>"),
        ("<p>a</p></HTML ><p>b</p>", "<p>a</p><p>b</p>"),
        (
            "<!doctype html><html lang=en><head><meta charset=utf-8></head>"
            "<body><p>x</p></body></html>",
            "<p>x</p>",
        ),
        ("<header>h</header><p>x</p>< /body>", "h<p>x</p>&lt; /body&gt;"),  # not page tags
    ],
)
def test_page_level_tags_neither_crash_nor_lose_text(fragment: str, out: str) -> None:
    assert sanitize_html(fragment) == out


def test_whitespace_only_stays_as_is() -> None:
    assert sanitize_html("  \n ") == "  \n "
    assert sanitize_html("") == ""


def test_removing_a_node_keeps_the_text_after_it() -> None:
    root = lxml_html.fragment_fromstring("<div>a <b>x</b> b <i>y</i> c</div>")
    bold, italic = root.find("b"), root.find("i")
    remove_keeping_tail(italic)
    remove_keeping_tail(bold)
    assert lxml_html.tostring(root, encoding="unicode") == "<div>a  b  c</div>"
    remove_keeping_tail(root)  # no parent: nothing to do


def test_a_processing_instruction_cannot_forge_a_paragraph_id() -> None:
    assert sanitize_html("<p>a</p><?x pid:s:12345678?><p>b</p>") == "<p>a</p><p>b</p>"
