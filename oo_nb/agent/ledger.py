"""The source cache during one update: what is cached, what the proposal adds, how ids map.

The rules (ids, duplicates, verification, drops, fact shapes) are described in ``sources.py``.
The ledger collects warnings (shown to the reviewer) and notes (informational) in the lists it
is given.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from oo_nb.agent.proposal import ProposedFact, ProposedSection, ProposedSource
from oo_nb.agent.quote_rule import too_generic
from oo_nb.agent.quotes import normalise
from oo_nb.agent.sources import fact_ids, id_number
from oo_nb.format.article import Article
from oo_nb.format.article_model import read_model
from oo_nb.format.blocks import Contract, SourceCache
from oo_nb.format.sanitize import safe_http_url, sanitize_text
from oo_nb.format.vocab import CITATION, citation_ids, listed_domain, url_key

__all__ = ["SourceLedger"]


class SourceLedger:
    def __init__(
        self,
        cache_raw: dict[str, Any],
        contract: Contract,
        seen_urls: set[str],
        today_iso: str,
        warnings: list[str],
        notes: list[str],
        file: str | None = None,
        quote_hits: dict[str, list[str]] | None = None,
    ) -> None:
        self.cache_raw, self.contract, self.file = cache_raw, contract, file
        self.today_iso = today_iso
        self.warnings, self.notes = warnings, notes
        self.seen = {url_key(u) for u in seen_urls}
        self.quote_hits = quote_hits or {}
        self.unsupported: list[str] = []  # texts of new facts whose quote was not found
        self.entries: dict[str, Any] = {}  # id -> raw source item (object or string), in order
        self.keys: dict[str, str] = {}  # url_key -> id
        self.id_map: dict[str, str | None] = {}  # proposal id -> final id, None = rejected
        self.added: list[str] = []
        self.unverified: list[str] = []
        self.twins: list[tuple[str, Any]] = []  # (id, raw item): second items with a taken id
        # a proposed section's html -> where its citations of a taken id stay with the cached
        # source (offsets of their "["): text the proposal kept (``_kept_citations``)
        self.kept_at: dict[str, set[int]] = {}
        # string sources: ids are positions, nothing may be removed (set by load() before any use)
        self.positional = False  # pragma: no mutate

    def _accessed(self, claimed: str | None) -> str:
        """The model's access date, but never missing or after today (ISO dates compare as text)."""
        return claimed if claimed and claimed <= self.today_iso else self.today_iso

    @property
    def sources(self) -> list[Any]:
        return list(self.entries.values())

    def target(self, sid: str) -> str | None:
        """Where a proposal's citation of ``sid`` points now (None: unknown or rejected)."""
        if sid in self.id_map:
            return self.id_map[sid]
        return sid if sid in self.entries else None

    def load(self, old: Article) -> None:
        cache = SourceCache.from_json(self.cache_raw, file=self.file)
        raw_items = self.cache_raw.get("sources") or []
        # String sources are numbered by their position: removing any item would renumber them.
        self.positional = any(isinstance(x, str) for x in raw_items)
        for source, raw in zip(cache.sources, raw_items, strict=False):
            if source.id in self.entries:
                self.twins.append((source.id, raw))  # renumbered once the next id is known
                continue
            self.entries[source.id] = raw
        # A populated article can come with an empty (or partial) cache: recover cited sources
        # from the References list so citations and References stay consistent.
        recovered = []
        for sid in dict.fromkeys(old.cited_ids):
            if sid in self.entries:
                continue
            ref = old.reference_for(sid)  # the entry the page links [sid] to
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
            self.notes.append(
                f"{len(recovered)} cited source(s) recovered from the References list into the cache"
            )
        self._key_cached_urls()

    def _key_cached_urls(self) -> None:
        """A proposed source with a cached URL becomes the lowest cached id with it. Cached ids
        sharing one URL stay as they are: an update never merges them (issue 26), since that
        rewrites paragraphs it did not touch; merging is a reviewed edit of its own."""
        ordered = sorted(self.entries, key=lambda s: (id_number(s) is None, id_number(s) or 0))
        for sid in ordered:
            raw = self.entries[sid]
            if isinstance(raw, dict) and safe_http_url(str(raw.get("url") or "")):
                self.keys.setdefault(url_key(str(raw["url"])), sid)

    def _next_number(self, old: Article, drops: Sequence[str]) -> int:
        used = [id_number(s) for s in [*self.entries, *old.cited_ids]]
        used += [r.position for r in old.references]
        used += [id_number(s) for s in drops]
        return max((n for n in used if n is not None), default=0) + 1

    def merge(
        self,
        old: Article,
        sources: Sequence[ProposedSource],
        drops: Sequence[str],
        sections: Sequence[ProposedSection] = (),
    ) -> None:
        policy = self.contract
        number = self._next_number(old, drops)
        for old_id, raw in self.twins:
            sid = f"s{number}"
            number += 1
            if isinstance(raw, dict):
                raw["id"] = sid
            self.entries[sid] = raw
            self.warnings.append(
                f"the source cache held {old_id} twice: the second one is now {sid}"
            )
        for ps in sources:
            url = safe_http_url(ps.url)
            reason = None
            if url is None:
                reason = "its URL is not an absolute http(s) URL"
            elif policy.require_https and not url.lower().startswith("https:"):
                reason = "the contract requires https"
            elif (denied := listed_domain(url, policy.deny_domains)) is not None:
                reason = f"{denied} is on the contract's deny list"
            if url is None or reason is not None:
                self.id_map[ps.id] = None
                self.warnings.append(
                    f"source {ps.id} rejected ({reason}): {sanitize_text(ps.url, max_len=120)}"
                )
                continue
            key = url_key(url)
            verified = key in self.seen
            if key in self.keys:
                target = self.keys[key]
                self.id_map[ps.id] = target
                if ps.id != target:
                    self.notes.append(
                        f"source {ps.id} has the same URL as {target}: citations use {target}"
                    )
                raw = self.entries.get(target)
                if isinstance(raw, dict) and target not in self.added:
                    raw["verified"] = verified or raw.get("verified") is True
                    if ps.accessed:
                        raw["accessed"] = self._accessed(ps.accessed)
                continue
            if ps.id in self.entries:
                kept = self._kept_citations(ps.id, url, old, sections)
                if kept is None:
                    continue
                for html, offsets in kept.items():
                    self.kept_at.setdefault(html, set()).update(offsets)
            sid = f"s{number}"
            number += 1
            if ps.id != sid:
                clash = " (already used by another source)" if ps.id in self.entries else ""
                self.notes.append(
                    f"new source {ps.id}{clash} numbered {sid}; the proposal's citations follow"
                )
            entry: dict[str, Any] = {
                "id": sid,
                "url": url,
                "title": sanitize_text(ps.title, max_len=500) or key,
            }
            tier = sanitize_text(ps.tier, max_len=60)
            if tier:
                entry["tier"] = tier
            entry["accessed"] = self._accessed(ps.accessed)
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

    def _kept_citations(
        self, sid: str, url: str, old: Article, sections: Sequence[ProposedSection]
    ) -> dict[str, set[int]] | None:
        """A new source declared as ``sid``, an id a cached source with another URL holds: where
        (by section html, the offsets of their ``[``) the proposal's ``[sid]`` stay with the
        cached source; None, with a warning, when that cannot be told: the new source is refused.

        A paragraph the proposal kept (its old pid, or its old text) that cited ``sid`` before,
        no less often than now, kept those citations: re-pointing them would credit an old claim
        to the new source. A citation in any other text is new and cites the new source. A kept
        paragraph citing ``sid`` MORE often than before holds both, and which is which is unknown.
        """
        before = Counter(c.pid for c in old.citations if c.source_id == sid and c.pid is not None)
        old_pids = {p.pid for p in old.paragraphs if p.pid}
        by_text = {_norm_text(p.text): p.pid for p in old.paragraphs if p.pid}
        kept: dict[str, set[int]] = {}
        for index, section in enumerate(sections):
            model = read_model(section.html)
            cites = [c for c in model.citations if c.source_id == sid]
            for block in model.blocks if cites else ():
                inside = [c.start for c in cites if block.start <= c.start < block.end]
                pid = (
                    block.pid if block.pid in old_pids else by_text.get(_norm_text(block.node.text))
                )
                cited_before = before[pid] if pid else 0
                if not inside or not cited_before:
                    continue  # new text: its [sid] cite the new source
                if len(inside) > cited_before:
                    self.warnings.append(
                        f"new source {sid} rejected ({sanitize_text(url, max_len=120)}): {sid} is "
                        f"already {self.url_of(sid) or 'a cached source'}, and sections[{index}] "
                        f"({section.id}) cites [{sid}] {len(inside)} time(s) in a paragraph that "
                        f"cited it {cited_before} time(s): which citation means the new source "
                        f"cannot be told, so every [{sid}] keeps meaning the cached {sid}"
                    )
                    return None
                kept.setdefault(section.html, set()).update(inside)
        return kept

    def mapping_for(self, text: str) -> dict[str, str | None]:
        mapping: dict[str, str | None] = {}
        for sid in set(citation_ids(text)):
            if sid in self.id_map:
                mapping[sid] = self.id_map[sid]
            elif sid not in self.entries:
                mapping[sid] = None
        return mapping

    def facts(self, proposed: Sequence[ProposedFact]) -> list[Any]:
        existing = list(self.cache_raw.get("facts") or [])
        strings = bool(existing) and all(isinstance(f, str) for f in existing)
        known = {_fact_norm(f) for f in existing if isinstance(f, str)} | {
            _fact_norm(str(f.get("text") or "")) for f in existing if isinstance(f, dict)
        }
        for i, fact in enumerate(proposed):
            text = sanitize_text(fact.text, max_len=1000)
            if not text or _fact_norm(text) in known:
                continue
            ids: list[str] = []
            for sid in fact.source_ids:
                target = self.target(sid)
                if target is None:
                    self.warnings.append(
                        f"facts[{i}] names unknown or rejected source {sid}: link removed"
                    )
                elif target not in ids:
                    ids.append(target)
            known.add(_fact_norm(text))
            if fact.quote:  # an object even in a string cache: a string cannot hold the verdict
                existing.append(self._quoted(i, text, ids, fact.quote))
            elif strings:
                existing.append(" ".join([text, *(f"[{s}]" for s in ids)]))
            else:
                existing.append({"text": text, "source_ids": ids})
        return existing

    def _quoted(self, i: int, text: str, ids: list[str], quote: str) -> dict[str, Any]:
        """The fact with its quote and the verdict: found in the text this run read from one of
        the fact's own sources (by ``url_key``), or not."""
        hits = self.quote_hits.get(normalise(quote), [])
        own = {url_key(u): u for u in (self.url_of(s) for s in ids) if u}
        in_own = next((own[k] for k in hits if k in own), None)
        generic = too_generic(quote, text)  # on every page, so it proves nothing
        found = None if generic else in_own
        entry: dict[str, Any] = {
            "text": text,
            "source_ids": ids,
            "quote": sanitize_text(quote, max_len=1000),
            "quote_found": found is not None,
        }
        if found is not None:
            entry["quote_url"] = found
            return entry
        self.unsupported.append(text)
        shown = sanitize_text(quote, max_len=120)
        if generic and in_own is not None:  # where it was found, say why that proves nothing
            why = f"too generic to support the fact: {generic}"
        elif not ids:
            why = "it cites no source to check it against"
        elif hits:
            why = f"it appears only in a page the fact does not cite ({hits[0]})"
        else:
            why = f"not in the text this run read from {', '.join(ids)}"
        self.warnings.append(f'unsupported fact: facts[{i}] quote "{shown}" not found: {why}')
        return entry

    def url_of(self, sid: str) -> str:
        raw = self.entries.get(sid)
        if isinstance(raw, dict):
            return str(raw.get("url") or "")
        if isinstance(raw, str) and raw.strip().startswith(("http://", "https://")):
            return raw.split()[0]
        return ""

    def drop(self, drops: Sequence[str], cited: set[str], facts: list[Any]) -> list[str]:
        in_facts = {sid for f in facts for sid in fact_ids(f)}
        dropped: list[str] = []
        for sid in drops:
            if sid not in self.entries:
                self.notes.append(f"drop_sources names {sid}, which is not in the cache")
            elif self.positional:
                self.warnings.append(
                    f"{sid} not dropped: this cache numbers its (string) sources by position, "
                    "so removing one would change the others' ids"
                )
            elif sid in cited or sid in in_facts:
                where = "the article" if sid in cited else "a fact"
                self.warnings.append(f"{sid} not dropped: {where} still cites it")
            else:
                del self.entries[sid]
                dropped.append(sid)
        return dropped


def _fact_norm(text: str) -> str:
    return _norm_text(text).lower()


def _norm_text(text: str) -> str:
    """Text for "the same?": citations and spacing do not count."""
    return re.sub(r"\s+", " ", CITATION.sub("", text)).strip()
