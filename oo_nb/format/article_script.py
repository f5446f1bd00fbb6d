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
from collections.abc import Callable, Iterator

from oo_nb.format.article_model import Model, Node, read_model
from oo_nb.format.vocab import truncate

__all__ = ["script_markup", "script_url", "url_scheme"]

# Attributes a browser reads as a URL it may load or navigate to (``values``/``to``/``from`` on
# an SVG animation set such an attribute; ``values`` is a ";" list).
_URL_ATTRIBUTES = frozenset(
    ["href", "src", "action", "formaction", "data", "xlink:href", "poster", "background",
     "codebase", "cite", "longdesc", "lowsrc", "dynsrc", "icon", "manifest", "to", "from",
     "values"]
)  # fmt: skip
_WATCHED = _URL_ATTRIBUTES | {"srcdoc", "attributename"}
# A value that starts so has that scheme (or none): it runs no script.
_PLAIN_SCHEMES = ("https://", "http://", "#", "/")
_SVG_ANIMATIONS = frozenset(("set", "animate", "animatetransform", "animatemotion"))
# A URL's scheme as the URL parser reads it: after leading C0 controls and spaces, with tabs and
# newlines anywhere removed.
_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"[\x00-\x20]*([A-Za-z][A-Za-z0-9+.\t\n\r-]*):")
_SCRIPT_SCHEMES = frozenset(("javascript", "vbscript"))
# data: documents a frame or object renders as a page that runs its own script
_DATA_DOCUMENT = re.compile(
    r"[\x00-\x20]*(?:text/html|application/xhtml\+xml|image/svg\+xml|text/xml|application/xml)",
    re.IGNORECASE,
)
_IMAGES = frozenset(("img", "image"))
_SHADOW_DEPTH = 8  # declarative shadow roots read inside each other, at most
_IN_SHADOW = " (in a declarative shadow root: a browser runs it)"
_SHOWN = 60  # characters of a value shown in a finding


def url_scheme(value: str) -> str | None:
    """``value``'s scheme as a browser's URL parser reads it (lower case), or None for none."""
    m = _SCHEME.match(value)
    return None if m is None else _TAB_NEWLINE.sub("", m.group(1)).lower()


def script_url(value: str, *, documents: bool = True) -> bool:
    """Whether a URL runs script where it is loaded or followed: ``javascript:``/``vbscript:``
    (in any case, with tabs, newlines and leading controls), or with ``documents`` a ``data:``
    HTML/SVG/XML document (what a frame or an object renders as a page)."""
    m = _SCHEME.match(value)  # (the scheme only: an image's data: URL can be megabytes)
    if m is None:
        return False
    scheme = url_scheme(value)
    if scheme in _SCRIPT_SCHEMES:
        return True
    if not documents or scheme != "data":
        return False
    return _DATA_DOCUMENT.match(_TAB_NEWLINE.sub("", value[m.end() :])) is not None


def script_markup(model: Model) -> list[tuple[int, str]]:
    """(offset in the article, what) for each element of ``model`` that can run script, in
    document order."""
    return sorted(_found(model, 0, 0), key=lambda item: item[0])


def _found(model: Model, shift: int, depth: int) -> Iterator[tuple[int, str]]:
    # (the elements of each name, kept while the tree was built: no walk of the tree)
    for name, nodes in model.named.items():
        whole = name in _ELEMENTS
        for node in nodes:
            if whole:
                what = _ELEMENTS[name](node)
                if what:
                    yield shift + node.start, what
                    continue
            for a in node.attrs or ():  # (most elements have none: a library scan reads each)
                attr = a.name
                if attr[:2] == "on" or attr in _WATCHED:
                    what = _attribute(name, attr, a.value)
                    if what:
                        yield shift + node.start, what
                        break
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


def _meta(node: Node) -> str:
    refresh = node.attr("http-equiv")
    if refresh is not None and refresh.strip().lower() == "refresh":
        return "a <meta http-equiv=refresh> (it loads another page)"
    return ""


# Elements that can run script or re-point the page whatever their attributes say.
_ELEMENTS: dict[str, Callable[[Node], str]] = {
    "script": lambda _: "a <script> element",
    "base": lambda _: "a <base> element (it re-points every link and script of the page)",
    "meta": _meta,
}


def _attribute(tag: str, attr: str, value: str) -> str:
    """What an attribute ``attr`` (an ``on*`` name or one of ``_WATCHED``) of ``<tag>`` can run,
    or ""."""
    if attr[:2] == "on":
        return f"<{_shown(tag)} {_shown(attr)}={_quote(value)}> (an event handler)"
    if attr == "srcdoc":
        return f"<{_shown(tag)} srcdoc={_quote(value)}> (a frame's own page)"
    if attr == "attributename":
        if tag in _SVG_ANIMATIONS and value.strip().lower().startswith("on"):
            return f"<{tag} attributeName={_quote(value)}> (it sets an event handler)"
        return ""
    if value.startswith(_PLAIN_SCHEMES):  # (most links: no parse needed)
        return ""
    if _script_urls(tag, attr, value):
        return f"<{_shown(tag)} {attr}={_quote(value)}> (a script URL)"
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
