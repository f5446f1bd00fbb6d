"""The ``submit_proposal`` tool input, validated by hand against ``PROPOSAL_SCHEMA`` semantics.

The input is untrusted: every field is type-checked and size-capped here, and an error names the
field (``sections[2].html``). Meaning-level checks (unknown citations, URL schemes, deny-listed
domains, duplicate URLs) happen when the candidate is built, as warnings, so that one bad source
does not throw away a whole paid research run. HTML is NOT sanitised here: ``candidate`` does it.

Unknown keys are ignored (the issue allows extra optional fields) and listed in
``Proposal.ignored`` so a reviewer can see them. Input nested deeper than ``MAX_DEPTH`` is
refused, naming where; a lone surrogate (text no UTF-8 file can hold) is replaced by U+FFFD and
the field listed in ``Proposal.repaired``: the answer was paid for, one bad character should not
lose it.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from oo_nb.errors import AgentError
from oo_nb.format.blocks import parse_date
from oo_nb.format.jsonblock import too_deep
from oo_nb.format.names import RESERVED_ID_PREFIXES
from oo_nb.format.sanitize import RESERVED_IDS, sanitize_text
from oo_nb.format.surrogates import scrub
from oo_nb.format.vocab import truncate

__all__ = [
    "DROPPABLE_ID",
    "LAYOUTS",
    "LIMITS",
    "MAX_DEPTH",
    "SENTINEL_STATUSES",
    "Proposal",
    "ProposedFact",
    "ProposedImage",
    "ProposedSection",
    "ProposedSentinel",
    "ProposedSource",
    "validate_proposal",
]

# The schema is 4 levels deep; 32 leaves room for any honest answer and stays far below what
# json, pydantic and the SDK's stream parser can handle (they fail between 200 and 1,000).
MAX_DEPTH = 32
SOURCE_ID = re.compile(r"^s[1-9][0-9]{0,4}$")
# A section's id as its h2 has it: a hand-written page may write it with capitals, dots or colons
# ("Key.Details", valid by `oo check`), and a proposal names an existing section by that id, as
# written (a paid Claude Code run that edited such a section was refused for its id). None of
# these characters can leave an attribute value.
SECTION_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$")
DROPPABLE_ID = SECTION_ID  # the name drop_sections' callers know it by
QUOTE_MIN = 12  # characters: shorter quotes match almost any page
LAYOUTS = ("fig-right", "fig-left", "fig-full", "fig-center")
SENTINEL_STATUSES = ("not_occurred", "occurred", "unknown")

# Caps: far above what a sensible update needs, low enough that a runaway answer cannot bloat
# the document or the review.
LIMITS = {
    "summary": 4_000,
    "sections": 40,
    "section.title": 200,
    "section.html": 200_000,
    "sections.html_total": 1_000_000,
    "sources": 200,
    "url": 2_048,
    "source.title": 500,
    "source.tier": 60,
    "drop_sources": 500,
    "drop_sections": 40,
    "facts": 300,
    "fact.text": 1_000,
    "fact.source_ids": 20,
    "fact.quote": 1_000,
    "images": 20,
    "image.caption": 600,
    "image.alt": 300,
    "sentinel.evidence": 4_000,
}


@dataclass(frozen=True)
class ProposedSection:
    id: str
    title: str
    html: str
    # a new section's place: the id of the section it follows in the proposer's article (Claude
    # Code's edited copy); None (or a section the candidate lacks): before References
    after: str | None = None


@dataclass(frozen=True)
class ProposedSource:
    id: str
    url: str
    title: str
    tier: str = ""
    accessed: str | None = None  # YYYY-MM-DD, or None when missing or unreadable


@dataclass(frozen=True)
class ProposedFact:
    text: str
    source_ids: tuple[str, ...] = ()
    quote: str = ""  # a verbatim passage from a page read in this run (checked in the ledger)


@dataclass(frozen=True)
class ProposedImage:
    url: str
    caption: str
    page_url: str = ""
    alt: str = ""
    layout: str = "fig-right"
    section: str | None = None


@dataclass(frozen=True)
class ProposedSentinel:
    status: str
    evidence: str = ""


@dataclass(frozen=True)
class Proposal:
    summary: str
    sections: tuple[ProposedSection, ...]
    sources: tuple[ProposedSource, ...] = ()
    drop_sources: tuple[str, ...] = ()
    facts: tuple[ProposedFact, ...] = ()
    images: tuple[ProposedImage, ...] = ()
    sentinel: ProposedSentinel | None = None
    ignored: tuple[str, ...] = ()  # unknown keys, e.g. "sections[0].note"
    repaired: tuple[str, ...] = ()  # fields whose lone surrogates became U+FFFD
    # quotes refused (not a string, too long, too short): the fact is kept without its quote
    quote_problems: tuple[str, ...] = ()
    # ids of sections to remove (heading and text): each is a change the reviewer decides
    drop_sections: tuple[str, ...] = ()

    @property
    def removes_sections(self) -> tuple[str, ...]:
        """The section ids this proposal asks to remove (empty: it removes none)."""
        return self.drop_sections

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (for the pending-proposal file); ``validate_proposal`` reads it back."""
        out: dict[str, Any] = json.loads(json.dumps(asdict(self)))  # tuples -> lists
        out.pop("ignored")
        out.pop("repaired")
        out.pop("quote_problems")
        for fact in out["facts"]:
            if not fact["quote"]:
                fact.pop("quote")
        for section in out["sections"]:
            if section["after"] is None:
                section.pop("after")
        for key in ("sources", "facts", "images", "drop_sources", "drop_sections"):
            if not out[key]:
                out.pop(key)
        if out["sentinel"] is None:
            out.pop("sentinel")
        return out


class _Reader:
    """Type and size checks with errors naming the field path."""

    def __init__(self) -> None:
        self.ignored: list[str] = []

    def fail(self, path: str, message: str) -> AgentError:
        return AgentError(f"invalid submit_proposal input: {message}", key=path)

    def obj(self, value: Any, path: str, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be an object, found {_kind(value)}")
        for key in value:
            if key not in known and len(self.ignored) < 50:
                name = sanitize_text(str(key), max_len=40) or "?"  # shown to the reviewer
                self.ignored.append(f"{path}.{name}" if path else name)
        return value

    def text(
        self, obj: dict[str, Any], key: str, path: str, limit: int, *, required: bool = False
    ) -> str:
        where = f"{path}.{key}" if path else key
        if key not in obj or obj[key] is None:
            if required:
                raise self.fail(where, "is required")
            return ""
        value = obj[key]
        if not isinstance(value, str):
            raise self.fail(where, f"must be a string, found {_kind(value)}")
        if "\x00" in value:
            raise self.fail(where, "contains a NUL character")
        if len(value) > limit:
            raise self.fail(where, f"is too long ({len(value)} characters, at most {limit})")
        if required and not value.strip():
            raise self.fail(where, "must not be empty")
        return value

    def items(
        self, obj: dict[str, Any], key: str, limit: int, *, required: bool = False
    ) -> list[Any]:
        if key not in obj or obj[key] is None:
            if required:
                raise self.fail(key, "is required")
            return []
        value = obj[key]
        if not isinstance(value, list):
            raise self.fail(key, f"must be an array, found {_kind(value)}")
        if len(value) > limit:
            raise self.fail(key, f"has {len(value)} items, at most {limit}")
        return value

    def source_id(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not SOURCE_ID.match(value.strip()):
            raise self.fail(where, f"must be a source id like 's17', found {_short(value)}")
        return value.strip()


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, str) else repr(value)
    return truncate(text, 40)


def validate_proposal(raw: Any) -> Proposal:
    """Check the model's ``submit_proposal`` input and return it typed. Raises ``AgentError``
    naming the first bad field. ``raw`` may also be the JSON text of the input."""
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except RecursionError:
            raise AgentError(
                f"invalid submit_proposal input: nested deeper than {MAX_DEPTH} levels"
            ) from None
        except ValueError as exc:
            raise AgentError(f"invalid submit_proposal input: not JSON ({exc})") from None
    # Before any other look: copying, serialising or printing a value nested hundreds deep ends
    # in RecursionError (pydantic: "Maximum serialization depth exceeded").
    deep = too_deep(raw, MAX_DEPTH)
    if deep is not None:
        raise AgentError(
            f"invalid submit_proposal input: nested deeper than {MAX_DEPTH} levels", key=deep
        )
    # A lone surrogate ("\ud800") fails every later write and print; the answer was paid for,
    # so the text is kept with U+FFFD in its place and the reviewer is told where.
    raw, repaired = scrub(raw)
    r = _Reader()
    top = r.obj(
        raw,
        "",
        (
            "summary",
            "sections",
            "sources",
            "drop_sources",
            "drop_sections",
            "facts",
            "images",
            "sentinel",
        ),
    )
    summary = r.text(top, "summary", "", LIMITS["summary"], required=True)
    sections = _sections(r, top)
    sources = _sources(r, top)
    drops = tuple(
        dict.fromkeys(
            r.source_id(v, f"drop_sources[{i}]")
            for i, v in enumerate(r.items(top, "drop_sources", LIMITS["drop_sources"]))
        )
    )
    quote_problems: list[str] = []
    facts = _facts(r, top, quote_problems)
    images = _images(r, top)
    sentinel = _sentinel(r, top)
    return Proposal(
        summary, sections, sources, drops, facts, images, sentinel, tuple(r.ignored),
        tuple(repaired[:20]), tuple(quote_problems[:20]), _drop_sections(r, top),
    )  # fmt: skip


def _drop_sections(r: _Reader, top: dict[str, Any]) -> tuple[str, ...]:
    out: list[str] = []
    for i, value in enumerate(r.items(top, "drop_sections", LIMITS["drop_sections"])):
        where = f"drop_sections[{i}]"
        if not isinstance(value, str) or not DROPPABLE_ID.match(value.strip()):
            raise r.fail(where, f"must be a section id (the h2 id), found {_short(value)}")
        out.append(value.strip())
    return tuple(dict.fromkeys(out))


def _sections(r: _Reader, top: dict[str, Any]) -> tuple[ProposedSection, ...]:
    out: list[ProposedSection] = []
    seen: set[str] = set()
    total = 0
    for i, item in enumerate(r.items(top, "sections", LIMITS["sections"], required=True)):
        path = f"sections[{i}]"
        obj = r.obj(item, path, ("id", "title", "html", "after"))
        sid = r.text(obj, "id", path, 128, required=True).strip()
        if not SECTION_ID.match(sid):
            raise r.fail(
                f"{path}.id",
                f"must be a section id (letters, digits, '-', '_', '.', ':'), found {_short(sid)}",
            )
        if sid in RESERVED_IDS and sid != "references":
            raise r.fail(f"{path}.id", f"{sid!r} is reserved by the page")
        if sid.startswith(RESERVED_ID_PREFIXES):
            raise r.fail(f"{path}.id", "ids starting with 'oo-' or 'liki-' are reserved")
        if sid in seen:
            raise r.fail(f"{path}.id", f"section {sid!r} appears twice")
        seen.add(sid)
        # required, but may be blank: a section whose heading is empty (``<h2></h2>``, which the
        # page names "section-N") keeps it so, and a new one is titled by its id
        if obj.get("title") is None:
            raise r.fail(f"{path}.title", "is required")
        title = r.text(obj, "title", path, LIMITS["section.title"])
        html = r.text(obj, "html", path, LIMITS["section.html"], required=True)
        total += len(html)
        if total > LIMITS["sections.html_total"]:
            raise r.fail(
                f"{path}.html",
                f"all sections together exceed {LIMITS['sections.html_total']} characters",
            )
        after = r.text(obj, "after", path, 128).strip() or None
        if after is not None and not SECTION_ID.match(after):
            raise r.fail(f"{path}.after", f"must be a section id, found {_short(after)}")
        out.append(ProposedSection(sid, title, html, after))
    return tuple(out)


def _sources(r: _Reader, top: dict[str, Any]) -> tuple[ProposedSource, ...]:
    out: list[ProposedSource] = []
    seen: set[str] = set()
    for i, item in enumerate(r.items(top, "sources", LIMITS["sources"])):
        path = f"sources[{i}]"
        obj = r.obj(item, path, ("id", "url", "title", "tier", "accessed"))
        sid = r.source_id(obj.get("id"), f"{path}.id")
        if sid in seen:
            raise r.fail(f"{path}.id", f"source {sid!r} appears twice")
        seen.add(sid)
        url = r.text(obj, "url", path, LIMITS["url"], required=True).strip()
        title = r.text(obj, "title", path, LIMITS["source.title"], required=True)
        tier = r.text(obj, "tier", path, LIMITS["source.tier"])
        accessed = parse_date(r.text(obj, "accessed", path, 40))
        out.append(
            ProposedSource(sid, url, title, tier, accessed.isoformat() if accessed else None)
        )
    return tuple(out)


def _quote(obj: dict[str, Any], path: str, problems: list[str]) -> str:
    """The fact's quote, or "" with a problem noted: a bad quote costs the fact its quote,
    never the proposal its facts."""
    value = obj.get("quote")
    if value is None or value == "":
        return ""
    where = f"{path}.quote"
    if not isinstance(value, str):
        problems.append(f"{where} is {_kind(value)}, not text: dropped, the fact is unquoted")
        return ""
    if len(value) > LIMITS["fact.quote"]:
        problems.append(
            f"{where} is {len(value):,} characters (at most {LIMITS['fact.quote']:,}): "
            "dropped, the fact is unquoted"
        )
        return ""
    value = value.replace("\x00", "")
    if len(" ".join(value.split())) < QUOTE_MIN:
        problems.append(
            f"{where} is too short to show anything ({_short(value)}): dropped, the fact is unquoted"
        )
        return ""
    return value


def _facts(r: _Reader, top: dict[str, Any], problems: list[str]) -> tuple[ProposedFact, ...]:
    out: list[ProposedFact] = []
    for i, item in enumerate(r.items(top, "facts", LIMITS["facts"])):
        path = f"facts[{i}]"
        obj = r.obj(item, path, ("text", "source_ids", "quote"))
        text = r.text(obj, "text", path, LIMITS["fact.text"], required=True)
        ids_raw = obj.get("source_ids") or []
        if not isinstance(ids_raw, list):
            raise r.fail(f"{path}.source_ids", f"must be an array, found {_kind(ids_raw)}")
        if len(ids_raw) > LIMITS["fact.source_ids"]:
            raise r.fail(
                f"{path}.source_ids",
                f"has {len(ids_raw)} items, at most {LIMITS['fact.source_ids']}",
            )
        ids = tuple(
            dict.fromkeys(r.source_id(v, f"{path}.source_ids[{j}]") for j, v in enumerate(ids_raw))
        )
        out.append(ProposedFact(text, ids, _quote(obj, path, problems)))
    return tuple(out)


def _images(r: _Reader, top: dict[str, Any]) -> tuple[ProposedImage, ...]:
    out: list[ProposedImage] = []
    for i, item in enumerate(r.items(top, "images", LIMITS["images"])):
        path = f"images[{i}]"
        obj = r.obj(item, path, ("url", "page_url", "caption", "alt", "layout", "section"))
        url = r.text(obj, "url", path, LIMITS["url"], required=True).strip()
        caption = r.text(obj, "caption", path, LIMITS["image.caption"], required=True)
        page_url = r.text(obj, "page_url", path, LIMITS["url"]).strip()
        alt = r.text(obj, "alt", path, LIMITS["image.alt"])
        layout = r.text(obj, "layout", path, 20).strip() or "fig-right"
        if layout not in LAYOUTS:
            raise r.fail(
                f"{path}.layout", f"must be one of {', '.join(LAYOUTS)}, found {_short(layout)}"
            )
        section = r.text(obj, "section", path, 128).strip() or None
        if section is not None and not SECTION_ID.match(section):
            raise r.fail(f"{path}.section", f"must be a section id, found {_short(section)}")
        out.append(ProposedImage(url, caption, page_url, alt, layout, section))
    return tuple(out)


def _sentinel(r: _Reader, top: dict[str, Any]) -> ProposedSentinel | None:
    if top.get("sentinel") is None:
        return None
    obj = r.obj(top["sentinel"], "sentinel", ("status", "evidence"))
    status = r.text(obj, "status", "sentinel", 20, required=True).strip()
    if status not in SENTINEL_STATUSES:
        raise r.fail(
            "sentinel.status",
            f"must be one of {', '.join(SENTINEL_STATUSES)}, found {_short(status)}",
        )
    return ProposedSentinel(
        status, r.text(obj, "evidence", "sentinel", LIMITS["sentinel.evidence"])
    )
