"""A document cleaned of secrets: the API key (or a configured credential, or an echo of part of
one) that a model repeated into its proposal is replaced by ``[redacted]`` before anything is
written (``oo_nb.redaction`` says what counts as a secret).

The document stays valid: JSON blocks are cleaned value by value (strings and keys, then written
back through ``with_block``, so JSON stays JSON and the layout is kept), the article as text,
never across a character that is HTML syntax (``<>&"'``), so HTML stays HTML."""

from __future__ import annotations

from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.redaction import scrub, secrets_now

__all__ = ["scrub_document", "scrub_value"]

_HTML_SYNTAX = "<>&\"'"
_JSON_SYNTAX = "\\"


def scrub_document(doc: Document) -> tuple[Document, int]:
    """``doc`` with every secret in its article and JSON blocks replaced, and how many places
    were replaced (0: ``doc`` itself is returned)."""
    secrets = secrets_now()
    found = 0
    out = doc
    if doc.article_span is not None:
        html, n = scrub(doc.article_html, keep=_HTML_SYNTAX, secrets=secrets)
        if n:
            out, found = out.with_article(html), found + n
    for name in list(out.blocks):
        raw = out.span_text(out.blocks[name])
        if "\\" not in raw and not scrub(raw, secrets=secrets)[1]:
            continue  # no escapes that could hide a secret, and none in the text: nothing to do
        try:
            value = out.block_json(name)
        except OOError:  # unreadable JSON: cleaned as text, left as broken as it was
            span = out.blocks[name]
            text, n = scrub(raw, keep=_JSON_SYNTAX + _HTML_SYNTAX, secrets=secrets)
            if n:
                out, found = out.replace_range(span.start, span.end, text), found + n
            continue
        value, n = _scrub_json(value, secrets)
        if n:
            out, found = out.with_block(name, value), found + n
    return out, found


def scrub_value(value: Any) -> tuple[Any, int]:
    """A JSON value (a saved proposal's data) with every secret in its strings and keys
    replaced, and how many places were replaced."""
    return _scrub_json(value, secrets_now())


def _scrub_json(value: Any, secrets: list[str]) -> tuple[Any, int]:
    if isinstance(value, str):
        return scrub(value, secrets=secrets)
    if isinstance(value, list):
        items = [_scrub_json(v, secrets) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        found, out = 0, {}
        for key, item in value.items():
            clean_key, k = scrub(key, secrets=secrets)
            clean_item, n = _scrub_json(item, secrets)
            while clean_key in out:  # two keys redacted alike: both kept
                clean_key += "'"
            out[clean_key] = clean_item
            found += k + n
        return out, found
    return value, 0
