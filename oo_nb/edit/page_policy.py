"""The page policy of a page ``oo sync`` writes, where Chromium applies it.

The shell lines before ``<!DOCTYPE>`` make the HTML parser open ``<body>`` before the page's own
``<head>`` markup, so the Content-Security-Policy ``<meta>`` of an original o-o page lands in
the body and Chromium ignores it. Pages from ``oo new`` carry a first script that puts the policy
meta into ``document.head`` before anything else loads (``CSP_BOOTSTRAP``); ``oo sync`` and
``oo sync --migrate`` give older pages the same script, on the line before their own policy meta
(in their head, ahead of every stylesheet, script and image), or first in their head (with a
policy meta) when they have none.
"""

from __future__ import annotations

import re

from oo_nb.format.document import Document
from oo_nb.format.template.render import CSP, CSP_BOOTSTRAP

__all__ = ["has_policy_bootstrap", "with_policy_bootstrap"]

_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_CSP_EQUIV = re.compile(r"""\bhttp-equiv\s*=\s*["']?Content-Security-Policy""", re.IGNORECASE)
_HEAD_OPEN = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)
_LOADS = re.compile(r"<(?:script|style|link|img|body|iframe|object|embed)\b", re.IGNORECASE)
# Markup that is text to the HTML parser: a tag found there is no element (a policy meta that was
# commented out, or put in the title, is not where the bootstrap can go: it would never run).
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_TEXT_ONLY = re.compile(
    r"(<(title|textarea|style|script|noscript|xmp|noembed|noframes|iframe)\b[^>]*>)(.*?)(?=</\2\s*>|\Z)",
    re.IGNORECASE | re.DOTALL,
)


def _as_parsed(text: str, end: int) -> str:
    """``text`` with comments and the content of text-only elements blanked out up to ``end``
    (same length, so positions hold): what is left of a tag there is an element the parser
    makes. The article and what follows are not looked at (their size is not this cost)."""
    head = _COMMENT.sub(lambda m: " " * len(m.group(0)), text[:end])
    return _TEXT_ONLY.sub(lambda m: m.group(1) + " " * len(m.group(3)), head) + text[end:]


def _head_limit(doc: Document) -> int:
    """Where the page's head ends (``</head>``, else the article, else the page's end)."""
    end = doc.article_span.start if doc.article_span is not None else doc.html.end
    m = _HEAD_END.search(doc.text, doc.html.start, end)
    return m.start() if m else end


def has_policy_bootstrap(doc: Document) -> bool:
    """True when the page's first script, style, link, image or body tag is the policy
    bootstrap: it runs before anything the policy governs."""
    end = doc.article_span.start if doc.article_span is not None else doc.html.end
    first = _LOADS.search(_as_parsed(doc.text, end), doc.html.start, doc.html.end)
    return first is not None and doc.text.startswith(CSP_BOOTSTRAP, first.start())


def with_policy_bootstrap(doc: Document) -> Document:
    """``doc`` with the policy bootstrap first in its head (itself when it has it already)."""
    if has_policy_bootstrap(doc):
        return doc
    text, limit = doc.text, _head_limit(doc)
    parsed = _as_parsed(text, limit)
    meta = next(
        (m for m in _META.finditer(parsed, doc.html.start, limit) if _CSP_EQUIV.search(m.group(0))),
        None,
    )
    first = _LOADS.search(parsed, doc.html.start, limit)
    insert = CSP_BOOTSTRAP + "\n"
    if meta is not None and (first is None or meta.start() < first.start()):
        at = meta.start()  # the line before the page's own policy meta
    else:  # no meta, or code above it: first thing in the head
        if meta is None:
            insert += f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        head = _HEAD_OPEN.search(parsed, doc.html.start, limit)
        at = head.end() if head else (first.start() if first else limit)
        if head and text.startswith("\n", at):
            at += 1
        elif head and text.startswith("\r\n", at):
            at += 2
    line_start = text.rfind("\n", 0, at) + 1
    if text[line_start:at].strip():  # something else on that line: start the script on its own
        return doc.replace_range(at, at, "\n" + insert)
    return doc.replace_range(line_start, line_start, insert)
