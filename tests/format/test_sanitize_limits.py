"""The text-level checks at their edges: how long a URL or an inline image may be, what a
non-string gives, and how plain text from the model is cleaned and cut."""

from __future__ import annotations

from oo_nb.format.sanitize import (
    MAX_IMAGE_SRC_CHARS,
    is_safe_image_src,
    safe_http_url,
    sanitize_html,
    sanitize_text,
)

BASE = "https://a.example/"


def test_urls_up_to_2048_characters_pass() -> None:
    longest = BASE + "x" * (2048 - len(BASE))
    assert len(longest) == 2048 and safe_http_url(longest) == longest
    assert safe_http_url(longest + "x") is None
    assert safe_http_url("  " + longest + "\n") == longest  # surrounding space is not counted


def test_the_url_check_refuses_what_is_not_text_or_hides_characters() -> None:
    for value in (None, 123, b"https://a.example/", ["https://a.example/"]):
        assert safe_http_url(value) is None  # type: ignore[arg-type]
    for url in (BASE + "a\\b", BASE + "`x", BASE + "\x7f", BASE + "a\tb", BASE + "'x"):
        assert safe_http_url(url) is None, url
    assert safe_http_url("hTTpS://a.example/") == "hTTpS://a.example/"


def test_inline_images_up_to_the_size_limit_pass() -> None:
    head = "data:image/png;base64,"
    largest = head + "A" * (MAX_IMAGE_SRC_CHARS - len(head))
    assert len(largest) == MAX_IMAGE_SRC_CHARS and is_safe_image_src(largest)
    assert not is_safe_image_src(largest + "A")
    for kind in ("png", "jpeg", "gif", "webp"):
        assert is_safe_image_src(f"data:image/{kind};base64,AAAA==")
        assert sanitize_html(f'<img src="data:image/{kind};base64,AAAA==">') == (
            f'<img src="data:image/{kind};base64,AAAA==">'
        )


def test_tags_formed_across_passes_or_by_entities_are_removed() -> None:
    assert sanitize_text("&lt;scr&lt;b&gt;ipt&gt;alert(1)&lt;/script&gt; ok") == "alert(1) ok"
    assert sanitize_text("<<b>i>x</i> y") == "x y"


def test_plain_text_keeps_only_the_text_of_markup() -> None:
    # a ">" inside an attribute must not leave the rest of the tag behind as text
    assert sanitize_text('<a href="https://a.example/?q=a>b" title="x>y">Link</a> text') == (
        "Link text"
    )
    for tag in ("textarea", "title", "noscript", "template", "select", "iframe", "svg"):
        assert sanitize_text(f"<{tag}>hidden</{tag}>shown") == "shown", tag


def test_text_is_cut_at_a_word_end_with_an_ellipsis_within_the_limit() -> None:
    assert sanitize_text("abcd efgh", max_len=6) == "abcd…"
    assert sanitize_text("abcdef", max_len=6) == "abcdef"
    assert sanitize_text("abcdef", max_len=1) == "…"
    long = sanitize_text("y" * 400)
    assert long == "y" * 299 + "…"  # the default limit is 300 characters


def test_multiline_text_keeps_paragraphs_and_collapses_the_rest() -> None:
    got = sanitize_text("  a \t  b  \n\n\n\n  c\t\td  \n", multiline=True)
    assert got == "a b\n\nc d"
    assert sanitize_text("a\r\nb\r\n\r\n\r\nc", multiline=True) == "a\nb\n\nc"
    assert sanitize_text("a\n\nb\tc") == "a b c"


def test_text_is_normalised_and_loses_invisible_controls() -> None:
    assert sanitize_text("e\u0301t\u0065\u0301") == "\u00e9t\u00e9"  # one form of each letter
    assert sanitize_text("a\u2066b\u2069c\ufeffd\x85e\x1bf") == "a b c d e f"
