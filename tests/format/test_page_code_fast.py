"""The page code stage's fast paths (regions cut gap by gap and recognised by one compare,
lines counted when asked and in the file's bytes, the signature looked for in the bytes, the
shell's CR LF known from the parse) give exactly what the plain reading gives (``code_regions``
with ``memo=False``; a search of the text for the signature and for CR LF): the same regions with
the same lines and texts, the same unknown regions, on real pages, pages this version renders, a
synthetic library read twice (the second time from the memos) and pages edited to reach the
edge cases."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from oo_nb.errors import OOError
from oo_nb.format import page_code
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import OUR_SCRIPT_SIGNATURE, has_our_script
from oo_nb.format.line_endings import shell_crlf_line
from oo_nb.format.page_code import code_regions, unknown_regions
from oo_nb.format.template.render import render_document, render_index
from tests.conftest import CORPUS
from tests.library.test_library import load_synth
from tests.support.page_edits import PAGE_EDITS

SHARED_CORPUS = Path("/work/shared/corpus")


def reals() -> list[bytes]:
    paths = sorted(CORPUS.glob("*.o-o.html"))
    if SHARED_CORPUS.is_dir():
        paths += sorted(SHARED_CORPUS.glob("*.o-o.html"))
    return [p.read_bytes() for p in paths]


def ours() -> list[bytes]:
    pages = [
        render_document(
            file_name="t.o-o.html",
            manifest={"title": "T — ü", "version": 3},
            contract={},
            source_cache={},
            changelog={"entries": []},
        ),
        render_index(title="Index", content_html="", count=0, last_scan=""),
    ]
    return [p.encode() for p in pages]


def docs(data: bytes) -> Iterator[Document]:
    """The page as a file read from disk and as text given in memory (the two ways in)."""
    for make in (lambda: Document.parse(data, path="x.o-o.html"), lambda: Document(data.decode())):
        try:
            yield make()
        except (OOError, UnicodeDecodeError):
            return


def plain_regions(doc: Document) -> list[tuple[str, int, str]]:
    return [(r.kind, r.line, r.text) for r in code_regions(doc, memo=False)]


def signature_in_text(doc: Document) -> bool:
    return doc.text.find(OUR_SCRIPT_SIGNATURE, doc.html.start, doc.html.end) != -1


def first_crlf_line_in_text(doc: Document) -> int | None:
    head = doc.text.find("\r\n", 0, doc.html.start)
    if head >= 0:
        return doc.line_of(head)
    tail = doc.text.find("\r\n", doc.terminator.start)
    return doc.line_of(tail) if tail >= 0 else None


def same_everywhere(data: bytes) -> int:
    """Compare every answer of the stage with the plain reading's, each on a fresh Document (a
    line looked up by one must not help the other); how many Documents were compared."""
    n = 0
    for doc in docs(data):
        raw = doc.to_bytes() if doc.decoded_from_bytes else None

        def fresh(doc: Document = doc, raw: bytes | None = raw) -> Document:
            return Document(doc.text, path=doc.path, data=raw)

        n += 1
        got = [(r.kind, r.line, r.text) for r in code_regions(fresh())]
        plain = plain_regions(fresh())
        assert got == plain
        unknown = [(r.kind, r.line, r.text) for r in unknown_regions(fresh())]
        known = page_code._known()
        assert unknown == [r for r in plain if page_code._fingerprint(r[0], r[2]) not in known]
        assert has_our_script(fresh()) == signature_in_text(fresh())
        assert shell_crlf_line(fresh()) == first_crlf_line_in_text(fresh())
        # regions whose lines are read in another order, and a region read as a whole
        regions = code_regions(fresh())
        assert [r.line for r in reversed(regions)] == [r[1] for r in reversed(got)]
        assert regions == [page_code.CodeRegion(*r) for r in got]  # type: ignore[arg-type]
    return n


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    folder = tmp_path_factory.mktemp("synth")
    paths = load_synth().make_library(folder, 150, seed=5, corrupt_rate=0.05)
    return [p.read_bytes() for p in paths]


def test_real_and_rendered_pages_read_as_before() -> None:
    page_code._forget()
    for _ in range(2):  # first with empty memos, then from them
        assert sum(same_everywhere(data) for data in reals() + ours()) >= 14


def test_a_synthetic_library_reads_as_before(synthetic: list[bytes]) -> None:
    page_code._forget()
    for _ in range(2):
        assert sum(same_everywhere(data) for data in synthetic) >= 250


_ODD = [
    "<a <b>", "<P\nclass=x>", "<!DOCTYPE x>", "</div >", "<a title='<'>", "<scriptx>", "<Styles>",
    "<br/>", "<!-- a -->", "<!--", "-->", "<script>x", "</script>", "<style>p{}</style>",
    "<STYLE x>", "<!-- OO:CUSTOM:START -->", "<!-- OO:CUSTOM:END -->", ">", "<", "<script>",
    "<script>a</script >", "</SCRIPT>", "<style>", "\r\n", "\r", "\t", "  ", "\u00a0", "\u2028",
    "<a\u00a0b>", "<a\u3000b>", "é", "😀", OUR_SCRIPT_SIGNATURE, "*", "/*", "\nOO_HTML\n",
    "<script id=\"oo-x\" type=\"application/json\">", "# OO:SHELL:START\n", "# OO:SHELL:END\n",
]  # fmt: skip


def mutations(base: list[bytes], count: int, seed: int) -> Iterator[bytes]:
    """Pages with odd text put where the walk, the memos and the line counts must take care:
    into the gaps between the data, next to the data's bounds, into the shell and header."""
    rng = random.Random(seed)
    for _ in range(count):
        text = rng.choice(base).decode()
        for _ in range(rng.randint(1, 3)):
            at = rng.choice(
                [
                    rng.randint(0, len(text)),
                    text.find("</article>"),
                    text.find("<script id="),
                    text.rfind("</script>"),
                    text.rfind("OO_HTML"),
                    text.find("<style"),
                    text.find("</head>"),
                    len(text) - rng.randint(0, 40),
                ]
            )
            at = max(0, min(at, len(text)))
            text = text[:at] + rng.choice(_ODD) + text[at:]
        if rng.random() < 0.15:
            text = text.replace("\n", "\r\n")
        elif rng.random() < 0.15:  # the shell part only, or the page only
            head, sep, rest = text.partition("<!DOCTYPE")
            text = head.replace("\n", "\r\n") + sep + rest
        yield text.encode("utf-8", "surrogatepass")


def test_edited_pages_read_as_before(synthetic: list[bytes]) -> None:
    base = reals() + ours() + synthetic[:40]
    page_code._forget()
    for data in base:  # the memos hold the unedited gaps, regions and shells
        same_everywhere(data)
    compared = sum(same_everywhere(data) for data in mutations(base, 600, seed=15))
    assert compared > 600


def test_pages_edited_as_an_attack_read_as_before() -> None:
    page_code._forget()
    for data in reals() + ours():
        same_everywhere(data)
        for name, (edit, _) in PAGE_EDITS.items():
            try:
                edited = edit(data.decode()).encode()
            except (AssertionError, ValueError):
                continue  # the edit does not apply to this page
            same_everywhere(edited)
            assert unknown_regions(Document.parse(edited)), name


def test_signature_found_where_the_text_search_finds_it() -> None:
    """The signature in the header, the page, the shell, with wide characters before it, right
    before the terminator, behind many "*": the bytes say what the text says."""
    page = ours()[0].decode()
    doc = Document(page)
    original = reals()[0].decode()
    odoc = Document(original)
    pieces = ["", "é", "😀" * 3, "€" * 50, "*" * 70, "*/" * 40]
    cases = []
    for wide in pieces:
        for where in ("header", "page-start", "page-end", "tail", "article"):
            text = original
            if where == "header":
                text = wide + "# " + OUR_SCRIPT_SIGNATURE + "\n" + text
            elif where == "page-start":
                at = odoc.html.start
                text = text[:at] + wide + OUR_SCRIPT_SIGNATURE + text[at:]
            elif where == "page-end":
                at = odoc.html.end
                text = (
                    wide
                    + text[:at]
                    + OUR_SCRIPT_SIGNATURE[: len(OUR_SCRIPT_SIGNATURE) - 1]
                    + text[at:]
                )
                cases.append(text)
                text = wide + text[:at] + OUR_SCRIPT_SIGNATURE + "\n" + text[at:]
            elif where == "tail":
                text = text + "# " + wide + OUR_SCRIPT_SIGNATURE + "\n"
                cases.append(text)  # right after the terminator, wide characters before it
                at = odoc.tail.start  # or after it (the bytes' window then reaches past the page)
                cases.append(wide + original[:at] + OUR_SCRIPT_SIGNATURE + "\n" + original[at:])
                text = original[:at] + OUR_SCRIPT_SIGNATURE + "\n# " + wide + "\n" + original[at:]
            else:
                at = text.index("</article>")
                text = text[:at] + wide + OUR_SCRIPT_SIGNATURE + text[at:]
            cases.append(text)
    cases += [page, page.replace(OUR_SCRIPT_SIGNATURE, "/*" + "*" * 80 + OUR_SCRIPT_SIGNATURE)]
    cases += [page[: doc.html.end] + "😀" + page[doc.html.end :]]
    found = set()
    for text in cases:
        for d in docs(text.encode()):
            assert has_our_script(d) == signature_in_text(d)
            found.add(has_our_script(d))
    assert found == {True, False}


def test_a_walk_that_reads_past_its_gap_is_not_remembered(synthetic: list[bytes]) -> None:
    """A script the walk cannot close inside its gap (``</scripty>`` ends it for the parse, not
    for the walk) runs into the data after it: the same gap text then walks differently when
    what follows differs, so such a gap is walked again every time."""
    base = next(d for d in synthetic if b'<script id="oo-contract"' in d).decode()
    tag = '<script id="oo-contract" type="application/json">'
    at = base.index(tag)
    pages = [
        base[:at] + "<script>x</scripty>\n" + base[at:],
        base[:at] + "<script>x</scripty>\n" + tag + "</script>" + base[at + len(tag) :],
        base[:at] + "<!-- <script>x</scripty>\n" + tag + "-->" + base[at + len(tag) :],
    ]
    page_code._forget()
    for page in pages * 2:
        assert same_everywhere(page.encode()) == 2


def test_the_memo_stays_small_and_exact() -> None:
    """A page full of new texts cannot grow the memo: a few texts per length, a few lengths
    (the least recently met go first), and only an equal text gives a stored result."""
    seen: page_code._Seen[int] = page_code._Seen(per_length=2, lengths=3)
    for i in range(50):
        text = "x" * (i % 5 + 1) + str(i)  # lengths 2 to 7
        assert seen.put(text, i) == i
        assert seen.get(text) == i
        assert len(seen) <= 6
    # the last five went in with lengths 3, 4, 5, 6, 7: those of 5, 6 and 7 are kept
    assert seen.get("xxx47") == 47 and seen.get("xxxxxxx49") is None
    assert seen.get("xxx42") is None  # its length went out meanwhile, and came back
    assert seen.get("x45") is None  # its length pushed out
    assert seen.at("ab" + "xxxx48" + "cd", 2, 8) == 48 and seen.at("abxxxx48cd", 2, 7) is None
    for i in range(3):
        seen.put(f"ab{i}", i)
    assert seen.get("ab0") is None and seen.get("ab1") == 1 and seen.get("ab2") == 2


def test_code_changed_in_place_is_not_taken_for_the_code_met_before(
    synthetic: list[bytes],
) -> None:
    """A character of the head's stylesheet or of the shell after the heredoc swapped for another
    (ASCII or wider: the same length in characters, another in bytes, or the same in both) is
    new code, and a stylesheet with a wide character before it is still the one met before."""
    rng = random.Random(21)
    base = reals() + ours() + synthetic[:10]
    page_code._forget()
    for data in base:
        same_everywhere(data)
    for data in base:
        text = data.decode()
        start = text.find("<style")
        if start < 0:
            continue
        stop = text.index("</style>", start)
        for new in ("b", "é", "😀", "\u2014", " "):
            at = rng.randint(start + 8, stop - 1)
            assert same_everywhere((text[:at] + new + text[at + 1 :]).encode()) == 2
        tail = Document(text).tail.start  # and the shell after the heredoc
        for new in ("b", "é", "😀", "\r"):
            at = rng.randint(tail, len(text) - 1)
            assert same_everywhere((text[:at] + new + text[at + 1 :]).encode()) == 2
        title = text.find("<title>")
        if title >= 0:  # a wider title: the stylesheet's bytes start further on
            wider = text[: title + 7] + "😀é" + text[title + 7 :]
            assert same_everywhere(wider.encode()) == 2


def test_odd_headers_read_as_before() -> None:
    """Lines put into the shell header: comments (indented or not, CR LF, a lone CR), blank
    lines, code; only the header's code lines count, as before."""
    rng = random.Random(33)
    odd = ["# x\n", " # x\n", "\t#\n", "#\r\n", "# a\rb\n", "\n", "  \n", "x=1\n", ":  <<  x\n",
           "#!/bin/sh\n", "\r\n", "echo  hi \r\n"]  # fmt: skip
    for data in reals() + ours():
        text = data.decode()
        opener = Document(text).opener.start
        starts = [0] + [i + 1 for i in range(opener) if text[i] == "\n"]
        for _ in range(12):
            at = rng.choice(starts)
            assert same_everywhere((text[:at] + rng.choice(odd) + text[at:]).encode()) == 2
