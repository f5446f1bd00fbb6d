"""Proposal -> candidate document: the article and the four JSON blocks, nothing else.

``build_candidate`` never writes a file. It returns a new ``Document`` (only the article span and
the four blocks differ from ``doc``; every other byte is the same), the warnings a reviewer must
see and the ids of new sources whose URL did not appear in this run's search or fetch results.
The rules for ids, duplicates, References and facts are in ``sources.py``; sections and paragraph
ids in ``sections.py``; a rewritten section's blocks in ``splice.py`` (what did not change keeps
its bytes); the References list in ``references.py``; images in ``images.py``. Every reading of
the article's markup goes through ``format/article_model``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from oo_nb.agent.blocks import BlockUpdate, update_blocks
from oo_nb.agent.images import InlineImages, add_images, count_images
from oo_nb.agent.ledger import SourceLedger
from oo_nb.agent.nested_splice import changed_unwritable
from oo_nb.agent.proposal import Proposal, ProposedSentinel
from oo_nb.agent.references import update_references
from oo_nb.agent.sections import (
    Chunk,
    PidKeeper,
    assemble,
    heading,
    is_required,
    remove_stub_notices,
    split_article,
)
from oo_nb.agent.sources import references_html, remap_citations
from oo_nb.agent.splice import SpliceRefused, splice_body
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError
from oo_nb.format.article import Article
from oo_nb.format.article_model import read_model
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import (
    carries_markup,
    inert_fragment,
    inert_heading_text,
    runs_original_script,
)
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from oo_nb.format.sanitize import elements_removed, sanitize_html, sanitize_text
from oo_nb.format.vocab import url_key
from oo_nb.skin import sync_advice
from oo_nb.store import clock

__all__ = ["Candidate", "build_candidate", "unsupported_quotes"]

FetchImage = Callable[[str], bytes]


@dataclass
class Candidate:
    """The proposed document and what a reviewer must know about it. ``warnings`` need a human
    look (rejected or unverified sources, skipped images, a sentinel event reported as occurred);
    ``notes`` are informational (renumbered ids, merged duplicates, pids kept/new)."""

    document: Document
    warnings: list[str]
    unverified: list[str]  # ids of new sources not seen in this run's search/fetch results
    notes: list[str] = field(default_factory=list)  # informational (renumbered ids, kept pids...)
    version: int = 0
    sections_replaced: list[str] = field(default_factory=list)
    sections_added: list[str] = field(default_factory=list)
    # sections the proposal removes (drop_sections, or gone from Claude Code's edited copy)
    sections_removed: list[str] = field(default_factory=list)
    sources_added: list[str] = field(default_factory=list)
    sources_dropped: list[str] = field(default_factory=list)
    images_added: int = 0
    # the prepared bytes of each image inserted, by the URL it was fetched from
    images_fetched: dict[str, bytes] = field(default_factory=dict)
    # texts of new facts whose quote was not found in their sources' text (``unsupported_quotes``)
    unsupported: list[str] = field(default_factory=list)


def unsupported_quotes(candidate: Candidate) -> list[str]:
    """The new facts of a proposal whose quote was not found in the text the run read from
    their own sources (empty: every quote checked out, or none was given). For ``--auto``."""
    return list(candidate.unsupported)


def build_candidate(
    doc: Document,
    proposal: Proposal,
    run: RunInfo,
    *,
    today: date,
    fetch_image: FetchImage | None = None,
    now: datetime | None = None,
    pid_seed: str | None = None,
) -> Candidate:
    """Apply a validated proposal to ``doc`` (see the module notes). Raises ``AgentError`` when
    nothing usable remains (e.g. every section was empty after sanitising). New paragraph ids
    are random, or drawn from ``pid_seed`` (the same seed, the same ids)."""
    if doc.kind != "document":
        raise AgentError("the index page has no article to update", file=doc.file)
    return _Builder(doc, proposal, run, today, now or clock.now(), pid_seed).build(fetch_image)


class _Builder:
    def __init__(
        self,
        doc: Document,
        proposal: Proposal,
        run: RunInfo,
        today: date,
        now: datetime,
        pid_seed: str | None = None,
    ) -> None:
        self.doc, self.proposal, self.run, self.today, self.now = doc, proposal, run, today, now
        self.pid_seed = pid_seed
        self.contract = doc.contract
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.ledger = SourceLedger(
            doc.block_json(SOURCE_CACHE_BLOCK), self.contract, run.seen_urls, today.isoformat(),
            self.warnings, self.notes, doc.file, run.quote_hits,
        )  # fmt: skip
        self.result = Candidate(doc, self.warnings, self.ledger.unverified, self.notes)
        self.result.unsupported = self.ledger.unsupported
        self.old_ids: set[str] = set()  # the cache's ids before the update
        self.old_urls: dict[str, list[str]] = {}  # url_key -> ids, before the update
        self.unchanged: list[str] = []  # sections proposed that would be written as they were

    # ------------------------------------------------------------------ orchestration
    def build(self, fetch_image: FetchImage | None) -> Candidate:
        old = self.doc.article
        chunks = split_article(self.doc.article_model)
        if self.proposal.ignored:
            self.notes.append(
                "ignored unknown proposal fields: " + ", ".join(self.proposal.ignored[:20])
            )
        book = self.ledger
        book.load(old)
        # a duplicate merged on load was in the cache too: its entry is the one that leaves
        self.old_ids = set(book.entries)
        self.old_urls = _url_ids(book.entries)
        book.merge(old, self.proposal.sources, self.proposal.drop_sources, self.proposal.sections)
        self._splice_sections(chunks, old)
        self._drop_sections(chunks)
        self.result.images_added = add_images(
            chunks,
            self.proposal.images,
            self.contract,
            fetch_image,
            self.warnings,
            self.result.images_fetched,
        )
        facts = book.facts(self.proposal.facts)
        cited = self._cited(chunks)
        self.result.sources_dropped = book.drop(self.proposal.drop_sources, cited, facts)
        self._references(chunks, cited)
        try:
            candidate = self.doc.with_article(assemble(chunks))
        except AgentError:
            raise
        except Exception as exc:  # the spliced article broke the page: report, write nothing
            raise AgentError(f"the proposal cannot be applied: {exc}", file=self.doc.file) from None
        self._unseen_paragraphs(old, candidate.article)
        self._something_changed(candidate)
        r = self.result
        r.version = self.doc.manifest.version + 1
        r.sources_added = list(book.added)
        sentinel = self._sentinel()
        changes: dict[str, Any] = {
            "sections": [*r.sections_replaced, *r.sections_added],
            "sections_removed": r.sections_removed,
            "sources_added": r.sources_added,
            "sources_dropped": r.sources_dropped,
            "unverified_sources": list(book.unverified),
            "images_added": r.images_added,
            "sentinel": (
                {
                    "status": sentinel.status,
                    "evidence": sanitize_text(sentinel.evidence, max_len=2000),
                }
                if sentinel is not None and self.contract.sentinel is not None
                else None
            ),
        }
        update = BlockUpdate(
            self.today, self.now, r.version, self.proposal.summary, self.run,
            book.sources, facts, sentinel, changes,
        )  # fmt: skip
        r.document = update_blocks(candidate, update, self.warnings, self.notes)
        return r

    def _something_changed(self, candidate: Document) -> None:
        """No new version for nothing: the sections proposed would be written as they were,
        and no source, fact, image, sentinel report or section drop is proposed."""
        p, r = self.proposal, self.result
        if not self.unchanged or candidate.article_html != self.doc.article_html:
            return
        if r.sections_removed:
            return
        if self.ledger.added or r.sources_dropped or r.images_added or p.facts or p.sentinel:
            return
        why = [w for w in self.warnings if w.startswith(("sections[", NOT_APPLIED))]
        raise AgentError(
            "the proposal changes nothing in the document" + (": " + "; ".join(why) if why else ""),
            file=self.doc.file,
        )

    def _sentinel(self) -> ProposedSentinel | None:
        """The proposal's sentinel report, its evidence's ``[sN]`` renumbered as the sections'
        are (a new source's id changes when it joins the cache: [s901] cited s12)."""
        sentinel = self.proposal.sentinel
        if sentinel is None:
            return None
        evidence, _ = remap_citations(sentinel.evidence, self.ledger.mapping_for(sentinel.evidence))
        return replace(sentinel, evidence=evidence)

    def _unseen_paragraphs(self, old: Article, new: Article) -> None:
        """A new paragraph citing sources none of whose pages this run saw is flagged, as an
        unverified source is: nothing read in this run supports it."""
        before = {p.pid for p in old.paragraphs if p.pid}
        ids_by_pid: dict[str, list[str]] = {}
        for c in new.citations:
            if c.pid and c.pid not in before:
                ids_by_pid.setdefault(c.pid, []).append(c.source_id)
        book = self.ledger
        for pid, ids in ids_by_pid.items():
            urls = [book.url_of(s) for s in dict.fromkeys(ids)]
            if any(u and url_key(u) in book.seen for u in urls):
                continue
            self.warnings.append(
                f"new paragraph {pid.removeprefix('pid:')} cites {', '.join(dict.fromkeys(ids))}: "
                "no page of them was seen in this run's search or fetch results"
            )

    # ------------------------------------------------------------------ sections
    def _splice_sections(self, chunks: list[Chunk], old: Article) -> None:
        refs = _references_chunk(chunks)
        listed = {"references", refs.id if refs is not None and refs.id else "references"}
        wanted = [s for s in self.proposal.sections if s.id not in listed]
        for sid in sorted({s.id for s in self.proposal.sections} & listed):
            self.warnings.append(
                f"the proposal rewrote {sid!r}: ignored, the References list follows the sources"
            )
        existing: dict[str, Chunk] = {}
        for c in chunks:
            if c.id is not None:
                existing.setdefault(c.id, c)  # a repeated h2 id: the first one is the section
        replacing = {id(existing[s.id]) for s in wanted if s.id in existing}
        kept_text = "".join(c.text for c in chunks if id(c) not in replacing)
        kept_model = read_model(kept_text)
        element_ids = set(kept_model.element_ids)
        # every pid of the old article is one the proposal may keep: a paragraph in a table
        # cell or a <details> too, which ``paragraphs`` does not list
        known = [(p.pid, p.tag, p.text) for p in old.paragraphs]
        known += [(pid, "", "") for pid in self.doc.article_model.pids]
        keeper = PidKeeper(known, kept_model.pids, self.pid_seed)
        inline = InlineImages(self.contract.images, self.doc.article_model, count_images(kept_text))
        all_ids = {c.id for c in chunks if c.id} | {s.id for s in wanted} | element_ids
        heading_pids = any(c.has_heading_pid for c in chunks)
        # the kinds of block this document marks with a pid comment (p, and often h3, table)
        pid_tags = {b.tag for b in self.doc.article_model.blocks if b.pid}
        # the original page script re-reads heading text and attributes as HTML (legacy_script)
        original_script = runs_original_script(self.doc)
        written = 0
        unchanged: list[str] = []  # sections the proposal gave that would be written as they were
        for index, section in enumerate(wanted):
            if section.id not in existing and section.id in element_ids:
                renamed = _free_id(section.id, all_ids)
                self.warnings.append(
                    f"sections[{index}]: id {section.id!r} is already used by another element; the new section is {renamed!r}"
                )
                all_ids.add(renamed)
                section = replace(section, id=renamed)
            mapping = self.ledger.mapping_for(section.html)
            kept = self.ledger.kept_at.get(section.html, set())
            html, removed = remap_citations(section.html, mapping, kept)
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
            held = existing[section.id].body if section.id in existing else ""
            if (element := changed_unwritable(held, html)) is not None:
                self.warnings.append(_refused(index, section.id, element))
                continue
            unsafe: list[str] = []
            sanitized = sanitize_html(html, reserved_ids=all_ids, removed=unsafe)
            dropped = elements_removed(html, sanitized, held=held)
            if dropped:
                self.warnings.append(
                    f"sections[{index}] ({section.id}): {', '.join(dropped)} removed from its "
                    "HTML (an article holds only what the sanitiser allows)"
                )
            clean = inline.vet(sanitized, f"sections[{index}] ({section.id})", self.warnings)
            if unsafe:
                self.warnings.append(
                    f"sections[{index}] ({section.id}): control or bidi character(s) "
                    f"{', '.join(unsafe)} removed from its HTML (they reorder or hide what a "
                    "reader sees)"
                )
            if not _has_content(clean):
                self.warnings.append(
                    f"sections[{index}] ({section.id}) has no content after sanitising: not applied"
                )
                continue
            # a blank title keeps the heading as written (an empty one too), a new one is the id
            title = sanitize_text(section.title, max_len=200) or (
                existing[section.id].title if section.id in existing else section.id
            )
            if original_script:
                clean, inert = inert_fragment(clean)
                if carries_markup(title):
                    title = inert_heading_text(title)
                    inert.insert(0, "'<', '>' or '&' in the section title")
                if inert:
                    self.warnings.append(
                        f"sections[{index}] ({section.id}): {'; '.join(inert)} shown with look-alike "
                        "characters, because the page still runs the original o-o page script, "
                        f"which reads them as HTML (`{sync_advice('DIR', 'migrate')}` gives it "
                        "oo_nb's page code)"
                    )
            if section.id in existing:
                chunk = existing[section.id]
                try:
                    body = splice_body(chunk.body, clean, keeper, section.id, pid_tags)
                except SpliceRefused as refused:
                    self.warnings.append(_refused(index, section.id, refused.element))
                    continue
                if body == chunk.body and title == chunk.title:
                    # what the agent changed is not carried into the article (an attribute on
                    # a kept block or wrapper, a character written as a reference): no
                    # "edited" section, and no version for nothing (``build``)
                    unchanged.append(section.id)
                    continue
                if title != chunk.title:  # an unchanged heading keeps its bytes
                    chunk.head = heading(section.id, title, _heading_pid(chunk.head))
                else:  # (but for the id the page gives it, when it holds none)
                    chunk.write_id()
                chunk.body = body
                chunk.changed = True
                self.result.sections_replaced.append(section.id)
            else:
                lead = keeper.choose(section.id, "", None) if heading_pids else None
                body = splice_body("", clean, keeper, section.id, pid_tags)
                new = Chunk(section.id, heading(section.id, title, lead), body, True, title=title)
                at = _new_section_place(chunks, refs, existing.get(section.after or ""))
                if at == len(chunks) and chunks and not chunks[-1].text.endswith("\n"):
                    chunks[-1].body += "\n\n"
                chunks.insert(at, new)
                existing[section.id] = new
                self.result.sections_added.append(section.id)
            written += 1
        if unchanged:
            self.warnings.append(_not_applied(unchanged))
        self.unchanged = unchanged
        if wanted and written == 0 and not unchanged:
            raise AgentError(
                "the proposal has no usable section: "
                + "; ".join(w for w in self.warnings if w.startswith("sections["))
            )
        self.notes.append(f"paragraph ids: {keeper.kept} kept, {keeper.generated} new")
        if inline.reencoded:
            self.notes.append(
                f"{inline.reencoded} inline image(s) in the sections checked and re-encoded"
            )
        for chunk in chunks:
            if chunk.changed or chunk is refs:
                continue
            if written:
                chunk.head, chunk.body = chunk.head, remove_stub_notices(chunk.body)

    def _drop_sections(self, chunks: list[Chunk]) -> None:
        """Remove the sections ``drop_sections`` names (heading and text, as one change the
        reviewer decides), except References, a section the proposal also rewrites, one nested
        in a container and one the contract still requires: those stay, with a warning."""
        required = self.contract.required_sections
        written = {*self.result.sections_replaced, *self.result.sections_added}
        refs = _references_chunk(chunks)
        for sid in self.proposal.drop_sections:
            chunk = next((c for c in chunks if c.id == sid), None)
            title = chunk.title if chunk is not None else ""
            why = (
                "the References list follows the sources"
                if sid == "references" or (chunk is not None and chunk is refs)
                else "the article has no such section"
                if chunk is None
                else "the proposal also rewrites it"
                if sid in written
                else "its heading sits inside a container element"
                if chunk.nested
                else (
                    f"the contract requires it (to allow its removal: oo contract DOC --remove "
                    f'section "{title}")'
                )
                if is_required(required, sid, title)
                else None
            )
            if why is not None:
                self.warnings.append(f"drop_sections: {sid!r} not removed: {why}")
                continue
            assert chunk is not None
            chunks.remove(chunk)
            self.result.sections_removed.append(sid)
        if self.result.sections_removed:
            self.notes.append(
                "sections removed (for review): " + ", ".join(self.result.sections_removed)
            )

    # ------------------------------------------------------------------ facts, drops, references
    def _cited(self, chunks: list[Chunk]) -> set[str]:
        refs = _references_chunk(chunks)
        return {
            sid
            for c in chunks
            if c.id != "references" and c is not refs
            for sid in (cite.source_id for cite in read_model(c.text).citations)
        }

    def _references(self, chunks: list[Chunk], cited: set[str]) -> None:
        ol, missing = references_html(self.ledger.entries, cited)
        if missing:
            self.warnings.append("cited without a source in the cache: " + ", ".join(missing))
        refs = _references_chunk(chunks)
        if refs is not None and refs.nested:
            self.warnings.append("References sits inside a container element: not updated")
            return
        if refs is not None and refs.id != "references":
            # the page finds this list by its heading's text: never a second References list
            self.warnings.append(
                f"References sits under a heading with id {refs.id!r}, not 'references': not "
                'updated (new sources have no entry there; give the heading id="references")'
            )
            return
        if refs is None:
            if not ol:
                return
            if chunks and not chunks[-1].text.endswith("\n"):
                chunks[-1].body += "\n\n"
            chunks.append(
                Chunk("references", heading("references", "References"), "", title="References")
            )
            refs = chunks[-1]
        # existing items keep their bytes; see references.py
        update = update_references(
            refs.body, self.ledger.entries, self.old_ids, self.old_urls, cited, self.today
        )
        if update.out_of_order:
            self.warnings.append(
                f"the References list is not in source order ({update.out_of_order}): left as it "
                "is, new entries appended at its end; the page links [sN] to the N-th entry"
            )
        if update.changed:
            refs.body = update.body
            refs.changed = True


NOT_APPLIED = "the agent's article edits were not applied"


def _not_applied(sections: list[str]) -> str:
    return (
        f"{NOT_APPLIED}: {', '.join(sections)} would be written byte for byte as before (a "
        "class or lang on a kept block or wrapper, or a character reference, is not carried over)"
    )


def _refused(index: int, section: str, element: str) -> str:
    return (
        f"sections[{index}] ({section}): the edit changes what is inside <{element}>, which an "
        "update cannot write as it stands (the sanitiser removes it, or its attributes): not "
        "applied, the section is kept as it is"
    )


def _url_ids(entries: dict[str, Any]) -> dict[str, list[str]]:
    """url_key -> every id with that URL (real files hold duplicates), in the cache's order."""
    out: dict[str, list[str]] = {}
    for sid, item in entries.items():
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            out.setdefault(url_key(item["url"]), []).append(sid)
    return out


def _references_chunk(chunks: list[Chunk]) -> Chunk | None:
    """The References section as the page script finds it: the h2 with id "references", else
    the first h2 reading "References"."""
    by_id = next((c for c in chunks if c.id == "references"), None)
    if by_id is not None:
        return by_id
    return next((c for c in chunks if c.head and c.title.lower() == "references"), None)


def _new_section_place(chunks: list[Chunk], refs: Chunk | None, after: Chunk | None) -> int:
    """Where a new section goes: right after the section the proposal places it after (where
    the agent wrote it, among the sections kept), else before References, else last."""
    if after is not None and after is not refs and after in chunks:
        return next(i for i, c in enumerate(chunks) if c is after) + 1
    return next((i for i, c in enumerate(chunks) if c is refs), len(chunks))


def _heading_pid(head: str) -> str | None:
    blocks = read_model(head).blocks
    return blocks[0].pid if blocks else None


def _has_content(fragment: str) -> bool:
    root = read_model(fragment).root
    return bool(root.text.strip()) or any(True for _ in root.elements("img"))


def _free_id(base: str, taken: set[str]) -> str:
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"
