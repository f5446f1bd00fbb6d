"""The article cut into top-level units (a heading, a paragraph, a list, a figure, a table...)
with the exact text around them, so a merge of units from two documents reproduces each side
byte for byte. The blocks of ``article_model``: read as a browser reads them, never
re-serialised."""

from __future__ import annotations

from dataclasses import dataclass

from oo_nb.format.article_model import read_model

__all__ = ["Unit", "split_units", "text_of"]


@dataclass(frozen=True, slots=True)
class Unit:
    """One top-level element of the article. ``lead`` is everything between the previous unit
    and this element (whitespace, the pid comment, other comments); ``raw == lead + body``."""

    lead: str
    body: str
    tag: str
    pid: str | None
    heading_id: str | None
    section: str  # id of the h2 this unit belongs to (its own id for an h2)

    @property
    def raw(self) -> str:
        return self.lead + self.body

    @property
    def norm(self) -> str:
        """The body with runs of whitespace collapsed: re-wrapping a paragraph is no change."""
        return " ".join(self.body.split())  # str.split: far faster than a regex on 150 KB

    @property
    def is_references(self) -> bool:
        return self.section == "references" and self.tag in ("ol", "ul")


def text_of(html: str) -> str:
    """The words a reader sees, read as a browser reads ``html`` (script, style and template
    content is none of them; an attribute value or a comment neither)."""
    if not html.strip():
        return ""
    return " ".join(read_model(html).root.visible_text.split())


def split_units(html: str) -> tuple[list[Unit], str]:
    """Cut ``html`` into units; return them and the trailing text after the last one.
    ``"".join(u.raw for u in units) + tail == html`` always holds."""
    units: list[Unit] = []
    pos = 0
    model = read_model(html)
    for block in model.blocks:
        if block.tag == "text":  # loose text stays in the next unit's lead, as it always did
            continue
        # (an h2/h3 without an id: the one the page gives it, the section's id)
        heading = (
            model.id_of(block.node) or None
            if block.tag[:1] == "h" and block.tag[1:].isdigit()
            else None
        )
        units.append(
            Unit(
                html[pos : block.start],
                html[block.start : block.end],
                block.tag,
                block.pid,
                heading,
                block.section,
            )
        )
        pos = block.end
    return units, html[pos:]
