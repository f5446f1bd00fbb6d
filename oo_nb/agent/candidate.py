"""Proposal -> candidate document: the article and the four JSON blocks, nothing else.

``build_candidate`` never writes a file. It returns a new ``Document`` (only the article span and
the four blocks differ from ``doc``; every other byte is the same), the warnings a reviewer must
see and the ids of new sources whose URL did not appear in this run's search or fetch results.
The rules for ids, duplicates, References and facts are in ``sources.py``; section splicing and
paragraph ids in ``sections.py``; images in ``images.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from .. import clock
from ..article import CITATION, Article
from ..document import Document
from ..errors import AgentError
from ..sanitize import safe_http_url, sanitize_html, sanitize_text
from .blocks import BlockUpdate, update_blocks
from .images import add_images
from .proposal import Proposal
from .sections import (
    Chunk,
    PidKeeper,
    assemble,
    heading,
    pids_in,
    remove_stub_notices,
    split_article,
)
from .sources import (
    fact_ids,
    id_number,
    is_denied,
    references_html,
    remap_citations,
    remap_fact,
    url_key,
)
from .types import RunInfo

__all__ = ["Candidate", "build_candidate"]

FetchImage = Callable[[str], bytes]


@dataclass
class Candidate:
    document: Document
    warnings: list[str]
    unverified: list[str]  # ids of new sources not seen in this run's search/fetch results
    notes: list[str] = field(default_factory=list)  # informational (renumbered ids, kept pids...)
    version: int = 0
    sections_replaced: list[str] = field(default_factory=list)
    sections_added: list[str] = field(default_factory=list)
    sources_added: list[str] = field(default_factory=list)
    sources_dropped: list[str] = field(default_factory=list)
    images_added: int = 0


def build_candidate(
    doc: Document,
    proposal: Proposal,
    run: RunInfo,
    *,
    today: date,
    fetch_image: FetchImage | None = None,
    now: datetime | None = None,
) -> Candidate:
    """Apply a validated proposal to ``doc`` (see the module notes). Raises ``AgentError`` when
    nothing usable remains (e.g. every section was empty after sanitising)."""
    if doc.kind != "document":
        raise AgentError("the index page has no article to update", file=doc.file)
    return _Builder(doc, proposal, run, today, now or clock.now()).build(fetch_image)


class _Builder:
    def __init__(self, doc: Document, proposal: Proposal, run: RunInfo, today: date, now: datetime) -> None:
        self.doc, self.proposal, self.run, self.today, self.now = doc, proposal, run, today, now
        self.contract = doc.contract
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.unverified: list[str] = []
        self.cache_raw: dict[str, Any] = doc.block_json("oo-source-cache")
        self.entries: dict[str, Any] = {}  # id -> raw source item (object or string), in order
        self.keys: dict[str, str] = {}  # url_key -> id
        self.article_map: dict[str, str] = {}  # duplicate id -> kept id (whole article, facts)
        self.id_map: dict[str, str | None] = {}  # proposal id -> final id, None = rejected
        self.seen = {url_key(u) for u in run.seen_urls}
        self.added: list[str] = []
        self.twins: list[Any] = []  # second cache items with an id already taken
        self.positional = False
        self.result = Candidate(doc, self.warnings, self.unverified, self.notes)

    # ------------------------------------------------------------------ orchestration
    def build(self, fetch_image: FetchImage | None) -> Candidate:
        old = self.doc.article
        chunks = split_article(self.doc.article_html)
        if self.proposal.ignored:
            self.notes.append("ignored unknown proposal fields: " + ", ".join(self.proposal.ignored[:20]))
        self._load_sources(old)
        self._merge_sources(old)
        self._splice_sections(chunks, old)
        self.result.images_added = add_images(
            chunks, self.proposal.images, self.contract, fetch_image, self.warnings
        )
        facts = self._facts()
        cited = self._cited(chunks)
        self._drop_sources(cited, facts)
        self._references(chunks, cited)
        try:
            candidate = self.doc.with_article(assemble(chunks))
        except AgentError:
            raise
        except Exception as exc:  # the spliced article broke the page: report, write nothing
            raise AgentError(f"the proposal cannot be applied: {exc}", file=self.doc.file) from None
        r = self.result
        r.version = self.doc.manifest.version + 1
        r.sources_added = list(self.added)
        sentinel = self.proposal.sentinel
        changes: dict[str, Any] = {
            "sections": [*r.sections_replaced, *r.sections_added],
            "sources_added": r.sources_added,
            "sources_dropped": r.sources_dropped,
            "unverified_sources": list(self.unverified),
            "images_added": r.images_added,
            "sentinel": (
                {"status": sentinel.status, "evidence": sanitize_text(sentinel.evidence, max_len=2000)}
                if sentinel is not None and self.contract.sentinel is not None
                else None
            ),
        }
        update = BlockUpdate(
            self.today, self.now, r.version, self.proposal.summary, self.run,
            list(self.entries.values()), facts, sentinel, changes,
        )  # fmt: skip
        r.document = update_blocks(candidate, update, self.warnings, self.notes)
        return r

    # ------------------------------------------------------------------ sources
    def _load_sources(self, old: Article) -> None:
        cache = self.doc.source_cache
        raw_items = self.cache_raw.get("sources") or []
        # String sources are numbered by their position: removing any item would renumber them.
        self.positional = any(isinstance(x, str) for x in raw_items)
        for source, raw in zip(cache.sources, raw_items, strict=False):
            if source.id in self.entries:
                self.twins.append(raw)  # renumbered once the next free id is known
                continue
            self.entries[source.id] = raw
        # A populated article can come with an empty (or partial) cache: recover cited sources
        # from the References list so citations and References stay consistent.
        recovered = []
        by_label = {r.source_id: r for r in old.references if r.source_id}
        by_position = {f"s{r.position}": r for r in old.references if not r.source_id}
        for sid in dict.fromkeys(old.cited_ids):
            if sid in self.entries:
                continue
            ref = by_label.get(sid) or by_position.get(sid)
            url = safe_http_url(ref.url) if ref else None
            if ref is None or url is None:
                continue
            self.entries[sid] = {
                "id": sid,
                "url": url,
                "title": sanitize_text(ref.title, max_len=500),
                "verified": url_key(url) in self.seen,
            }
            recovered.append(sid)
        if recovered:
            self.notes.append(f"{len(recovered)} cited source(s) recovered from the References list into the cache")
        self._collapse_cached_duplicates()

    def _collapse_cached_duplicates(self) -> None:
        if self.positional:
            return
        ordered = sorted(self.entries, key=lambda s: (id_number(s) is None, id_number(s) or 0))
        for sid in ordered:
            raw = self.entries[sid]
            if not isinstance(raw, dict) or not safe_http_url(str(raw.get("url") or "")):
                continue
            key = url_key(str(raw["url"]))
            if key in self.keys:
                kept = self.keys[key]
                self.article_map[sid] = kept
                del self.entries[sid]
                self.notes.append(f"{sid} had the same URL as {kept}: merged into {kept}")
            else:
                self.keys[key] = sid

    def _next_number(self, old: Article) -> int:
        used = [id_number(s) for s in [*self.entries, *old.cited_ids, *self.article_map]]
        used += [r.position for r in old.references]
        used += [id_number(s) for s in self.proposal.drop_sources]
        return max((n for n in used if n is not None), default=0) + 1

    def _merge_sources(self, old: Article) -> None:
        policy = self.contract
        number = self._next_number(old)
        for raw in self.twins:
            sid = f"s{number}"
            number += 1
            old_id = raw.get("id") if isinstance(raw, dict) else None
            if isinstance(raw, dict):
                raw["id"] = sid
            self.entries[sid] = raw
            self.warnings.append(f"the source cache held {old_id} twice: the second one is now {sid}")
        for ps in self.proposal.sources:
            url = safe_http_url(ps.url)
            reason = None
            if url is None:
                reason = "its URL is not an absolute http(s) URL"
            elif policy.require_https and not url.lower().startswith("https:"):
                reason = "the contract requires https"
            elif (denied := is_denied(url, policy.deny_domains)) is not None:
                reason = f"{denied} is on the contract's deny list"
            if url is None or reason is not None:
                self.id_map[ps.id] = None
                self.warnings.append(f"source {ps.id} rejected ({reason}): {ps.url[:120]}")
                continue
            key = url_key(url)
            verified = key in self.seen
            if key in self.keys:
                target = self.keys[key]
                self.id_map[ps.id] = target
                if ps.id != target:
                    self.notes.append(f"source {ps.id} has the same URL as {target}: citations use {target}")
                raw = self.entries.get(target)
                if isinstance(raw, dict) and target not in self.added:
                    raw["verified"] = verified or raw.get("verified") is True
                    if ps.accessed:
                        raw["accessed"] = ps.accessed
                continue
            sid = f"s{number}"
            number += 1
            if ps.id != sid:
                clash = " (already used by another source)" if ps.id in self.entries else ""
                self.notes.append(f"new source {ps.id}{clash} numbered {sid}; the proposal's citations follow")
            entry: dict[str, Any] = {
                "id": sid,
                "url": url,
                "title": sanitize_text(ps.title, max_len=500) or key,
            }
            tier = sanitize_text(ps.tier, max_len=60)
            if tier:
                entry["tier"] = tier
            entry["accessed"] = ps.accessed or self.today.isoformat()
            entry["verified"] = verified
            self.entries[sid] = entry
            self.keys[key] = sid
            self.id_map[ps.id] = sid
            self.added.append(sid)
            if not verified:
                self.unverified.append(sid)
                self.warnings.append(
                    f"source {sid} is UNVERIFIED: its URL did not appear in this run's search or fetch results: {url}"
                )

    def _proposal_mapping(self, text: str) -> dict[str, str | None]:
        mapping: dict[str, str | None] = {}
        for sid in set(CITATION.findall(text)):
            if sid in self.id_map:
                mapping[sid] = self.id_map[sid]
            elif sid in self.article_map:
                mapping[sid] = self.article_map[sid]
            elif sid not in self.entries:
                mapping[sid] = None
        return mapping

    # ------------------------------------------------------------------ sections
    def _splice_sections(self, chunks: list[Chunk], old: Article) -> None:
        wanted = [s for s in self.proposal.sections if s.id != "references"]
        if len(wanted) < len(self.proposal.sections):
            self.warnings.append("the proposal rewrote 'references': ignored, References is rebuilt from the cache")
        existing = {c.id: c for c in chunks if c.id is not None}
        replacing = {s.id for s in wanted if s.id in existing}
        kept_text = "".join(c.text for c in chunks if c.id not in replacing)
        keeper = PidKeeper(((p.pid, p.tag, p.text) for p in old.paragraphs), pids_in(kept_text))
        all_ids = {c.id for c in chunks if c.id} | {s.id for s in wanted} | set(_ids_in(kept_text))
        heading_pids = any(c.has_heading_pid for c in chunks)
        written = 0
        for index, section in enumerate(wanted):
            html, removed = remap_citations(section.html, self._proposal_mapping(section.html))
            if removed:
                self.warnings.append(
                    f"sections[{index}] ({section.id}) cited unknown or rejected source(s) "
                    f"{', '.join(sorted(set(removed)))}: citation removed"
                )
            if section.id in existing and existing[section.id].nested:
                self.warnings.append(
                    f"sections[{index}] ({section.id}): that section's heading sits inside a container "
                    "element, so it cannot be replaced safely: not applied"
                )
                continue
            clean = sanitize_html(html, reserved_ids=all_ids)
            if not _has_text(clean):
                self.warnings.append(f"sections[{index}] ({section.id}) has no content after sanitising: not applied")
                continue
            body = keeper.apply(section.id, clean, all_ids)
            title = sanitize_text(section.title, max_len=200) or section.id
            if section.id in existing:
                chunk = existing[section.id]
                lead = _heading_pid(chunk.head)
                chunk.head = heading(section.id, title, lead)
                chunk.body = "\n" + body.strip() + "\n\n"
                chunk.changed = True
                self.result.sections_replaced.append(section.id)
            else:
                lead = keeper.choose(section.id, "", None) if heading_pids else None
                new = Chunk(section.id, heading(section.id, title, lead), "\n" + body.strip() + "\n\n", True)
                at = next((i for i, c in enumerate(chunks) if c.id == "references"), len(chunks))
                if at == len(chunks) and chunks and not chunks[-1].text.endswith("\n"):
                    chunks[-1].body += "\n\n"
                chunks.insert(at, new)
                existing[section.id] = new
                self.result.sections_added.append(section.id)
            written += 1
        if wanted and written == 0:
            raise AgentError("the proposal has no usable section: every one was empty after sanitising")
        self.notes.append(f"paragraph ids: {keeper.kept} kept, {keeper.generated} new")
        for chunk in chunks:
            if chunk.changed or chunk.id == "references":
                continue
            if self.article_map:
                chunk.body, _ = remap_citations(chunk.body, dict(self.article_map))
            if written:
                chunk.head, chunk.body = chunk.head, remove_stub_notices(chunk.body)

    # ------------------------------------------------------------------ facts, drops, references
    def _facts(self) -> list[Any]:
        existing = [remap_fact(f, self.article_map) for f in (self.cache_raw.get("facts") or [])]
        strings = bool(existing) and all(isinstance(f, str) for f in existing)
        known = {_fact_norm(f) for f in existing if isinstance(f, str)} | {
            _fact_norm(str(f.get("text") or "")) for f in existing if isinstance(f, dict)
        }
        for i, fact in enumerate(self.proposal.facts):
            text = sanitize_text(fact.text, max_len=1000)
            if not text or _fact_norm(text) in known:
                continue
            ids: list[str] = []
            for sid in fact.source_ids:
                target = self.id_map.get(sid, self.article_map.get(sid, sid if sid in self.entries else None))
                if target is None:
                    self.warnings.append(f"facts[{i}] names unknown or rejected source {sid}: link removed")
                elif target not in ids:
                    ids.append(target)
            known.add(_fact_norm(text))
            if strings:
                existing.append(" ".join([text, *(f"[{s}]" for s in ids)]))
            else:
                existing.append({"text": text, "source_ids": ids})
        return existing

    def _cited(self, chunks: list[Chunk]) -> set[str]:
        return {
            sid for c in chunks if c.id != "references" for sid in CITATION.findall(_no_comments(c.text))
        }

    def _drop_sources(self, cited: set[str], facts: list[Any]) -> None:
        in_facts = {sid for f in facts for sid in fact_ids(f)}
        for sid in self.proposal.drop_sources:
            target = self.article_map.get(sid, sid)
            if target not in self.entries:
                self.notes.append(f"drop_sources names {sid}, which is not in the cache")
            elif self.positional:
                self.warnings.append(
                    f"{target} not dropped: this cache numbers its (string) sources by position, "
                    "so removing one would change the others' ids"
                )
            elif target in cited or target in in_facts:
                where = "the article" if target in cited else "a fact"
                self.warnings.append(f"{target} not dropped: {where} still cites it")
            else:
                del self.entries[target]
                self.result.sources_dropped.append(target)

    def _references(self, chunks: list[Chunk], cited: set[str]) -> None:
        ol, missing = references_html(self.entries, cited)
        if missing:
            self.warnings.append("cited without a source in the cache: " + ", ".join(missing))
        refs = next((c for c in chunks if c.id == "references"), None)
        if refs is not None and refs.nested:
            self.warnings.append("References sits inside a container element: not rebuilt")
            return
        if refs is None:
            if not ol:
                return
            if chunks and not chunks[-1].text.endswith("\n"):
                chunks[-1].body += "\n\n"
            chunks.append(Chunk("references", heading("references", "References"), ""))
            refs = chunks[-1]
        trail = refs.body[len(refs.body.rstrip()) :] or "\n\n"
        refs.body = ("\n" + ol if ol else "") + trail
        refs.changed = True


def _heading_pid(head: str) -> str | None:
    m = re.match(r"\s*<!--\s*(pid:[^\s:]+:\S+?)\s*-->", head)
    return m.group(1) if m else None


def _has_text(fragment: str) -> bool:
    return bool(re.sub(r"<[^>]*>|\s+", "", fragment)) or "<img" in fragment


def _ids_in(text: str) -> list[str]:
    return re.findall(r"""\bid\s*=\s*["']?([A-Za-z][A-Za-z0-9_-]*)""", text)


def _no_comments(text: str) -> str:
    return re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)


def _fact_norm(text: str) -> str:
    return re.sub(r"\s+", " ", CITATION.sub("", text)).strip().lower()
