"""Inline previews of documents and index pages for notebooks.

Document and agent HTML is untrusted, and notebook front-ends insert ``text/html`` outputs into
their own page. So a preview is never the HTML itself: it is an ``<iframe srcdoc="…">`` holding a
whole page, escaped into the attribute, sandboxed with ``FRAME_SANDBOX``: no ``allow-scripts``,
no ``allow-same-origin``, so scripts, event handlers, forms and the notebook's origin stay out of
reach; only popups are allowed, so a link opens in a new tab (``<base target="_blank">``) instead
of blanking the frame. The page's own CSP blocks every network load except ``data:`` images, and
the fragment is cleaned with nh3 first, because a sandbox still honours
``<meta http-equiv="refresh">`` and ``<base>``.

The page is composed from the model (title, as-of, version, article), not copied from the file:
an original document fills its title, date and version with the browser script, which cannot run
in the sandbox, and its stylesheet may be a stand-in.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.format.article_model import Model, Node, entries, read_model
from oo_nb.format.display import as_named
from oo_nb.format.names import INDEX_CONTENT_END, INDEX_CONTENT_START, INDEX_NAME
from oo_nb.format.sanitize import ALLOWED_ATTRIBUTES, ALLOWED_TAGS
from oo_nb.format.vocab import CITATION, cited_label, entry_label, linked_entry

if TYPE_CHECKING:
    from oo_nb.api.document import Document as PublicDocument
    from oo_nb.format.document import Document

__all__ = [
    "FRAME_SANDBOX",
    "PREVIEW_CSP",
    "ArticlePreview",
    "IndexPreview",
    "clean_fragment",
    "iframe",
    "page",
]

PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
# Links may open a new tab (outside the sandbox, so the page there works); still no scripts, no
# same-origin, no forms, no top navigation.
FRAME_SANDBOX = "allow-popups allow-popups-to-escape-sandbox"
MIN_HEIGHT, MAX_HEIGHT = 220, 640

_TAG = re.compile(r"<[^>]*>")

# The sanitiser's allow-list (format/sanitize.py), widened for whole pages. The sanitiser cleans
# one agent-written section, where an h1/h2 would start a new section (it demotes them); a preview
# shows a whole article (its h2 section headings) or index body, and keeps the page structure a
# hand-written or original document may have (<section>, <details>/<summary>). The attributes are
# the sanitiser's, but their values are filtered less (only_data_images below): ids and classes
# stay as the page has them (no script runs in the frame, so nothing can be clobbered, and the
# stylesheet needs classes such as "card"), and links keep relative and mailto: URLs (the sandbox
# and PREVIEW_CSP keep anything from running or loading by itself).
_PAGE_TAGS = frozenset({"h1", "h2", "section", "details", "summary"})
_TAGS = set(ALLOWED_TAGS | _PAGE_TAGS)
_ATTRIBUTES = {tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()}

# Light by default; dark when JupyterLab's theme is dark (class oo-dark, see lab_context: the
# frame cannot see the page's theme) or, theme unknown, when the system prefers dark.
_DARK = "color-scheme:dark;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--bg:#111;--accent:#64b5f6"
_STYLE = (
    ":root{color-scheme:light;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--accent:#0969da}"
    f":root.oo-dark{{{_DARK}}}"
    f"@media (prefers-color-scheme:dark){{:root:not(.oo-light){{{_DARK}}}}}"
    """
html,body{margin:0;background:var(--bg);color:var(--fg)}
body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;padding:14px 20px}
h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.2em;margin:1.2em 0 .4em;border-bottom:1px solid var(--line)}
h3{font-size:1.05em}.meta,.note{color:var(--muted);font-size:.9em}
a{color:var(--accent)}img{max-width:100%;height:auto}
figure{margin:.6em 0}figcaption{color:var(--muted);font-size:.85em}
.fig-right{float:right;max-width:42%;margin-left:1em}.fig-left{float:left;max-width:42%;margin-right:1em}
.fig-center{text-align:center}table{border-collapse:collapse;margin:.6em 0;font-size:.92em}
td,th{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}
.table-wrap{overflow-x:auto}.stub-notice{border:1px dashed var(--line);padding:.6em 1em;color:var(--muted)}
.card{display:block;border:1px solid var(--line);border-radius:6px;padding:.5em .8em;margin:.4em 0;text-decoration:none;color:inherit}
.card-title{font-weight:600;margin-right:.5em}.card-excerpt{display:block;color:var(--muted);font-size:.9em}
.badge,.card-badge{font-size:.75em;border-radius:9px;padding:0 .5em;border:1px solid var(--line)}
.stale{color:#bc4c00}.fresh{color:#1a7f37}a.oo-cite{text-decoration:none}
:target{background:rgba(212,167,44,.25)}
"""
)


def clean_fragment(fragment: str) -> str:
    """Keep the structure of an article or index body; drop anything active or that loads."""
    import nh3

    def only_data_images(tag: str, attr: str, value: str) -> str | None:
        if tag == "img" and attr == "src":
            return value if value.lower().startswith("data:image/") else None
        return value

    return _in_page_links(
        nh3.clean(
            fragment,
            tags=_TAGS,
            attributes=_ATTRIBUTES,
            attribute_filter=only_data_images,
            url_schemes={"http", "https", "mailto", "data"},
            link_rel="noopener noreferrer",
        )
    )


# Where the page script links no citation (its SKIP_TEXT_IN), and the names of the headings.
_NO_CITATION_IN = frozenset(
    ["a", "script", "style", "code", "pre", "textarea", "h1", "h2", "h3", "h4", "h5", "h6"]
)


def _in_page_links(body: str) -> str:
    """Links within the page stay in the frame; every other link opens outside it (the page's
    ``<base target="_blank">``). A frame made from ``srcdoc`` has the notebook's address as its
    base, so ``href="#x"`` would load JupyterLab into the frame: in-page links point at
    ``about:srcdoc#x`` (the frame's own address) with ``target="_self"``. Citations ``[sN]`` become
    such links to their entry in the References list, found and numbered as the page script does
    (the article model: an entry's own label first, else its position), with no script."""
    model = read_model(body)
    edits: list[tuple[int, int, str]] = []  # (start, end, new text) in ``body``
    for a in model.elements("a"):
        href = next((x for x in a.attrs or () if x.name == "href"), None)
        if href is not None and href.value.startswith("#"):
            value = html.escape("about:srcdoc" + href.value, quote=True)
            edits.append((href.start, href.end, f'href="{value}" target="_self"'))
    refs = model.reference_list()
    items = entries(refs) if refs is not None else []
    anchors: dict[int, str] = {}  # entry (its position) -> anchor id
    labels = [entry_label(li.text) for li in items]
    by_label: dict[str, int] = {}
    for k, label in enumerate(labels, 1):
        if label is not None and label not in by_label:
            by_label[label] = k
    label_of = {k: sid for sid, k in by_label.items()}  # (each entry's own label, first wins)
    for k, li in enumerate(items, 1):
        anchor = label_of.get(k) or (f"s{k}" if f"s{k}" not in by_label else f"n{k}")
        anchors[k] = anchor
        edits.append((li.open_end, li.open_end, f'<span id="oo-ref-{anchor}"></span>'))
    if items:
        edits += _citation_links(model, refs, labels, anchors)
    out = body
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + text + out[end:]
    return out


def _citation_links(
    model: Model, refs: Node | None, labels: list[str | None], anchors: dict[int, str],
) -> list[tuple[int, int, str]]:  # fmt: skip
    """Each ``[sN]`` the page script links, as a link to its entry's anchor (``labels``: each
    entry's ``entry_label``, the label as written, as the page script keys it)."""
    source = model.source
    out: list[tuple[int, int, str]] = []
    stack = [(n, False) for n in reversed(model.root.children)]
    while stack:
        node, skip = stack.pop()
        if node.kind == "element":
            inside = skip or node is refs or node.name in _NO_CITATION_IN
            stack.extend((c, inside) for c in reversed(node.children))
            continue
        if node.kind != "text" or skip:
            continue
        for m in CITATION.finditer(source, node.start, node.end):
            # looked up as the page script does, by the label as written ("[s02]" by "s02")
            k = linked_entry(cited_label(m), labels)
            if k is not None:
                link = (
                    f'<a class="oo-cite" href="about:srcdoc#oo-ref-{anchors[k + 1]}" '
                    f'target="_self">{m.group(0)}</a>'
                )
                out.append((m.start(), m.end(), link))
    return out


_RELATIVE_HREF = re.compile(r'(<a\b[^>]*?)\bhref="(?![a-zA-Z][a-zA-Z0-9+.-]*:|#|/)([^"]*)"')


def _served_links(body: str, folder: Path) -> str:
    """The index's links to its documents (relative to the index file) open the file as the
    Jupyter server serves it, in a new tab. Resolved against the frame's base (the notebook's
    address) they would open JupyterLab at a wrong path; with no server serving the file the
    link is left out and its path shown as the card's tooltip."""
    from urllib.parse import unquote

    from oo_nb.notebook.lab_context import served_url

    def link(m: re.Match[str]) -> str:
        target = folder / unquote(html.unescape(m.group(2)).split("#")[0].split("?")[0])
        url = served_url(target)
        if url is None:
            return f'{m.group(1)}title="{html.escape(str(as_named(target)), quote=True)}"'
        return f'{m.group(1)}href="{html.escape(url, quote=True)}"'

    return _RELATIVE_HREF.sub(link, body)


def page(body: str, *, title: str = "", dark: bool | None = None) -> str:
    """A complete, self-contained page: CSP first, links opening outside the frame, our
    stylesheet, ``body`` (already clean). ``dark``: the theme, by default JupyterLab's
    (``lab_context``); None there leaves it to the system's preference."""
    from oo_nb.notebook.lab_context import lab_theme_is_dark

    theme = lab_theme_is_dark() if dark is None else dark
    cls = "" if theme is None else f' class="{"oo-dark" if theme else "oo-light"}"'
    return (
        f'<!DOCTYPE html><html{cls}><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{PREVIEW_CSP}">'
        '<base target="_blank">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>"
    )


_UNTRUSTED = "The preview shows once this notebook is trusted: run the cell to see it."


def iframe(page_html: str, *, height: int, title: str = "preview", fallback: str = "") -> str:
    """``page_html`` escaped into the ``srcdoc`` of a fully sandboxed iframe. ``fallback`` is
    plain text for where the frame is dropped: a saved notebook opened untrusted (yours after a
    restart, a colleague's) removes the iframe and keeps its text, so the output reads as this
    text instead of a blank; a browser that shows the frame never shows its text."""
    note = f"{fallback} ({_UNTRUSTED})" if fallback else _UNTRUSTED
    return (
        f'<iframe sandbox="{FRAME_SANDBOX}" class="oo-frame" title="{html.escape(title)}" '
        f'style="width:100%;height:{int(height)}px;border:1px solid #d1d9e0;border-radius:6px" '
        f'srcdoc="{html.escape(page_html, quote=True)}">{html.escape(note)}</iframe>'
    )


def estimate_height(fragment: str, *, figures: int = 0) -> int:
    """A height that shows short documents whole and gives long ones a scrolling window."""
    chars = len(_TAG.sub("", fragment))
    blocks = fragment.count("<h2") + fragment.count("<h3") + fragment.count("<tr")
    height = 110 + chars // 95 * 24 + blocks * 30 + figures * 220
    return max(MIN_HEIGHT, min(MAX_HEIGHT, height))


class ArticlePreview:
    """A document shown as its article in a sandboxed frame; ``text/plain`` is the summary.
    ``doc``: an ``oo_nb.Document`` (``%oo show``) or the codec's (a displayed codec object)."""

    def __init__(self, doc: Document | PublicDocument, *, height: int | None = None) -> None:
        self.document = doc
        self._height = height

    @property
    def path(self) -> Path | None:
        return self.document.path

    def page(self) -> str:
        doc = self.document
        m = doc.manifest
        as_of = m.as_of.isoformat() if m.as_of else "never updated"
        head = (
            f'<header><h1 id="doc-title">{html.escape(m.title or "(untitled)")}</h1>'
            f'<div class="meta">As of {html.escape(as_of)} &bull; Version {m.version}'
            f" &bull; {html.escape(doc.path.name if doc.path else '(unsaved)')}</div></header>"
        )
        body = clean_fragment(doc.article_html)
        return page(f'{head}<article id="article">{body}</article>', title=m.title)

    def height(self) -> int:
        if self._height is not None:
            return self._height
        return estimate_height(
            self.document.article_html, figures=self.document.article_html.count("<img")
        )

    def to_html(self) -> str:
        m = self.document.manifest
        as_of = f", as of {m.as_of.isoformat()}" if m.as_of else ""
        excerpt = self.document.article.excerpt  # the index card's: first paragraph, 120 chars
        fallback = f"{m.title or '(untitled)'}, version {m.version}{as_of}: {excerpt}"
        return iframe(
            self.page(), height=self.height(), title=f"preview of {m.title}", fallback=fallback
        )

    def to_text(self) -> str:
        from oo_nb.api.document import Document as PublicDocument
        from oo_nb.format.summary import summary_text

        if isinstance(self.document, PublicDocument):
            return self.document.summary()
        return summary_text(self.document)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.to_text(), "text/html": self.to_html()}

    def __repr__(self) -> str:
        return self.to_text()


class IndexPreview:
    """An index page (``index.o-o.html``): its cards and table in a sandboxed frame."""

    def __init__(
        self,
        path: str | Path,
        *,
        height: int | None = None,
        text: str | None = None,
        document: Document | None = None,
    ) -> None:
        from oo_nb.format.document import Document

        self.path = Path(path)
        # `document`: an index already in memory (Document's own repr), not read again
        self.document = document if document is not None else Document.read(self.path)
        self._height = height
        self._text = text

    def content(self) -> str:
        text = self.document.span_text(self.document.html)
        start, end = text.find(INDEX_CONTENT_START), text.find(INDEX_CONTENT_END)
        if start >= 0 and end > start:
            return text[start + len(INDEX_CONTENT_START) : end]
        body = re.search(r"<body\b[^>]*>(.*)</body>", text, re.S | re.I)
        return body.group(1) if body else text

    def page(self) -> str:
        head = f'<header><h1>Library index</h1><div class="meta">{html.escape(self.path.name)}</div></header>'
        body = _served_links(clean_fragment(self.content()), self.path.parent)
        return page(head + body, title="Library index")

    def height(self) -> int:
        return self._height if self._height is not None else estimate_height(self.content())

    def to_html(self) -> str:
        return iframe(
            self.page(),
            height=self.height(),
            title=f"preview of {self.path.name}",
            fallback=self.to_text(),
        )

    def to_text(self) -> str:
        if self._text is not None:
            return self._text
        cards = self.content().count('class="card')
        return f"{self.path}: library index ({cards} card(s))"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.to_text(), "text/html": self.to_html()}

    def __repr__(self) -> str:
        return self.to_text()


def html_for(obj: Any) -> str | None:
    """The notebook's HTML for a core object (installed as the display seam's renderer): a
    document's article (an index document: its cards), or the preview of a written index page.
    A document whose article or manifest cannot be read has none: displaying must never raise."""
    from oo_nb.errors import OOError
    from oo_nb.format.document import Document
    from oo_nb.library.index_page import IndexResult

    if isinstance(obj, Document):
        try:
            if obj.kind == "index":
                return IndexPreview(obj.path or INDEX_NAME, document=obj).to_html()
            return ArticlePreview(obj).to_html()
        except OOError:
            return None
    if isinstance(obj, IndexResult):
        return IndexPreview(obj.path, text=obj.to_text()).to_html()
    return None
