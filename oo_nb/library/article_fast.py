"""The article scan without lxml, for the well-behaved articles nearly every document holds.

``scan_fast`` reads an article with ``str.find`` and a few regular expressions over its tags
(the bulk of an article, a pid comment and its paragraph or a heading, in one short match and
a find for the end of its text; the references list in one match; text is scanned by a regex
only where a "[" starts a citation: find is many times quicker) and gives exactly the
``ArticleScan`` of the lxml walk in ``digest`` (about a third of its cost on the synthetic
library: benchmarks/article_scan.py), or None whenever the article holds anything whose tree
libxml2's HTML parser could build differently from the plain nesting its tags spell, or whose
text it could read differently: a tag outside a short list, a nesting the parser repairs (a
block inside <p>, a start tag that closes the open element: its htmlStartClose table), a close
tag that does not close the open element, an unclosed element, text directly between the blocks
the walk reads, an unquoted or repeated attribute, a ``<`` that starts no tag, a comment HTML5
ends early, a character reference without ";" or outside what it decodes as libxml2 does, CR,
NUL, a lone surrogate, a citation mark in an attribute (the walk reports those), a pid no element
carries. The caller then takes the lxml walk, which stays the reference; differential tests
(tests/library/test_article_fast.py) hold the two together on the corpus, synthetic documents
and thousands of generated, tangled and mutated articles.

Only libxml2 2.14 and later tokenise HTML as HTML5 does and keep every whitespace text node,
which is what the text rules here assume; with an older libxml2 every article takes the lxml walk.
"""

from __future__ import annotations

import html as html_lib
import itertools
import re
from collections import Counter
from html.entities import html5

from lxml import etree

from oo_nb.format.article import CITATION, PID, pid_is_wellformed
from oo_nb.format.legacy_script import heading_risks
from oo_nb.format.vocab import LEADING_CITATION, SOURCE_ID
from oo_nb.library.article_rows import LEAD_CHARS, ArticleScan

__all__ = ["ENABLED", "scan_fast"]

ENABLED = etree.LIBXML_VERSION >= (2, 14)
_MAX_CHARS = 2_000_000  # libxml2 limits text nodes and nesting; far below them, nothing to mimic
_MAX_DEPTH = 100

_INLINE = frozenset(
    {"a", "abbr", "b", "br", "cite", "code", "em", "i", "img", "mark", "q", "s", "small", "span"}
    | {"strong", "sub", "sup", "u"}
)
_VOID = frozenset({"br", "img", "hr"})
_WALKED = frozenset({"div", "section", "blockquote"})  # digest's containers
_SECTION_HEADINGS = frozenset({"h2", "h3", "h4"})
_LEVEL = {"h2": 2, "h3": 3, "h4": 4}
_TOC_HEADINGS = frozenset({"h2", "h3"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# what may stand where the walk reads blocks (the article, and the containers it descends into)
_BLOCKS = _HEADINGS | _WALKED | {"p", "ol", "ul", "table", "figure", "hr"}
# the children each element may have: no pair in libxml2's table of start tags that close the
# open element (htmlStartClose: a block inside <p> or a heading, <li> in <li>, <a> in <a>, a
# cell in a cell...), nothing its tree builder would move or imply
_CHILDREN: dict[str, frozenset[str]] = {
    "body": _BLOCKS,
    **dict.fromkeys(_WALKED, _BLOCKS | _INLINE),
    **dict.fromkeys(_HEADINGS | {"p", "figcaption"}, _INLINE),
    **dict.fromkeys(_INLINE, _INLINE),
    "a": _INLINE - {"a"},
    "li": _INLINE | {"p", "ul", "ol"},
    "ol": frozenset({"li"}),
    "ul": frozenset({"li"}),
    "table": frozenset({"thead", "tbody", "tfoot", "tr"}),
    **dict.fromkeys(("thead", "tbody", "tfoot"), frozenset({"tr"})),
    "tr": frozenset({"td", "th"}),
    **dict.fromkeys(("td", "th"), _INLINE | {"p"}),
    "figure": _INLINE | {"figcaption", "p"},
}

_S = "[ \t\n]*+"  # the whitespace HTML allows inside tags (CR and FF never get here)
_ATTRS = "(?:[ \t\n]++[a-z][a-z0-9-]*+=(?:\"[^\"<>]*+\"|'[^'<>]*+'))*+" + _S
# the same with values read up to their quote, many times quicker on a long one (an image's
# data): the caller checks they hold no "<" or ">"
_LOOSE_ATTRS = "(?:[ \t\n]++[a-z][a-z0-9-]*+=(?:\"[^\"]*+\"|'[^']*+'))*+" + _S
_NAMES = itertools.count()  # each copy of a pattern piece below names its groups anew


def _many(piece: str) -> str:
    """``(?:piece)*+``, written as the atomic group it means: Python 3.11's possessive repeat
    raises SystemError on some matches when a group inside it captures."""
    return f"(?>(?:{piece})*)"


def _flat() -> str:
    """The content of an element holding text, void inline elements and inline elements holding
    text only: nothing in it the parser could restructure. (An inline element's end tag repeats
    its start tag's name: a back-reference, so the piece is written once, not once a tag: a
    pattern a tenth the size, compiled that much quicker when a worker process starts.)"""
    name = f"f{next(_NAMES)}"
    tags = "|".join(sorted(_INLINE - _VOID))
    element = f"<br{_ATTRS}/?>|<(?P<{name}>{tags}){_ATTRS}>[^<]*+</(?P={name}){_S}>"
    return "[^<]*+" + _many(f"(?:{element})[^<]*+")  # (text first: tags tried only at a "<")


def _rows() -> str:
    """Table rows of flat cells."""
    cell = f"c{next(_NAMES)}"
    cells = _many(f"{_S}<(?P<{cell}>td|th){_ATTRS}>{_flat()}</(?P={cell}){_S}>")
    return _many(f"{_S}<tr{_ATTRS}>{cells}{_S}</tr{_S}>")


def _row_group() -> str:
    """A thead, tbody or tfoot of such rows."""
    group = f"g{next(_NAMES)}"
    return f"<(?P<{group}>thead|tbody|tfoot){_ATTRS}>{_rows()}{_S}</(?P={group}){_S}>"


# Text, then one of: a list of flat items, a table of flat cells, a flat element (each read
# as one token: most of an article), a start tag, an end tag, a comment. Attribute values hold
# no "<" or ">", so every "<" of a readable article outside comments starts a token, and
# _MARKUP finds each tag again.
_TOKEN = re.compile(
    "(?P<gap>[^<]*+)<(?:"
    f"(?P<ltag>ol|ul)(?P<lattrs>{_ATTRS})>(?P<items>{_many(f'{_S}<li{_ATTRS}>{_flat()}</li{_S}>')}{_S})"
    f"</(?P=ltag){_S}>"
    f"|table(?P<tattrs>{_ATTRS})>(?P<rows>{_many(f'{_S}(?:{_row_group()}|{_rows()})')}{_S})"
    f"</table{_S}>"
    f"|(?!(?:br|img|hr)[ \t\n/>])(?P<wtag>[a-z][a-z0-9]*+)(?P<wattrs>{_ATTRS})>"
    f"(?P<whole>{_flat()})</(?P=wtag){_S}>"
    f"|(?P<tag>[a-z][a-z0-9]*+)(?P<attrs>{_LOOSE_ATTRS})(?P<slash>/?)>"
    f"|/(?P<etag>[a-z][a-z0-9]*+){_S}>"
    "|!--(?!-?>)(?P<comment>.*?)-->"
    ")",
    re.DOTALL,
)
# the groups run() reads, in one call (m.group(*_TOKEN_GROUPS)), and the spans it takes
_TOKEN_GROUPS = tuple(
    _TOKEN.groupindex[name]
    for name in (
        "gap", "ltag", "lattrs", "tattrs", "wtag", "wattrs", "tag", "attrs", "slash", "etag",
        "comment",
    )
)  # fmt: skip
_ITEMS_AT, _ROWS_AT, _WHOLE_AT = (_TOKEN.groupindex[n] for n in ("items", "rows", "whole"))
# The blocks nearly every article is made of, where the walk reads blocks (the token loop below
# reads all else): whitespace, perhaps a pid comment of the usual form (group 1: a well formed
# pid), then the start tag of a paragraph or heading with no attribute but perhaps an id (tag
# and id: groups 2 and 3; its content is found with str.find, far quicker than a regex's scan)
# or a list of plain items, as the references list is written (tag and content: 4 and 5; the
# caller makes sure it holds no "&"). Nothing in their attributes to decode, mark or report.
_BLOCK = re.compile(
    _S
    + r"(?:<!-- (pid:[!-9;=?-~]++:[0-9a-f]{8}) -->"
    + _S
    + r')?(?:<(p|h[1-6])(?: id="([^"<>&]*+)")?>|<(ol|ul)>((?:'
    + _S
    + r'<li>[^<]*+(?:<a href="[^"<>&\[]*+">[^<]*+</a>[^<]*+)?</li>)*+'
    + _S
    + r")</\4>)"
)
# the items of such a list: the source id its text starts with (when it is right there), the
# rest of the text before the link, the link's address and text, the text after it
_PLAIN_ITEM = re.compile(
    rf'<li>(?:\s*+\[({SOURCE_ID.pattern})\])?([^<]*+)(?:<a href="([^"]*+)">([^<]*+)</a>([^<]*+))?</li>'
)
# at the level the walk reads: a paragraph's or heading's start tag, and the rest of one holding
# flat content (the end tag's name is checked by the caller)
_OPENING = re.compile(f"<(p|h[1-6])({_ATTRS})>")
_FLAT_END = re.compile(f"(?P<content>{_flat()})</(?P<close>[a-z0-9]++){_S}>")
_CONTENT_AT, _CLOSE_AT = _FLAT_END.groupindex["content"], _FLAT_END.groupindex["close"]
_CLOSE = {t: f"</{t}>" for t in ("p", "h1", "h2", "h3", "h4", "h5", "h6")}
_CLOSE_LEN = {t: len(close) for t, close in _CLOSE.items()}
_ITEMS = re.compile(f"<li{_ATTRS}>({_flat()})</li{_S}>")  # (group 1: the item's content)
# the usual references item, in one match: text, a link, text (no references, no markup)
_SIMPLE_ITEM = re.compile(
    f'<li>([^<&]*+)(?:<a href="([^"<>&]*+)">([^<&]*+)</a>([^<&]*+))?</li{_S}>'
)
_FIRST_LINK = re.compile(f"<a({_ATTRS})>")
# a start tag inside flat content whose attributes hold "[" or "&" (risks: a citation mark)
_MARKED_TAG = re.compile(r"<[a-z][a-z0-9]*[ \t\n][^>]*[\[&]")
_INNER_ATTRS = re.compile(r"<[a-z][a-z0-9]*([^>]*)>")
_MARKUP = re.compile(r"<!--.*?-->|<[^>]*>", re.DOTALL)
_ATTRIBUTE = re.compile(r"([a-z][a-z0-9-]*)=(?:\"([^\"]*)\"|'([^']*)')")
_REFERENCE = re.compile(r"&(?:([a-zA-Z][a-zA-Z0-9]{0,31})|#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,7}));")
# an "&" that does not start a reference of that form (the parser reads those by rules that
# differ between text and attributes)
_LOOSE_AMP = re.compile(r"&(?!(?:[a-zA-Z][a-zA-Z0-9]{0,31}|#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7});)")
_AMP_TRIES = 32  # the "&"s _has_loose_amp tries in place before the pattern's search
_XML_SPACE = re.compile(r"[ \t\n\r]+")  # normalize-space() splits on these only
_ALL_WELLFORMED = re.compile(r"pid:[^:\s]+:[0-9a-f]{8}(?:\npid:[^:\s]+:[0-9a-f]{8})*")

# elements whose children may be any inline element (flat content)
_FLAT_PARENTS = frozenset(t for t, children in _CHILDREN.items() if children >= _INLINE)
# frame kinds
_WALK, _LEAF, _REFS, _INNER = range(4)


class _Unsure(Exception):
    """The article holds something this scan does not read exactly as libxml2 does."""


def scan_fast(html: str, *, risks: bool = False, valid_text: bool = False) -> ArticleScan | None:
    """``digest.scan_article(html, risks=risks)`` read without lxml, or None when unsure.
    ``valid_text``: ``html`` is known to hold no NUL and no lone surrogate (what a Document
    decoded from a file's bytes guarantees), so they are not looked for again."""
    if not ENABLED or len(html) > _MAX_CHARS or "\r" in html:
        return None  # libxml2 reads CR as LF
    if not valid_text:
        if "\x00" in html:
            return None  # libxml2 reads NUL as U+FFFD: every other character as it is
        if not html.isascii():
            try:
                html.encode("utf-16-le")  # the quickest look for a lone surrogate
            except UnicodeEncodeError:  # lxml stops reading the article there
                return None
    amp = "&" in html  # (most articles hold none: no look for one in each paragraph)
    if amp and _has_loose_amp(html):
        return None
    try:
        return _Scan(html, risks, amp).run()
    except _Unsure:
        return None


def _has_loose_amp(html: str) -> bool:
    """``_LOOSE_AMP.search(html)``: the few "&" of an article found by memchr and tried in
    place, many times quicker than the pattern's own scan for its "&"."""
    find, loose = html.find, _LOOSE_AMP.match
    pos = find("&")
    for _ in range(_AMP_TRIES):
        if pos < 0:
            return False
        if loose(html, pos):
            return True
        pos = find("&", pos + 1)
    return pos >= 0 and _LOOSE_AMP.search(html, pos) is not None


def _reference(m: re.Match[str]) -> str:
    name = m.group(1)
    # a numeric one: libxml2 keeps the code points Python's decoder drops; leave those to it
    value = html5.get(name + ";") if name is not None else html_lib.unescape(m.group(0)) or None
    if value is None:
        raise _Unsure
    return value


def _decode(text: str) -> str:
    return _REFERENCE.sub(_reference, text) if "&" in text else text


def _maybe_stub(markup: str) -> bool:
    """Whether some class attribute in ``markup`` may hold "stub-notice" (perhaps encoded)."""
    return ("-" in markup and "stub-notice" in markup) or ("&" in markup and "class" in markup)


def _may_carry(hid: str, content: str) -> bool:
    """Whether a heading with this id and content may be a risk (``heading_risks``): its text
    holds "<", ">" or "&" only where the content does, and "&" or tags make it differ."""
    return '"' in hid or "<" in content or ">" in content or "&" in content


def _text_of(content: str) -> str:
    """The text content of an element holding ``content`` (comments left out, as libxml2's)."""
    return _decode(_MARKUP.sub("", content) if "<" in content else content)


def _list_items(content: str) -> list[list[str | bool | None]]:
    """[source id, url, open] of each item of a list read whole (its content)."""
    simple = _SIMPLE_ITEM.findall(content) if content else []
    if len(simple) == content.count("<li"):  # every item: text and one link at most
        return [
            [found.group(1) if found else None, url, False]
            for lead, url, title, rest in simple
            for found in [LEADING_CITATION.match(lead + title + rest)]
        ]
    items: list[list[str | bool | None]] = []
    for item in _ITEMS.finditer(content):
        found = LEADING_CITATION.match(_text_of(item.group(1)))
        link = _FIRST_LINK.search(item.group(1))
        url = _attributes(link.group(1)).get("href", "") if link else ""
        items.append([found.group(1) if found else None, url, False])
    return items


def _ref_id(text: str) -> str | None:
    """The source id a references item's text starts with, if any."""
    found = LEADING_CITATION.match(text)
    return found.group(1) if found else None


def _attributes(attrs: str) -> dict[str, str]:
    found = _ATTRIBUTE.findall(attrs)
    values = {name: _decode(dq or sq) for name, dq, sq in found}
    if len(values) != len(found):  # a repeated attribute: the parser keeps one of them
        raise _Unsure
    return values


class _Scan:
    def __init__(self, html: str, risks: bool, amp: bool = True) -> None:
        self.html = html
        self.risks = risks
        self.amp = amp  # whether html holds an "&"
        self.scan = ArticleScan()
        self.items: list[list[str | bool | None]] = []  # the references list's: id, url, open
        self.open_items: list[list[str | bool | None]] = []  # those of them not closed yet
        # (section, pid, source ids) of each element with citations, in order: the rows at the end
        self.cited: list[tuple[str, str | None, list[str]]] = []

    def text(self, span: list[int]) -> str:
        """The text content of the element whose content is html[start:end]."""
        return _text_of(self.html[span[0] : span[1]])

    def run(self) -> ArticleScan:  # one loop over the article: a call per token costs
        html, risks, scan = self.html, self.risks, self.scan
        pids, paragraphs, sections = scan.pids, scan.paragraphs, scan.sections
        stub = False  # an element of class stub-notice seen
        section = ""
        pending: str | None = None
        in_refs = False
        # first element of each pid, first pid-less <p> of each section: [content start, end]
        nodes: dict[str, list[int]] = {}
        unpidded: dict[str, list[int]] = {}
        # open elements: tag, kind, [content start, end], what closing it needs
        stack: list[tuple[str, int, list[int], object]] = [("body", _WALK, [0, 0], None)]
        top, allowed, walking = "body", _CHILDREN["body"], True
        count_figures = False
        in_list = False  # inside the references list
        match, opening, flat, block = _TOKEN.match, _OPENING.match, _FLAT_END.match, _BLOCK.match
        plain = 0  # pids read in _BLOCK's pid comments: well formed
        find, startswith, findall = html.find, html.startswith, CITATION.findall
        cite = self.cited.append
        amp = self.amp
        pos, end = 0, len(html)
        values: dict[str, str] | None
        extra: object
        while pos < end:
            if walking:  # ---------- the common case: the blocks most articles are made of
                m = block(html, pos)
                if m is not None:
                    cpid, tag, hid, _, items = m.groups()
                    if tag is not None:  # a paragraph or heading: where its content ends
                        start = m.end()
                        stop = find("<", start)
                        close = _CLOSE[tag]
                        inline = not startswith(close, stop)  # text only, most often
                        if not inline:
                            after = stop + _CLOSE_LEN[tag]
                        else:  # inline elements in it, or an end tag written otherwise
                            fm = flat(html, start)
                            if fm is None or fm.group(_CLOSE_AT) != tag:
                                m = None
                            else:
                                stop, after = fm.end(_CONTENT_AT), fm.end()
                    elif not in_refs or find("&", m.start(5), m.end(5)) >= 0:
                        m = None  # a list the walk reads as a block, or one to decode
                if m is not None:
                    if cpid is not None:
                        pids.append(cpid)
                        plain += 1
                        pending = cpid
                    pid, pending = pending, None  # (a pid before a references list: no element's)
                    if tag is None:  # the references list
                        refs = scan.references
                        n = len(refs)
                        for sid, lead, url, title, rest in _PLAIN_ITEM.findall(items):
                            n += 1
                            if not sid:  # an id after markup, or none (most often: a link first)
                                first = (lead or title or rest)[
                                    :1
                                ]  # (\s, then "[": LEADING_CITATION)
                                maybe = first == "[" or first.isspace()
                                sid = _ref_id(lead + title + rest) if maybe else None
                            refs.append((n, sid, url))
                        pos = m.end()
                        continue
                    pos = after
                    content = html[start:stop] if inline else ""  # (text only: searched in place)
                    if (  # inline elements (p and headings take any: _FLAT_PARENTS)
                        inline
                        and "<" in content
                        and (
                            (risks and "=" in content and _MARKED_TAG.search(content))
                            or _maybe_stub(content)
                        )
                    ):
                        for inner in _INNER_ATTRS.findall(content):
                            stub = self.attributes(inner) or stub
                    if tag in _SECTION_HEADINGS:
                        hid = hid or ""
                        sections.append((hid, _LEVEL[tag]))
                        if pid is not None and pid not in nodes:
                            nodes[pid] = [start, stop]
                        if tag == "h2":
                            section = hid
                            in_refs = hid == "references"
                        if risks and tag in _TOC_HEADINGS:
                            content = content or html[start:stop]
                            if _may_carry(hid, content):
                                scan.injection_risks += heading_risks(hid, _text_of(content))
                        continue
                    if pid is not None:
                        if pid not in nodes:
                            nodes[pid] = [start, stop]
                    elif tag == "p" and section not in unpidded:
                        unpidded[section] = [start, stop]
                    paragraphs.append((pid, section, tag))
                    if in_refs:
                        continue
                    if inline or (amp and find("&", start, stop) >= 0):  # text content's citations
                        content = content or html[start:stop]
                        if "[" not in content and "&" not in content:
                            continue
                        sids = findall(_text_of(content))
                    else:  # text only: from its first "[" on
                        i = find("[", start, stop)
                        if i < 0:
                            continue
                        sids = findall(html, i, stop)
                    if sids:
                        cite((section, pid, sids))
                    continue
                # ----------------------- anything else: comments and blocks found with find()
                i = find("<", pos)
                if i < 0:
                    break
                if (
                    i > pos
                    and (i - pos > 1 or html[pos] not in " \t\n")
                    and html[pos:i].strip(" \t\n")
                ):
                    raise _Unsure  # text among the blocks the walk reads
                if startswith("<!--", i):
                    j = find("-->", i + 4)
                    comment = html[i + 4 : j]
                    if (
                        j < 0
                        or "--!>" in comment
                        or (comment[:1] in ">-" and (comment[:1] == ">" or comment[:2] == "->"))
                    ):
                        raise _Unsure  # HTML5 ends those elsewhere
                    pos = j + 3
                    if "pid:" in comment and PID.match(comment):
                        pending = comment.strip()
                        pids.append(pending)
                    if startswith("\n<p>", pos):  # a pid comment's paragraph, read at once
                        i = pos + 1
                    else:
                        continue
                if startswith("<p>", i):  # a paragraph of text only
                    k = i + 3
                    j = find("<", k)
                    if startswith("</p>", j):
                        pos = j + 4
                        pid, pending = pending, None
                        if pid is not None:
                            if pid not in nodes:
                                nodes[pid] = [k, j]
                        elif section not in unpidded:
                            unpidded[section] = [k, j]
                        paragraphs.append((pid, section, "p"))
                        if not in_refs:
                            content = html[k:j]
                            if "&" in content:
                                content = _decode(content)
                            sids = findall(content)
                            if sids:
                                cite((section, pid, sids))
                        continue
                m = opening(html, i)
                if m is None:
                    pos = i
                else:
                    tag, attrs = m.groups()
                    k = m.end()
                    j = html.find("<", k)
                    close = _CLOSE[tag]
                    if html.startswith(close, j):  # text only
                        content, start = html[k:j], k
                        pos = j + len(close)
                    else:
                        m = flat(html, k)
                        if m is None or m.group(_CLOSE_AT) != tag:
                            pos = i
                            m = None
                        else:
                            content, start = m.group(_CONTENT_AT), k
                            pos = m.end()
                if m is not None:
                    values = None
                    if attrs:  # (a lone id without "&": _BLOCK's)
                        values = {}
                        stub = self.attributes(attrs, values) or stub
                    if "<" in content:
                        if tag not in _FLAT_PARENTS:
                            raise _Unsure
                        if (risks and "=" in content and _MARKED_TAG.search(content)) or (
                            _maybe_stub(content)
                        ):
                            for inner in _INNER_ATTRS.findall(content):
                                stub = self.attributes(inner) or stub
                    pid, pending = pending, None
                    if pid is None and values:
                        data_pid = values.get("data-pid")
                        if data_pid:
                            pid = data_pid
                            pids.append(pid)
                    if tag in _SECTION_HEADINGS:
                        hid = (values.get("id") if values else None) or ""
                        sections.append((hid, int(tag[1])))
                        if pid is not None and pid not in nodes:
                            nodes[pid] = [start, start + len(content)]
                        if tag == "h2":
                            section = hid
                            in_refs = hid == "references"
                        if risks and tag in _TOC_HEADINGS and _may_carry(hid, content):
                            scan.injection_risks += heading_risks(hid, _text_of(content))
                        continue
                    if pid is not None:
                        if pid not in nodes:
                            nodes[pid] = [start, start + len(content)]
                    elif tag == "p" and section not in unpidded:
                        unpidded[section] = [start, start + len(content)]
                    paragraphs.append((pid, section, tag))
                    if not in_refs and ("[" in content or "&" in content):
                        text = _text_of(content)
                        if "[s" in text:
                            cite((section, pid, findall(text)))
                    continue
            m = match(html, pos)
            if m is None:
                if "<" in html[pos:]:
                    raise _Unsure
                break
            pos = m.end()
            (gap, ltag, lattrs, tattrs, wtag, wattrs, tag, attrs, slash, etag, comment) = m.group(
                *_TOKEN_GROUPS
            )
            if walking and gap and gap.strip(" \t\n"):
                raise _Unsure  # text among the blocks the walk reads
            if comment is not None:
                if "--!>" in comment:
                    raise _Unsure  # HTML5 ends the comment there
                if walking and "pid:" in comment and PID.match(comment):
                    pending = comment.strip()
                    pids.append(pending)
                continue
            if etag is not None:  # ---------------------------------------------- end tag
                if etag != top or len(stack) == 1:
                    raise _Unsure
                tag, kind, span, extra = stack.pop()
                span[1] = m.end(1)
                self.close(tag, kind, span, extra)
                if kind == _LEAF:
                    count_figures = False
                elif kind == _REFS:
                    in_list = False
                top, kind = stack[-1][0], stack[-1][1]
                allowed, walking = _CHILDREN[top], kind == _WALK
                continue
            # --------------------------------------------------------------------- start tag
            content = ""  # of an element read whole
            whole = True
            if ltag is not None:  # a list of flat items
                tag, attrs, span = ltag, lattrs, list(m.span(_ITEMS_AT))
            elif tattrs is not None:  # a table of flat cells
                tag, attrs, span = "table", tattrs, list(m.span(_ROWS_AT))
            elif wtag is not None:  # a flat element
                tag, attrs, span = wtag, wattrs, list(m.span(_WHOLE_AT))
                if tag in _VOID:
                    raise _Unsure
            else:
                if "<" in attrs or ">" in attrs:
                    raise _Unsure  # (what _ATTRS would not have read)
                whole = tag in _VOID
                if slash and not whole:
                    raise _Unsure  # <p/>: libxml2 reads an empty element, HTML5 an open one
                span = [pos, pos if whole else 0]
            if tag not in allowed:
                raise _Unsure
            if whole and span[0] != span[1]:
                content = html[span[0] : span[1]]
                if wtag is not None and "<" in content and tag not in _FLAT_PARENTS:
                    raise _Unsure  # inline elements where the tag allows none (<a> in <a>)
                if (risks and "<" in content and _MARKED_TAG.search(content)) or _maybe_stub(
                    content
                ):
                    for inner in _INNER_ATTRS.findall(content):
                        stub = self.attributes(inner) or stub
            values = None
            if attrs:
                if (risks and ("[" in attrs or "&" in attrs)) or _maybe_stub(attrs):
                    values = {}
                    stub = self.attributes(attrs, values) or stub
                if values is None and (
                    walking or (in_list and tag == "a") or (risks and tag in _TOC_HEADINGS)
                ):
                    values = _attributes(attrs)
            extra = None
            if walking:  # -------------------------------------------- a block the walk reads
                if tag not in _BLOCKS:
                    raise _Unsure
                pid, pending = pending, None
                if pid is None and values:
                    data_pid = values.get("data-pid")
                    if data_pid:
                        pid = data_pid
                        pids.append(pid)
                if tag in _SECTION_HEADINGS:
                    hid = (values.get("id") if values else None) or ""
                    sections.append((hid, int(tag[1])))
                    if pid is not None and pid not in nodes:
                        nodes[pid] = span
                    if tag == "h2":
                        section = hid
                        in_refs = hid == "references"
                    kind, extra = _INNER, hid
                elif in_refs and (tag == "ol" or tag == "ul"):
                    kind, in_list, self.open_items = _REFS, True, []
                    self.items = _list_items(content)
                elif tag in _WALKED and not (values or {}).get("class", "").startswith(
                    "table-wrap"
                ):
                    if content.strip(" \t\n"):
                        raise _Unsure  # text among the blocks the walk reads
                    kind, pending = _WALK, pid
                else:
                    kind = _LEAF
                    extra = None if in_refs else (section, pid)  # where its citations go
                    if tag == "figure":
                        scan.figures += 1
                    else:  # the figures inside it
                        count_figures = True
                    if pid is not None:
                        if pid not in nodes:
                            nodes[pid] = span
                    elif tag == "p" and section not in unpidded:
                        unpidded[section] = span
                    paragraphs.append((pid, section, tag))
            else:  # ------------------------------------------------- inside such a block
                kind = _INNER
                if count_figures and tag == "figure":
                    scan.figures += 1
                if in_list:
                    if tag == "li":
                        extra = [None, None, True]  # source id, url, open
                        self.items.append(extra)  # type: ignore[arg-type]
                        self.open_items.append(extra)  # type: ignore[arg-type]
                    link = None
                    if tag == "a":
                        href = values.get("href", "") if values else ""
                        link = True
                    elif "<a" in content:
                        first = _FIRST_LINK.search(content)
                        if first is not None:
                            href, link = _attributes(first.group(1)).get("href", ""), True
                    if link:
                        for item in self.open_items:  # the first link of each open item
                            if item[1] is None:
                                item[1] = href
                    if ltag is not None:  # a whole list inside an item: its items count too
                        self.items += _list_items(content)
                if risks and tag in _TOC_HEADINGS:
                    extra = (values.get("id") if values else None) or ""
            if whole:  # closed already
                self.close(tag, kind, span, extra)
                if kind == _LEAF:
                    count_figures = False
                elif kind == _REFS:
                    in_list = False
                continue
            stack.append((tag, kind, span, extra))
            if len(stack) > _MAX_DEPTH:
                raise _Unsure
            top, allowed, walking = tag, _CHILDREN[tag], kind == _WALK
        if len(stack) != 1 or html[pos:].strip(" \t\n"):
            raise _Unsure  # an unclosed element, or text after the last block
        self.keep_leads(nodes, unpidded, plain == len(pids))
        scan.citations = [(s, p, sid) for s, p, sids in self.cited for sid in sids]
        # the walk looks for the class only where the text "stub-notice" appears
        scan.is_stub = (stub and "stub-notice" in html) or not paragraphs
        return scan

    def attributes(self, attrs: str, into: dict[str, str] | None = None) -> bool:
        """Check one tag's attributes for what the walk would report or mark: a citation mark
        (unsure: the lxml walk reports those) and the stub notice class (True)."""
        values = _attributes(attrs)
        if into is not None:
            into.update(values)
        if self.risks and any("[s" in v for v in values.values()):
            raise _Unsure  # a citation mark in an attribute: the walk reports it
        cls = values.get("class")
        return cls is not None and "stub-notice" in _XML_SPACE.split(cls)

    def close(self, tag: str, kind: int, span: list[int], extra: object) -> None:
        scan = self.scan
        if kind == _LEAF:
            html, (start, stop) = self.html, span  # (no copy of a figure's image data)
            if isinstance(extra, tuple) and (  # not in references
                html.find("[", start, stop) >= 0 or html.find("&", start, stop) >= 0
            ):
                text = _text_of(html[start:stop])
                if "[s" in text:
                    section, pid = extra
                    self.cited.append((section, pid, CITATION.findall(text)))
        elif kind == _REFS:
            refs = scan.references
            for sid, url, _ in self.items:
                refs.append((len(refs) + 1, sid, url or ""))  # type: ignore[arg-type]
        elif isinstance(extra, list):  # an item of the references list
            found = LEADING_CITATION.match(self.text(span))
            extra[0], extra[2] = (found.group(1) if found else None), False
            self.open_items.pop()  # the item opened last: elements nest strictly here
        if self.risks and tag in _TOC_HEADINGS and isinstance(extra, str):
            scan.injection_risks += heading_risks(extra, self.text(span))

    def keep_leads(
        self, nodes: dict[str, list[int]], unpidded: dict[str, list[int]], plain: bool
    ) -> None:
        """The leads of odd pids' elements and of pid-less paragraphs; ``plain``: every pid is
        known to be well formed."""
        scan = self.scan
        joined = "" if plain else "\n".join(nodes)  # all well formed, most often: one match says so
        if plain or (joined.count("\n") == len(nodes) - 1 and _ALL_WELLFORMED.fullmatch(joined)):
            odd = []
        else:
            odd = [p for p in nodes if not pid_is_wellformed(p)]
        if len(nodes) != len(scan.pids):  # some pid is used more than once
            odd += [p for p, n in Counter(scan.pids).items() if n > 1]
        for pid in odd:
            span = nodes.get(pid)
            if span is None:  # a pid no element carries: the lxml walk fails on it
                raise _Unsure
            scan.leads[pid] = self.text(span)[:LEAD_CHARS]
        for section, span in unpidded.items():
            scan.unpidded_leads[section] = self.text(span)[:LEAD_CHARS]
