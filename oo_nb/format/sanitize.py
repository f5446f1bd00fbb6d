"""One allow-list policy for HTML written by the research agent, and plain-text cleaning.

Everything the model writes is untrusted. ``sanitize_html`` cleans ONE section's fragment (never
a whole page) with nh3 and this module's allow-list:

- kept: paragraphs, h3-h6, lists, tables, figures, quotes, inline formatting, ``id`` / ``class``
  (filtered: no ids that could clobber the page's own elements, such as ``oo-manifest`` or
  ``toc``), links to ``http``/``https`` (or an in-page ``#anchor``) with
  ``rel="noopener noreferrer"``, ``<img>`` whose ``src`` is a base64 ``data:image/(png|jpeg|gif|
  webp)`` URI, and paragraph-id comments ``<!-- pid:SECTION:ID -->``;
- removed: scripts, styles and ``style`` attributes (CSS ``url()`` beacons), iframes, objects,
  forms, SVG, MathML, meta/link/base, event handlers, every ``data-*`` attribute (JupyterLab acts
  on ``data-commandlinker-command``), ``javascript:``/``data:text/html`` and relative URLs, and
  all other comments;
- removed from text and attribute values: control, bidi and zero-width characters
  (``vocab.UNSAFE_CHARS``): a right-to-left override shows "$0.50" where the source holds
  "05.0$", and an escape sequence rewrites the terminal of whoever prints the text.

nh3 strips every comment, so pid comments travel through it as placeholder elements whose tag
name carries a random nonce (unguessable by the input) and come back as comments afterwards.
``h1``/``h2`` inside a section become ``h3``: an ``h2`` would start a new section of the article.
"""

from __future__ import annotations

import html as html_lib
import re
import secrets
import unicodedata
from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import nh3

from oo_nb.format.names import RESERVED_ID_PREFIXES
from oo_nb.format.vocab import AGENT_PID, AGENT_PID_COMMENT, strip_unsafe, truncate, unsafe_found

if TYPE_CHECKING:  # lxml is loaded by the calls that parse HTML (sanitize_html): the URL and
    # text checks, which a library's link findings use on a first `%oo library`, need none of it
    from lxml import etree

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_TAGS",
    "DROPPED_WITH_CONTENT",
    "INLINE_TAGS",
    "RESERVED_IDS",
    "elements_removed",
    "is_safe_image_src",
    "remove_keeping_tail",
    "removed_by_cleaning",
    "safe_http_url",
    "sanitize_html",
    "sanitize_text",
]

# The one HTML allow-list of oo_nb: the elements and attributes article HTML may hold. The notebook
# preview (notebook/preview.py) starts from it too, and says where and why it differs.
ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup",
        "dd", "del", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h3", "h4", "h5",
        "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
        "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
        "time", "tr", "u", "ul", "var", "wbr",
    }
)  # fmt: skip
# The allowed elements that sit inside a line of text: a fragment holding only these (and text)
# is plain text to be wrapped in its block's own tag (a paragraph edited as text).
INLINE_TAGS = frozenset(
    {
        "a", "abbr", "b", "br", "cite", "code", "del", "dfn", "em", "i", "img", "ins", "kbd",
        "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
        "wbr",
    }
)  # fmt: skip
# Removed together with everything inside them (text included).
DROPPED_WITH_CONTENT = frozenset(
    {
        "script", "style", "iframe", "object", "embed", "applet", "svg", "math", "template",
        "noscript", "noembed", "noframes", "frameset", "frame", "textarea", "select", "title",
        "xmp", "form", "head",
    }
)  # fmt: skip
# tag -> attributes it may carry; "*": on every tag. Their values are filtered further below.
ALLOWED_ATTRIBUTES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "*": frozenset({"id", "class", "title", "lang", "dir"}),
        "a": frozenset({"href"}),
        "img": frozenset({"src", "alt", "width", "height"}),
        "td": frozenset({"colspan", "rowspan"}),
        "th": frozenset({"colspan", "rowspan", "scope"}),
        "col": frozenset({"span"}),
        "colgroup": frozenset({"span"}),
        "ol": frozenset({"start", "reversed"}),
        "time": frozenset({"datetime"}),
    }
)
# Ids the page itself uses (FORMAT.md §1, §6) or that the browser script looks up: an article
# element with one of these ids would shadow the real element (DOM clobbering), e.g. a fake
# ``oo-manifest`` read by the page's script.
RESERVED_IDS = frozenset(
    {
        "article", "doc-title", "doc-asof", "doc-version", "contract-panel", "toc", "run-meta",
        "references", "card-grid", "doc-count", "last-scan", "search-input", "theme-toggle",
    }
)  # fmt: skip
# Classes the article's own content may carry (figure placement, a table's scroll box, an image's
# credit line, a muted note): styled by the page for articles, no part of its chrome.
ARTICLE_CLASSES = frozenset(
    {"fig-center", "fig-full", "fig-left", "fig-right", "img-src", "note", "table-wrap"}
)
_CSS_CLASS = re.compile(r"\.([A-Za-z][A-Za-z0-9_-]*)")


def _page_classes() -> frozenset[str]:
    """Every class the page's own style sheets name (``format/template``): its chrome (the
    contract panel, hidden until opened; the TOC; the badge), and the classes its script sets."""
    from oo_nb.format.template import asset

    sheets = ("base.css", "document.css", "index.css")
    return frozenset(m.group(1) for name in sheets for m in _CSS_CLASS.finditer(asset(name)))


# Classes with a meaning for oo_nb or the page (its style sheet hides ``contract-panel`` until
# opened, and ``cite`` marks citation links): an agent's text may not fake them, or it could hide
# a claim or pass for page chrome. ``stub-notice`` is oo_nb's own mark of a sentinel's stub.
RESERVED_CLASSES = (_page_classes() | {"stub-notice"}) - ARTICLE_CLASSES

_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,79}$")
# The page script gives reference items the ids "s3" / "ref-3" for citation links.
_REFERENCE_ID = re.compile(r"^(s|ref-)[0-9]+$")
_CLASS_TOKEN = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
_ANCHOR = re.compile(r"^#[A-Za-z][A-Za-z0-9_-]{0,79}$")
_DIGITS = re.compile(r"^[0-9]{1,4}$")
_IMAGE_SRC = re.compile(r"^data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$")
MAX_IMAGE_SRC_CHARS = 4_000_000
_TAG_LIKE = re.compile(r"<[A-Za-z/!?][^<>]*>")
_COMMENT_END = re.compile(r"--!?>")
# Page-level tags mean nothing inside one section (nh3 drops them), and lxml's pre-parse trips on
# them: a fragment starting with <html> but holding no body fails an lxml assertion, and text
# after </body> or </html> is silently dropped. So they are removed before lxml sees the fragment.
_PAGE_TAGS = re.compile(r"<!doctype\b[^>]*>|</?(?:html|head|body)\b[^>]*>", re.IGNORECASE)
# In nh3's output "<" and ">" never occur inside attribute values (they are escaped), so a tag
# can be matched on the output text.
_IMG_WITHOUT_SRC = re.compile(r'<img(?![^>]*\ssrc=")[^>]*>')


def safe_http_url(url: str) -> str | None:
    """``url`` stripped, if it is an absolute http(s) URL with a host, no user info and no
    spaces, quotes, angle brackets or control characters; else None."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    if not url or len(url) > 2048 or re.search(r"[\s\"'<>\\`\x00-\x1f\x7f]", url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    if "@" in parts.netloc:  # "https://bank.example@evil.example/": user info misleads readers
        return None
    return url


def is_safe_image_src(value: str) -> bool:
    """A base64 data URI of a raster type browsers decode without running anything. A check
    of the text only: agent-written images are also decoded, limited and re-encoded
    (``oo_nb.agent.images.InlineImages``)."""
    return len(value) <= MAX_IMAGE_SRC_CHARS and bool(_IMAGE_SRC.match(value.strip()))


def _filter_classes(value: str) -> str | None:
    tokens = [
        t
        for t in value.split()
        if _CLASS_TOKEN.match(t)
        and t not in RESERVED_CLASSES
        and not t.startswith(RESERVED_ID_PREFIXES)
    ]
    return " ".join(dict.fromkeys(tokens)) or None


def _id_allowed(value: str, reserved: Collection[str]) -> bool:
    low = value.lower()
    return (
        bool(_ID.match(value))
        and low not in RESERVED_IDS
        and low not in reserved
        and not low.startswith(RESERVED_ID_PREFIXES)
        and not _REFERENCE_ID.match(low)
    )


class _Policy:
    """The nh3 cleaner for one call (the placeholder tag name is new each time)."""

    def __init__(self, reserved_ids: Collection[str]) -> None:
        self.placeholder = f"oo-pid-{secrets.token_hex(8)}"
        self.reserved = frozenset(i.lower() for i in reserved_ids)
        attributes = {tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()}
        attributes[self.placeholder] = {"data-pid"}
        self.cleaner = nh3.Cleaner(
            tags=set(ALLOWED_TAGS | {self.placeholder}),
            clean_content_tags=set(DROPPED_WITH_CONTENT),
            attributes=attributes,
            attribute_filter=self._attribute,
            strip_comments=True,  # pragma: no mutate (a second guard: _prepare removed them all)
            link_rel="noopener noreferrer",
            url_schemes={"http", "https", "data"},  # data: narrowed to images by _attribute
            url_relative=lambda u: u if _ANCHOR.match(u) else None,
        )
        self.restore = re.compile(
            rf'<{self.placeholder} data-pid="({AGENT_PID.pattern})"></{self.placeholder}>'
        )
        self.leftover = re.compile(rf"</?{self.placeholder}\b[^>]*>")

    def _attribute(self, tag: str, attr: str, value: str) -> str | None:
        if attr == "id":
            return value if _id_allowed(value, self.reserved) else None
        if attr == "class":
            return _filter_classes(value)
        if attr == "dir":
            return value if value in ("ltr", "rtl", "auto") else None
        if attr in ("colspan", "rowspan", "span", "start", "width", "height"):
            return value if _DIGITS.match(value.strip()) else None
        if attr == "scope":
            return value if value in ("row", "col", "rowgroup", "colgroup") else None
        if tag == "a" and attr == "href":
            return value if _ANCHOR.match(value) else safe_http_url(value)
        if tag == "img" and attr == "src":
            return value.strip() if is_safe_image_src(value) else None
        if attr == "data-pid":
            return value if tag == self.placeholder and AGENT_PID.fullmatch(value) else None
        return value

    def clean(self, fragment: str) -> str:
        out = self.cleaner.clean(fragment)
        out = self.restore.sub(lambda m: f"<!-- {m.group(1)} -->", out)
        out = self.leftover.sub("", out)  # a placeholder whose pid was refused
        return _IMG_WITHOUT_SRC.sub("", out)  # its src was refused: nothing to show


def _inner_html(root: etree._Element) -> str:
    from lxml import html as lxml_html

    parts = [html_lib.escape(root.text or "", quote=False)]
    parts.extend(lxml_html.tostring(child, encoding="unicode", with_tail=True) for child in root)
    return "".join(parts)


def _show_unclosed_comments(fragment: str) -> str:
    """An unclosed ``<!--`` would swallow the rest of the section as a comment: show it as
    text instead, so no content is lost. A comment ends where a browser ends it: at ``-->`` or
    ``--!>``, or at once (``<!-->``, ``<!--->``)."""
    start = fragment.find("<!--")
    while start >= 0:
        body = start + 4
        if fragment.startswith((">", "->"), body):
            start = fragment.find("<!--", body + 1)
            continue
        end = _COMMENT_END.search(fragment, body)
        if end is None:
            # no comment end after this one: every "<!--" from here on is left open
            return fragment[:start] + fragment[start:].replace("<!--", "&lt;!--")
        start = fragment.find("<!--", end.end())
    return fragment


def _prepare(fragment: str, placeholder: str) -> str:
    """Turn pid comments into placeholder elements, drop other comments and processing
    instructions, demote h1/h2 to h3 (lxml, structurally; nh3 has the last word anyway)."""
    if not fragment.strip():
        return fragment  # only whitespace: nothing to parse (and cleaning keeps it)
    fragment = _show_unclosed_comments(_PAGE_TAGS.sub("", fragment))
    from lxml import etree
    from lxml import html as lxml_html

    try:
        root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    except (etree.ParserError, ValueError):
        return html_lib.escape(fragment, quote=False)  # unreadable: keep it as visible text
    for node in list(root.iter()):
        if isinstance(node, (etree._Comment, etree._ProcessingInstruction)):
            m = (
                AGENT_PID_COMMENT.fullmatch(node.text or "")
                if isinstance(node, etree._Comment)
                else None
            )
            if m:
                holder = etree.Element(placeholder)
                holder.set("data-pid", m.group(1))
                holder.tail, node.tail = node.tail, None
                node.addprevious(holder)
            remove_keeping_tail(node)
        elif isinstance(node.tag, str):
            _attribute_pid_as_comment(node, placeholder)
            if node.tag.lower() in ("h1", "h2"):
                node.tag = "h3"
    return _inner_html(root)


def _attribute_pid_as_comment(node: etree._Element, placeholder: str) -> None:
    """An element's ``data-pid="a:1"`` (the form the page script writes; ``vocab.bound_pid``
    reads it as ``pid:a:1``) kept as the pid comment before it: the attribute itself is
    removed with every ``data-*``, and the paragraph would lose its pid."""
    from lxml import etree

    own = node.get("data-pid")
    if own is None or node.getparent() is None or not AGENT_PID.fullmatch(f"pid:{own}"):
        return
    holder = etree.Element(placeholder)
    holder.set("data-pid", f"pid:{own}")
    node.addprevious(holder)


def remove_keeping_tail(node: etree._Element) -> None:
    """Remove a node but keep the text that follows it."""
    parent = node.getparent()
    if parent is None:
        return
    if node.tail:
        prev = node.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + node.tail
        else:
            parent.text = (parent.text or "") + node.tail
    parent.remove(node)


def sanitize_html(
    fragment: str, *, reserved_ids: Collection[str] = (), removed: list[str] | None = None
) -> str:
    """Clean one agent-written HTML fragment with the allow-list above. ``reserved_ids`` are ids
    the fragment may not use (e.g. the article's other section ids). ``removed``, when given,
    gets the unsafe characters taken out of what was kept (escaped, ``vocab.unsafe_found``), for
    a warning. Idempotent."""
    policy = _Policy(reserved_ids)
    # before lxml, which refuses some controls (the whole fragment was then kept as text), with
    # CR read as a browser reads it (a line end, not a character to report); after nh3 again:
    # character references are decoded by then (``&#x202e;`` is the character)
    fragment = fragment.replace("\r\n", "\n").replace("\r", "\n")
    found = unsafe_found(fragment)
    clean = policy.clean(_prepare(strip_unsafe(fragment, ""), policy.placeholder))
    if removed is not None:
        removed.extend(dict.fromkeys([*found, *unsafe_found(clean)]))
    return strip_unsafe(clean, "")


def sanitize_text(value: str, *, max_len: int = 300, multiline: bool = False) -> str:
    """Plain text from an untrusted string (a title, caption, summary): tags and their script or
    style content removed, unsafe characters (``vocab.UNSAFE_CHARS``) removed, whitespace collapsed,
    at most ``max_len`` characters. The result is TEXT: escape it when putting it in HTML."""
    if not isinstance(value, str):
        return ""
    text = unicodedata.normalize("NFC", value)
    text = html_lib.unescape(
        nh3.clean(text, tags=set(), clean_content_tags=set(DROPPED_WITH_CONTENT))
    )
    previous = None
    while previous != text:  # "<scr<b>ipt>" needs two passes; entities may have formed tags
        previous, text = text, _TAG_LIKE.sub("", text)
    # no "\r" is left: nh3's HTML parser turned "\r\n" and "\r" into "\n"
    text = strip_unsafe(text)
    if multiline:
        lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.split("\n")]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    else:
        text = re.sub(r"\s+", " ", text).strip()
    return truncate(text, max_len)


def removed_by_cleaning(typed: str, clean: str) -> list[str]:
    """What ``sanitize_html`` took out of ``typed`` to give ``clean``, in a reader's words (one
    phrase per kind of thing): so a person who typed it is told before it is used, never left to
    find it gone."""
    _, attrs_in, comments_in = _counts(_PAGE_TAGS.sub("", typed))
    _, attrs_out, _ = _counts(clean)
    gone = _tags_gone(typed, clean)
    said = [_tag_phrase(name) for name in gone]
    for name, n in attrs_in.items():
        if name == "src" and "img" in gone:
            continue  # said with its image
        if n > attrs_out.get(name, 0):
            why = (
                f"{name}= (no script runs in a document)"
                if name.startswith("on")
                else {
                    "href": "a link that is not http(s) or #anchor",
                    "style": "style= (styles are not kept)",
                    "id": "an id the page uses itself",
                }.get(name, f"{name}=")
            )
            if why in said:
                continue
            said.append(why)
    if comments_in:
        said.append("HTML comments")
    unsafe = unsafe_found(html_lib.unescape(typed))
    if unsafe:
        said.append(f"control or bidi characters ({', '.join(unsafe)})")
    return said


def elements_removed(typed: str, clean: str, *, held: str = "") -> list[str]:
    """The elements ``sanitize_html`` took out of ``typed`` to give ``clean`` (an image from
    elsewhere, a ``<script>``...), in ``removed_by_cleaning``'s words, leaving out as many of each
    as it takes out of ``held`` (what the section held before: an agent's copy of it carries
    them along, and the page keeps its own), so an update's run is never silently clean."""
    gone = _tags_gone(typed, clean)
    if gone and held.strip():
        before = _tags_gone(held, sanitize_html(held))
        gone = {name: n for name, n in gone.items() if n > before.get(name, 0)}
    return [_tag_phrase(name) for name in gone]


def _counts(text: str) -> tuple[dict[str, int], dict[str, int], int]:
    """Start tags by name, the attributes of the allowed ones by name, and comments other than
    pid comments, in ``text``."""
    from oo_nb.format.html_tokens import tokenize  # the one tokenizer; only an edit needs it

    tags: dict[str, int] = {}
    attrs: dict[str, int] = {}
    comments = 0
    inside = 0  # depth in elements removed with everything in them: their parts go with them
    for tok in tokenize(text):
        if tok.kind == "end" and inside and tok.name in DROPPED_WITH_CONTENT:
            inside -= 1
        if tok.kind == "start":
            opens = tok.name in DROPPED_WITH_CONTENT and not tok.self_closing
            if inside:
                inside += opens
                continue
            inside += opens
            tags[tok.name] = tags.get(tok.name, 0) + 1
            if tok.name in ALLOWED_TAGS:  # attributes of a removed element go with it
                for a in tok.attrs:
                    attrs[a.name] = attrs.get(a.name, 0) + 1
        elif tok.kind == "comment" and not AGENT_PID_COMMENT.fullmatch(tok.data):
            comments += 1
    return tags, attrs, comments


def _tags_gone(typed: str, clean: str) -> dict[str, int]:
    """How many elements of each name cleaning took out (an h1/h2 is kept, as an ``<h3>``)."""
    tags_in, _, _ = _counts(_PAGE_TAGS.sub("", typed))
    tags_out, _, _ = _counts(clean)
    return {
        name: n - tags_out.get(name, 0)
        for name, n in tags_in.items()
        if name not in ("h1", "h2") and n > tags_out.get(name, 0)
    }


def _tag_phrase(name: str) -> str:
    if name in DROPPED_WITH_CONTENT:
        return f"<{name}> with everything in it"
    if name == "img":  # its src was refused: an image from elsewhere is never loaded
        return "an image that is not an embedded png/jpeg/gif/webp"
    return f"the <{name}> tag (its text is kept)"
