"""A script a browser runs is never passed over as a comment's or a JSON block's tail.

A browser ends a comment at ``<!-->``, ``<!--->`` and ``--!>`` as well as ``-->``, and a JSON
block's script at ``</script x>`` or ``</script/>``: what follows is markup, and a script there
runs. The page-code walk once searched for the next ``-->`` or ``</script>`` and never read what
lay between; and a tag with a "<" in an attribute value was left out of the markup (checked in
Chromium: each of those pages sets the title)."""

from __future__ import annotations

import itertools

import pytest

from oo_nb.format.document import Document
from oo_nb.format.page_code import unknown_regions
from oo_nb.format.template.render import render_document

EVIL = '<script>document.title="PWNED"</script>'


def _page() -> str:
    return render_document(
        file_name="t.o-o.html",
        manifest={"title": "T", "version": 0},
        contract={},
        source_cache={},
        changelog={"entries": []},
    )


def test_the_template_page_is_known() -> None:
    assert unknown_regions(Document.parse(_page().encode())) == []


@pytest.mark.parametrize(
    "comment",
    [
        f"<!-->{EVIL}<!-- -->",
        f"<!--->{EVIL}<!-- -->",
        f"<!-- a note --!>{EVIL}<!-- -->",
    ],
)
def test_a_script_after_a_comment_a_browser_ends_early_is_unknown(comment: str) -> None:
    page = _page()
    at = page.index("<article")
    doc = Document.parse((page[:at] + comment + page[at:]).encode())
    kinds = [r.kind for r in unknown_regions(doc)]
    assert "page script" in kinds


@pytest.mark.parametrize("closer", ["</script x>", "</script/>", "</script\tdata-x>"])
def test_a_script_after_a_json_block_closed_oddly_is_unknown(closer: str) -> None:
    page = _page()
    at = page.index("</script>", page.index('id="oo-manifest"'))
    doc = Document.parse((page[:at] + closer + EVIL + page[at + len("</script>") :]).encode())
    assert "oo-manifest" in doc.blocks
    kinds = [r.kind for r in unknown_regions(doc)]
    assert "page script" in kinds


def test_an_odd_closer_with_nothing_after_it_is_unknown_markup() -> None:
    page = _page()
    at = page.index("</script>", page.index('id="oo-manifest"'))
    doc = Document.parse((page[:at] + "</SCRIPT>" + page[at + len("</script>") :]).encode())
    assert [r.kind for r in unknown_regions(doc)] == ["page markup"]


def test_a_plain_comment_still_ends_at_its_closer() -> None:
    page = _page()
    at = page.index("<article")
    doc = Document.parse((page[:at] + "<!-- a note -- with dashes -->" + page[at:]).encode())
    assert unknown_regions(doc) == []


@pytest.mark.parametrize(
    "tag",
    [
        '<img alt="<" src=x onerror="document.title=\'PWNED\'">',
        "<svg/onload=\"document.title='PWNED'\" x='<'>",
        '<p title="a<b"\tonclick="x()">',
    ],
)
def test_a_tag_with_a_lt_in_an_attribute_is_unknown_markup(tag: str) -> None:
    # (a "<" in an attribute value once hid the whole tag from the markup)
    page = _page()
    at = page.index("<article")
    doc = Document.parse((page[:at] + tag + page[at:]).encode())
    assert [r.kind for r in unknown_regions(doc)] == ["page markup"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("<title>T</title>", f"<title>T<!--</title>{EVIL}--></title>"),
        ("<title>T</title>", f"<TITLE>T<!--</title >{EVIL}--></title>"),
    ],
)
def test_a_comment_opened_in_the_title_hides_nothing(old: str, new: str) -> None:
    # A browser reads the title's content as text: "<!--" there opens no comment, and the
    # script after </title> runs.
    page = _page()
    assert old in page
    doc = Document.parse(page.replace(old, new, 1).encode())
    assert "page script" in [r.kind for r in unknown_regions(doc)]


def test_markup_inside_the_title_is_its_text() -> None:
    page = _page().replace("<title>T</title>", "<title>T <b>&lt;!--</b></title>", 1)
    assert unknown_regions(Document.parse(page.encode())) == []


def test_an_element_named_like_the_title_is_markup() -> None:
    # (<title-x> is no title: what it holds is walked as it is)
    page = _page()
    at = page.index("<article")
    page = page[:at] + f"<title-x><!--</title>{EVIL}--></title-x>" + page[at:]
    assert unknown_regions(Document.parse(page.encode())) != []


def test_a_cr_alone_in_the_shell_is_unknown_code() -> None:
    # bash ends a line at LF only: "# note\rcode" is one comment line, and the code after the
    # CR is commented out, though the text read CR as a line break looked the same
    page = _page()
    shell = page[page.index("\nOO_HTML\n") :].split("\n")
    comment = next(  # a comment line (no marker) followed by code
        line
        for line, after in itertools.pairwise(shell)
        if line.startswith("# ") and "OO:" not in line and after and not after.startswith("#")
    )
    doc = Document.parse(page.replace(comment + "\n", comment + "\r", 1).encode())
    assert {r.kind for r in unknown_regions(doc)} & {"shell", "shell section"}


@pytest.mark.parametrize("blank", ["\x0b", "\u00a0", "\x1c"])
def test_a_json_block_tag_parted_by_another_blank_is_unknown_markup(blank: str) -> None:
    # A browser reads no script element there, and the block's JSON as markup: an event
    # handler in a JSON string then runs. oo_nb reads the page as the browser does (no manifest
    # block: `oo check` says it is missing) and its markup is unknown.
    page = _page()
    tag = '<script id="oo-manifest" type="application/json">'
    page = page.replace(tag, tag.replace(" id=", blank + "id=", 1), 1)
    doc = Document.parse(page.encode())
    assert "oo-manifest" not in doc.blocks and "oo-contract" in doc.blocks
    assert "page markup" in {r.kind for r in unknown_regions(doc)}


@pytest.mark.parametrize("blank", ["\x0b", "\u00a0", "\u2003"])
def test_a_tag_parted_by_another_blank_is_unknown_markup(blank: str) -> None:
    # <meta\vhttp-equiv=...> is no meta element for a browser: the page's policy is gone
    page = _page()
    assert "<meta http-equiv=" in page
    doc = Document.parse(page.replace("<meta http-equiv=", f"<meta{blank}http-equiv=", 1).encode())
    assert [r.kind for r in unknown_regions(doc)] == ["page markup"]


@pytest.mark.parametrize("blanks", ["  ", "\t", "\n  ", " \r\n\t", "\f"])
def test_a_tag_parted_by_html_blanks_is_still_the_known_tag(blanks: str) -> None:
    # HTML's own blanks (space, tab, LF, FF, CR) part attributes alike: the same element for a
    # browser, so the same markup (the page's line numbers aside)
    page = _page()
    assert "<meta http-equiv=" in page
    edited = page.replace("<meta http-equiv=", f"<meta{blanks}http-equiv=", 1)
    edited = edited.replace('<meta charset="utf-8">', f'<meta{blanks}charset="utf-8">', 1)
    assert edited.count(blanks) > page.count(blanks)
    assert unknown_regions(Document.parse(edited.encode())) == []
