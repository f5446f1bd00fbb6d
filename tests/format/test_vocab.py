"""The one table of cases for the shared vocabulary (``oo_nb.format.vocab``). Every package that
asks these questions asks ``vocab``; tests/test_vocab_callers.py runs the same table through the
audit, the agent and the review and checks that they answer as this table does."""

from __future__ import annotations

import pytest

from oo_nb.format import vocab
from oo_nb.format.vocab import (
    citation_ids,
    domain_matches,
    domain_of,
    domain_pattern,
    is_source_id,
    listed_domain,
    strip_unsafe,
    tag_id,
    terminal_safe,
    trailing_citations,
    truncate,
    unsafe_found,
    url_key,
)

# --------------------------------------------------------------------------- which URLs name one page
SAME_PAGE = [
    ("https://example.com/a", "http://example.com/a"),
    ("https://example.com/a", "https://www.example.com/a"),
    ("https://example.com/a", "https://EXAMPLE.com/a"),
    ("https://example.com/a", "https://example.com./a"),
    ("https://example.com/a", "https://example.com/a/"),
    ("https://example.com/a", "https://example.com/a#part-2"),
    ("https://example.com/a", "https://example.com:443/a"),
    ("http://example.com/a", "http://example.com:80/a"),
    ("https://example.com", "https://example.com/"),
    ("https://example.com", "https://example.com/#top"),
    ("https://example.com/a", "https://example.com/a?utm_source=x&utm_medium=y&fbclid=1"),
    ("https://example.com/a", "https://example.com/a?utm_source_platform=x&msclkid=2"),
    ("https://example.com/a?id=7", "https://example.com/a?id=7&gclid=abc&ref_src=twsrc"),
    ("https://example.com/a?id=7", "https://example.com/a/?UTM_Campaign=z&id=7#c"),
    ("https://bücher.example/a", "https://xn--bcher-kva.example/a"),
    ("https://example.com//", "https://example.com"),
    ("https://example.com/a//", "https://example.com/a"),
]
OTHER_PAGE = [
    ("https://example.com/a", "https://example.com/b"),
    ("https://example.com/a", "https://example.com/a/b"),
    ("https://example.com/a", "https://example.org/a"),
    ("https://example.com/a", "https://example.com.evil.example/a"),
    ("https://example.com/a", "https://sub.example.com/a"),
    ("https://example.com/a", "https://example.com:8443/a"),
    ("https://example.com:8443/a", "https://example.com:8444/a"),
    ("https://a.example:8080/x", "https://b.example:8080/x"),
    ("https://example.com/a", "https://example.com/a?page=2"),
    ("https://example.com/a?page=1", "https://example.com/a?page=2"),
    ("https://example.com/item?id=1", "https://example.com/item?id=2"),
    # a flag or an empty parameter can select another view of the page: not the same page
    ("https://example.com/a", "https://example.com/a?draft"),
    ("https://example.com/a", "https://example.com/a?q="),
    # paths are case-sensitive: pages named by one capital letter are pages of their own
    ("https://en.wikipedia.org/wiki", "https://en.wikipedia.org/wiki/X"),
    ("https://example.com/", "https://example.com/X"),
    ("https://example.com/Report", "https://example.com/report"),
    # bytes that are not UTF-8 are bytes: two Latin-1 queries are two pages
    ("https://example.com/s?q=%E9", "https://example.com/s?q=%FF"),
    ("https://example.com/s?q=%E9", "https://example.com/s?q=%EF%BF%BD"),
    # parameter order is kept: merging two sources is worse than missing that they are one
    ("https://example.com/a?x=1&y=2", "https://example.com/a?y=2&x=1"),
]


@pytest.mark.parametrize(("a", "b"), SAME_PAGE)
def test_variants_of_one_address_have_one_key(a: str, b: str) -> None:
    assert url_key(a) == url_key(b)


@pytest.mark.parametrize(("a", "b"), OTHER_PAGE)
def test_addresses_that_can_serve_another_page_have_other_keys(a: str, b: str) -> None:
    assert url_key(a) != url_key(b)


def test_a_bare_host_and_path_is_the_page_on_that_host() -> None:
    assert url_key("example.com/a") == url_key("https://example.com/a")


def test_an_unreadable_url_is_its_own_key() -> None:
    assert url_key(" https://[::1/a ") == "https://[::1/a"


# --------------------------------------------------------------------------- domains
DOMAINS = [
    ("https://www.Example.com:8080/x", "example.com"),
    ("https://example.com./", "example.com"),
    ("ft.com", "ft.com"),
    ("FT.com/world", "ft.com"),
    ("https://BÜCHER.example/", "xn--bcher-kva.example"),
    ("https://user@example.com/", "example.com"),
    ("", ""),
]


@pytest.mark.parametrize(("url", "domain"), DOMAINS)
def test_the_domain_of_a_url(url: str, domain: str) -> None:
    assert domain_of(url) == domain


# (deny or prefer entry, URL, covered): an entry covers its domain and every subdomain, however
# it is written (case, spaces, www., a leading dot or "*.", a scheme or path, IDNA), and nothing else
ENTRIES = [
    "reddit.com",
    " Reddit.COM ",
    "www.reddit.com",
    ".reddit.com",
    "*.reddit.com",
    "reddit.com.",
    "WWW.Reddit.com",
    "https://www.reddit.com/r/all",
]
COVERED = [
    "https://reddit.com/r/x",
    "https://www.reddit.com/r/x",
    "http://old.reddit.com/r/x",
    "https://REDDIT.com/",
    "https://a.b.reddit.com/",
    "https://reddit.com./x",
    "https://reddit.com\\.evil.example/r/x",  # a browser reads "\\" as "/": on reddit.com
    "https://reddit%2Ecom/r/x",  # a browser decodes the host
]
LOOKALIKES = [
    "https://notreddit.com/r/x",
    "https://reddit.com.evil.example/r/x",
    "https://reddit.co/",
    "https://example.com/reddit.com",
]
DOMAIN_CASES = (
    [(e, u, True) for e in ENTRIES for u in COVERED]
    + [(e, u, False) for e in ENTRIES for u in LOOKALIKES]
    + [
        ("bücher.example", "https://xn--bcher-kva.example/x", True),
        ("xn--bcher-kva.example", "https://news.bücher.example/x", True),
        ("bücher.example", "https://bucher.example/x", False),
    ]
)


@pytest.mark.parametrize(("entry", "url", "covered"), DOMAIN_CASES)
def test_what_a_deny_or_prefer_entry_covers(entry: str, url: str, covered: bool) -> None:
    assert domain_matches(url, entry) is covered
    assert (listed_domain(url, ["quora.com", entry]) is not None) is covered


def test_an_entry_is_named_as_the_domain_it_covers() -> None:
    assert {domain_pattern(e) for e in ENTRIES} == {"reddit.com"}
    assert listed_domain("https://old.reddit.com/", ["*.Reddit.com"]) == "reddit.com"


@pytest.mark.parametrize("blank", ["", "  ", ".", "www.", "*.", "https://"])
def test_blank_entries_cover_nothing(blank: str) -> None:
    assert domain_pattern(blank) == ""
    assert listed_domain("https://example.com/", [blank]) is None
    assert not domain_matches("example.com", blank)


# --------------------------------------------------------------------------- citations
CITATIONS = [
    ("a [s1] b [s2] [s1]", ["s1", "s2"]),
    ("[s10][s9]", ["s10", "s9"]),
    ("[S1] [s2] [S2]", ["s1", "s2"]),  # the page links [S1] as [s1]; the id is lower case
    ("[s\u0661]", []),  # ASCII digits only, as the page's script reads them
    ("[s 1] [s] [1] (s1)", []),
]


@pytest.mark.parametrize(("text", "ids"), CITATIONS)
def test_the_ids_a_text_cites(text: str, ids: list[str]) -> None:
    assert citation_ids(text) == ids


@pytest.mark.parametrize(
    ("fact", "start", "ids"),
    [
        ("Tides rose [s17] [s18]", 10, ["s17", "s18"]),
        ("Tides rose [s17][s17]  ", 10, ["s17", "s17"]),
        ("[s1] Tides rose", 15, []),
        ("Tides rose [s1] today", 21, []),
        ("Tides rose [x1]", 15, []),
        ("Tides rose [S17] [s18]", 10, ["s17", "s18"]),
    ],
)
def test_the_trailing_markers_of_a_string_fact(fact: str, start: int, ids: list[str]) -> None:
    assert trailing_citations(fact) == (start, ids)


def test_a_source_id_is_s_and_ascii_digits() -> None:
    assert is_source_id("s12") and not is_source_id("s") and not is_source_id("s1a")
    assert not is_source_id("s\u0661") and not is_source_id("S1")


def test_a_references_label_is_read_at_the_start_only() -> None:
    m = vocab.LEADING_CITATION.match("  [s3] Report")
    assert m is not None and m.group(1) == "s3"
    assert vocab.LEADING_CITATION.match("Report [s3]") is None


# --------------------------------------------------------------------------- pid comments
# comment text -> (a pid comment to every reader, well formed, carried through agent HTML)
PIDS = [
    (" pid:overview:a1b2c3d4 ", True, True, True),
    ("pid:overview:a1b2c3d4", True, True, True),
    (" pid:s:p1 ", True, False, True),  # an older document's id: kept through an agent's edit
    (" pid:overview ", True, False, False),  # names the next block, malformed (FORMAT.md §3)
    (" pid:a:b:c ", True, False, False),
    (" pid:a.b:12345678 ", True, True, False),  # only id characters in an attribute value
    (" pid:" + "a" * 81 + ":b ", True, False, False),
    (" pid:a:" + "b" * 41 + " ", True, False, False),
    (" pid:a b:c ", False, False, False),
    (" note pid:a:b ", False, False, False),
    (" pid:a:12345678\n", True, True, True),
]


@pytest.mark.parametrize(("text", "pid", "wellformed", "agent"), PIDS)
def test_which_comments_are_pids(text: str, pid: bool, wellformed: bool, agent: bool) -> None:
    assert bool(vocab.PID.match(text)) is pid
    assert bool(vocab.PID_WELLFORMED.match(text)) is wellformed
    assert bool(vocab.AGENT_PID_COMMENT.fullmatch(text)) is agent
    assert bool(vocab.AGENT_PID.fullmatch(text.strip())) is agent
    assert pid or not agent  # what the sanitiser keeps, every reader reads as a pid


# --------------------------------------------------------------------------- id attribute
@pytest.mark.parametrize(
    ("tag", "value"),
    [
        ('<h2 id="a">', "a"),
        ("<h2 ID='b' class=x>", "b"),
        ("<h2 id=c>", "c"),
        ('<h2 data-id="x">', None),
        ('<h2 class="x">', None),
        ('<script id="">', ""),
        ("<script id=''>", ""),
        ("<script>", None),
        ('<p ID = "a" id="b">', "a"),  # the first one counts, as in a browser
        ('<script data-id="q" id="r">', "r"),
        ("<script id='a\"b'>", 'a"b'),
        ('<script id="a\'b">', "a'b"),
        ("<x id=>", None),
    ],
)
def test_the_id_of_a_start_tag(tag: str, value: str | None) -> None:
    assert tag_id(tag) == value


# --------------------------------------------------------------------------- unsafe text
UNSAFE = [
    *"\x00\x07\x08\x0b\x0c\r\x1b\x7f\x85\x9b",  # C0 but tab and newline, DEL, C1
    *"\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",  # bidi
    *"\u200b\u2060\ufeff",  # zero-width
    *"\u2028\u2029",  # line and paragraph separators
]
KEPT = ["\t", "\n", "\u200c", "\u200d", "é", "→", "😀"]


@pytest.mark.parametrize("char", UNSAFE)
def test_unsafe_characters_never_reach_a_reader(char: str) -> None:
    assert strip_unsafe(f"a{char}b") == "a b"
    assert terminal_safe(f"a{char}b") == f"a\\u{ord(char):04x}b"  # shown escaped
    assert unsafe_found(f"a{char}b{char}") == [f"\\u{ord(char):04x}"]


@pytest.mark.parametrize("char", KEPT)
def test_text_that_is_safe_is_kept(char: str) -> None:
    assert strip_unsafe(f"a{char}b") == terminal_safe(f"a{char}b") == f"a{char}b"


# --------------------------------------------------------------------------- truncation
@pytest.mark.parametrize(
    ("text", "limit", "shown"),
    [
        ("abcdef", 6, "abcdef"),
        ("abcdef", 5, "abcd…"),
        ("ab   cdef", 6, "ab…"),
        ("abcdef", 1, "…"),
        ("abcdef", 0, ""),
        ("", 3, ""),
    ],
)
def test_truncation_counts_its_ellipsis(text: str, limit: int, shown: str) -> None:
    assert truncate(text, limit) == shown
    assert len(truncate(text * 50, limit)) <= max(limit, 0)


def test_each_cited_id_reads_every_citation_as_cited_id_does() -> None:
    # the findall fast path and the match reading are one rule: "[s02]" and "[S2]" cite s2
    from oo_nb.format.vocab import CITATION, cited_id, each_cited_id

    text = "a [s02] b [S2] c [s10][s0] d [s007] [S00] [x1] [s] [s12]"
    assert each_cited_id(text) == [cited_id(m) for m in CITATION.finditer(text)]
    assert each_cited_id(text) == ["s2", "s2", "s10", "s0", "s7", "s0", "s12"]
