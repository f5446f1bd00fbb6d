"""What an update may change in a document, checked on a candidate that did not come from this
process (a saved proposal file is untrusted input: anyone who can write the history folder can
write one).

An update changes the article and the four JSON blocks, nothing else, and within the blocks
only what the agent path writes: the manifest's version, as-of date and changelog list; the
changelog's new entries; the source cache's sources, facts and date; a structured sentinel's
status, date and evidence. ``scope_problems`` lists every way a candidate goes beyond that: a
changed byte outside the article and the blocks (the shell header, the page code, the shell
after the heredoc), a contract or manifest value the agent never writes (the budget, the
subject...), markup in new block text, and article HTML the sanitiser would remove (scripts,
event handlers, ``javascript:`` links...) that the document did not already hold.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterator
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.article_model import Model, Node, read_model
from oo_nb.format.document import Document, Span
from oo_nb.format.heading_ids import GIVEN_ID
from oo_nb.format.legacy_script import runs_original_script
from oo_nb.format.names import (
    BLOCK_IDS,
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    MANIFEST_BLOCK,
    RESERVED_ID_PREFIXES,
    SOURCE_CACHE_BLOCK,
)
from oo_nb.format.sanitize import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    RESERVED_IDS,
    is_safe_image_src,
    safe_http_url,
)
from oo_nb.format.vocab import truncate

__all__ = ["outside_changes", "scope_problems", "unsafe_article_parts"]

# The block fields an update writes (FORMAT.md; agent/blocks.py). Anything else is the user's.
_MANIFEST_FIELDS = frozenset(("version", "as_of", "changelog"))
_CACHE_FIELDS = frozenset(("sources", "facts", "last_updated"))
_SENTINEL_FIELDS = frozenset(("status", "last_checked", "evidence"))
# Markup in a text value: what the original page script (and any innerHTML) would build.
_TAG_LIKE = re.compile(r"<[A-Za-z/!?]")
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,79}$")
_ANCHOR = re.compile(r"^#[A-Za-z][A-Za-z0-9_-]{0,79}$")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SHOWN = 80  # characters of a refused value shown in a message
_FOREIGN = frozenset(("svg", "math"))  # foreign content: raw-text elements hold markup there
_FOREIGN_DEPTH = 4  # levels of such markup read again (each level is read whole once more)


def scope_problems(original: Document, candidate: Document) -> list[str]:
    """Every change from ``original`` to ``candidate`` an update may not make, as one line each
    (empty: the candidate stays within an update's scope)."""
    if candidate.kind != "document" or candidate.article_span is None:
        return ["the proposed document has no article: it is not an update of this document"]
    if set(candidate.blocks) != set(original.blocks):
        return [
            "the proposed document has other JSON blocks ("
            + ", ".join(sorted(set(candidate.blocks) ^ set(original.blocks)))
            + ")"
        ]
    problems = outside_changes(original, candidate)
    problems += _block_problems(original, candidate)
    problems += unsafe_article_parts(original, candidate)
    return problems


# --------------------------------------------------------------------------- outside the data
def _data_spans(doc: Document) -> list[Span]:
    spans = [*doc.blocks.values(), *([doc.article_span] if doc.article_span else [])]
    return sorted(spans, key=lambda s: s.start)


def _outside_parts(doc: Document) -> list[tuple[int, str]]:
    """(offset, text) of each stretch between the article and the blocks, in file order."""
    parts, pos = [], 0
    for span in _data_spans(doc):
        parts.append((pos, doc.text[pos : span.start]))
        pos = span.end
    parts.append((pos, doc.text[pos:]))
    return parts


def _region_at(doc: Document, offset: int) -> str:
    if offset < doc.opener.end:
        return "the shell header before the heredoc (its opener line included)"
    if offset < doc.html.end:
        return "the page outside the article and the JSON blocks (its code and layout)"
    return "the shell after the heredoc (its terminator line included)"


def outside_changes(original: Document, candidate: Document) -> list[str]:
    """One line per stretch outside the article and the blocks where ``candidate`` differs,
    naming the region and line of ``original`` where the difference starts."""
    before, after = _outside_parts(original), _outside_parts(candidate)
    if _order(original) != _order(candidate):
        return ["the article and the JSON blocks are in another order"]
    out: list[str] = []
    for (start, old), (_, new) in zip(before, after, strict=True):
        if old == new:
            continue
        at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
        at = min(len(old), len(new)) if at is None else at
        offset = min(start + at, max(len(original.text) - 1, 0))
        region = _region_at(original, offset)
        line = original.line_of(offset)
        shown = new[at : at + _SHOWN].split("\n", 1)[0]
        out.append(f"{region}, line {line}: {_quote(shown) if shown.strip() else 'text removed'}")
    return out


def _order(doc: Document) -> list[str]:
    names = {span.start: name for name, span in doc.blocks.items()}
    if doc.article_span is not None:
        names[doc.article_span.start] = "article"
    return [names[s] for s in sorted(names)]


# --------------------------------------------------------------------------- the blocks
def _json(doc: Document, name: str) -> Any:
    try:
        return doc.block_json(name)
    except OOError:
        return None


def _block_problems(original: Document, candidate: Document) -> list[str]:
    out: list[str] = []
    for name in BLOCK_IDS:
        if name not in original.blocks:
            continue
        before, after = _json(original, name), _json(candidate, name)
        if after is None:
            out.append(f"{name}: the proposed block is not readable JSON")
            continue
        if _canon(before) == _canon(after):
            continue
        if before is None:
            out.append(f"{name}: the document's block is unreadable; an update cannot replace it")
            continue
        out += _CHECKS[name](before, after)
    return out


def _manifest(before: Any, after: Any) -> list[str]:
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [f"{MANIFEST_BLOCK}: its shape changed"]
    out = _fields_outside(MANIFEST_BLOCK, before, after, _MANIFEST_FIELDS)
    old_v, new_v = before.get("version"), after.get("version")
    if new_v != old_v and not (
        isinstance(new_v, int)
        and not isinstance(new_v, bool)
        and (not isinstance(old_v, int) or new_v > old_v)
    ):
        out.append(f"{MANIFEST_BLOCK}: version {_brief(new_v)} is not a newer version")
    as_of = after.get("as_of")
    if as_of != before.get("as_of") and not (
        isinstance(as_of, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", as_of)
    ):
        out.append(f"{MANIFEST_BLOCK}: as_of {_brief(as_of)} is not a date")
    if "changelog" in before or "changelog" in after:
        out += _appended(
            f"{MANIFEST_BLOCK} changelog", before.get("changelog"), after.get("changelog")
        )
    return out


def _contract(before: Any, after: Any) -> list[str]:
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [f"{CONTRACT_BLOCK}: its shape changed"]
    out = _fields_outside(CONTRACT_BLOCK, before, after, frozenset(("sentinel",)))
    old, new = before.get("sentinel"), after.get("sentinel")
    if _canon(old) == _canon(new):
        return out
    if not isinstance(old, dict) or not isinstance(new, dict):
        return [*out, f"{CONTRACT_BLOCK} sentinel: {_brief(old)} → {_brief(new)}"]
    out += _fields_outside(f"{CONTRACT_BLOCK} sentinel", old, new, _SENTINEL_FIELDS)
    for key in _SENTINEL_FIELDS:
        if _canon(old.get(key)) != _canon(new.get(key)):
            out += _markup(f"{CONTRACT_BLOCK} sentinel.{key}", new.get(key))
    return out


def _source_cache(before: Any, after: Any) -> list[str]:
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [f"{SOURCE_CACHE_BLOCK}: its shape changed"]
    out = _fields_outside(SOURCE_CACHE_BLOCK, before, after, _CACHE_FIELDS)
    for key in ("sources", "facts"):
        old = {_canon(v) for v in before.get(key) or [] if isinstance(before.get(key), list)}
        items = after.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            out.append(f"{SOURCE_CACHE_BLOCK}: {key} is not a list")
            continue
        for n, item in enumerate(items):
            if _canon(item) in old:
                continue
            where = f"{SOURCE_CACHE_BLOCK} {key}[{n}]"
            out += _markup(where, item)
            url = item.get("url") if isinstance(item, dict) else None
            if isinstance(url, str) and url and safe_http_url(url) is None:
                out.append(f"{where}: url {_quote(url)} is not an http(s) address")
    last = after.get("last_updated")
    if last != before.get("last_updated"):
        out += _markup(f"{SOURCE_CACHE_BLOCK} last_updated", last)
    return out


def _changelog(before: Any, after: Any) -> list[str]:
    if isinstance(before, list) or isinstance(after, list):
        return _appended(CHANGELOG_BLOCK, before, after)
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [f"{CHANGELOG_BLOCK}: its shape changed"]
    out = _fields_outside(CHANGELOG_BLOCK, before, after, frozenset(("entries",)))
    return out + _appended(CHANGELOG_BLOCK, before.get("entries", []), after.get("entries"))


_CHECKS = {
    MANIFEST_BLOCK: _manifest,
    CONTRACT_BLOCK: _contract,
    SOURCE_CACHE_BLOCK: _source_cache,
    CHANGELOG_BLOCK: _changelog,
}


def _fields_outside(
    where: str, before: dict[str, Any], after: dict[str, Any], allowed: frozenset[str]
) -> list[str]:
    """The keys outside ``allowed`` whose value differs, with the leaf that changed."""
    out = []
    for key in dict.fromkeys([*before, *after]):
        if key in allowed or _canon(before.get(key, _GONE)) == _canon(after.get(key, _GONE)):
            continue
        path, old, new = _first_difference(before.get(key, _GONE), after.get(key, _GONE), key)
        out.append(f"{where} {path}: {_brief(old)} → {_brief(new)}")
    return out


def _appended(where: str, before: Any, after: Any) -> list[str]:
    """``after`` must be ``before`` with new items at its end, none of them holding markup."""
    old = before if isinstance(before, list) else []
    if not isinstance(after, list):
        return [f"{where}: is no longer a list"]
    if len(after) < len(old) or any(
        _canon(a) != _canon(b) for a, b in zip(old, after, strict=False)
    ):
        return [f"{where}: earlier entries changed or removed (an update only appends one)"]
    out: list[str] = []
    for n, item in enumerate(after[len(old) :], start=len(old)):
        out += _markup(f"{where}[{n}]", item)
    return out


def _markup(where: str, value: Any) -> list[str]:
    """Text values under ``value`` that hold markup (also once entities are decoded)."""
    return [
        f"{where}: {_quote(text)} holds markup; update text is plain"
        for text in _strings(value)
        if _TAG_LIKE.search(text) or _TAG_LIKE.search(html_lib.unescape(text))
    ][:3]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


class _Gone:
    def __repr__(self) -> str:
        return "(none)"


_GONE: Any = _Gone()


def _first_difference(old: Any, new: Any, path: str) -> tuple[str, Any, Any]:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in dict.fromkeys([*old, *new]):
            a, b = old.get(key, _GONE), new.get(key, _GONE)
            if _canon(a) != _canon(b):
                return _first_difference(a, b, f"{path}.{key}")
    return path, old, new


def _canon(value: Any) -> str:
    if value is _GONE:
        return "\x00gone"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _brief(value: Any) -> str:
    if value is _GONE:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    return truncate(text, _SHOWN)


def _quote(text: str) -> str:
    return repr(truncate(text, _SHOWN))


# --------------------------------------------------------------------------- the article
def unsafe_article_parts(original: Document, candidate: Document) -> list[str]:
    """HTML in the candidate's article that the sanitiser would remove (elements and attributes
    outside the allow-list, links and images it refuses, ids that clobber the page's own) and
    that the document's article does not already hold; on a page still running the original
    script, also heading text that script would turn into markup."""
    before = set(_unsafe(original.article_model, False))
    legacy = runs_original_script(candidate)
    out: list[str] = []
    for part in dict.fromkeys(_unsafe(candidate.article_model, legacy)):
        if part not in before:
            out.append(f"article: {part}")
    return out[:10] + ([f"article: … and {len(out) - 10} more"] if len(out) > 10 else [])


def _unsafe(article: Model, legacy: bool) -> Iterator[str]:
    """The article as a browser reads it (its ``article_model``): each element and attribute
    the sanitiser would remove, in document order."""
    # (model, depth): inside <svg>/<math> a browser reads a raw-text element's content as
    # markup, which the model reads as text; that content is read again, as markup, a few
    # levels deep
    pending = [(article, 0)]
    while pending:
        model, depth = pending.pop(0)
        text = model.source
        stack = [(node, False) for node in reversed(model.root.children)]
        while stack:
            node, foreign = stack.pop()
            if node.kind != "element":
                continue  # text and comments are inert
            yield from _element_problems(text, node, legacy)
            if foreign and _read_as_text(text, node):
                if depth >= _FOREIGN_DEPTH:
                    yield f"markup in <{node.name}> nested too deep to read"
                else:
                    inner = read_model(text[node.open_end : node.close_start])
                    pending.append((inner, depth + 1))
            inside = foreign or node.name in _FOREIGN
            stack.extend((child, inside) for child in reversed(node.children))


def _read_as_text(text: str, node: Node) -> bool:
    """``node`` holds markup that the model read as text (a raw-text element's content)."""
    return "<" in text[node.open_end : node.close_start] and all(
        child.kind == "text" for child in node.children
    )


def _element_problems(text: str, node: Node, legacy: bool) -> Iterator[str]:
    tag = node.name
    if tag not in ALLOWED_TAGS and tag != "h2":
        yield f"a <{tag}> element {_quote(text[node.start : node.end])}"
        return
    allowed = ALLOWED_ATTRIBUTES["*"] | ALLOWED_ATTRIBUTES.get(tag, frozenset())
    for attr in node.attrs or ():  # (the first of two with one name: the one a browser keeps)
        problem = _attribute_problem(tag, attr.name, attr.value, allowed)
        if problem:
            yield f"<{tag} {attr.name}={_quote(attr.value)}>: {problem}"
    if legacy and tag in _HEADINGS:
        heading = node.text
        if "<" in heading or ">" in heading:
            yield f"<{tag}> text {_quote(heading)} that the original page script turns into markup"


def _attribute_problem(tag: str, attr: str, value: str, allowed: frozenset[str]) -> str:
    if tag == "a" and attr == "rel":
        return ""
    if attr not in allowed:
        return "attribute not allowed"
    if attr == "href":
        ok = bool(_ANCHOR.match(value.strip())) or safe_http_url(value) is not None
        return "" if ok else "only http(s) and in-page links are allowed"
    if attr == "src":
        return "" if is_safe_image_src(value) else "only embedded raster images are allowed"
    if attr == "id":
        low = value.lower()
        # (a heading may hold the id the page gave it, which may start with a digit: "2026-…")
        if not (_ID.match(value) or (tag in ("h2", "h3") and GIVEN_ID.match(value))):
            return "not a usable id"
        if (low in RESERVED_IDS and not (low == "references" and tag == "h2")) or low.startswith(
            RESERVED_ID_PREFIXES
        ):
            return "an id the page itself uses"
    return ""
