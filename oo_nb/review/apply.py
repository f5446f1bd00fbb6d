"""Build the final document from a diff and the decisions on its hunks, keeping it
consistent: citations resolve (a source that kept text cites or a kept fact names stays), a new
source no kept text or fact cites is not kept, the References list matches the sources, the
version and dates move only if something was accepted, and the changelog cites no source the
review dropped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from oo_nb.errors import ValidationError
from oo_nb.format.article_model import read_model
from oo_nb.format.blocks import fact_source_ids
from oo_nb.format.document import Document
from oo_nb.format.names import CHANGELOG_BLOCK, CONTRACT_BLOCK, MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.format.vocab import CITATION_WITH_SPACE, cited_id, is_source_id, truncate
from oo_nb.review.blocks import MISSING, changelog_entries, get_path, source_ids
from oo_nb.review.diff import DocumentDiff
from oo_nb.review.hunks import Choice, Hunk
from oo_nb.review.refs import Side, merge_refs, parse_refs
from oo_nb.review.sections import tie_sections
from oo_nb.review.units import Unit

__all__ = ["ApplyResult", "build_final", "cited_ids"]


@dataclass(frozen=True)
class ApplyResult:
    document: Document
    accepted: int
    rejected: int  # pending ones count as rejected: nothing unreviewed is written
    edited: int
    notes: tuple[str, ...] = field(default=())
    # sources whose own change was decided one way but which are kept because kept text or a
    # kept fact cites them: a conflict between decisions, to be asked about before writing
    kept_cited: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return self.accepted + self.edited > 0


def cited_ids(html: str) -> set[str]:
    """The ids ``html`` cites in its text, as the article model reads it (not in a comment or
    an attribute, not in the References list)."""
    return {c.source_id for c in read_model(html).citations}


def build_final(diff: DocumentDiff, choices: Mapping[str, Choice]) -> ApplyResult:
    """The decisions as they take effect (a new or removed section is one piece, see
    ``sections.py``; its notes say what changed) give the final document."""
    effective, tied = tie_sections(diff, choices)
    # tie_sections gives every decidable hunk a choice: the default is never used
    decided = [effective.get(h.id, Choice()) for h in diff.decidable]  # pragma: no mutate
    accepted = sum(c.decision == "accept" for c in decided)
    edited = sum(c.decision == "edit" for c in decided)
    rejected = len(decided) - accepted - edited
    if accepted + edited == 0:
        return ApplyResult(
            diff.original, 0, rejected, 0, (*tied, "nothing accepted: the document stays as it was")
        )
    if accepted == len(decided):
        return ApplyResult(diff.candidate, accepted, 0, 0, tuple(tied))
    return _Merge(diff, effective, tied).run(accepted, rejected, edited)


class _Merge:
    def __init__(self, diff: DocumentDiff, choices: Mapping[str, Choice], notes: list[str]) -> None:
        self.diff = diff
        self.choices = choices
        self.notes: list[str] = list(notes)
        self.kept_cited: list[str] = []
        self.cache_b = _block(diff.original, SOURCE_CACHE_BLOCK)
        self.cache_a = _block(diff.candidate, SOURCE_CACHE_BLOCK)

    def choice(self, hunk_id: str) -> Choice:
        # called for decidable hunks only, and tie_sections gave each a choice
        return self.choices.get(hunk_id, Choice())  # pragma: no mutate

    def run(self, accepted: int, rejected: int, edited: int) -> ApplyResult:
        parts, refs_at = self.article_parts()
        plan = self.diff.article
        body = "".join(parts)  # pragma: no mutate (only scanned for [sN]: no separator makes one)
        final_cited = cited_ids(body)
        cand_cited = cited_ids("".join(u.body for u in plan.after if not u.is_references))
        sides = self.source_sides(final_cited, cand_cited)
        if refs_at is not None:
            parts[refs_at] = self.references(sides)
        article = "".join(parts) + plan.after_tail
        cache = self.source_cache(sides)
        manifest = self.manifest_changelog(
            self.fields(MANIFEST_BLOCK, "manifest"), sides, _review_note(accepted, rejected, edited)
        )
        contract = self.evidence(self.fields(CONTRACT_BLOCK, "contract"), sides)
        log = self.changelog(sides, accepted, rejected, edited)
        doc = self.diff.candidate
        if article != doc.article_html:
            doc = doc.with_article(article)
        for name, value in (
            (SOURCE_CACHE_BLOCK, cache),
            (MANIFEST_BLOCK, manifest),
            (CONTRACT_BLOCK, contract),
            (CHANGELOG_BLOCK, log),
        ):
            if doc.has_block(name) and _canon(value) != _canon(doc.block_json(name)):
                doc = doc.with_block(name, value)
        self.check_citations(doc, final_cited)
        return ApplyResult(
            doc, accepted, rejected, edited, tuple(self.notes), tuple(self.kept_cited)
        )

    # ------------------------------------------------------------------- article
    def article_parts(self) -> tuple[list[str], int | None]:
        plan = self.diff.article
        parts: list[str] = []
        refs_at = None
        placed: set[str] = set()  # whole-section hunks whose edited text is already in
        # the plan holds one hunk id per slot, so strict or not is the same
        for slot, hid in zip(plan.slots, plan.hunk_ids, strict=True):  # pragma: no mutate
            b = plan.before[slot.before] if slot.before is not None else None
            a = plan.after[slot.after] if slot.after is not None else None
            if hid is None:
                parts.append(b.raw if b is not None else "")
                continue
            hunk = self.diff.hunk(hid)
            if hunk.derived:
                refs_at = len(parts)
                parts.append("")  # pragma: no mutate (a placeholder: the References list goes here)
                continue
            choice = self.choice(hid)
            if hunk.whole_section and choice.decision == "edit":
                # a removed section edited by hand: the edit stands once, in the heading's place
                parts.append("" if hid in placed else _unit_text(hunk, choice, b, a))
                placed.add(hid)
                continue
            parts.append(_unit_text(hunk, choice, b, a))
        return parts, refs_at

    def references(self, sides: dict[str, Side]) -> str:
        plan = self.diff.article
        before = next(u for u in plan.before if u.is_references)
        after = next(u for u in plan.after if u.is_references)
        refs_b = parse_refs(before.body, _urls(self.cache_b))
        refs_a = parse_refs(after.body, _urls(self.cache_a))
        items = merge_refs(refs_b, refs_a, lambda sid: sides.get(sid, "after"))
        if items == list(refs_b.items):
            return before.raw
        if items == list(refs_a.items):
            return after.raw
        return after.lead + refs_a.opening + "".join(raw for _, raw in items) + refs_a.closing

    # ------------------------------------------------------------------- sources
    def source_sides(self, final_cited: set[str], cand_cited: set[str]) -> dict[str, Side]:
        plan = self.diff.article
        cache_b, cache_a = set(source_ids(self.cache_b)), set(source_ids(self.cache_a))
        refs_b = next(
            (parse_refs(u.body, _urls(self.cache_b)) for u in plan.before if u.is_references), None
        )
        refs_a = next(
            (parse_refs(u.body, _urls(self.cache_a)) for u in plan.after if u.is_references), None
        )
        # A source in either cache is present where its cache has it; an id known only from a
        # References list (documents with an empty cache) is present where a list has it.
        only_refs_b = set(refs_b.ids if refs_b else ()) - cache_b - cache_a
        only_refs_a = set(refs_a.ids if refs_a else ()) - cache_b - cache_a
        ids_b, ids_a = cache_b | only_refs_b, cache_a | only_refs_a
        # A kept fact cites its sources as kept text does, so a new source only a fact names is
        # no orphan (an explicitly rejected source still takes its new facts with it), and a
        # source a kept old fact names stays, as one kept text cites does.
        kept_facts = self.fact_choices()
        fact_cited = _named(fact for fact, _ in kept_facts)
        old_fact_cited = _named(fact for fact, new in kept_facts if not new)
        sides: dict[str, Side] = {}
        for sid in sorted(ids_b | ids_a, key=_id_order):
            hunk_id = f"src:{sid}"
            has_hunk = any(h.id == hunk_id for h in self.diff.hunks)
            side: Side = (
                "after" if not has_hunk or self.choice(hunk_id).takes_candidate else "before"
            )
            present = sid in (ids_a if side == "after" else ids_b)
            if (
                present
                and sid not in ids_b
                and sid in cand_cited
                and sid not in final_cited | fact_cited
            ):
                self.notes.append(f"new source {sid} not kept: no kept text or fact cites it")
                present = False
            elif not present and (sid in final_cited or sid in old_fact_cited):
                other: Side = "before" if side == "after" else "after"
                if sid in (ids_a if other == "after" else ids_b):
                    side, present = other, True
                    why = "kept text cites it" if sid in final_cited else "a kept fact names it"
                    self.notes.append(f"source {sid} kept ({other} the update): {why}")
                    if has_hunk and self.choice(hunk_id).decision != "pending":
                        self.kept_cited.append(sid)
            sides[sid] = side if present else None
        return sides

    def source_cache(self, sides: dict[str, Side]) -> Any:
        if not isinstance(self.cache_b, dict):
            return self.cache_b
        cache = json.loads(json.dumps(self.cache_b))
        items_b = list(
            zip(source_ids(self.cache_b), self.cache_b.get("sources") or [], strict=False)
        )
        items_a = list(
            zip(source_ids(self.cache_a), (self.cache_a or {}).get("sources") or [], strict=False)
        )
        after_map = dict(reversed(items_a))
        before_ids = {sid for sid, _ in items_b}
        out: list[Any] = []
        for sid, item in items_b:
            side = sides.get(sid, "before")
            if side == "before":
                out.append(item)
            elif side == "after" and sid in after_map:
                out.append(after_map[sid])
        out.extend(
            item for sid, item in items_a if sid not in before_ids and sides.get(sid) == "after"
        )
        if "sources" in cache or out:
            cache["sources"] = out
        facts = self.facts(sides)
        if "facts" in cache or facts:
            cache["facts"] = facts
        return self.apply_fields(cache, "source-cache")

    def fact_choices(self) -> list[tuple[Any, bool]]:
        """The facts the decisions keep, in order, each with whether it is new (still subject
        to its sources being kept)."""
        facts_b = (self.cache_b or {}).get("facts") or []
        facts_a = (self.cache_a or {}).get("facts") or []
        out: list[tuple[Any, bool]] = []
        plan = self.diff.facts
        # the plan holds one hunk id per slot, so strict or not is the same
        for slot, hid in zip(plan.slots, plan.hunk_ids, strict=True):  # pragma: no mutate
            b = facts_b[slot.before] if slot.before is not None else MISSING
            a = facts_a[slot.after] if slot.after is not None else MISSING
            take_after = hid is not None and self.choice(hid).takes_candidate
            if hid is None:
                out.append((b, False))
            elif slot.pair is not None:  # moved: old place if rejected, new place if accepted
                if slot.before is not None and not take_after:
                    out.append((b, False))
                if slot.after is not None and take_after:
                    out.append((a, False))
            elif take_after and a is not MISSING:
                out.append((a, b is MISSING))
            elif not take_after and b is not MISSING:
                out.append((b, False))
        return out

    def facts(self, sides: dict[str, Side]) -> list[Any]:
        out: list[Any] = []
        for fact, new in self.fact_choices():
            if new and not _fact_sources_kept(fact, sides):
                self.notes.append(f"new fact not kept: its source is not kept ({_short(fact)})")
                continue
            out.append(fact)
        return out

    # ------------------------------------------------------------------- fields
    def fields(self, block: str, area: str) -> Any:
        return self.apply_fields(_block(self.diff.original, block), area)

    def apply_fields(self, value: Any, area: str) -> Any:
        value = json.loads(json.dumps(value))
        for hunk in self.diff.hunks:
            if hunk.area != area or not hunk.fields:
                continue
            if hunk.derived or self.choice(hunk.id).takes_candidate:
                change = hunk.fields[0]
                if change.kind == "removed":
                    _del_path(value, change.path)
                else:
                    _set_path(value, change.path, change.after)
        return value

    def changelog(self, sides: dict[str, Side], accepted: int, rejected: int, edited: int) -> Any:
        """The new entries with the review's counts, lists cut to what was kept, and no citation
        of a source the review dropped (the model wrote the summary and evidence for the whole
        proposal; a written ``[s20]`` with no s20 would point at nothing)."""
        before = _block(self.diff.original, CHANGELOG_BLOCK)
        after = _block(self.diff.candidate, CHANGELOG_BLOCK)
        entries = changelog_entries(after)
        n_old = len(changelog_entries(before))
        kept = {sid for sid, side in sides.items() if side is not None}
        note = _review_note(accepted, rejected, edited)
        for n, entry in enumerate(entries[n_old:], start=n_old):
            if isinstance(entry, str):
                entries[n] = self.scrub(entry, kept, note)
                continue
            if not isinstance(entry, dict):
                continue
            removed: list[str] = []
            if isinstance(entry.get("summary"), str):
                entry["summary"] = self.scrub(entry["summary"], kept, note, removed)
            if isinstance(entry.get("sentinel"), dict):
                entry["sentinel"] = {
                    k: self.scrub(v, kept, "", removed) if isinstance(v, str) else v
                    for k, v in entry["sentinel"].items()
                }
            entry["review"] = {"accepted": accepted, "rejected": rejected, "edited": edited}
            if removed:
                entry["review"]["citations_removed"] = sorted(set(removed), key=_id_order)
            for key in ("sources_added", "unverified_sources"):
                if isinstance(entry.get(key), list):
                    entry[key] = [s for s in entry[key] if sides.get(str(s)) == "after"]
            if isinstance(entry.get("sections"), list):
                taken = {
                    h.section
                    for h in self.diff.hunks
                    if h.area == "article" and not h.derived and self.choice(h.id).takes_candidate
                }
                entry["sections"] = [s for s in entry["sections"] if s in taken]
            if isinstance(entry.get("sections_removed"), list):
                gone = {
                    h.key
                    for h in self.diff.hunks
                    if h.whole_section and self.choice(h.id).decision == "accept"
                }
                entry["sections_removed"] = [s for s in entry["sections_removed"] if s in gone]
                if not entry["sections_removed"]:
                    del entry["sections_removed"]
            if isinstance(entry.get("sources_dropped"), list):
                entry["sources_dropped"] = [
                    s for s in entry["sources_dropped"] if str(s) not in kept
                ]
        if isinstance(after, list):
            return entries
        return {**after, "entries": entries} if isinstance(after, dict) else after

    def manifest_changelog(self, manifest: Any, sides: dict[str, Side], note: str) -> Any:
        """The manifest's own changelog list gets the same cleaning for its new items."""
        items = manifest.get("changelog") if isinstance(manifest, dict) else None
        old = _block(self.diff.original, MANIFEST_BLOCK)
        n_old = (
            len(old.get("changelog") or [])
            if isinstance(old, dict) and isinstance(old.get("changelog"), list)
            else 0
        )
        if not isinstance(items, list):
            return manifest
        kept = {sid for sid, side in sides.items() if side is not None}
        for n in range(n_old, len(items)):
            if isinstance(items[n], str):
                items[n] = self.scrub(items[n], kept, note)
            elif isinstance(items[n], dict) and isinstance(items[n].get("summary"), str):
                items[n]["summary"] = self.scrub(items[n]["summary"], kept, note)
        return manifest

    def evidence(self, contract: Any, sides: dict[str, Side]) -> Any:
        """A structured sentinel's evidence taken from the update cites only kept sources."""
        sentinel = contract.get("sentinel") if isinstance(contract, dict) else None
        old = get_path(_block(self.diff.original, CONTRACT_BLOCK), ("sentinel", "evidence"))
        if (
            isinstance(sentinel, dict)
            and isinstance(sentinel.get("evidence"), str)
            and sentinel["evidence"] != old
        ):
            kept = {sid for sid, side in sides.items() if side is not None}
            sentinel["evidence"] = self.scrub(sentinel["evidence"], kept, "")
        return contract

    def scrub(self, text: str, kept: set[str], note: str, removed: list[str] | None = None) -> str:
        gone: list[str] = []

        def drop(m: re.Match[str]) -> str:
            sid = cited_id(m)  # "[S3]" and "[s03]" cite s3
            if sid in kept:
                return m.group(0)
            gone.append(sid)
            return ""

        out = CITATION_WITH_SPACE.sub(drop, text)
        for sid in dict.fromkeys(gone):
            msg = f"changelog: citation [{sid}] removed, that source is not kept"
            if msg not in self.notes:
                self.notes.append(msg)
        if removed is not None:
            removed += gone
        if note and note not in out:
            out = f"{out.rstrip()} {note}"
        return out

    def check_citations(self, doc: Document, final_cited: set[str]) -> None:
        known = (
            set(source_ids(doc.block_json(SOURCE_CACHE_BLOCK)))
            if doc.has_block(SOURCE_CACHE_BLOCK)
            else set()
        )
        known |= doc.article.listed_ids(final_cited)  # the entry the page links each to
        original_cited = cited_ids(self.diff.original.article_html)
        candidate_cited = cited_ids(self.diff.candidate.article_html)
        missing = sorted(final_cited - known - original_cited - candidate_cited, key=_id_order)
        if missing:
            raise ValidationError(
                f"the reviewed text cites {', '.join(missing)}, which no source provides",
                file=doc.file,
            )


def _unit_text(hunk: Hunk, choice: Choice, b: Unit | None, a: Unit | None) -> str:
    takes = choice.takes_candidate
    edited = choice.html if choice.decision == "edit" else None
    if hunk.moved:
        if b is not None:  # the old place
            return "" if takes else b.raw
        assert a is not None
        return (a.lead + edited) if edited is not None else a.raw if takes else ""
    if edited is not None:
        lead = a.lead if a is not None else b.lead if b is not None else "\n"
        return lead + edited
    if takes:
        return a.raw if a is not None else ""
    return b.raw if b is not None else ""


def _urls(cache: Any) -> list[tuple[str, str]]:
    if not isinstance(cache, dict) or not isinstance(cache.get("sources"), list):
        return []
    pairs = []
    for sid, item in zip(source_ids(cache), cache["sources"], strict=False):
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            pairs.append((sid, item["url"]))
    return pairs


def _named(facts: Iterable[Any]) -> set[str]:
    """Source ids the facts name: a fact cites its sources as text does."""
    return {sid for fact in facts if isinstance(fact, (str, dict)) for sid in fact_source_ids(fact)}


def _fact_sources_kept(fact: Any, sides: dict[str, Side]) -> bool:
    if not isinstance(fact, (str, dict)):  # the format only allows these: never taken
        return True  # pragma: no mutate
    return all(sides.get(i) is not None for i in fact_source_ids(fact) if is_source_id(i))


def _review_note(accepted: int, rejected: int, edited: int) -> str:
    """What the written summary says about a partial review ("" when nothing was rejected)."""
    if not rejected:
        return ""
    total = accepted + rejected + edited
    return f"(Review: {rejected} of {total} proposed changes rejected.)"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return truncate(text, 60)


def _id_order(sid: str) -> tuple[int, str]:
    return (int(sid[1:]), "") if is_source_id(sid) else (1 << 30, sid)


def _block(doc: Document, name: str) -> Any:
    return doc.block_json(name) if doc.has_block(name) else {}


def _canon(value: Any) -> str:
    # only compared with another _canon: escaping and key order cannot make equal values differ
    # (and a needless rewrite of an equal value leaves the block's bytes as they are)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)  # pragma: no mutate


def _set_path(value: Any, path: tuple[str, ...], new: Any) -> None:
    for part in path[:-1]:
        if not isinstance(value.get(part), dict):
            value[part] = {}
        value = value[part]
    value[path[-1]] = new


def _del_path(value: Any, path: tuple[str, ...]) -> None:
    parent = get_path(value, path[:-1]) if len(path) > 1 else value
    if isinstance(parent, dict):
        parent.pop(path[-1], None)
