"""``tokenize``'s offsets are exact, and it reads raw-text elements as a browser's tree builder has
it read them (the html5lib suite, in test_html_conformance, drives the states by hand)."""

from __future__ import annotations

import re
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oo_nb.format import html_tokens
from oo_nb.format.html_charrefs import resolve
from oo_nb.format.html_tokens import Token, content_end, markup_at, plain_tags, tokenize

# Pieces that steer the tokenizer's states, so random documents reach every one of them.
_PIECES = [
    "<", ">", "/", "!", "-", "--", '"', "'", "=", "&", ";", "#", "x", "?", " ", "\t", "\r", "\n",
    "\r\n", "\0", "a", "B", "p", "é", "amp", "amp;", "#38;", "#x26", "not", "[CDATA[", "]]>",
    "<!--", "-->", "--!>", "<!DOCTYPE", "PUBLIC", "<script>", "</script>", "<title>", "</title>",
    "<style>", "</style>", "<textarea>", "<plaintext>", "<p", "</p", "title=", "id=", "ID=",
]  # fmt: skip
_DOCUMENTS = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    return list(tokenize(text, start, end))


def _assert_tiles(text: str, tokens: list[Token], start: int, end: int) -> None:
    assert "".join(text[token.start : token.end] for token in tokens) == text[start:end]
    at = start
    for token in tokens:
        assert token.start == at < token.end
        at = token.end
    assert at == end


@settings(max_examples=400, deadline=None)
@given(_DOCUMENTS)
def test_the_tokens_tile_the_input(text: str) -> None:
    _assert_tiles(text, _tokens(text), 0, len(text))


@settings(max_examples=200, deadline=None)
@given(_DOCUMENTS, st.integers(0, 60), st.integers(0, 60))
def test_a_range_is_read_with_offsets_into_the_whole_text(text: str, a: int, b: int) -> None:
    start, end = sorted((min(a, len(text)), min(b, len(text))))
    tokens = _tokens(text, start, end)
    _assert_tiles(text, tokens, start, end)
    assert [(t.kind, t.name, t.data) for t in tokens] == [
        (t.kind, t.name, t.data) for t in _tokens(text[start:end])
    ]


@settings(max_examples=400, deadline=None)
@given(_DOCUMENTS)
def test_every_attribute_points_at_its_own_text(text: str) -> None:
    for token in _tokens(text):
        for attr in token.attrs:
            assert token.start < attr.start < attr.end <= token.end
            raw_name = text[attr.start : attr.start + len(attr.name)]
            assert raw_name.lower().replace("\0", "\ufffd") == attr.name
            assert attr.start + len(attr.name) <= attr.value_start <= attr.value_end <= attr.end
            raw_value = text[attr.value_start : attr.value_end]
            cleaned = raw_value.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
            assert resolve(cleaned, in_attribute=True) == attr.value
        names = [attr.name for attr in token.attrs]
        assert len(names) == len(set(names))


def _read(text: str) -> list[tuple[str, str, str]]:
    return [(t.kind, t.name, t.data) for t in tokenize(text)]


@pytest.mark.parametrize(
    ("html", "kind", "data"),
    [
        ("<title>a<b>&amp;</title>", "text", "a<b>&"),
        ("<textarea>x</p>&lt;</textarea>", "text", "x</p><"),
        ("<style>p{}</p>&amp;</style>", "text", "p{}</p>&amp;"),
        ("<noscript><p>&amp;</noscript>", "text", "<p>&amp;"),
        ("<iframe><!-- x --></iframe>", "text", "<!-- x -->"),
        ("<xmp><b></xmp>", "text", "<b>"),
        ("<noembed></x></noembed>", "text", "</x>"),
        ("<noframes><i></noframes>", "text", "<i>"),
        ("<script>if (a<b) x='</p>'</script>", "text", "if (a<b) x='</p>'"),
        ("<script><!--<script></script>--></script>", "text", "<!--<script></script>-->"),
        ("<SCRIPT/>a</scripty></Script >", "text", "a</scripty>"),
    ],
)
def test_raw_text_elements_hold_text_to_their_own_end_tag(html: str, kind: str, data: str) -> None:
    tokens = _read(html)
    assert tokens[1] == (kind, "", data)
    assert tokens[2][:2] == ("end", tokens[0][1])
    assert len(tokens) == 3


def test_plaintext_holds_the_rest_of_the_input() -> None:
    assert _read("<plaintext></plaintext><p>") == [
        ("start", "plaintext", ""),
        ("text", "", "</plaintext><p>"),
    ]


def test_without_the_tree_builder_a_script_tag_leaves_markup_as_markup() -> None:
    tokens = list(tokenize("<script><b>", follow_tree_builder=False))
    assert [(t.kind, t.name) for t in tokens] == [("start", "script"), ("start", "b")]


def test_an_unknown_state_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tokenizer state"):
        list(tokenize("x", state="attribute value"))


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        # The outside cases of issue 26: a list in an attribute, a comment a browser ends early,
        # an end tag inside a quoted value, a quote inside a value that ends it.
        ('<p title="<ol></ol>">x', [("start", "p", ""), ("text", "", "x")]),
        ("<!-- a --!><h2>", [("comment", "", " a "), ("start", "h2", "")]),
        ('<li title="</li>">L', [("start", "li", ""), ("text", "", "L")]),
        ("<!-->x", [("comment", "", ""), ("text", "", "x")]),
        ("a</>b", [("text", "", "ab")]),
        ("a<b c='", [("text", "", "a")]),
    ],
)
def test_the_cases_hand_parsers_got_wrong(html: str, expected: list[tuple[str, str, str]]) -> None:
    assert _read(html) == expected


def test_a_value_keeps_its_quotes_apart_from_the_attributes_after_it() -> None:
    (tag,) = tokenize("<a rel='noopener\" autofocus onfocus=\"x' href=u>")
    assert [(a.name, a.value) for a in tag.attrs] == [
        ("rel", 'noopener" autofocus onfocus="x'),
        ("href", "u"),
    ]


def test_a_repeated_attribute_keeps_the_first_value_and_its_offsets() -> None:
    text = '<h2 id="a" ID="b" id=c>'
    (tag,) = tokenize(text)
    (attr,) = tag.attrs
    assert (attr.name, attr.value) == ("id", "a")
    assert text[attr.start : attr.end] == 'id="a"'
    assert text[attr.value_start : attr.value_end] == "a"


def test_a_bare_attribute_has_an_empty_value_at_its_name_end() -> None:
    text = "<input disabled>"
    (tag,) = tokenize(text)
    (attr,) = tag.attrs
    assert (attr.value, attr.start, attr.end) == ("", 7, 15)
    assert attr.value_start == attr.value_end == 15


def test_carriage_returns_read_as_line_feeds_in_data_but_not_from_references() -> None:
    (text,) = tokenize("a\r\nb\rc&#13;")
    assert text.data == "a\nb\nc\r"


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS)
def test_markup_at_and_content_end_read_what_tokenize_reads(text: str) -> None:
    tokens = list(tokenize(text))
    for i, token in enumerate(tokens):
        if token.kind == "text" or text[token.start] != "<":
            continue  # (raw text: read by content_end below)
        found, after = markup_at(text, token.start)
        assert found == (token.kind, token.start, token.end, token.name)
        assert after == token.end
        if token.kind == "start" and after < len(text):
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            stop = content_end(text, after, token.name)
            if stop > after:  # its text, to its end tag (or the end, when a cut tag is dropped)
                assert following is not None and following.kind == "text"
                assert following.start == after
                assert following.end in (stop, len(text))


# Tags and pieces of tags: whole attributes (the one-match path) and the characters that make a
# tag leave it (the states).
_TAG_PIECES = [" x", ' x="v"', " Y='w'", ' x="a&amp;b"', ' b=""', "\n", "\r", "x", "=", '"',
               "'", "/", ">", "<", "&amp", "\0"]  # fmt: skip
_TAGS = st.tuples(
    st.sampled_from(["<a", "<A", "</b"]), st.lists(st.sampled_from(_TAG_PIECES), max_size=8)
).map(lambda tag: tag[0] + "".join(tag[1]) + ">")


@settings(max_examples=400, deadline=None)
@given(st.lists(_TAGS, max_size=4).map("".join))
def test_a_tag_read_in_one_match_is_the_tag_the_states_read(text: str) -> None:
    fast = list(tokenize(text))
    never = re.compile(r"(?!)")
    with (
        patch.object(html_tokens, "_QUOTED_TAG", never),
        patch.object(html_tokens, "_PLAIN_TAG", never),
    ):
        assert list(tokenize(text)) == fast


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_TAGS, st.sampled_from(_PIECES)), max_size=12).map("".join))
def test_plain_tags_are_the_tags_tokenize_reads_there(text: str) -> None:
    stop, tags = plain_tags(text, 0, len(text))
    before = [t for t in tokenize(text) if t.start < stop]
    assert all(t.kind in ("start", "end", "text") for t in before)
    assert tags == [text[t.start : t.end] for t in before if t.kind != "text"]
    assert all(t.end <= stop for t in before if t.kind != "text")
    assert stop == len(text) or text[stop] == "<"


@pytest.mark.parametrize(
    ("html", "stop", "tags"),
    [
        ("<p class='x'>a</p><br/>b", 24, ["<p class='x'>", "</p>", "<br/>"]),
        ('<p title="<b>">x<title>y</title>', 16, ['<p title="<b>">']),
        ("a<b><!-- c --><i>", 4, ["<b>"]),
        ("<b>< p>", 3, ["<b>"]),
        ("<b x=y>", 0, []),
        ("<b></ScRiPt><SCRIPT>", 12, ["<b>", "</ScRiPt>"]),
    ],
)
def test_plain_tags_stop_at_other_markup(html: str, stop: int, tags: list[str]) -> None:
    assert plain_tags(html, 0, len(html)) == (stop, tags)


@settings(max_examples=400, deadline=None)
@given(_DOCUMENTS, st.integers(0, 80))
def test_reading_at_a_place_stops_where_the_input_is_cut(text: str, cut: int) -> None:
    """``markup_at`` and ``content_end`` with ``end`` read what they read in ``text[:end]``."""
    end = min(cut, len(text))
    for lt in [i for i in range(end) if text[i] == "<"]:
        found = markup_at(text, lt, end)
        assert found == markup_at(text[:end], lt)
        token, after = found
        if token is not None and token[0] == "start" and after <= end:
            assert content_end(text, after, token[3], end) == content_end(
                text[:end], after, token[3]
            )


# A pattern of the steps' groups that reads no step: every token is read by the states.
_NO_STEP = re.compile(r"()()()()()()()(?s:.+)")


def _by_states(text: str) -> list[Token]:
    """The tokens with no fast path: no step in bulk, no tag read in one match."""
    never = re.compile(r"(?!)")
    with (
        patch.object(html_tokens, "_STEP", _NO_STEP),
        patch.object(html_tokens, "_QUOTED_TAG", never),
        patch.object(html_tokens, "_PLAIN_TAG", never),
    ):
        return _tokens(text)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.one_of(_TAGS, st.sampled_from(_PIECES)), max_size=16).map("".join),
    st.sampled_from([(1, 1), (1, 3), (2, 7), (5, 40)]),
)
def test_steps_read_in_bulk_are_the_tokens_the_states_read(
    text: str, windows: tuple[int, int]
) -> None:
    """The bulk reading (``findall`` over a window of steps) gives the states' tokens, also when
    the window cuts a tag, a comment or a run of text anywhere."""
    by_states = _by_states(text)
    assert _tokens(text) == by_states
    with patch.object(html_tokens, "_WINDOWS", windows):
        assert _tokens(text) == by_states


def test_an_article_read_in_bulk_is_the_article_the_states_read() -> None:
    article = (
        '<h2 id="a">A &amp; B</h2>\r\n<!-- pid:a:0123abcd -->\n<p class="x" title=\'y\'>One [s1]'
        " &lt; two</p><p>3 < 4 <b>bold</b><br/><a href=unquoted>link</a></p>"
        "<!--x--!><title>a<b></title><ol><li>[s1] <a href='https://e.com/'>e</a></li></ol>"
    )
    by_states = _by_states(article * 3)
    for windows in [(1, 1), (3, 9), (256, 8192)]:
        with patch.object(html_tokens, "_WINDOWS", windows):
            assert _tokens(article * 3) == by_states
