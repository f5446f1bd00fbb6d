"""The changes that follow the review's decisions (version, dates, the References list, the new
changelog entry), shown as one collapsed ``<details>`` line: they cannot be decided on their own,
so they stay out of the way until asked for. A new changelog entry reads as a small table of its
fields, not as JSON. Everything is escaped text."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from oo_nb.format.vocab import truncate
from oo_nb.review.hunks import Hunk
from oo_nb.review.render_html import hunk_diff_html

__all__ = ["derived_html", "entry_table"]

_MAX_CELL = 300


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _cell(value: Any) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        text = ", ".join(str(v) for v in value) or "(none)"
    elif isinstance(value, dict) and all(
        isinstance(v, (str, int, float, bool)) for v in value.values()
    ):
        text = " · ".join(f"{k}: {v}" for k, v in value.items())
    else:
        text = json.dumps(value, ensure_ascii=False)
    return _e(truncate(text, _MAX_CELL))


def entry_table(entry: Any) -> str:
    """One changelog entry as a two-column table (a plain string entry as a line of text)."""
    if not isinstance(entry, dict):
        return f'<div class="oo-entry">{_cell(entry)}</div>'
    rows = "".join(f"<tr><th>{_e(str(k))}</th><td>{_cell(v)}</td></tr>" for k, v in entry.items())
    return f'<table class="oo-entry">{rows}</table>'


def _label(hunk: Hunk) -> str:
    if hunk.area == "manifest" and hunk.fields and hunk.fields[0].name == "version":
        f = hunk.fields[0]
        return f"version {f.before} → {f.after}"
    if hunk.area == "changelog":
        return "changelog entry" if hunk.kind == "added" else "changelog"
    if hunk.area == "article":
        return hunk.section.capitalize() if hunk.section else "article"
    if hunk.fields:
        return ", ".join(f.path[-1] for f in hunk.fields)
    return hunk.title


def _body(hunk: Hunk) -> str:
    if hunk.area == "changelog" and hunk.kind == "added":
        try:
            entries = json.loads(hunk.after_text)
        except ValueError:
            entries = None
        if isinstance(entries, list):
            return "".join(entry_table(e) for e in entries)
    return hunk_diff_html(hunk)


def derived_html(hunks: Sequence[Hunk]) -> str:
    """All derived hunks in one ``<details>``: the summary line names each, the body shows them."""
    if not hunks:
        return ""
    labels = list(dict.fromkeys(_label(h) for h in hunks))
    items = "".join(
        f'<div class="oo-hunk oo-derived oo-hunk-{_e(h.kind)} oo-area-{_e(h.area)}">'
        f'<div class="oo-hunk-title"><span class="oo-kind">{_e(h.kind)}</span> · {_e(h.title)}</div>'
        f'<div class="oo-diff">{_body(h)}</div></div>'
        for h in hunks
    )
    return (
        '<details class="oo-derived-all"><summary>'
        f"Updated to match your decisions ({len(hunks)}): {_e(' · '.join(labels))}</summary>{items}</details>"
    )
