"""Articles for holding the lxml-free article scan to the lxml walk: random well-formed articles
from the tags the fast scan knows, and aggressive mutations of any article (tags inserted,
deleted, duplicated, swapped, renamed, wrapped; stray text, character references, comments,
attributes, control characters) so that every way the fast path could answer wrongly gets tried."""

from __future__ import annotations

import random
import re

from oo_nb.library.article_fast import _CHILDREN

__all__ = ["generate", "mutate", "tangle"]

_WORDS = [
    "alpha", "beta", "[s1]", "[s2]", "[s10]", "&amp;", "&lt;b&gt;", "&#91;s3]", "&#x5B;s4&#93;",
    "&nbsp;", "&eacute;", "&#8212;", "&quot;", "[s", "1]", "é", "\u00a0", "  ", "\n", "\t", "x>y",
    "&#128;", "&#0;", "&#x110000;", "&DoubleLongLeftRightArrow;", "&amp;lt;", "[S1]", "[s01]",
    "“quoted”", "pid:a:0123abcd", "&#91;s5&#93;", "[s٣]", "\u2028", "\x0b", "\x1f", "\u00ad",
]  # fmt: skip
# words the fast path must refuse or read exactly as libxml2 does: kept out of most articles
_RARE = [
    "&amp", "&notit;", "&#1;", "&#xFFFE;", "&lt", "&AMP;", "&bogus;", "a<b", "\r", "\x0c", "\x00",
    "\x85", "&#x1F;", "&#0", "&nbsp", "& b", "\ufdd0", "\U0001fffe", "\r\n", "\ud800", "< b", "</ x>",
]  # fmt: skip
_INLINE = ["a", "strong", "em", "b", "i", "span", "code", "sup", "sub", "small", "cite", "abbr"]
_IDS = ["overview", "references", "s-1", "a&amp;b", "q&quot;x", "", "x&lt;y", "sources", "a b"]
_PIDS = [
    "pid:s:0123abcd", "pid:s:0123abcd", "pid:t:deadbeef", "pid:bad", "pid:a:XYZ",
    " pid:c:00000000 ", "pid:x:1", "pid:a:", "pid::0123abcd", "pid:a b:00000000",
]  # fmt: skip
_CLASSES = ["table-wrap", "stub-notice", "x stub-notice", "table-wrapper", "a", "stub-notice\tb"]

# snippets a mutation inserts: well-formed pieces, misnested ones, and what the parser reads
# in its own way
_STRUCTURE = [
    "<p>", "</p>", "<div>", "</div>", "<li>", "</li>", "<ol>", "</ol>", "<ul>", "</ul>",
    '<h2 id="z">', "</h2>", "<h3>", "</h3>", "<table>", "</table>", "<tr>", "</tr>", "<td>",
    "</td>", '<a href="m">', "</a>", "<strong>", "</strong>", "<figure>", "</figure>",
    "<section>", "</section>", "<blockquote>", "</blockquote>", "<span>", "</span>", "<br>",
    "<hr>", '<img src="x">', "<th>", "</th>", "<thead>", "<tbody>", "</tbody>", "<figcaption>",
    "</figcaption>", "<em>", "</em>", "<b>", "</b>", "<h1>", "</h1>", "<h4>", "</h4>",
    "x [s1] y", "<!-- pid:q:0000aaaa -->", "<!-- pid:q -->", '<li>[s7] <a href="l">x</a></li>',
    "<p>[s8]</p>", '<h2 id="references">R</h2>',
]  # fmt: skip
_ODD = [
    '<div class="table-wrap">', '<div class="stub-notice">', "<div class='x stub-notice'>",
    '<span class="a\tstub-notice">', '<li> <a href="u&amp;v">t</a></li>', "<br/>", "<br />",
    "</br>", "<img src=x>", "<hr/>", "<h3 id='q\"x'>", "<caption>", "<!---->", "<!-->", "<!--->",
    "<!-- a --!> b -->", "<!-- <p> -->", "<!-- a -- b -->", "<!-- pid:dup:00000000 -->",
    '<p data-pid="pid:d:11112222">', '<div data-pid="x">', '<p title="[s3]">',
    '<span title="&#91;s4]">', '<span data-x="[s5]">q</span>', "<P>", "</P>", "<DIV>",
    '<p ID="a">', '<p id="a" id="b">', "<p class=a>", "<p hidden>", '<p  class = "a">',
    '<p\nclass="a">', "<script>x</script>", "<style>p{}</style>", "<textarea>", "<title>t</title>",
    "<pre>\nx</pre>", "<![CDATA[x]]>", "<!DOCTYPE html>", "<?php x ?>", "a < b", "a<b", "</>",
    "<p/>", "<div/>", "x", "  ", "\n", " stray text ", "[s9]", "&amp;", "&#60;", "&notit;",
    "&amp", "&#0;", "&#x80;", "&#xD800;", "&#1114112;", "&nbsp", "&Amp;", "&#91;s7]", "&#32;",
    "&#9;", "&#xFFFE;", "&bogus;", "&", "\r\n", "\r", "\x00", "\x0c", "\xa0", "\u2028", "\x85",
    "\ud800", "<body>", "</body>", "<html>", "<head>", "<custom-el>", "<x>", "</x>", "<wbr>",
    "<li><p>a</p></li>", "<ul><li>a<ul><li>b</li></ul></li></ul>", "<dl><dt>a</dt></dl>",
    '<p><a href="1"><a href="2">z</a></a></p>', "<q>", "<s>", "<u>", "<i>", "<noscript>",
    "<iframe>", "<center>", "<font>", "<form>", "<input>", "<select>", "<option>", "<col>",
    "<tfoot>", "<address>", '<h2 id="x" data-pid="pid:h:00aa11bb">H</h2>',
    '<div class="table-wrap"><table><tr><td>[s1]</td></tr></table></div>',
    "<p>&#91;s12&#93; and [s13]</p>", "<p>[s<b></b>14]</p>", "<p>[s<!-- c -->15]</p>", "<p> </p>",
    "<p></p>", "<li>\t[s3] <a>no href</a></li>", '<a href="a" href="b">', "<a href='q'>",
    "<h3>x &amp;lt;y</h3>", "<h2>a&#62;</h2>", "<h2 id=\"a&quot;b\">t</h2>", "<p>a<p>b</p></p>",
    "<p>a<div>b</div></p>", "<h2>a<h3>b</h3></h2>", "<td>x</td>", "<tr><td>y</td></tr>",
]  # fmt: skip
_RENAMES = [
    "p", "div", "li", "ol", "h2", "h3", "span", "a", "td", "figure", "section", "table", "ul",
    "blockquote", "P", "strong", "tr", "h1", "em", "figcaption", "pre", "x",
]  # fmt: skip
_TOKENS = re.compile(r"<!--.*?-->|<[^>]*>|[^<]+|<", re.DOTALL)


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # most articles hold no rare word at all; the others a few
        self.keep_out = rng.choice([1.0, 1.0, 1.0, 0.9999, 0.999, 0.99])

    def word(self) -> str:
        if self.rng.random() > self.keep_out:
            return self.rng.choice(_RARE)
        return self.rng.choice(_WORDS)

    def text(self) -> str:
        if self.rng.random() < 0.1:
            return ""
        return " ".join(self.word() for _ in range(self.rng.randint(0, 8)))

    def attrs(self, tag: str) -> str:
        rng = self.rng
        out = []
        if rng.random() < 0.1:
            out.append(f' data-pid="{rng.choice(_PIDS)}"')
        if rng.random() < 0.1:
            out.append(f' class="{rng.choice(_CLASSES)}"')
        if tag == "a" and rng.random() < 0.8:
            page = rng.choice(["a", "b?x=1&amp;y=2", "&#91;s1]", "", "q'r"])
            out.append(f' href="https://e.com/{page}"')
        if tag in ("h2", "h3", "h4") and rng.random() < 0.9:
            out.append(f' id="{rng.choice(_IDS)}"')
        if rng.random() < 0.05:
            out.append(f" title='{self.word()}'")
        rng.shuffle(out)
        return "".join(out)

    def space(self) -> str:
        return self.rng.choice(["", "", "\n", " ", "\n\n", "\t"])

    def comment(self) -> str:
        pid = self.rng.choice(_PIDS)
        return self.rng.choice(
            [f"<!-- {pid} -->", "<!-- note -->", "<!---->", f"<!--{pid}-->", "<!-- <li>x</li> -->"]
        )

    def inline(self, depth: int, no_link: bool = False) -> str:
        rng = self.rng
        parts = []
        for _ in range(rng.randint(0, 4)):
            r = rng.random()
            if r < 0.5 or depth > 3:
                parts.append(self.text())
            elif r < 0.6:
                parts.append(rng.choice(["<br>", "<br/>", '<img src="i.png" alt="a">']))
            elif r < 0.65:
                parts.append(self.comment())
            else:
                tag = rng.choice([t for t in _INLINE if not (no_link and t == "a")])
                inner = self.inline(depth + 1, no_link or tag == "a")
                parts.append(f"<{tag}{self.attrs(tag)}>{inner}</{tag}>")
        return "".join(parts)

    def item(self, depth: int) -> str:
        rng = self.rng
        inner = self.inline(depth)
        if rng.random() < 0.3:
            inner = rng.choice(["[s1] ", "[s22]", " \n[s3]", "", "&#91;s4] "]) + inner
        if rng.random() < 0.3:
            inner += f'<a href="https://r.org/{rng.randint(1, 9)}">{self.text()}</a>{self.text()}'
        if rng.random() < 0.15 and depth < 3:
            inner += self.listing(depth + 1)
        if rng.random() < 0.1:
            inner += f"<p>{self.inline(depth)}</p>"
        return f"<li{self.attrs('li')}>{inner}</li>"

    def listing(self, depth: int) -> str:
        tag = self.rng.choice(["ol", "ul"])
        items = "".join(self.space() + self.item(depth) for _ in range(self.rng.randint(0, 4)))
        return f"<{tag}>{items}{self.space()}</{tag}>"

    def table(self) -> str:
        rng = self.rng
        rows = "".join(
            self.space()
            + "<tr>"
            + "".join(
                f"<{c}>{self.inline(2)}</{c}>"
                for c in rng.choices(["td", "th"], k=rng.randint(1, 3))
            )
            + "</tr>"
            for _ in range(rng.randint(0, 3))
        )
        if rng.random() < 0.5:
            rows = f"<tbody>{rows}</tbody>"
        if rng.random() < 0.3:
            rows = "<thead><tr><th>h</th></tr></thead>" + rows
        return f"<table>{rows}</table>"

    def block(self, depth: int) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            return f"<p{self.attrs('p')}>{self.inline(0)}</p>"
        if r < 0.5:
            tag = rng.choice(["h2", "h2", "h3", "h4", "h1", "h5"])
            return f"<{tag}{self.attrs(tag)}>{self.inline(1)}</{tag}>"
        if r < 0.6:
            return self.listing(0)
        if r < 0.65:
            return self.table()
        if r < 0.7:
            caption = self.inline(1)
            return f'<figure{self.attrs("figure")}><img src="d"><figcaption>{caption}</figcaption></figure>'
        if r < 0.72:
            return "<hr>"
        if r < 0.8:
            return self.comment()
        if depth < 3:
            tag = rng.choice(["div", "section", "blockquote", "div"])
            inner = "".join(self.space() + self.block(depth + 1) for _ in range(rng.randint(0, 4)))
            return f"<{tag}{self.attrs(tag)}>{inner}{self.space()}</{tag}>"
        return "<p>deep</p>"


def generate(rng: random.Random) -> str:
    """A random article from the tags the fast scan knows, mostly well formed."""
    writer = _Writer(rng)
    blocks = [writer.space() + writer.block(0) for _ in range(rng.randint(1, 14))]
    if rng.random() < 0.3:  # a references section, as documents end
        items = "".join("\n" + writer.item(0) for _ in range(rng.randint(0, 5)))
        blocks.append(f'\n<h2 id="references">References</h2>\n<ol>{items}\n</ol>')
    return "".join(blocks) + writer.space()


_TANGLE_TAGS = [
    "p", "p", "p", "div", "div", "section", "blockquote", "li", "li", "ol", "ul", "table", "tbody",
    "tr", "td", "th", "h2", "h3", "h4", "h1", "a", "a", "strong", "em", "span", "figure",
    "figcaption", "br", "img", "hr",
]  # fmt: skip


def tangle(rng: random.Random) -> str:
    """Tags of the fast scan's own list, mostly nested as libxml2 leaves them and sometimes not
    (a block in a paragraph, an item outside its list, a cell outside its row, a close tag out
    of turn, text among blocks), with citations, pid comments and ids, so that a tree libxml2
    repairs shows in the rows."""
    out: list[str] = []
    open_: list[str] = []
    for _ in range(rng.randint(1, 50)):
        top = open_[-1] if open_ else "body"
        r = rng.random()
        if r < 0.4:
            fits = sorted(set(_TANGLE_TAGS) & _CHILDREN.get(top, frozenset()))
            tag = rng.choice(fits if fits and rng.random() < 0.9 else _TANGLE_TAGS)
            attrs = ""
            if tag in ("h2", "h3") and rng.random() < 0.7:
                attrs = f' id="{rng.choice(["references", "a", "b"])}"'
            elif tag == "a":
                attrs = f' href="https://x.org/{rng.randint(0, 9)}"'
            elif tag == "div" and rng.random() < 0.3:
                attrs = ' class="table-wrap"'
            out.append(f"<{tag}{attrs}>")
            if tag not in ("br", "img", "hr"):
                open_.append(tag)
        elif r < 0.65 and open_:
            out.append(f"</{open_.pop() if rng.random() < 0.95 else rng.choice(_TANGLE_TAGS)}>")
        elif r < 0.88:
            if top in ("body", "div", "section", "blockquote") and rng.random() < 0.9:
                out.append(rng.choice(["\n", " ", ""]))
            else:
                out.append(
                    rng.choice(["x [s1] ", "[s2]", "word ", " ", "\n", "[s3] y", "a&amp;b "])
                )
        else:
            out.append(f"<!-- pid:{rng.choice('ab')}:{rng.getrandbits(32):08x} -->")
    while open_ and rng.random() < 0.97:
        out.append(f"</{open_.pop()}>")
    return "".join(out)


def mutate(rng: random.Random, html: str, rounds: int = 1) -> str:
    """``html`` after ``rounds`` rounds of one to four random edits of its tokens."""
    for _ in range(rounds):
        html = _mutate_once(rng, html)
    return html


def _mutate_once(rng: random.Random, html: str) -> str:
    tokens = _TOKENS.findall(html)
    snippets = _STRUCTURE if rng.random() < 0.6 else _ODD
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        at = rng.randrange(len(tokens) + 1)
        if op < 0.2 and tokens:
            del tokens[min(at, len(tokens) - 1)]
        elif op < 0.35 and tokens:
            tokens.insert(at, tokens[rng.randrange(len(tokens))])
        elif op < 0.45 and len(tokens) > 1:
            a, b = rng.randrange(len(tokens)), rng.randrange(len(tokens))
            tokens[a], tokens[b] = tokens[b], tokens[a]
        elif op < 0.85:
            tokens.insert(at, rng.choice(snippets))
        elif op < 0.92 and tokens:
            k = rng.randrange(len(tokens))
            name = rng.choice(_RENAMES)
            tokens[k] = re.sub(r"^(</?)[a-z0-9]+", rf"\g<1>{name}", tokens[k])
        elif tokens:  # wrap a run of tokens in an element
            a = rng.randrange(len(tokens))
            b = rng.randrange(a, min(len(tokens), a + 8) + 1)
            tag = rng.choice(["div", "p", "section", "blockquote", "li", "ol", "ul", "span", "a"])
            attrs = rng.choice(
                ["", ' class="table-wrap"', ' data-pid="pid:w:abcdef01"', ' class="stub-notice"']
            )
            tokens[a:b] = [f"<{tag}{attrs}>", *tokens[a:b], f"</{tag}>"]
    return "".join(tokens)
