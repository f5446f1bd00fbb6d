"""New documents: the four blocks of a fresh document (the original's shapes, plus structured
sentinel fields), its page, and a file name that never overwrites anything."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError, ValidationError
from oo_nb.format.budget_rule import parse_budget
from oo_nb.format.document import Document
from oo_nb.format.names import (
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    DOC_SUFFIX,
    MANIFEST_BLOCK,
    SOURCE_CACHE_BLOCK,
)
from oo_nb.format.slug import candidate_paths, slugify
from oo_nb.format.surrogates import encodable, escaped
from oo_nb.format.template.render import render_document
from oo_nb.skin import new_advice
from oo_nb.store import clock, store

__all__ = [
    "DEFAULT_AUDIENCE",
    "DEFAULT_BUDGET_USD",
    "DEFAULT_EVERY_DAYS",
    "DEFAULT_TONE",
    "NewSpec",
    "build_blocks",
    "clean_criteria",
    "create_document",
    "parse_budget",
    "parse_days",
    "render_new",
    "split_title",
]

DEFAULT_AUDIENCE = "General readers"
DEFAULT_TONE = "Informative, well-researched, accessible"
DEFAULT_BUDGET_USD = 0.50
DEFAULT_EVERY_DAYS = 7
DEFAULT_SECTIONS = ("Overview", "Key Details", "Recent Developments", "References")
SENTINEL_SECTIONS = ("Status", "Latest Signals", "What Would Count", "References")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class NewSpec:
    title: str
    scope: str = ""
    audience: str = DEFAULT_AUDIENCE
    tone: str = DEFAULT_TONE
    budget_usd: float = DEFAULT_BUDGET_USD
    every_days: int = DEFAULT_EVERY_DAYS
    sentinel: str | None = None  # the event a sentinel document watches for
    criteria: tuple[str, ...] = ()  # what would count as the event happening (sentinels only)

    @classmethod
    def from_text(cls, text: str, **options: Any) -> NewSpec:
        """``"Title / scope"``: everything after the first `` / `` is the scope."""
        title, scope = split_title(text)
        return cls(title=title, scope=scope, **options)


def split_title(text: str) -> tuple[str, str]:
    title, sep, scope = text.partition(" / ")
    title = _SPACES.sub(" ", title).strip()
    if not title:
        raise ValidationError(
            "a title is needed, e.g. " + new_advice("Solar storms / what to expect this year"),
            key="title",
        )
    return title, scope.strip() if sep else ""


def parse_days(value: str | int) -> int:
    text = str(value).strip()
    if not text.isdigit() or int(text) < 1:
        raise ValidationError(
            f"must be a whole number of days, at least 1; got {value!r}", key="update_every_days"
        )
    return int(text)


def _require_text(spec: NewSpec) -> None:
    """Every text of the spec must be writable as UTF-8. Bytes that were not UTF-8 on the command
    line (a terminal in another encoding, a pasted binary) reach us as lone surrogates: refused
    with the argument named and its bad bytes shown, rather than guessed at, because the title
    becomes the file name, the subject the agent researches and text every reader shows."""
    fields = {
        "title": spec.title,
        "scope": spec.scope,
        "audience": spec.audience,
        "tone": spec.tone,
        "sentinel": spec.sentinel or "",
        **{f"criteria[{i}]": str(c) for i, c in enumerate(spec.criteria)},
    }
    for key, value in fields.items():
        if not encodable(value):
            raise ValidationError(
                f'"{escaped(value)}" is not valid UTF-8 text (bytes in another encoding?): '
                "type it again in UTF-8",
                key=key,
            )


def _clean(spec: NewSpec) -> NewSpec:
    _require_text(spec)
    title = _SPACES.sub(" ", spec.title).strip()
    if not title:
        raise ValidationError("a title is needed", key="title")
    event = _SPACES.sub(" ", spec.sentinel).strip() if spec.sentinel is not None else None
    if spec.sentinel is not None and not event:
        raise ValidationError("a sentinel document needs the event it watches for", key="sentinel")
    criteria = clean_criteria(spec.criteria)
    if criteria and event is None:
        raise ValidationError(
            "criteria are for sentinel documents: give the event too (--sentinel EVENT)",
            key="criteria",
        )
    return NewSpec(
        title=title,
        scope=spec.scope.strip() or title,
        audience=spec.audience.strip() or DEFAULT_AUDIENCE,
        tone=spec.tone.strip() or DEFAULT_TONE,
        budget_usd=parse_budget(spec.budget_usd),
        every_days=parse_days(spec.every_days),
        sentinel=event,
        criteria=criteria,
    )


def clean_criteria(items: Any) -> tuple[str, ...]:
    """Criteria as given (one string or several), spaces tidied, empty ones left out, each once."""
    if isinstance(items, str):
        items = [items]
    cleaned = (_SPACES.sub(" ", str(item)).strip() for item in items or ())
    return tuple(dict.fromkeys(item for item in cleaned if item))


# --------------------------------------------------------------------------- the blocks
_ROLE = (
    "You are the research agent of an o-o living document. You keep it accurate and current: "
    "research what changed, then rewrite the article and its data blocks."
)
_SENTINEL_STEP = (
    "SENTINEL CHECK: decide whether the watched event (sentinel.event) has happened, judged by "
    "sentinel.criteria. If it has not, keep the article short: say so first, then where things "
    "stand and what is still missing. If it has, give full coverage: what happened, who says so, "
    "the evidence and the reactions. Record the status, the date checked and the evidence in "
    "the sentinel fields."
)


def _procedure(sentinel: bool) -> list[str]:
    steps = [
        "Read the manifest: as_of is the date of the last update (empty: this is the first run).",
        "Read the source cache and build on it: keep the sources that are still valid, add new ones, do not start over.",
        "Research with the identity and research fields of this contract. After the first run, look for what changed since as_of.",
        *([_SENTINEL_STEP] if sentinel else []),
        "Write the article as HTML: one <h2 id='section-id'> per required section, in order, <h3> for subsections, "
        "and a <!-- pid:section-id:8hex --> comment before each paragraph. Keep the pid of every paragraph you keep.",
        "Link the first mention of organisations, products and people to their official pages.",
        "Cite sources inline as [s1], [s2]... with the ids of the source cache, and end with "
        "<h2 id='references'>References</h2> and an <ol> that links every cited source.",
        "Images: when allowed and useful, add figures under the images rules of this contract "
        "(embedded as data: URIs, each with a caption and its source).",
        "Update the manifest: version plus one, as_of today (YYYY-MM-DD).",
        "Update the source cache: every source used, with id, url, title, tier and accessed date.",
        "Append a changelog entry: version, timestamp and a summary of what changed.",
        "Change only the article and the four data blocks; never the page's style, script or shell code.",
    ]
    return [f"{n}. {step}" for n, step in enumerate(steps, 1)]


def build_blocks(spec: NewSpec, today: date | None = None) -> dict[str, Any]:
    """The four blocks of a new document, keyed by block id."""
    s = _clean(spec)
    year = (today or clock.today()).year
    sentinel = s.sentinel is not None
    scope = s.scope
    instructions: dict[str, Any] = {"role": _ROLE}
    if s.sentinel is not None:
        scope = (
            f"{scope.rstrip('.')}. This is a sentinel document watching for one event: {s.sentinel}. "
            "Until it happens, keep to a short status of how close it is; when it happens, give full coverage."
        )
        instructions["sentinel"] = (
            f"This is a SENTINEL document. The event it watches for ({s.sentinel}) had not happened when "
            "the document was created. Track the developments toward it without padding: while it has not "
            "happened, say so plainly and keep the article concise. When it happens, give comprehensive coverage."
        )
    instructions["procedure"] = _procedure(sentinel)
    contract: dict[str, Any] = {
        "version": "2.0",
        "instructions": instructions,
        "identity": {"subject": s.title, "scope": scope, "audience": s.audience, "tone": s.tone},
        "research": {
            "intents": (
                [f"{s.sentinel} {year}", f"{s.title} latest news", f"{s.title} announcement"]
                if s.sentinel is not None
                else [
                    f"{s.title} {year}",
                    f"{s.title} recent developments",
                    f"{s.title} key facts and figures",
                ]
            ),
            "required_sections": list(SENTINEL_SECTIONS if sentinel else DEFAULT_SECTIONS),
            "source_policy": {"prefer_domains": [], "deny_domains": ["reddit.com", "quora.com"]},
        },
        "budget": {"max_cost_usd": s.budget_usd},
        "images": {
            "allow": True,
            "max_per_article": 8,  # as o-o
            "max_file_kb": 150,
            "resize_max_px": 800,
            "preserve_format": True,
            "prefer_sources": ["official sites", "Wikimedia Commons", "press kits"],
            "layout_guidance": "fig-right for portraits, fig-left for logos, fig-full for charts and diagrams, fig-center for other photos",
            "caption_required": True,
            "source_attribution_required": True,
        },
        "output": {"format": "html", "citation_style": "inline_numbered", "preserve_pids": True},
    }
    if s.sentinel is not None:
        contract["sentinel"] = {
            "event": s.sentinel,
            "criteria": list(s.criteria),
            "status": "not_occurred",
            "last_checked": None,
            "evidence": "",
        }
    return {
        MANIFEST_BLOCK: {
            "title": s.title,
            "update_every_days": s.every_days,
            "version": 0,
            "as_of": "",
            "changelog": [],
        },
        CONTRACT_BLOCK: contract,
        SOURCE_CACHE_BLOCK: {"last_updated": None, "sources": [], "facts": []},
        CHANGELOG_BLOCK: {"entries": []},
    }


def render_new(spec: NewSpec, file_name: str, today: date | None = None) -> str:
    blocks = build_blocks(spec, today)
    return render_document(
        file_name=file_name,
        manifest=blocks[MANIFEST_BLOCK],
        contract=blocks[CONTRACT_BLOCK],
        source_cache=blocks[SOURCE_CACHE_BLOCK],
        changelog=blocks[CHANGELOG_BLOCK],
    )


# --------------------------------------------------------------------------- writing
def create_document(
    spec: NewSpec,
    folder: str | Path = ".",
    today: date | None = None,
    *,
    suffix: bool = False,
    adjust: Callable[[Document], Document] | None = None,
) -> Document:
    """Write a new document into ``folder`` and return it. The name is the title's slug; an
    existing file is never overwritten: when that name is taken it is an error naming the file
    (as in o-o), unless ``suffix`` asks for the first free ``-2``, ``-3``… ``adjust`` edits
    the new document before it is written (the library's defaults)."""
    target_dir = Path(folder)
    if target_dir.exists() and not target_dir.is_dir():
        raise OOError("is not a folder", file=str(target_dir))
    target_dir.mkdir(parents=True, exist_ok=True)
    slug = slugify(_clean(spec).title)
    for path in candidate_paths(target_dir, slug):
        if path.exists() or path.is_symlink():
            if not suffix:
                raise _taken(path, slug)
            continue
        text = render_new(spec, path.name, today)
        if adjust is not None:
            text = adjust(Document(text)).text
        data = text.encode("utf-8")
        doc = Document.parse(data, path=path)
        _ = doc.manifest, doc.contract, doc.source_cache, doc.changelog  # must read back valid
        try:
            # through the store, as every write: its history keeps the state written (and a
            # deleted document's last one, when the name was its: a former document's states)
            store.write_document(doc, expected=None, action="new", path=path, new_document=True)
        except OOError:
            if path.exists():
                if not suffix:
                    raise _taken(path, slug) from None
                continue  # taken between the check and the write: try the next name
            raise
        return doc
    raise OOError(
        f"no free file name for {slug!r} (tried {slug}-2 … {slug}-1000)", file=str(target_dir)
    )


def _taken(path: Path, slug: str) -> OOError:
    return OOError(
        f"file already exists: nothing created (another title, or --suffix for {slug}-2{DOC_SUFFIX})",
        file=str(path),
    )
