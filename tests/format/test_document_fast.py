"""Document parsing's shortcuts (memchr searches for rare characters, CR, "<") give exactly what
the plain searches they replace give: every attribute and every error, on the corpus, synthetic
documents and pages built to hit each shortcut's edges (the reference below is the code they
replaced, kept word for word)."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path
from typing import Any, Literal

import pytest

from oo_nb.errors import FormatError, OOError
from oo_nb.format import document
from oo_nb.format.article_model import article_end
from oo_nb.format.document import (
    _DECODE_PIECE,
    _MARKERS,
    _SCRIPT_END,
    _STYLE_END,
    Document,
    Span,
    _decode_utf8,
    _find_rare,
    _has_crlf,
    _has_marker,
    _search_tag,
)
from oo_nb.format.names import INDEX_CONTENT_START
from oo_nb.format.vocab import tag_id
from tests.conftest import CORPUS
from tests.library.test_library import load_synth

SHARED_CORPUS = Path("/work/shared/corpus")
# the patterns as they were written before (the same matches, found a little quicker now)
_TOKEN = re.compile(r"<!--|<script\b|<style\b|<article\b|</article\s*>", re.IGNORECASE)


class ReferenceDocument(Document):
    """Document with the searches as they were before the shortcuts."""

    @classmethod
    def parse(cls, data: bytes, *, path: str | Path | None = None) -> Document:
        p = Path(path) if path is not None else None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise FormatError(
                f"not valid UTF-8 (byte {exc.start})", file=document._name(p), line=line
            ) from None
        return cls(text, path=p, data=data)

    def _parse(self) -> None:
        text = self.text
        if b"\x00" in self._data if self._data is not None else "\x00" in text:
            raise FormatError(
                "contains a NUL byte", file=self.file, line=self.line_of(text.index("\x00"))
            )
        opener = self._find_opener()
        self.marker = opener[2]
        self.opener = Span(opener[0], opener[1])
        self.header = Span(0, opener[0])
        self.terminator = self._find_terminator(opener[1])
        self.html = Span(opener[1], self.terminator.start)
        self.newline = "\r\n" if "\r\n" in text[self.html.start : self.html.start + 4096] else "\n"
        self.tail = Span(self.terminator.end, len(text))
        shell_crlf = "\r\n" in text[: self.html.start] or "\r\n" in text[self.terminator.start :]
        self.shell_newline = "\r\n" if shell_crlf else "\n"
        self.blocks: dict[str, Span] = {}
        self.block_tags: dict[str, Span] = {}
        self.article_span: Span | None = None
        self._scan_html()
        index_content = (
            not self.blocks and text.find(INDEX_CONTENT_START, self.html.start, self.html.end) >= 0
        )
        self.kind: Literal["document", "index"] = "index" if index_content else "document"
        self.layout: Literal["early", "marker"] = (
            "marker" if "OO:" in text and any(m in text for m in _MARKERS) else "early"
        )

    def _find_terminator(self, start: int) -> Span:
        text, marker = self.text, self.marker
        pos = start
        while (hit := text.find(marker, pos)) >= 0:
            end = text.find("\n", hit)
            line_end = len(text) if end < 0 else end + 1
            at_line_start = hit == start or text[hit - 1] == "\n"
            if at_line_start and not text[hit + len(marker) : line_end].strip("\r\n"):
                return Span(hit, line_end)
            pos = hit + 1
        raise FormatError(
            f"no terminator line `{self.marker}` after the heredoc opener",
            file=self.file,
            line=self.line_of(start - 1),
        )

    def _scan_html(self) -> None:
        text = self.text
        pos, end = self.html.start, self.html.end
        while True:
            m = _TOKEN.search(text, pos, end)
            if not m:
                break
            tok = m.group(0).lower()
            if tok == "<!--":
                close = text.find("-->", m.end(), end)
                pos = end if close < 0 else close + 3
            elif tok in ("<script", "<style"):
                tag_end = text.find(">", m.end(), end)
                if tag_end < 0:
                    break
                closer = (_SCRIPT_END if tok == "<script" else _STYLE_END).search(
                    text, tag_end + 1, end
                )
                body_end = closer.start() if closer else end
                if tok == "<script":
                    self._note_block(
                        text[m.start() : tag_end + 1], Span(tag_end + 1, body_end), m.start()
                    )
                pos = body_end + 1
            elif tok == "<article":
                tag_end = text.find(">", m.end(), end)
                if tag_end < 0:
                    break
                if self.article_span is None and tag_id(text[m.start() : tag_end + 1]) == "article":
                    # the article's end by the tree builder (the package's one reading)
                    closed = article_end(text, tag_end + 1, end)
                    if closed is None:
                        raise FormatError(
                            '<article id="article"> is never closed',
                            file=self.file,
                            line=self.line_of(tag_end + 1),
                        )
                    self.article_span = Span(tag_end + 1, closed[0])
                    pos = closed[1]
                    continue
                pos = tag_end + 1
            else:
                pos = m.end()


FIELDS = (
    "text", "marker", "opener", "header", "terminator", "html", "newline", "tail",
    "shell_newline", "blocks", "block_tags", "article_span", "kind", "layout",
)  # fmt: skip


def state(cls: type[Document], data: bytes | str) -> Any:
    try:
        doc = cls.parse(data, path="x.o-o.html") if isinstance(data, bytes) else cls(data)
    except OOError as exc:
        return ("error", type(exc).__name__, str(exc), exc.line, getattr(exc, "block", None))
    values = [getattr(doc, name) for name in FIELDS]
    return ("ok", values, list(doc.blocks), list(doc.block_tags), doc.decoded_from_bytes)


def assert_same(data: bytes | str) -> Any:
    new, old = state(Document, data), state(ReferenceDocument, data)
    assert new == old, repr(data[:200])
    return new


def corpus_pages() -> list[bytes]:
    paths = sorted(CORPUS.glob("*.o-o.html"))
    if SHARED_CORPUS.is_dir():
        paths += sorted(SHARED_CORPUS.glob("*.o-o.html"))
    return [p.read_bytes() for p in paths]


def test_the_reference_is_the_code_it_stands_for() -> None:
    """The reference is not the class under test (a subclass that inherited the new methods
    would compare the new code with itself)."""
    for name in ("_parse", "_find_terminator", "_scan_html"):
        assert getattr(ReferenceDocument, name) is not getattr(Document, name)


def test_corpus_and_synthetic_documents_parse_alike(tmp_path: Path) -> None:
    pages = corpus_pages()
    assert len(pages) >= 5
    synth = load_synth()
    paths = synth.make_library(tmp_path / "lib", 150, seed=3, corrupt_rate=0.05)
    pages += [p.read_bytes() for p in paths]
    layouts = set()
    for page in pages:
        result = assert_same(page)
        if result[0] == "ok":
            layouts.add(result[1][-1])
        assert_same(page.decode("utf-8", "replace"))  # a Document built from a str
        assert_same(page.replace(b"\n", b"\r\n"))
    assert layouts == {"early", "marker"}


def page(
    head: str = "", html: str = "", tail: str = "", marker: str = "OO_HTML", nl: str = "\n"
) -> str:
    opener = f": << '{marker}'"
    return nl.join(["#!/usr/bin/env bash", "# a — page", head + opener, html, marker, tail])


PIECES = [
    "", "O", "OO", "OO:", "O" * 40, "OO:" * 40, "OO_HTML", " OO_HTML", "OO_HTMLx",
    "\nOO_HTML\r\r\n", "OO_HTML\r", "\r", "\r\n", "\n\r", ":START", "OO:CSS:START",
    "<!-- OO:CSS:START -->", "<!-- OO:JS:START -->", "# OO:SHELL:START", "# OO:SHELL:END",
    "<!-- OO:CUSTOM:START -->", "LIKI_HTML", "<", "<" * 40, "</scrip", "</script", "</SCRIPT",
    "</ſcript", "</scrİpt", "</style", "</ſtyle", "</STYLE >", "<!--", "-->", "é", "\u044f",
    "\u014f", "\u013c", "ŏ" * 40, "<article", "</article>", "x" * 50, "_" * 40, ":" * 40,
    "OO_" * 20, "O_:" * 20, "H" * 40, "H_" * 40, "HTML_" * 20, "iVBORw0KGgOOHTML" * 8, "LIKI_" * 9, "LIKI_HTM", "\nLIKI_HTML\n",
]  # fmt: skip


def bodies(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12))) for _ in range(n)]


def test_built_pages_parse_alike() -> None:
    """Markers, terminators, CRs and end tags where the shortcuts look: before and after the
    memchr tries run out, at the edges of the searched ranges, in Unicode case variants."""
    rng = random.Random(15)
    outcomes = set()
    for body in bodies(rng, 1500):
        for text in (
            page(html=f'<style>{body}</style><script id="oo-manifest">{body}</script>'),
            page(html=f'<article id="article">{body}</article><script>{body}</script>'),
            page(html=f"<p>{body}</p>", tail=body),
            page(head=body.replace("\n", " ") + "\n", html=body),
            page(html=body, nl="\r\n"),
            page(html="x" * 4090 + body),
            page(html=body, marker="LIKI_HTML"),
            page(html=body).replace("\nOO_HTML\n", "\nOO_HTM\n"),  # a terminator in body?
            page(html=f'<script id="oo-manifest">{body}</script><script id="oo-manifest">'),
        ):
            result = assert_same(text)
            outcomes.add(result[0] if result[0] == "ok" else result[2][:30])
            assert_same(text.encode("utf-8", "surrogatepass"))
    assert "ok" in outcomes and len(outcomes) > 3


@pytest.mark.parametrize("count", [0, 1, 31, 32, 33, 100])
def test_many_false_starts_before_the_answer(count: int) -> None:
    """The memchr tries end after a few false starts: the full search then finds the rest."""
    falses = {
        "O": "Ox OO_HTMLx O\n",
        "base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "_": "O_x OO_HTMLx _x:O:\n",
        "H": "H_ HTML OO_HTM H_HTML LIKI_HTM\n",
        "<": "a < b ",
        "\r": "\r",
    }
    for false in falses.values():
        filler = false * count
        for text in (
            page(html=f"<style>{filler}</style><script>{filler}</script>{filler}", tail=filler),
            page(html=f'<script id="oo-manifest">{filler}{{}}</script>', tail=filler + "OO:"),
            page(html=filler + "<!-- OO:CSS:START -->"),
            page(html=filler + "OO:x\n# OO:SHELL:START"),
            page(html=filler + "OO:x:START"),
            page(html=filler, tail="# OO:SHELL:START"),
            page(html=filler + "\r\n", nl="\n"),
            page(html=filler) + filler + "\nOO_HTML\n",
        ):
            assert_same(text)
            assert_same(text.replace("OO_HTML\n", "OO_HTML"))


def test_marker_and_crlf_helpers_are_the_plain_searches() -> None:
    rng = random.Random(16)
    texts = bodies(rng, 3000) + ["O" * k + m for k in (0, 31, 32, 33) for m in _MARKERS]
    for text in texts:
        assert _has_marker(text) == ("OO:" in text and any(m in text for m in _MARKERS))
        for start, end in itertools.product((0, 1, 5), (0, 3, 1000)):
            assert _has_crlf(text, start, end) == ("\r\n" in text[start:end])
    for m in _MARKERS:  # _has_marker relies on this: each marker's ":START" after its "OO:"
        assert m.index("OO:") < m.index(":START")


def test_search_helpers_are_the_plain_searches() -> None:
    rng = random.Random(17)
    texts = bodies(rng, 400)
    texts += [
        f + "OO_HTML" + g
        for f in (
            c * k + "_" * j for k in (0, 31, 32, 33, 34) for j in (0, 31, 32, 33, 40) for c in "OH"
        )
        for g in ("", "O" * 40, "_O" * 40)
    ]
    texts += ["O" * k + ":" * j + "OO:" for k in (0, 32, 33, 40) for j in (0, 31, 32, 33)]
    texts += ["<" * k + "</script" + "<" * j for k in (0, 31, 32, 33, 34) for j in (0, 40)]
    for text in texts:
        for pos in range(len(text) + 2):
            for needle in ("OO_HTML", "OO:", "LIKI_HTML"):
                assert _find_rare(text, needle, pos) == text.find(needle, pos)
            for pattern in (_SCRIPT_END, _STYLE_END):
                for end in (len(text), len(text) - 3, pos + 9):
                    new, old = _search_tag(pattern, text, pos, end), pattern.search(text, pos, end)
                    assert (new and new.span()) == (old and old.span())


def decoded(decode: Any, data: bytes) -> Any:
    try:
        return ("ok", decode(data))
    except UnicodeDecodeError as exc:
        return ("error", exc.start, exc.end, exc.reason)


def test_decoding_by_pieces_is_decoding_whole() -> None:
    """Characters of 1-4 bytes across the pieces' edges, invalid and truncated sequences,
    encoded surrogates, continuation bytes where a piece would end."""
    rng = random.Random(18)
    chars = ["a", "\n", "é", "—", "\U0001f600", "\u044f"]
    bad = [
        b"\x80",
        b"\xbf" * 5,
        b"\xc3",
        b"\xe2\x80",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xff",
    ]
    n = 0
    for size in (_DECODE_PIECE - 3, _DECODE_PIECE, _DECODE_PIECE + 1, 3 * _DECODE_PIECE + 2):
        for _ in range(60):
            data = bytearray("".join(rng.choices(chars, k=size)).encode()[: size + 8])
            for _ in range(rng.choice((0, 0, 1, 2))):  # damage, often near a piece's edge
                at = rng.choice((rng.randrange(len(data)), _DECODE_PIECE + rng.randint(-4, 4)))
                data[at:at] = rng.choice(bad)
            if rng.random() < 0.2:
                data = data[: rng.randrange(len(data))]  # perhaps inside a character
            plain = decoded(bytes.decode, bytes(data))
            assert decoded(_decode_utf8, bytes(data)) == plain
            n += plain[0] == "error"
    assert 50 < n < 200
    ascii_tail = "# a — page\n".encode() + b"x" * 5 * _DECODE_PIECE
    assert _decode_utf8(ascii_tail) == ascii_tail.decode()
    for junk in (b"\x80" * 3 * _DECODE_PIECE, b"x" * _DECODE_PIECE + b"\x80" * _DECODE_PIECE):
        assert decoded(_decode_utf8, junk) == decoded(bytes.decode, junk)  # (no IndexError)


def test_a_broken_shortcut_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails when a shortcut diverges."""
    monkeypatch.setattr(document, "_RARE_TRIES", 0)  # fine: straight to the full search
    assert_same(page(html="O" * 50 + "<!-- OO:CSS:START -->"))
    monkeypatch.setattr(document, "_has_marker", lambda text: "OO:" in text)
    with pytest.raises(AssertionError):
        assert_same(page(html="OO: alone"))


def test_token_patterns_match_as_written_before() -> None:
    """Case variants, the characters IGNORECASE folds onto s, i and k, word ends, spaces."""
    rng = random.Random(19)
    parts = ["<", "/", "!--", "script", "SCRIPT", "ſcript", "scrİpt", "scrıpt", "style", "STYLE",
             "ſtyle", "article", "ARTICLE", "artıcle", "x", " ", "\n", ">", "-", "é", "_", "1"]  # fmt: skip
    for _ in range(20000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))
        for pos in range(len(text)):
            a, b = document._TOKEN.search(text, pos), _TOKEN.search(text, pos)
            assert (a and (a.span(), a.group(0))) == (b and (b.span(), b.group(0))), text


def test_marker_search_in_bytes_is_the_search_in_text() -> None:
    rng = random.Random(20)
    texts = bodies(rng, 3000) + [
        "O" * k + ":" * j + m for k in (0, 63, 64, 65) for j in (0, 33) for m in _MARKERS
    ]
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        assert document._has_marker_bytes(data) == _has_marker(text), text
