"""The lxml-free article scan gives exactly what the lxml walk gives, or steps aside (None).

Every check runs both: ``scan_fast`` and ``scan_article(..., fast=False)``; where the fast path
answers, every field of the two ``ArticleScan`` must be equal. The corpus, the fixtures and the
synthetic documents must take the fast path (a fast path that always stepped aside would pass
the agreement checks and be useless); generated and mutated articles try every way it could
answer wrongly instead of stepping aside."""

from __future__ import annotations

import dataclasses
import random
from html.entities import html5
from pathlib import Path

import pytest
from lxml import etree

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.library import article_fast, digest
from oo_nb.library.article_fast import scan_fast
from oo_nb.library.digest import scan_article
from tests.conftest import CORPUS, DOC_NAMES
from tests.library.test_library import load_synth
from tests.support.article_mutants import generate, mutate, tangle

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
needs_html5_libxml2 = pytest.mark.skipif(
    not article_fast.ENABLED, reason="the fast path needs libxml2 2.14 (HTML5 tokenizer)"
)


def agree(html: str, risks: bool, valid_text: bool = False) -> bool:
    """Assert the fast scan agrees with the lxml walk; True when it answered."""
    fast = scan_fast(html, risks=risks, valid_text=valid_text)
    if fast is None:
        return False
    try:
        slow = scan_article(html, risks=risks, fast=False)
    except (OOError, KeyError) as exc:  # the walk fails: the fast path must have stepped aside
        raise AssertionError(
            f"fast path answered where the walk fails ({exc!r}): {html!r}"
        ) from None
    for f in dataclasses.fields(slow):
        assert getattr(fast, f.name) == getattr(slow, f.name), (f.name, html)
    return True


def document_articles() -> list[tuple[str, str]]:
    """(name, article) of every o-o document among the fixtures (index pages left out)."""
    out = []
    for path in sorted(FIXTURES.rglob("*.o-o.html")):
        try:
            doc = Document.read(path)
        except OOError:
            continue  # the corrupt fixture
        if doc.kind == "document" and doc.article_span is not None:
            out.append((str(path.relative_to(FIXTURES)), doc.article_html))
    return out


@needs_html5_libxml2
def test_real_documents_and_fixtures_take_the_fast_path_and_agree() -> None:
    articles = document_articles()
    names = {name for name, _ in articles}
    assert {f"corpus/{n}" for n in DOC_NAMES} <= names and len(articles) >= 15
    for name, html in articles:
        for risks, valid_text in ((True, True), (False, True), (True, False)):
            assert agree(html, risks, valid_text), f"{name} did not take the fast path"


@needs_html5_libxml2
def test_synthetic_documents_take_the_fast_path_and_agree() -> None:
    synth = load_synth()
    taken = total = 0
    for i in range(150):
        doc = Document.parse(synth.make_document(f"fast-{i}", seed=i))
        if doc.article_span is None:
            continue
        total += 1
        taken += agree(doc.article_html, risks=i % 2 == 0, valid_text=i % 3 == 0)
    assert total >= 140 and taken >= 0.95 * total


def test_generated_articles_agree() -> None:
    rng = random.Random(11)
    taken = 0
    for _ in range(1500):
        html = generate(rng)
        if rng.random() < 0.3:
            html = mutate(rng, html)
        taken += agree(html, risks=rng.random() < 0.5)
    if article_fast.ENABLED:
        assert taken >= 400  # the generator mostly writes what the fast path reads


def test_tangled_tags_agree() -> None:
    """Misnested tags of the known kinds: where libxml2 repairs the tree, the fast path must
    step aside; where the nesting is plain, it answers."""
    rng = random.Random(13)
    taken = sum(agree(tangle(rng), risks=rng.random() < 0.5) for _ in range(4000))
    if article_fast.ENABLED:
        assert taken >= 300


def test_mutated_articles_agree() -> None:
    rng = random.Random(12)
    synth = load_synth()
    bases = [html for _, html in document_articles()]
    bases += [
        Document.parse(synth.make_document(f"mut-{i}", seed=100 + i)).article_html for i in range(8)
    ]
    small = [html for html in bases if len(html) < 3000]
    taken = 0
    for _ in range(2500):
        base = rng.choice(small if rng.random() < 0.6 else bases)
        html = mutate(rng, base, rounds=rng.randint(1, 3))
        taken += agree(html, risks=rng.random() < 0.5)
    if article_fast.ENABLED:
        assert taken >= 100


@pytest.mark.parametrize(
    "html",
    [
        "<p>a<p>b [s1]</p></p>",  # a <p> closes the open one
        "<p>a<div>b [s1]</div></p>",
        "<h2>a<h3 id='x'>b</h3></h2>",
        "<li>[s1] x</li>",  # an item outside a list
        "stray [s1] text<p>x</p>",
        "<p>x</P>",
        "<p>[s1]",  # unclosed
        "<p>&amp [s1]</p>",  # a reference without ';': read by HTML5's own rules
        "<p>\r\n[s1]</p>",
        "<p>\x00</p>",
        "<p>a\ud800 [s1]</p>",  # lxml stops at a lone surrogate
        "<!-- a --!> [s1] -->",
        '<p><span title="[s1]">x</span></p>',
        '<p id="a" id="b">x</p>',
        "<p class=a>x</p>",
        "<!-- pid:a:00000000 --><!-- pid:a:00000000 -->",  # the walk fails on it
        '<figure><img src="x" alt="a>b"><figcaption>[s1]</figcaption></figure>',  # ">" in a value
        "<figure><img src='data:,a<b'><figcaption>c</figcaption></figure>",
        '<div title="x>y"><p>[s1]</p></div>',
    ],
)
def test_what_the_fast_path_steps_aside_for(html: str) -> None:
    assert scan_fast(html, risks=True) is None


@needs_html5_libxml2
@pytest.mark.parametrize(
    "html",
    [
        # the blocks read in one step (article_fast._BLOCK), and their near misses
        "<!-- pid:a:0123abcd -->\n<p>x [s1] y [s22]</p>\n\n<!-- pid:b-c:89abcdef --> <p>z</p>",
        "<!-- pid:a:0123abcd --><!-- pid:a:0123abce -->\n<p>[s1]</p>",  # the second names it
        "<!-- pid:x --><p>[s1]</p><!-- pid:y:0123abcd --><p>[s2]</p>",  # an odd pid, a lead
        "<!-- note -->\n<p>[s1]</p>\n<!--pid:a:0123abcd-->\n<p>[s2]</p>",
        '<!-- pid:a:0123abcd -->\n<h2 id="s">H [s1]</h2><h1>t [s2]</h1><h5 id="q">[s3]</h5>',
        '<h3 id="">x</h3><p id="p1">a [s1]</p><p>b</p ><p>c [s2]</p\n>',
        '<p>&amp; [s1] &#91;s2] &#x5B;s3&#93;</p><p>&#91;s4]</p><h2 id="a">&lt;b&gt;</h2>',
        '<p>[s<b></b>14] <a href="u">[s15]</a> [s<!-- c -->16]</p>',
        '<p>a <span class="stub-notice">b</span></p><h3>x <em>y</em></h3>',
        '<h2 id="references">R</h2>\n<!-- pid:references:0123abcd -->\n<ol>\n'
        '<li>[s1] <a href="https://a.org/x">T</a> — a.org</li>\n<li>\u00a0[s2] no link</li>\n'
        '<li>[s<a href="u">3]</a></li><li><a href="v">[s4]</a> t</li><li>[S5] <a href="">x</a></li>'
        "<li></li>\n</ol>\n<p>after [s1]</p>",
        '<h2 id="references">R</h2><ol><li> <a href="a">[s6]</a></li><li>\u00a0<a href="b"> [s7]</a>'
        '</li><li>\u2003<a href="c">\u00a0</a>[s8]</li><li>text only</li><li><a href="d">t</a> [s9]'
        '</li><li><a href="e"></a></li><li>[x] <a href="f">[s10]</a></li><li>[s<a href="g">x</a>]</li>'
        "</ol>",
        '<h2 id="references">R</h2><ul><li>[s1] <a href="a?b=1&amp;c=2">T</a></li></ul>',
        '<h2 id="references">R</h2><ol><li>[s1] <a href="x[s2]">T</a></li></ol>',
        '<h2 id="references">R</h2><ol></ol><ul>\n</ul><ol><li>[s1]<b>x</b></li></ol>',
        '<ol><li>[s1] <a href="https://a.org/x">T</a></li></ol>',  # not the references: a block
        '<div><!-- pid:d:0123abcd -->\n<p>[s1]</p><h2 id="references">R</h2><ol><li>[s2]</li></ol>'
        "</div><p>[s3]</p>",
        '<figure class="f"><img src="data:image/png;base64,AAAA" alt="a"><figcaption>[s1] '
        "<span>b</span></figcaption></figure>",
    ],
)
def test_blocks_read_in_one_step_agree(html: str) -> None:
    assert agree(html, risks=False)
    agree(html, risks=True)  # (it steps aside for a citation mark in an attribute)


@needs_html5_libxml2
def test_every_named_reference_decodes_as_libxml2_decodes_it() -> None:
    names = sorted(k for k in html5 if k.endswith(";"))
    body = "".join(f'<p title="&{name}">&{name}</p>' for name in names)
    page = etree.fromstring(f"<html><body>{body}</body></html>", etree.HTMLParser())
    for name, p in zip(names, page.find("body"), strict=True):
        assert article_fast._decode(f"&{name}") == p.text == p.get("title"), name


def test_scan_article_takes_the_fast_path_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, bool]] = []
    real = digest.scan_fast

    def spy(html: str, *, risks: bool, valid_text: bool) -> object:
        calls.append((html, valid_text))
        return real(html, risks=risks, valid_text=valid_text)

    monkeypatch.setattr(digest, "scan_fast", spy)
    article = Document((CORPUS / "agi-declared.o-o.html").read_text()).article_html
    assert scan_article(article, risks=True) == scan_article(article, risks=True, fast=False)
    assert calls == [(article, False)]
    # the library's digest says the text came from the file's bytes (no NUL, no lone surrogate)
    found = digest.digest_file(str(CORPUS / "agi-declared.o-o.html"), "agi-declared")
    assert isinstance(found, digest.Digest) and found.n_paragraphs > 0
    assert calls[1:] == [(article, True)]
    assert not Document(Document.read(CORPUS / "agi-declared.o-o.html").text).decoded_from_bytes
