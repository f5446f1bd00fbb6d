"""The shortcuts a library scan takes through the format package give what the long way does."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import random
import re
from collections import Counter
from urllib.parse import urlsplit

from oo_nb.format import article_model, document, page_code
from oo_nb.format.article import new_pid, pid_is_wellformed, pid_problem
from oo_nb.format.article_model import read_model
from oo_nb.format.blocks import domain_of
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import article_risks
from oo_nb.format.page_code import code_regions
from oo_nb.format.vocab import normal_host
from tests.conftest import CORPUS


def by_urlsplit(url: str) -> str:
    url = url.replace("\\", "/")  # as a browser reads an http(s) URL (the vocabulary's rule)
    try:
        host = urlsplit(url if "//" in url else "//" + url).hostname or ""
    except ValueError:
        return ""
    return normal_host(host)


def test_domain_of_is_what_urlsplit_finds() -> None:
    schemes = ["http", "https", "HTTPS", "hTtp", "ftp", ""]
    seps = ["://", ":/", "//", ""]
    hosts = [
        "www.Example.com", "WWW.a.b", "a", "", "[::1]", "[::1", "user@h.com", "h.com:80",
        "h.com:", "h.com:x", "ex ample.com", "é.com", "www.", "a\tb.com", "-.-", "a..b",
        "ＥＸ.com", "h.com%2F",
    ]  # fmt: skip
    tails = ["", "/", "/p?q#f", "?q", "#f", "\n", "\r\n", " ", "\t/x", ":", "@x", "\\x", "/é"]
    n = 0
    for scheme, sep, host, tail in itertools.product(schemes, seps, hosts, tails):
        for url in (scheme + sep + host + tail, " " + scheme + sep + host + tail):
            assert domain_of(url) == by_urlsplit(url), repr(url)
            n += 1
    assert n > 5000
    assert domain_of("https://www.Example.COM:8080/a") == "example.com"


def test_pid_is_wellformed_agrees_with_pid_problem() -> None:
    rng = random.Random(5)
    alphabet = "pid:ab01f9 \t\nXg-_"
    samples = [new_pid("s"), " pid:a:0123abcd ", "pid:a:0123abcd\n", "pid:a:0123ABCD",
               "pid:a:0123abcd:x", "pid:a::0123abcd", "pid::0123abcd", "pid:a:0123abc",
               "pid:a:0123abcde", "pid:a b:0123abcd", "pid:a"]  # fmt: skip
    samples += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20))) for _ in range(3000)
    ]
    samples += [f"pid:{rng.choice(['a', 'x-y'])}:{rng.getrandbits(32):08x}" for _ in range(200)]
    for pid in samples:
        assert pid_is_wellformed(pid) == (pid_problem(pid) is None), repr(pid)


def test_line_of_counts_as_the_table_does() -> None:
    text = (CORPUS / "agi-declared.o-o.html").read_text()
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    rng = random.Random(7)
    for _ in range(50):
        doc = Document(text)  # a fresh one: counted lookups first, then the table
        for offset in [rng.randint(-3, len(text) + 3) for _ in range(40)]:
            assert doc.line_of(offset) == bisect.bisect_right(starts, offset), offset


def test_page_code_memo_gives_what_a_first_reading_gives() -> None:
    """Scripts and stylesheets are normalised and hashed once per process: a page read with
    the memo full gives the regions and fingerprints of a reading with it empty."""
    paths = sorted(CORPUS.glob("*.o-o.html"))
    page_code._forget()
    first = {p: code_regions(Document.read(p)) for p in paths}
    assert len(page_code._SEEN_CODE) > 0 and len(page_code._SEEN_TAIL) > 0
    assert sum(len(seen) for seen in page_code._SEEN_GAPS.values()) > 0
    for path in paths:
        again = code_regions(Document.read(path))
        assert again == first[path]
        for region in again:
            whole = f"{region.kind}\n{region.text}".encode()
            assert region.fingerprint == hashlib.sha256(whole).hexdigest()


def tree_of(model: article_model.Model) -> list[object]:
    """Every node of a model, as what a reader can see of it (spans, names, attributes, text,
    and its place: the index path from the root)."""
    out: list[object] = []
    stack: list[tuple[article_model.Node, tuple[int, ...], article_model.Node | None]]
    stack = [(model.root, (), None)]
    while stack:
        node, path, parent = stack.pop()
        attrs = tuple((a.name, a.value, a.start, a.end) for a in node.attrs or ())
        linked = node.parent is parent if node.kind == "element" else None
        out.append((path, node.kind, node.start, node.end, node.name, node.open_end,
                    node.close_start, attrs, node.data, node.self_closing, linked))  # fmt: skip
        stack += [(c, (*path, i), node) for i, c in enumerate(node.children)]
    return out


def model_of_document(text: str) -> object:
    """The article model ``Document`` keeps from its one reading, against ``read_model`` of the
    article's text (the reference), and the spans found on the way."""
    try:
        doc = Document(text)
    except Exception as exc:
        return type(exc).__name__, str(exc)
    if doc.article_span is None:
        return None, doc.blocks
    kept = doc.article_model
    again = read_model(doc.article_html)
    assert kept.source == again.source == text[doc.article_span.start : doc.article_span.end]
    assert tree_of(kept) == tree_of(again)
    assert kept.named.keys() == again.named.keys()
    for name, nodes in again.named.items():
        assert [n.start for n in kept.named[name]] == [n.start for n in nodes], name
    assert [n.start for n in kept.identified] == [n.start for n in again.identified]
    assert [(s.id, s.start, s.end, s.nested) for s in kept.sections] == [
        (s.id, s.start, s.end, s.nested) for s in again.sections
    ]
    return doc.article_span, doc.blocks, doc.block_tags, doc.kind


def test_the_documents_one_reading_is_the_models_reading() -> None:
    """``Document`` reads the article once (where it ends and its model, from one tree build);
    the model it keeps is the one ``read_model`` gives of the article's text, node for node,
    on markup placed to end the article early or late and on the corpus."""
    page = (CORPUS / "agi-declared.o-o.html").read_text()
    i = page.index('<article id="article">') + len('<article id="article">')
    inserts = [
        "<!-- </article> -->", "<!-- open", "<!-- a --> <!-- b </article> -->",
        "<script>x</script>", "<STYLE>p{}</STYLE>", '<article id="x">inner</article>',
        "</ARTICLE >", "</article foo>", "<!---->", "<!-- x <!-- y -->", "--> <!--",
        "<scripts>", "<Article>", '<p title="</article>">', "<textarea></article></textarea>",
        "<table><tr><td></article>", "<!-- a --!>", "<a href=x>", "<svg><desc></article>",
        "<template></article></template>", "<xmp>", "<select>", "</article x='>'>",
        "<h2 id=x>t", "<ul><li>a<li>b", "<p id=oo-manifest>", "<div id='a' id='b'>",
    ]  # fmt: skip
    texts = [page, page.replace("</article>", "", 1)]
    rng = random.Random(3)
    for _ in range(300):
        parts = rng.sample(inserts, rng.randint(1, 3))
        at = rng.randint(i, page.index("</article>"))
        texts.append(page[:at] + "".join(parts) + page[at:])
    texts += [p.read_text() for p in sorted(CORPUS.glob("*.o-o.html"))]
    read = [model_of_document(text) for text in texts]
    kinds = Counter(type(r[0]).__name__ for r in read if isinstance(r, tuple))
    assert kinds["Span"] > 200 and kinds["str"] > 20  # (read, and refused as never closed)


def test_article_risks_read_from_the_model() -> None:
    """Headings (h2/h3, at any depth) and attributes holding "[sN]" inside a paragraph, in
    document order, read from the article model as a browser builds it."""
    cases = {
        "<h2 id='a'>&lt;b&gt;</h2><p>x [s1]</p><h3 id='q\"'>t</h3>": [
            "heading #a",
            "heading id",
        ],
        "<p><a title='see [s2]'>x</a></p><h2>&lt;i&gt;</h2>": [
            "attribute title= in a paragraph",
            "heading #",
        ],
        "<h2>a</h2><div title='[s1]'>no p</div><p><span data-x='[s9] y'>z</span></p>": [
            "attribute data-x= in a paragraph"
        ],
        "<p><p><i title='[s3]'>nested</i></p></p><h3>&#60;</h3>": [
            "attribute title= in a paragraph",
            "heading #",
        ],
        "<ul><li data-a='[s1]'>not in a p</li></ul><h2 id='x'>plain</h2>": [],
        "<table><tr><td><h2 id='t'>&lt;b&gt;</h2></td></tr></table>": ["heading #t"],
        "<p title='[s1]'>its own attribute is not inside it</p>": [],
    }
    for fragment, expected in cases.items():
        found = [r.where for r in article_risks(read_model(fragment))]
        assert found == expected, fragment


def test_markup_read_through_the_memos_is_what_a_plain_reading_gives() -> None:
    """The page's markup, scripts and stylesheets read with the memos warm are what a plain
    reading finds (``code_regions(doc, memo=False)``), on real pages and on pages with odd
    tags, comments, scripts and CUSTOM markers thrown in."""
    pages = [p.read_text() for p in sorted(CORPUS.glob("*.o-o.html"))]
    odd = ["<a <b>", "< p>", "<P\nclass=x>", "<!DOCTYPE x>", "<?xml?>", "</div >", "<a title='<'>",
           "<scriptx>", "<Styles>", "<a>>", "<<b>", "<br/>", "<x-y:z>", "<!-- a -->", "<!--", "-->", "<script>x",
           "</script>", "<style>p{}</style>", "<STYLE x>", "<!-- OO:CUSTOM:START -->",
           "<!-- OO:CUSTOM:END -->", ">"]  # fmt: skip
    rng = random.Random(11)
    n = 0
    for page in pages:
        start = page.index("<html")
        for _ in range(40):
            text = page
            for _ in range(rng.randint(1, 4)):
                at = rng.randint(start, text.index("<article"))
                text = text[:at] + rng.choice(odd) + text[at:]
            try:
                doc = Document(text)
            except Exception:
                continue
            kinds = ("page markup", "page script", "stylesheet")
            assert [(r.kind, r.line, r.text) for r in code_regions(doc) if r.kind in kinds] == [
                (r.kind, r.line, r.text) for r in code_regions(doc, memo=False) if r.kind in kinds
            ]
            n += 1
    assert n > 100


def test_every_layout_marker_holds_the_text_searched_first() -> None:
    """An early page is told by one search for "OO:" (``Document`` layout)."""
    assert all("OO:" in marker for marker in document._MARKERS)
