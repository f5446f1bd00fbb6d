"""The changes that follow the review's decisions (version, dates, the References list, the new
changelog entry), shown as one collapsed ``<details>`` line: they cannot be decided on their own,
so they stay out of the way until asked for. A new changelog entry reads as a small table of its
fields, not as JSON. Everything is escaped text."""

from __future__ import annotations

import html
from collections.abc import Sequence

from oo_nb.review.hunks import Hunk
from oo_nb.review.render_html import entry_table, hunk_diff_html

__all__ = ["derived_html", "entry_table"]


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _label(hunk: Hunk) -> str:
    if hunk.area == "manifest" and hunk.fields and hunk.fields[0].name == "version":
        f = hunk.fields[0]
        return f"version {f.before} → {f.after}"
    if hunk.area == "changelog":
        return "change log entry" if hunk.kind == "added" else "change log"
    if hunk.area == "article":
        return hunk.section.capitalize() if hunk.section else "article"
    if hunk.fields:
        return ", ".join(f.path[-1] for f in hunk.fields)
    return hunk.title


def derived_html(hunks: Sequence[Hunk]) -> str:
    """All derived hunks in one ``<details>``: the summary line names each, the body shows them."""
    if not hunks:
        return ""
    labels = list(dict.fromkeys(_label(h) for h in hunks))
    items = "".join(
        f'<div class="oo-hunk oo-derived oo-hunk-{_e(h.kind)} oo-area-{_e(h.area)}">'
        f'<div class="oo-hunk-title"><span class="oo-kind">{_e(h.kind)}</span> · {_e(h.title)}</div>'
        f'<div class="oo-diff">{hunk_diff_html(h)}</div></div>'
        for h in hunks
    )
    return (
        '<details class="oo-derived-all"><summary>'
        f"Updated to match your decisions ({len(hunks)}): {_e(' · '.join(labels))}</summary>{items}</details>"
    )
