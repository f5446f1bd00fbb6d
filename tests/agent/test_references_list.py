"""The References list the reader sees: the page links ``[sN]`` to the N-th item, so item N is
``sN`` (a removed source keeps its place), each source shows its title (or its domain, or its id)
linked to its URL when that URL is a safe web address, and untrusted text stays text."""

from __future__ import annotations

from typing import Any

from lxml import html as lxml_html

from oo_nb.agent.sources import references_html


def _items(ol: str) -> list[tuple[str, str | None, str | None]]:
    """(text, href, class) of each list item, as a browser would read them."""
    root = lxml_html.fragment_fromstring(ol)
    assert root.tag == "ol"
    # nothing but list items: no stray text between them
    assert not (root.text or "").strip() and all(not (li.tail or "").strip() for li in root)
    out = []
    for li in root.findall("li"):
        a = li.find("a")
        assert not [e for e in li.iter() if e.tag not in ("li", "a", "em")], lxml_html.tostring(li)
        out.append((li.text_content(), None if a is None else a.get("href"), li.get("class")))
    return out


SOURCES: dict[str, Any] = {
    "s1": {"url": "https://www.example.com/a?b=1&c=2", "title": "A <b>bold</b> & claim"},
    "s3": "A plain <i>string</i> source & more",
    "s4": {"url": "https://x.example/page", "title": "   "},
    "s5": {"url": "javascript:alert(1)", "title": ""},
    "s6": {"title": "No address"},
    "s7": {"url": "https://uncited.example/", "title": "Listed, not cited"},
    "s8": {"url": "https://y.example/", "title": "Beyond the last citation"},
}


def test_item_n_is_source_n_with_its_title_link_and_domain() -> None:
    ol, missing = references_html(SOURCES, ["s6", "s4", "s1", "s9", "s12", "s3", "s5"])
    assert _items(ol) == [
        ("[s1] A bold & claim, example.com", "https://www.example.com/a?b=1&c=2", None),
        ("[s2] source removed", None, "ref-missing"),
        ("[s3] A plain string source & more", None, None),
        ("[s4] x.example, x.example", "https://x.example/page", None),
        ("[s5] s5", None, None),  # an unsafe URL is neither linked nor shown
        ("[s6] No address", None, None),
    ]
    assert "javascript" not in ol
    assert missing == ["s9", "s12"]  # cited without a source, in number order


def test_uncited_sources_between_cited_ones_keep_their_place() -> None:
    ol, missing = references_html(SOURCES, ["s8"])
    assert [text.split("]")[0] + "]" for text, _, _ in _items(ol)] == [
        f"[s{n}]" for n in range(1, 9)
    ]
    assert _items(ol)[6] == (
        "[s7] Listed, not cited, uncited.example",
        "https://uncited.example/",
        None,
    )
    assert missing == []


def test_nothing_cited_gives_no_list() -> None:
    assert references_html(SOURCES, []) == ("", [])
    assert references_html({}, ["s2", "s1"]) == ("", ["s1", "s2"])
    assert references_html({}, ["s12", "s1", "s0", "s9"]) == ("", ["s0", "s1", "s9", "s12"])


def test_long_titles_are_cut_to_500_characters() -> None:
    long = "abcdefghij" * 75  # 750 characters
    ol, _ = references_html(
        {"s1": {"url": "https://a.example/", "title": long}, "s2": long}, ["s2"]
    )
    for text, _, _ in _items(ol):
        shown = text.removeprefix("[s1] ").removeprefix("[s2] ").removesuffix(", a.example")
        assert shown == long[:499] + "…", len(shown)


def test_the_list_written_is_exactly_the_documented_html() -> None:
    """Quotes in titles stay plain characters (as the original tool writes them); only the
    ``href`` attribute escapes them."""
    ol, _ = references_html(
        {
            "s1": {"url": "https://a.example/x?q=1&r=2", "title": 'Bob\'s "guide" & <b>notes</b>'},
            "s2": 'The "plain" one\'s text',
        },
        ["s2"],
    )
    assert ol == (
        "<ol>\n"
        '<li>[s1] <a href="https://a.example/x?q=1&amp;r=2" rel="noopener noreferrer">'
        'Bob\'s "guide" &amp; notes</a>, a.example</li>\n'
        '<li>[s2] The "plain" one\'s text</li>\n'
        "</ol>"
    )
