"""The id the page gives each ``<h2>`` and ``<h3>``, so oo_nb names a section as the page links it.

The page script (``template/document.js``) first numbers the References entries
(``indexReferences``: an entry without an id takes its own "[sN]" label, else "sN" or "ref-N"),
then builds the table of contents (``buildToc``): every h2/h3 of the article, in document order,
without an id gets ``uniqueId(slugOf(textContent) || "section-" + (i + 1))``, ``i`` its index
among them; ``uniqueId`` appends "-2", "-3"… while ``getElementById`` finds the id in the page
(the page's own elements, the article's, and the ids given before it).

oo_nb names a section by that id on every page: one without a ``#toc`` element, or still running
the original o-o script, gives its headings none, and shows them so once ``oo sync --migrate``
gives it oo_nb's; an update that edits such a section writes the id on its heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from oo_nb.format.vocab import entry_label

if TYPE_CHECKING:
    from oo_nb.format.article_model import Node

__all__ = ["GIVEN_ID", "TEMPLATE_PAGE_IDS", "page_heading_ids", "slug_of"]

# The ids the document page holds outside its article, as ``render_document`` writes it: what
# ``getElementById`` also finds when the model is read from the article alone (a Document gives
# its own page's ids). tests/format/test_heading_ids.py holds it to the template.
TEMPLATE_PAGE_IDS = frozenset(
    [
        "doc-title", "doc-asof", "doc-version", "contract-panel", "toc", "article", "run-meta",
        "oo-manifest", "oo-contract", "oo-source-cache", "oo-changelog",
    ]
)  # fmt: skip
# The form of every id the page script gives a heading (a slug, "section-N", "-2"...): an update
# writes it on the heading it edits, so the update scope takes it as a heading's id.
GIVEN_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_SLUG_CHARS = 60


def slug_of(text: str) -> str:
    """``slugOf``: lower-cased, every run of other characters than a-z and 0-9 one "-", no "-"
    at either end, 60 characters at most ("" when nothing is left)."""
    # (JavaScript's toLowerCase and Python's lower both use Unicode's full mapping; what is not
    # ASCII after it becomes "-" either way, so UTF-16 units and code points cut alike)
    return _NOT_SLUG.sub("-", text.lower()).strip("-")[:_SLUG_CHARS]


def _unique(base: str, taken: set[str]) -> str:
    given, n = base, 2
    while given in taken:
        given, n = f"{base}-{n}", n + 1
    taken.add(given)
    return given


def page_heading_ids(
    headings: Sequence[Node], entries: Iterable[Node] | None, taken: set[str]
) -> dict[Node, str]:
    """The id of each of ``headings`` (the article's h2 and h3, in document order) once the page
    script ran: its own, else the one ``buildToc`` gives it. ``entries`` are the References
    list's ``<li>`` (None when the page finds no list), ``taken`` every id of the page before
    the script runs (changed: the ids the script gives are added)."""
    if entries is not None:
        items = list(entries)
        unnamed = [li for li in items if not li.attr("id")]
        named: set[int] = set()
        for li in unnamed:
            label = entry_label(li.text)
            if label is not None and label not in taken:
                taken.add(label)
                named.add(id(li))
        for position, li in enumerate(items, 1):
            if not li.attr("id") and id(li) not in named:
                own = f"s{position}"
                _unique(f"ref-{position}" if own in taken else own, taken)
    out: dict[Node, str] = {}
    for i, head in enumerate(headings):
        own_id = head.attr("id")
        out[head] = own_id or _unique(slug_of(head.text) or f"section-{i + 1}", taken)
    return out
