"""A hunk as safe HTML for notebooks: TEXT with word highlights (``<del>``/``<ins>``) or a
table of field changes, everything escaped. Agent HTML itself never appears here; rendered
previews go in sandboxed iframes (``oo_nb.notebook.preview``)."""

from __future__ import annotations

import html
import json
from typing import Any

from oo_nb.format.vocab import truncate
from oo_nb.review.diff import DocumentDiff
from oo_nb.review.hunks import Hunk

__all__ = ["diff_html", "entry_table", "hunk_diff_html", "plain_value"]

_MAX_CELL = 300


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def plain_value(value: Any, limit: int = _MAX_CELL) -> str:
    """A field's value as a person reads it (TEXT, to be escaped): a string as it is, a list of
    plain values comma-separated, a flat object as ``key: value`` pairs, else compact JSON."""
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
    return truncate(text, limit)


def _value(value: Any) -> str:
    return _e(plain_value(value, 400))


def entry_table(entry: Any) -> str:
    """One changelog entry as a two-column table (a plain string entry as a line of text)."""
    if not isinstance(entry, dict):
        return f'<div class="oo-entry">{_e(plain_value(entry))}</div>'
    rows = "".join(
        f"<tr><th>{_e(str(k))}</th><td>{_e(plain_value(v))}</td></tr>" for k, v in entry.items()
    )
    return f'<table class="oo-entry">{rows}</table>'


def _appended(before: Any, after: Any) -> list[Any] | None:
    """The items a list field gained at its end (a log's new line), or None if it changed
    otherwise."""
    if isinstance(before, list) and isinstance(after, list) and after[: len(before)] == before:
        return after[len(before) :]
    return None


def hunk_diff_html(hunk: Hunk) -> str:
    """The change itself: inline word highlights for text, a field table for JSON."""
    if hunk.area == "changelog" and hunk.kind == "added":
        try:
            entries = json.loads(hunk.after_text)
        except ValueError:
            entries = None
        if isinstance(entries, list):
            return "".join(entry_table(e) for e in entries)
    if len(hunk.fields) == 1 and hunk.area != "article":
        f = hunk.fields[0]
        new = _appended(f.before, f.after) if f.kind == "changed" else None
        if new:  # a log that grew: its new lines, not the whole list twice
            grown = "<br>".join(f"<ins>{_e(plain_value(v, 400))}</ins>" for v in new)
            return f'<div class="oo-words">{grown}</div>'
    kinds = {f.kind for f in hunk.fields}
    if hunk.fields and hunk.area != "article" and len(kinds) == 1 and kinds < {"added", "removed"}:
        # a new or dropped record (a source, a fact): one line of its values, not a table
        tag = "ins" if kinds == {"added"} else "del"
        values = (f.after if tag == "ins" else f.before for f in hunk.fields)
        line = " · ".join(plain_value(v, 160) for v in values if v not in (None, "", []))
        return f'<div class="oo-words"><{tag}>{_e(line)}</{tag}></div>'
    if hunk.fields and hunk.area != "article":
        rows = "".join(
            f'<tr class="oo-field-{f.kind}"><th>{_e(f.name)}</th>'
            f"<td>{'' if f.kind == 'added' else '<del>' + _value(f.before) + '</del>'}</td>"
            f"<td>{'' if f.kind == 'removed' else '<ins>' + _value(f.after) + '</ins>'}</td></tr>"
            for f in hunk.fields
        )
        return f'<table class="oo-fields"><tr><th>field</th><th>before</th><th>after</th></tr>{rows}</table>'
    if hunk.lines:  # one line per entry: removed ones struck, added ones inserted
        lines = [f"<del>{_e(line)}</del>" for line in hunk.before_text.splitlines()]
        lines += [f"<ins>{_e(line)}</ins>" for line in hunk.after_text.splitlines()]
        return f'<div class="oo-words">{"<br>".join(lines) or "<em>(no entry changed)</em>"}</div>'
    if hunk.kind == "changed" and ((hunk.before_text and hunk.after_text) or hunk.markup_only):
        parts = (
            ['<div class="oo-note">same text; the HTML changed:</div>'] if hunk.markup_only else []
        )
        for w in hunk.words:
            if w.op == "=":
                parts.append(_e(w.text))
            else:
                tag = "del" if w.op == "-" else "ins"
                parts.append(f"<{tag}>{_e(w.text)}</{tag}>")
        return f'<div class="oo-words">{"".join(parts)}</div>'
    text = (
        hunk.after_text
        if hunk.kind == "added"
        else hunk.before_text
        if hunk.kind == "removed"
        else hunk.after_text
    )
    tag = "ins" if hunk.kind == "added" else "del"
    body = "<br>".join(_e(line) for line in text.splitlines()) or "<em>(no text)</em>"
    return f'<div class="oo-words"><{tag}>{body}</{tag}></div>'


def _hunk_item(h: Hunk) -> str:
    return (
        f'<div class="oo-hunk oo-hunk-{_e(h.kind)}"><div class="oo-hunk-title"><b>{_e(h.kind)}'
        f"</b> · {_e(h.title)}</div>{hunk_diff_html(h)}</div>"
    )


def diff_html(diff: DocumentDiff) -> str:
    """Every change with its title, for ``oo diff`` in a notebook: the ones a person decides in
    view, the ones that come with them (version, dates, the log, the References list) folded
    into one line."""
    items = "".join(_hunk_item(h) for h in diff.hunks if h.decidable)
    derived = [h for h in diff.hunks if h.derived]
    if derived:
        names = " · ".join(dict.fromkeys(h.title.split(":")[0].split(" (")[0] for h in derived))
        items += (
            f'<details class="oo-derived-all"><summary>{len(derived)} more that come with '
            f"these: {_e(names)}</summary>{''.join(_hunk_item(h) for h in derived)}</details>"
        )
    style = (
        "<style>.oo-diff del{background:#ffebe9;color:#82071e}.oo-diff ins{background:#dafbe1;color:#116329;"
        "text-decoration:none}.oo-diff .oo-hunk{border-left:3px solid #d1d9e0;padding:2px 8px;margin:6px 0}"
        ".oo-diff .oo-hunk-added{border-color:#1a7f37}.oo-diff .oo-hunk-removed{border-color:#cf222e}"
        ".oo-diff .oo-hunk-changed{border-color:#9a6700}.oo-diff .oo-hunk-title{font-size:.9em;color:#59636e}"
        ".oo-diff .oo-words{max-height:9em;overflow:auto}.oo-diff summary{cursor:pointer;color:#59636e}"
        ".oo-diff table{border-collapse:collapse;font-size:.9em}.oo-diff th{text-align:left;padding-right:8px}</style>"
    )
    # past about 40 lines the diff scrolls in its own box: the cell's output stays in one window
    return f'{style}<div class="oo-diff" style="max-height:36em;overflow:auto"><p><b>{_e(diff.summary.text())}</b></p>{items or "<p>no changes</p>"}</div>'
