"""Markup in the article that can run script in the reader's browser (``oo check``'s and the
audit's ``article-script``).

The article is data, but a page from elsewhere (a cloned library) can carry code in it as well as
in its page code: an event handler (``<img onerror>``, ``<details open ontoggle>``), a
``<script>`` (also in SVG or MathML), a ``javascript:`` URL, a frame's ``srcdoc``, a
``<meta http-equiv=refresh>`` or a ``<base>`` that re-points every link, an SVG animation that
sets a handler. Read from the one article model (``article_model``): its attributes are decoded
as a browser decodes them, and its per-name element lists are walked, not the tree.

The model keeps a ``<template>``'s content inert, as a browser does for a plain template; a
declarative shadow root (``<template shadowrootmode>``) is not inert in a browser (its content is
attached and runs), so its content is read again as an article of its own, a few levels deep.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from oo_nb.format.article_model import Model, Node, read_model
from oo_nb.format.vocab import truncate

__all__ = ["script_markup", "script_url"]

# Attributes a browser reads as a URL it may load or navigate to (``values``/``to``/``from`` on
# an SVG animation set such an attribute; ``values`` is a ";" list).
_URL_ATTRIBUTES = frozenset(
    ["href", "src", "action", "formaction", "data", "xlink:href", "poster", "background",
     "codebase", "cite", "longdesc", "lowsrc", "dynsrc", "icon", "manifest", "to", "from",
     "values"]
)  # fmt: skip
_SVG_ANIMATIONS = frozenset(("set", "animate", "animatetransform", "animatemotion"))
# A URL's scheme as the URL parser reads it: after leading C0 controls and spaces, with tabs and
# newlines anywhere removed.
_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"[\x00-\x20]*([A-Za-z][A-Za-z0-9+.-]*):")
_SCRIPT_SCHEMES = frozenset(("javascript", "vbscript"))
# data: documents a frame or object renders as a page that runs its own script
_DATA_DOCUMENT = re.compile(
    r"data:[\x00-\x20]*(?:text/html|application/xhtml\+xml|image/svg\+xml|text/xml|application/xml)",
    re.IGNORECASE,
)
_IMAGES = frozenset(("img", "image"))
_SHADOW_DEPTH = 8  # declarative shadow roots read inside each other, at most
_IN_SHADOW = " (in a declarative shadow root: a browser runs it)"
_SHOWN = 60  # characters of a value shown in a finding


def script_url(value: str, *, documents: bool = True) -> bool:
    """Whether a URL runs script where it is loaded or followed: ``javascript:``/``vbscript:``
    (in any case, with tabs, newlines and leading controls), or with ``documents`` a ``data:``
    HTML/SVG/XML document (what a frame or an object renders as a page)."""
    text = _TAB_NEWLINE.sub("", value)
    m = _SCHEME.match(text)
    if m is None:
        return False
    scheme = m.group(1).lower()
    return scheme in _SCRIPT_SCHEMES or (
        documents and scheme == "data" and _DATA_DOCUMENT.match(text, m.start(1)) is not None
    )


def script_markup(model: Model) -> list[tuple[int, str]]:
    """(offset in the article, what) for each element of ``model`` that can run script, in
    document order."""
    return sorted(_found(model, 0, 0), key=lambda item: item[0])


def _found(model: Model, shift: int, depth: int) -> Iterator[tuple[int, str]]:
    # (the elements of each name, kept while the tree was built: no walk of the tree)
    for name, nodes in model.named.items():
        for node in nodes:
            what = _problem(name, node)
            if what:
                yield shift + node.start, what
    for template in model.elements("template"):
        if template.attr("shadowrootmode") is None:
            continue  # a plain template stays inert: the page script clones none
        inner = shift + template.open_end
        if depth >= _SHADOW_DEPTH:
            yield inner, "declarative shadow roots nested too deep to read"
            continue
        content = model.source[template.open_end : template.close_start]
        for at, what in _found(read_model(content), inner, depth + 1):
            yield at, what if what.endswith(_IN_SHADOW) else what + _IN_SHADOW


def _problem(name: str, node: Node) -> str:
    if name == "script":
        return "a <script> element"
    if name == "base":
        return "a <base> element (it re-points every link and script of the page)"
    attrs = node.attrs or ()
    if name == "meta" and any(
        a.name == "http-equiv" and a.value.strip().lower() == "refresh" for a in attrs
    ):
        return "a <meta http-equiv=refresh> (it loads another page)"
    seen: set[str] = set()
    for a in attrs:
        if a.name in seen:
            continue  # a browser keeps the first of two attributes with one name
        seen.add(a.name)
        if a.name.startswith("on"):
            return f"<{_shown(name)} {_shown(a.name)}={_quote(a.value)}> (an event handler)"
        if a.name == "srcdoc":
            return f"<{_shown(name)} srcdoc={_quote(a.value)}> (a frame's own page)"
        if a.name in _URL_ATTRIBUTES and _script_urls(name, a.name, a.value):
            return f"<{_shown(name)} {a.name}={_quote(a.value)}> (a script URL)"
        if (
            name in _SVG_ANIMATIONS
            and a.name == "attributename"
            and a.value.strip().lower().startswith("on")
        ):
            return f"<{name} attributeName={_quote(a.value)}> (it sets an event handler)"
    return ""


def _script_urls(tag: str, attr: str, value: str) -> bool:
    # (an image's SVG runs no script: a data: document counts only elsewhere)
    documents = not (tag in _IMAGES and attr in ("src", "href", "xlink:href"))
    parts = value.split(";") if attr == "values" else (value,)
    return any(script_url(part, documents=documents) for part in parts)


def _shown(text: str) -> str:
    """A tag or attribute name as a terminal may show it (controls and bidi escaped)."""
    return repr(truncate(text, _SHOWN))[1:-1]


def _quote(value: str) -> str:
    return repr(truncate(value, _SHOWN))
