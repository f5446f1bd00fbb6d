"""``oo check`` and the audit report markup in the article that can run script
(``article-script``), as they report page code someone changed: a cloned page cannot escape the
page-code check by moving its code into ``<article>``. Chromium's side: the browser test
tests/browser/test_article_script_chromium.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.format.article_model import read_model
from oo_nb.format.article_script import script_markup, script_url
from oo_nb.format.check import check_path
from oo_nb.format.findings import CHECKS
from tests.conftest import ALL_NAMES, CORPUS
from tests.support.script_markup import SCRIPT_MARKUP

DEMO = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"
ANCHOR = '<h2 id="key-details">'


def with_markup(tmp_path: Path, markup: str, name: str = "doc") -> tuple[Path, int]:
    """A demo document with ``markup`` on its own line before Key Details, and that line."""
    text = (DEMO / "heat-pumps-in-europe.o-o.html").read_text("utf-8")
    at = text.index(ANCHOR)
    path = tmp_path / f"{name}.o-o.html"
    path.write_text(text[:at] + markup + "\n" + text[at:], "utf-8")
    return path, text[:at].count("\n") + 1


@pytest.mark.parametrize("case", list(SCRIPT_MARKUP))
def test_check_reports_article_markup_that_runs_script(case: str, tmp_path: Path) -> None:
    markup, flagged, _ = SCRIPT_MARKUP[case]
    path, line = with_markup(tmp_path, markup)
    found = [f for f in check_path(path) if f.code == "article-script"]
    if not flagged:
        assert found == []
        return
    assert found, f"{case}: not reported"
    assert found[0].severity == CHECKS["unknown-page-code"][0] == "warning"
    assert found[0].message.startswith(f"line {line}: ")


def test_the_finding_names_the_element_and_attribute(tmp_path: Path) -> None:
    path, line = with_markup(tmp_path, '<p>x <IMG SRC=x ONERROR="go()"></p>')
    (finding,) = [f for f in check_path(path) if f.code == "article-script"]
    assert f"line {line}: <img onerror='go()'> (an event handler)" in finding.message


def test_a_hostile_value_is_shown_escaped(tmp_path: Path) -> None:
    path, _ = with_markup(tmp_path, '<img src=x onerror="\x1b[2J\u202ego()">')
    (finding,) = [f for f in check_path(path) if f.code == "article-script"]
    assert "\x1b" not in finding.message and "\u202e" not in finding.message
    assert "\\x1b[2J\\u202ego()" in finding.message


def test_the_audit_reports_what_check_reports(tmp_path: Path) -> None:
    from oo_nb.library.library import Library

    flagged = "\n".join(c.html for c in SCRIPT_MARKUP.values() if c.flagged)
    path, _ = with_markup(tmp_path, flagged)
    checked = sorted(f.message for f in check_path(path) if f.code == "article-script")
    audited = Library(tmp_path, workers=1).audit(all=True)
    rows = audited[audited["code"] == "article-script"]
    assert len(checked) >= sum(c.flagged for c in SCRIPT_MARKUP.values())
    assert sorted(rows["message"]) == checked
    assert set(rows["severity"]) == {"warning"}


@pytest.mark.parametrize(
    "path", [CORPUS / n for n in ALL_NAMES] + sorted(DEMO.glob("*.o-o.html")), ids=str
)
def test_no_corpus_or_demo_document_holds_article_script(path: Path) -> None:
    assert [f for f in check_path(path) if f.code == "article-script"] == []


def test_declarative_shadow_roots_too_deep_to_read_are_reported() -> None:
    nested = '<div><template shadowrootmode="open">' * 12 + "x" + "</template></div>" * 12
    found = script_markup(read_model(nested))
    assert [what for _, what in found] == [
        "declarative shadow roots nested too deep to read"
        " (in a declarative shadow root: a browser runs it)"
    ]


@pytest.mark.parametrize(
    ("url", "runs"),
    [
        ("javascript:go()", True),
        ("  JaVaScRiPt:go()", True),
        ("\x01java\tscr\nipt:go()", True),
        ("vbscript:x", True),
        ("data:text/html,<script>", True),
        ("DATA: image/svg+xml,<svg onload=x>", True),
        ("da\nta:te\txt/html,<script>", True),
        ("data:image/png;base64,AAAA", False),
        ("https://a.example/javascript:x", False),
        ("#javascript:x", False),
        ("", False),
    ],
)
def test_script_urls_are_read_as_the_url_parser_reads_their_scheme(url: str, runs: bool) -> None:
    assert script_url(url) is runs
