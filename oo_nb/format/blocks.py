"""Typed, normalised, read-only views of the four JSON blocks, reading every variant that real
o-o files hold (FORMAT.md §2). Writing never goes through these views: it changes the raw JSON
(``Document.with_block``/``edit_block``, e.g. in ``contract_edit.py``), so a block keeps its own
shape and every key we do not know."""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass, field
from datetime import date
from itertools import repeat
from typing import Any, Literal, TypeVar

from oo_nb.errors import ValidationError
from oo_nb.format.names import CHANGELOG_BLOCK, CONTRACT_BLOCK, MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.format.vocab import domain_of, trailing_citations

__all__ = [
    "FRESHNESS_DAYS",
    "REVIEW_MODES",
    "Changelog",
    "ChangelogEntry",
    "Contract",
    "Fact",
    "ImagePolicy",
    "Manifest",
    "Sentinel",
    "Source",
    "SourceCache",
    "domain_of",
    "fact_source_ids",
    "parse_date",
]

FRESHNESS_DAYS = {"daily": 1, "weekly": 7, "monthly": 30}
DEFAULT_CADENCE_DAYS = 7
MAX_CADENCE_DAYS = 36_500
MAX_WHOLE = 2**53 - 1  # the largest whole number JavaScript holds exactly
DEFAULT_BUDGET_USD = 0.50
REVIEW_MODES = ("always", "auto")  # oo-contract.review
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


# Dates already read, by their text: a library's sources were accessed on a few hundred days,
# and a dict look-up is a fifth of reading one again (bounded: hostile text cannot fill it).
_DAYS: dict[str, date] = {}
_DAYS_KEPT = 4096


def parse_date(value: Any) -> date | None:
    """``YYYY-MM-DD`` or an ISO datetime starting with it; anything else is None."""
    if type(value) is str:
        day = _DAYS.get(value)
        if day is not None:
            return day
        if value[4:5] == "-" == value[7:8]:
            # The common well-formed date, a third of the regex's cost. With "-" at 4 and 7 the
            # C fromisoformat takes only ten ASCII digits and dashes, which the regex reads
            # alike; anything it refuses (an odd or impossible date) takes the long way below.
            # (A try, not contextlib.suppress: that builds an object per call, half its cost.)
            try:
                day = date.fromisoformat(value[:10])
            except ValueError:
                return _parse_date(value)
            if len(_DAYS) < _DAYS_KEPT:
                _DAYS[value] = day
            return day
    return _parse_date(value)


def _parse_date(value: Any) -> date | None:
    """parse_date the long way (the reference its fast path is tested against)."""
    if not isinstance(value, str):
        return None
    m = _DATE.match(value.strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


_View = TypeVar("_View")


def _frozen(cls: type[_View], values: dict[str, Any]) -> _View:
    """What ``cls(**values)`` gives for a frozen dataclass and ``values`` naming every field in
    order, without its ``object.__setattr__`` per field: a third of the cost, which a scan pays
    for every cached source and fact. No view here has a ``__post_init__``."""
    view = cls.__new__(cls)
    object.__setattr__(view, "__dict__", values)
    return view


class _Fields:
    """Typed access to one JSON object, raising errors that name the block and key."""

    def __init__(self, raw: Any, block: str, file: str | None, prefix: str = "") -> None:
        if not isinstance(raw, dict):
            raise ValidationError(
                f"must be a JSON object, found {type(raw).__name__}",
                file=file,
                block=block,
                key=prefix.rstrip(".") or None,
            )
        self.raw: dict[str, Any] = raw
        self.block, self.file, self.prefix = block, file, prefix

    def _err(self, key: str, msg: str) -> ValidationError:
        return ValidationError(msg, file=self.file, block=self.block, key=self.prefix + key)

    def sub(self, key: str) -> _Fields:
        value = self.raw.get(key)
        return _Fields(
            {} if value is None else value, self.block, self.file, f"{self.prefix}{key}."
        )

    def text(self, key: str, default: str = "") -> str:
        value = self.raw.get(key, default)
        if type(value) is str:  # the common case first
            return value
        if value is None:
            return default
        if not isinstance(value, str):
            raise self._err(key, f"must be a string, found {type(value).__name__}")
        return value

    def whole(self, key: str, default: int | None = None) -> int | None:
        value = self.raw.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise self._err(key, f"must be a whole number, found {value!r}")
        if abs(value) > MAX_WHOLE:  # the page's script reads it as a JavaScript number
            raise self._err(key, f"must be a whole number of at most {MAX_WHOLE:,}, found {value}")
        return value

    def number(self, key: str, default: float) -> float:
        value = self.raw.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if isinstance(value, str):
                with contextlib.suppress(ValueError):
                    value = float(value.strip().lstrip("$"))
            if not isinstance(value, float):
                raise self._err(key, f"must be a number, found {value!r}")
        # "inf", 1e400 or 10**400 as a budget would mean no budget at all.
        number = float(value) if isinstance(value, float) or abs(value) < 2**1000 else math.inf
        if not math.isfinite(number):
            raise self._err(key, f"must be a finite number, found {value!r}")
        return number

    def flag(self, key: str, default: bool | None = None) -> bool | None:
        value = self.raw.get(key, default)
        if value is None or isinstance(value, bool):
            return value
        raise self._err(key, f"must be true or false, found {value!r}")

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.raw.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(map(isinstance, value, repeat(str))):
            raise self._err(key, "must be a list of strings")
        return tuple(value)


# --------------------------------------------------------------------------- manifest
@dataclass(frozen=True)
class Manifest:
    title: str
    version: int
    as_of: date | None
    cadence_days: int
    cadence_field: Literal["update_every_days", "freshness", "default"]
    changelog_notes: tuple[str, ...]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, raw: Any, *, file: str | None = None) -> Manifest:
        f = _Fields(raw, MANIFEST_BLOCK, file)
        as_of_text = f.text("as_of")
        as_of = parse_date(as_of_text)
        if as_of_text and as_of is None:
            raise f._err("as_of", f"must be a date YYYY-MM-DD or empty, found {as_of_text!r}")
        if "update_every_days" in f.raw:
            # 0 or null never silently means "weekly": the document says something we cannot use
            value = f.whole("update_every_days")
            if value is None:
                raise f._err(
                    "update_every_days", "must be a whole number of days (at least 1), found null"
                )
            if value < 1:
                raise f._err("update_every_days", f"must be at least 1 day, found {value}")
            if value > MAX_CADENCE_DAYS:  # a due date past year 9999 breaks every date sum
                raise f._err(
                    "update_every_days",
                    f"must be at most {MAX_CADENCE_DAYS} days (100 years), found {value}",
                )
            days = value
            cadence_field: Literal["update_every_days", "freshness", "default"] = (
                "update_every_days"
            )
        elif "freshness" in f.raw:
            days = FRESHNESS_DAYS.get(f.text("freshness").strip().lower(), DEFAULT_CADENCE_DAYS)
            cadence_field = "freshness"
        else:
            days, cadence_field = DEFAULT_CADENCE_DAYS, "default"
        if as_of is not None and as_of.toordinal() + days > date.max.toordinal():
            # the due date must be a date: every staleness sum adds the cadence to as_of
            raise f._err(
                "as_of", f"{as_of.isoformat()} plus {days} days is past the last date (9999-12-31)"
            )
        notes = []
        changelog = f.raw.get("changelog")
        for item in changelog if isinstance(changelog, list) else []:
            if isinstance(item, str):
                notes.append(item)
            elif isinstance(item, dict):
                notes.append(str(item.get("summary", "")))
        return _frozen(
            cls,
            {
                "title": f.text("title"),
                "version": f.whole("version", 0) or 0,
                "as_of": as_of,
                "cadence_days": days,
                "cadence_field": cadence_field,
                "changelog_notes": tuple(notes),
                "raw": f.raw,
            },
        )


# --------------------------------------------------------------------------- contract
@dataclass(frozen=True)
class ImagePolicy:
    allow: bool = True
    max_per_article: int = 8
    max_file_kb: int = 150
    resize_max_px: int = 800
    preserve_format: bool = True
    caption_required: bool = True
    source_attribution_required: bool = True
    layout_guidance: str = ""
    prefer_sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sentinel:
    event: str
    criteria: tuple[str, ...]
    status: str  # not_occurred | occurred | unknown
    last_checked: date | None
    evidence: str
    structured: bool  # False for originals marked only by instructions.sentinel


@dataclass(frozen=True)
class Contract:
    subject: str
    scope: str
    audience: str
    tone: str
    intents: tuple[str, ...]
    required_sections: tuple[str, ...]
    prefer_domains: tuple[str, ...]
    deny_domains: tuple[str, ...]
    require_https: bool
    max_cost_usd: float
    model: str | None
    images: ImagePolicy
    instructions_form: Literal["procedure", "flags", "none"]
    sentinel: Sentinel | None
    raw: dict[str, Any] = field(repr=False)
    # oo_nb's addition: "always" (every proposal waits for review) or "auto" (a clean one is
    # written: `--auto` is the document's default)
    review: str = "always"

    @classmethod
    def from_json(cls, raw: Any, *, file: str | None = None) -> Contract:
        f = _Fields(raw, CONTRACT_BLOCK, file)
        ident, research, instr = f.sub("identity"), f.sub("research"), f.sub("instructions")
        policy = research.sub("source_policy")
        img = f.sub("images")
        budget = f.sub("budget").number("max_cost_usd", DEFAULT_BUDGET_USD)
        if budget < 0:
            raise f._err("budget.max_cost_usd", "must not be negative")
        review = f.text("review", "always")
        if review not in REVIEW_MODES:
            raise f._err("review", f'must be "always" or "auto", found {review!r}')
        form: Literal["procedure", "flags", "none"] = (
            "procedure" if "procedure" in instr.raw else "flags" if instr.raw else "none"
        )
        return _frozen(
            cls,
            {
                "subject": ident.text("subject"),
                "scope": ident.text("scope"),
                "audience": ident.text("audience"),
                "tone": ident.text("tone"),
                "intents": research.texts("intents"),
                "required_sections": research.texts("required_sections"),
                "prefer_domains": policy.texts("prefer_domains"),
                "deny_domains": policy.texts("deny_domains"),
                "require_https": bool(policy.flag("require_https", False)),
                "max_cost_usd": budget,
                "model": f.text("model") or None,
                "images": _frozen(
                    ImagePolicy,
                    {
                        "allow": bool(img.flag("allow", True)),
                        "max_per_article": img.whole("max_per_article", 8) or 0,
                        "max_file_kb": img.whole("max_file_kb", 150) or 150,
                        "resize_max_px": img.whole("resize_max_px", 800) or 800,
                        "preserve_format": bool(img.flag("preserve_format", True)),
                        "caption_required": bool(img.flag("caption_required", True)),
                        "source_attribution_required": bool(
                            img.flag("source_attribution_required", True)
                        ),
                        "layout_guidance": img.text("layout_guidance"),
                        "prefer_sources": img.texts("prefer_sources"),
                    },
                ),
                "instructions_form": form,
                "sentinel": _sentinel(f, instr),
                "raw": f.raw,
                "review": review,
            },
        )

    @property
    def is_sentinel(self) -> bool:
        return self.sentinel is not None


def _sentinel(f: _Fields, instr: _Fields) -> Sentinel | None:
    if isinstance(f.raw.get("sentinel"), dict):
        s = f.sub("sentinel")
        return Sentinel(
            event=s.text("event"),
            criteria=s.texts("criteria"),
            status=s.text("status", "unknown") or "unknown",
            last_checked=parse_date(s.text("last_checked")),
            evidence=s.text("evidence"),
            structured=True,
        )
    text = instr.raw.get("sentinel")
    if not isinstance(text, str) and not _has_sentinel_check(instr.raw.get("procedure")):
        return None
    description = text if isinstance(text, str) else ""
    lowered = description.lower()
    status = "not_occurred" if "not yet occurred" in lowered or "has not" in lowered else "unknown"
    return Sentinel(
        event=description,
        criteria=(),
        status=status,
        last_checked=None,
        evidence="",
        structured=False,
    )


def _has_sentinel_check(steps: Any) -> bool:
    """Whether a string step of the procedure says SENTINEL CHECK. The steps joined by a
    newline (which the phrase has not) are searched at once when all are strings."""
    if not isinstance(steps, list):
        return False
    try:
        joined = "\n".join(steps)
    except TypeError:
        joined = "\n".join(s for s in steps if isinstance(s, str))
    return "SENTINEL CHECK" in joined


# --------------------------------------------------------------------------- source cache
@dataclass(frozen=True)
class Source:
    id: str
    url: str
    title: str
    tier: str
    accessed: date | None
    domain: str
    description: str
    verified: bool | None
    form: Literal["object", "string"]


@dataclass(frozen=True)
class Fact:
    id: str
    text: str
    key: str | None
    value: str | None
    source_ids: tuple[str, ...]
    form: Literal["string", "object"]
    # oo_nb's quote check (FORMAT.md §8): the quote given, and whether the run found it
    quote: str | None = None
    quote_found: bool | None = None


_STRING_SOURCE = re.compile(r"^\s*(?P<head>\S+)\s*(?:[-–—:|]\s*(?P<rest>.*))?$")


def _source_from_string(text: str, index: int) -> Source:
    m = _STRING_SOURCE.match(text)
    head = m.group("head") if m else text
    rest = (m.group("rest") or "") if m else ""
    looks_like_domain = "." in head and " " not in head
    url = head if head.startswith(("http://", "https://")) else ""
    return _frozen(
        Source,
        {
            "id": f"s{index + 1}",
            "url": url,
            "title": rest or text,
            "tier": "",
            "accessed": None,
            "domain": domain_of(head) if looks_like_domain else "",
            "description": rest if looks_like_domain else text,
            "verified": None,
            "form": "string",
        },
    )


@dataclass(frozen=True)
class SourceCache:
    last_updated: date | None
    sources: tuple[Source, ...]
    facts: tuple[Fact, ...]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, raw: Any, *, file: str | None = None) -> SourceCache:
        f = _Fields(raw, SOURCE_CACHE_BLOCK, file)
        sources = [_source(item, i, f) for i, item in enumerate(_list(f, "sources"))]
        facts = [_fact(item, i, f) for i, item in enumerate(_list(f, "facts"))]
        return cls(parse_date(f.raw.get("last_updated")), tuple(sources), tuple(facts), f.raw)

    def by_id(self) -> dict[str, Source]:
        return {s.id: s for s in self.sources}


# What a library digest keeps of a source cache: per source (id, url, domain, title,
# description, tier, accessed, verified, form), per fact (id, text, key, value, source_ids,
# form), per fact with a quote (id, quote, quote_found).
SourceRow = tuple[str, str, str, str, str, str, date | None, bool | None, str]
FactRow = tuple[str, str, str | None, str | None, tuple[str, ...], str]
QuoteRow = tuple[str, str, bool | None]


def cache_rows(
    raw: Any, *, file: str | None = None
) -> tuple[list[SourceRow], list[FactRow], list[QuoteRow]]:
    """The values of ``SourceCache.from_json(raw)``'s sources and facts as those rows, and the
    same errors, without building a view per item (a scan reads every document's cache): the
    common items (a source object with text fields, a string or object fact) are read here,
    any other through the views."""
    f = _Fields(raw, SOURCE_CACHE_BLOCK, file)
    sources: list[SourceRow] = []
    add_source = sources.append
    for i, item in enumerate(_list(f, "sources")):
        row = _source_row(item, i)
        if row is not None:
            add_source(row)
            continue
        s = _source_checked(item, i, f)
        add_source(
            (s.id, s.url, s.domain, s.title, s.description, s.tier, s.accessed, s.verified, s.form)
        )
    facts: list[FactRow] = []
    quotes: list[QuoteRow] = []
    add_fact = facts.append
    for i, item in enumerate(_list(f, "facts")):
        kind = type(item)
        if kind is str:
            add_fact((f"f{i + 1}", item, None, None, fact_source_ids(item), "string"))
            continue
        if kind is dict:
            get = item.get
            text = get("text", "")
            if type(text) is str:
                key_, value = get("key"), get("value")
                if not text:
                    text = f"{key_}: {value}" if key_ is not None else str(value or "")
                fid = str(get("id") or f"f{i + 1}")
                add_fact(
                    (
                        fid,
                        text,
                        str(key_) if key_ is not None else None,
                        str(value) if value is not None else None,
                        fact_source_ids(item),
                        "object",
                    )
                )
                quote = get("quote")
                if isinstance(quote, str):
                    found = get("quote_found")
                    quotes.append((fid, quote, found if type(found) is bool else None))
                continue
        fact = _fact_checked(item, i, f)
        add_fact((fact.id, fact.text, fact.key, fact.value, fact.source_ids, fact.form))
        if fact.quote is not None:
            quotes.append((fact.id, fact.quote, fact.quote_found))
    return sources, facts, quotes


def _list(f: _Fields, key: str) -> list[Any]:
    value = f.raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise f._err(key, "must be a list")
    return value


def _source_row(item: Any, index: int) -> SourceRow | None:
    """The row of the source ``item`` names when it is an object whose text fields are all
    strings or missing (the common case); None for anything else (``_source_checked`` reads it,
    or raises the errors)."""
    if type(item) is not dict:
        return None
    get = item.get
    url, sid, title = get("url", ""), get("id", ""), get("title", "")
    description = get("description", "")
    if not (
        type(url) is str and type(sid) is str and type(title) is str and type(description) is str
    ):
        return None
    verified = get("verified")
    return (
        sid or f"s{index + 1}",
        url,
        domain_of(url),
        title,
        description,
        str(get("tier") or ""),
        parse_date(get("accessed")),
        verified if type(verified) is bool else None,
        "object",
    )


def _source(item: Any, index: int, f: _Fields) -> Source:
    """The source ``item`` names: the common object from its row, anything else the long way."""
    row = _source_row(item, index)
    if row is None:
        return _source_checked(item, index, f)
    sid, url, domain, title, description, tier, accessed, verified, form = row
    return _frozen(
        Source,
        {
            "id": sid,
            "url": url,
            "title": title,
            "tier": tier,
            "accessed": accessed,
            "domain": domain,
            "description": description,
            "verified": verified,
            "form": form,
        },
    )


def _source_checked(item: Any, index: int, f: _Fields) -> Source:
    """``_source`` the long way, every field checked (the reference its fast path is tested
    against)."""
    if isinstance(item, str):
        return _source_from_string(item, index)
    s = _Fields(item, f.block, f.file, f"sources[{index}].")
    url = s.text("url")
    verified = s.raw.get("verified")
    return Source(
        id=s.text("id") or f"s{index + 1}",
        url=url,
        title=s.text("title"),
        tier=str(s.raw.get("tier") or ""),
        accessed=parse_date(s.raw.get("accessed")),
        domain=domain_of(url),
        description=s.text("description"),
        verified=verified if isinstance(verified, bool) else None,
        form="object",
    )


def fact_source_ids(fact: Any) -> tuple[str, ...]:
    """The source ids a raw fact names: trailing ``[sN]`` markers of a string fact (how oo_nb
    writes them: "text [s17] [s18]") or the ``source``/``source_id``/``source_ids``/``sources``
    keys of an object fact. Unique, in order."""
    ids: list[str] = []
    if isinstance(fact, str):
        ids = trailing_citations(fact)[1]
    elif isinstance(fact, dict):
        get = fact.get
        for key in ("source", "source_id"):
            value = get(key)
            if isinstance(value, str) and value:
                ids.append(value)
        for key in ("source_ids", "sources"):
            value = get(key)
            if isinstance(value, list):
                ids += map(str, value)
    return tuple(dict.fromkeys(ids)) if len(ids) > 1 else tuple(ids)


def _fact(item: Any, index: int, f: _Fields) -> Fact:
    """The fact ``item`` states; a string, or an object whose text is a string or missing (the
    common cases), is read here, anything else the long way (``_fact_checked``)."""
    kind = type(item)
    if kind is str:
        return _frozen(
            Fact,
            {
                "id": f"f{index + 1}",
                "text": item,
                "key": None,
                "value": None,
                "source_ids": fact_source_ids(item),
                "form": "string",
                "quote": None,
                "quote_found": None,
            },
        )
    if kind is dict:
        get = item.get
        text = get("text", "")
        if type(text) is str:
            key_, value = get("key"), get("value")
            quote, found = get("quote"), get("quote_found")
            if not text:
                text = f"{key_}: {value}" if key_ is not None else str(value or "")
            return _frozen(
                Fact,
                {
                    "id": str(get("id") or f"f{index + 1}"),
                    "text": text,
                    "key": str(key_) if key_ is not None else None,
                    "value": str(value) if value is not None else None,
                    "source_ids": fact_source_ids(item),
                    "form": "object",
                    "quote": quote if isinstance(quote, str) else None,
                    "quote_found": found if type(found) is bool else None,
                },
            )
    return _fact_checked(item, index, f)


def _fact_checked(item: Any, index: int, f: _Fields) -> Fact:
    """``_fact`` the long way (the reference its fast path is tested against)."""
    fid = f"f{index + 1}"
    if isinstance(item, str):
        return Fact(fid, item, None, None, fact_source_ids(item), "string")
    o = _Fields(item, f.block, f.file, f"facts[{index}].")
    key_, value = o.raw.get("key"), o.raw.get("value")
    text = o.text("text") or (f"{key_}: {value}" if key_ is not None else str(value or ""))
    return Fact(
        id=str(o.raw.get("id") or fid),
        text=text,
        key=str(key_) if key_ is not None else None,
        value=str(value) if value is not None else None,
        source_ids=fact_source_ids(o.raw),
        form="object",
        quote=o.raw["quote"] if isinstance(o.raw.get("quote"), str) else None,
        quote_found=o.raw["quote_found"] if isinstance(o.raw.get("quote_found"), bool) else None,
    )


# --------------------------------------------------------------------------- changelog
@dataclass(frozen=True)
class ChangelogEntry:
    version: int | None
    timestamp: str
    date: date | None
    summary: str
    extra: dict[str, Any]


@dataclass(frozen=True)
class Changelog:
    entries: tuple[ChangelogEntry, ...]
    form: Literal["entries", "array"]
    raw: Any = field(repr=False)

    @classmethod
    def from_json(cls, raw: Any, *, file: str | None = None) -> Changelog:
        if isinstance(raw, list):
            items, form = raw, "array"
        else:
            f = _Fields(raw, CHANGELOG_BLOCK, file)
            items, form = _list(f, "entries"), "entries"
        entries = [_entry(item, i, file) for i, item in enumerate(items)]
        return _frozen(cls, {"entries": tuple(entries), "form": form, "raw": raw})

    @property
    def latest(self) -> ChangelogEntry | None:
        return self.entries[-1] if self.entries else None


def _entry(item: Any, index: int, file: str | None) -> ChangelogEntry:
    """The changelog entry ``item`` records; an object with a whole version (or none) and a
    string summary (or none), the common case, is read here, anything else the long way."""
    if type(item) is dict:
        get = item.get
        version, summary = get("version"), get("summary", "")
        if (
            version is None or (type(version) is int and -MAX_WHOLE <= version <= MAX_WHOLE)
        ) and type(summary) is str:
            ts = str(get("timestamp") or get("date") or "")
            extra = item.copy()  # every key but these three, in order
            extra.pop("version", None)
            extra.pop("timestamp", None)
            extra.pop("summary", None)
            return _frozen(
                ChangelogEntry,
                {
                    "version": version,
                    "timestamp": ts,
                    "date": parse_date(ts),
                    "summary": summary,
                    "extra": extra,
                },
            )
    return _entry_checked(item, index, file)


def _entry_checked(item: Any, index: int, file: str | None) -> ChangelogEntry:
    """``_entry`` the long way, every field checked (the reference its fast path is tested
    against)."""
    if isinstance(item, str):
        return ChangelogEntry(None, "", None, item, {})
    e = _Fields(item, CHANGELOG_BLOCK, file, f"entries[{index}].")
    ts = str(e.raw.get("timestamp") or e.raw.get("date") or "")
    extra = {k: v for k, v in e.raw.items() if k not in ("version", "timestamp", "summary")}
    return ChangelogEntry(e.whole("version"), ts, parse_date(ts), e.text("summary"), extra)
