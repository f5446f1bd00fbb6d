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

__all__ = ["diff_html", "hunk_diff_html"]


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return _e(truncate(text, 400))


def hunk_diff_html(hunk: Hunk) -> str:
    """The change itself: inline word highlights for text, a field table for JSON."""
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


def diff_html(diff: DocumentDiff) -> str:
    """Every hunk with its title, for ``oo diff`` in a notebook."""
    items = "".join(
        f'<div class="oo-hunk oo-hunk-{h.kind}"><div class="oo-hunk-title"><b>{_e(h.kind)}</b> · {_e(h.title)}'
        f"{' <em>(follows)</em>' if h.derived else ''}</div>{hunk_diff_html(h)}</div>"
        for h in diff.hunks
    )
    style = (
        "<style>.oo-diff del{background:#ffebe9;color:#82071e}.oo-diff ins{background:#dafbe1;color:#116329;"
        "text-decoration:none}.oo-diff .oo-hunk{border-left:3px solid #d1d9e0;padding:2px 8px;margin:6px 0}"
        ".oo-diff .oo-hunk-added{border-color:#1a7f37}.oo-diff .oo-hunk-removed{border-color:#cf222e}"
        ".oo-diff .oo-hunk-changed{border-color:#9a6700}.oo-diff .oo-hunk-title{font-size:.9em;color:#59636e}</style>"
    )
    return f'{style}<div class="oo-diff"><p><b>{_e(diff.summary.text())}</b></p>{items or "<p>no changes</p>"}</div>'
