"""Pages written by `oo sync --migrate` and `oo sync` carry the page policy where Chromium
applies it, as `oo new` pages do: the policy bootstrap script first in <head>, before every
stylesheet, script, link and image (the markup meta alone lands in <body> and is ignored).
The browser side of this is tests/browser/test_page_policy.py."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from oo_nb.edit.new import NewSpec, create_document
from oo_nb.edit.page_policy import has_policy_bootstrap, with_policy_bootstrap
from oo_nb.edit.sync import migrate_early, sync_dir
from oo_nb.format.document import Document
from oo_nb.format.page_code import unknown_regions
from oo_nb.format.template.render import CSP, CSP_BOOTSTRAP
from tests.conftest import ALL_NAMES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_FIRST_LOAD = re.compile(r"<(?:script|style|link|img|body)\b", re.IGNORECASE)


def assert_policy_in_head(doc: Document, what: str) -> None:
    """The bootstrap (with this version's policy) is the page's first script, style, link,
    image or body tag, and it sits before </head>."""
    page = doc.text[doc.html.start : doc.html.end]
    first = _FIRST_LOAD.search(page)
    assert first is not None and page.startswith(CSP_BOOTSTRAP, first.start()), (
        f"{what}: first loading tag is {page[first.start() : first.start() + 60] if first else None!r}"
    )
    assert page.count(CSP_BOOTSTRAP) == 1, what
    head_end = page.lower().find("</head")
    assert 0 <= first.start() < head_end, what
    assert f'm.content="{CSP}"' in CSP_BOOTSTRAP


def _library_fixtures() -> list[Path]:
    return sorted((FIXTURES / "library").glob("*.o-o.html"))


@pytest.mark.parametrize("name", ALL_NAMES)
def test_corpus_pages_get_the_policy_in_head_on_migrate_and_sync(
    name: str, corpus_copy: Path
) -> None:
    path = corpus_copy / name
    before = Document.read(path)
    assert not has_policy_bootstrap(before)  # the original's meta alone: ignored by Chromium
    report = {r.rel: r for r in sync_dir(corpus_copy, migrate=True).reports}[name]
    assert report.status == "migrated" if before.layout == "early" else "updated", report
    assert "policy" in report.sections
    after = Document.read(path)
    assert_policy_in_head(after, name)
    assert unknown_regions(after) == []  # `oo check` still knows every region of the page
    # a second sync finds it in place and changes nothing
    again = {r.rel: r for r in sync_dir(corpus_copy).reports}[name]
    assert again.status == "unchanged" and path.read_bytes() == after.to_bytes()


def test_plain_sync_of_a_marker_original_adds_the_policy(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    for section in ("css", "js", "shell"):  # whichever part is synced
        shutil.copyfile(FIXTURES / "corpus" / path.name, path)
        report = {r.rel: r for r in sync_dir(corpus_copy, section).reports}[path.name]
        assert "policy" in report.sections, section
        assert_policy_in_head(Document.read(path), section)


@pytest.mark.parametrize("path", _library_fixtures(), ids=lambda p: p.name)
def test_library_fixtures_get_the_policy_in_head(path: Path, tmp_path: Path) -> None:
    shutil.copyfile(path, tmp_path / path.name)
    report = sync_dir(tmp_path, migrate=True).reports[0]
    if report.status == "error":  # a damaged fixture: named, never written
        assert (tmp_path / path.name).read_bytes() == path.read_bytes()
        return
    assert_policy_in_head(Document.read(tmp_path / path.name), path.name)


def test_new_pages_already_have_it_and_keep_one(tmp_path: Path) -> None:
    create_document(NewSpec("Tides"), tmp_path)
    doc = Document.read(tmp_path / "tides.o-o.html")
    assert has_policy_bootstrap(doc) and with_policy_bootstrap(doc) is doc
    assert_policy_in_head(doc, "oo new")


def test_crlf_page_keeps_crlf(corpus_dir: Path) -> None:
    text = (corpus_dir / "ai-model-landscape.o-o.html").read_bytes().replace(b"\n", b"\r\n")
    doc = migrate_early(Document.parse(text))
    assert_policy_in_head(doc, "crlf")
    assert b"\n" not in doc.to_bytes().replace(b"\r\n", b"")


def test_a_page_without_a_policy_meta_gets_one_first_in_head(corpus_dir: Path) -> None:
    text = (corpus_dir / "agi-declared.o-o.html").read_text()
    text = re.sub(r"<meta content=\"default-src[^>]*>\n", "", text, count=1)
    doc = with_policy_bootstrap(Document(text))
    assert_policy_in_head(doc, "no meta")
    head = doc.text[: doc.text.index("</head>")]
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in head


def _first_loading_element(doc: Document) -> str:
    """The first script, style, link or image as an HTML parser sees it (a tag inside a comment
    or a title is text, not an element)."""
    from lxml import html as lxml_html

    root = lxml_html.document_fromstring(doc.text[doc.html.start : doc.html.end])
    first = next(root.iter("script", "style", "link", "img"))
    return lxml_html.tostring(first, encoding="unicode")[: len(CSP_BOOTSTRAP)]


_META = re.compile(r"<meta content=\"default-src[^>]*>")


@pytest.mark.parametrize(
    ("kind", "edit"),
    [
        ("meta in a comment", lambda t, m: t.replace(m, f"<!-- {m} -->")),
        ("meta in the title", lambda t, m: t.replace(m + "\n", "").replace("AGI ", f"AGI {m} ", 1)),
        ("meta in a noscript", lambda t, m: t.replace(m, f"<noscript>{m}</noscript>")),
    ],
)
def test_a_policy_meta_that_is_not_an_element_is_not_where_the_bootstrap_goes(
    kind: str, edit: Callable[[str, str], str], corpus_dir: Path
) -> None:
    """A page whose policy meta was commented out (or sits in its title as text) got the
    bootstrap inside that comment or title: never run, so the migrated page loaded an external
    image (seen in Chromium). The bootstrap must be a real element, first in the head."""
    docs = []
    for name in ("agi-declared.o-o.html", "ai-model-landscape.o-o.html"):  # marker, early
        text = (corpus_dir / name).read_text()
        meta = _META.search(text)
        assert meta is not None
        text = edit(text.replace("<title>", "<title>AGI ", 1), meta.group(0))
        docs.append(with_policy_bootstrap(Document(text)))
    assert Document(text).layout == "early"
    docs.append(migrate_early(Document.parse(text.encode())))
    for doc in docs:
        assert _first_loading_element(doc) == CSP_BOOTSTRAP, kind
        assert has_policy_bootstrap(doc) and with_policy_bootstrap(doc) is doc
    # a page holding the bootstrap only as a comment has not got it
    commented = Document(text.replace("<head>\n", f"<head>\n<!-- {CSP_BOOTSTRAP} -->\n", 1))
    assert not has_policy_bootstrap(commented)
    assert _first_loading_element(with_policy_bootstrap(commented)) == CSP_BOOTSTRAP
