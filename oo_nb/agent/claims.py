"""What an update does to the article's claims, paragraph by paragraph: the part of the ``--auto``
rule (``clean.py``) that reads the text, from the one article model (``format/article``).

A claim is one block of the article (a paragraph, a list, a table, a figure...) that shows words
or cites a source; a stub notice is none. Claims of the two sides are paired by pid, then by
unchanged words (a document without pids, a paragraph moved); what is left is new (after) or gone
(before). Sources are compared by id (an update keeps the ids the document holds: a new source
takes a new one, ``ledger.py``) and are seen when this run's searches or fetches showed the URL the
candidate's cache gives them (``url_key``).

What a careful reviewer would not let through unattended, one sentence each:

- a kept or edited paragraph that lost citations (its claims left unsourced);
- a paragraph, or a section, whose text mostly went (``<p>.</p>`` for two cited paragraphs);
- a new paragraph that cites nothing (an advert in a new section); a new or edited one citing only
  sources of which this run saw no page (a number changed under its old citations); a kept or
  edited one citing a source it did not cite before of which this run saw no page (a claim
  re-pointed). (An edited paragraph that cited nothing before may cite nothing after: o-o's
  summaries, a sentinel's status, are written so and revised by every update.)
- a section the contract requires whose heading text changed ("Key Details" shown as "Buy Now").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from oo_nb.agent.sections import is_required
from oo_nb.errors import OOError
from oo_nb.format.article import cited_in, read_article
from oo_nb.format.article_model import Model
from oo_nb.format.document import Document
from oo_nb.format.vocab import CITATION_WITH_SPACE, truncate, url_key

__all__ = ["Claim", "article_reasons", "read_claims"]

# A paragraph or section "mostly went" when it keeps less than this share of its words, counted
# only from this many words on (a two-word line shortened is no lost text).
_KEPT_SHARE = 0.5
_MIN_WORDS = 8
# Blocks whose source is their own credit link (``images.py``), not an ``[sN]``.
_SELF_SOURCED = frozenset(("figure", "img"))
_TOKEN = re.compile(r"\w+|[^\w\s]")
_NAMED = 5  # paragraphs or sections named per reason
_FIRST_CHARS = 40


@dataclass(frozen=True)
class Claim:
    pid: str | None
    section: str
    tag: str
    text: str  # the visible text without its citations, its spacing collapsed
    words: tuple[str, ...]  # that text's words and punctuation marks ("uses ." reads "uses.")
    cites: tuple[str, ...]  # the source ids it cites, each once, in order

    @property
    def size(self) -> int:
        """How many words (not punctuation marks) it holds."""
        return sum(1 for t in self.words if t[0].isalnum() or t[0] == "_")

    @property
    def name(self) -> str:
        """The pid (as the warnings write it), else the first words in quotes."""
        if self.pid:
            return self.pid.removeprefix("pid:")
        return _first_words(self.text)


def read_claims(doc: Document) -> list[Claim]:
    """The claims of ``doc``'s article, in order."""
    reading = read_article(doc.article_model)
    refs = _references_section(reading.model)
    out: list[Claim] = []
    for pid, section, node in reading.blocks:
        if section == refs or "stub-notice" in (node.attr("class") or "").split():
            continue  # the sources' own list (written from the cache), a stub's placeholder
        ids = cited_in(reading, node)
        text = " ".join(CITATION_WITH_SPACE.sub("", node.visible_text).split())
        if not text and not ids:
            continue  # an empty paragraph, a rule
        words = tuple(_TOKEN.findall(text))
        out.append(Claim(pid, section, node.name, text, words, tuple(dict.fromkeys(ids))))
    return out


def article_reasons(
    before: Document, after: Document, seen: Iterable[str], required: Collection[str]
) -> list[str]:
    """Why the article of ``after`` may not be written unattended over ``before``'s (``[]``:
    it may). ``seen``: the URLs this run's searches and fetches showed; ``required``: the
    contract's required sections."""
    old, new = read_claims(before), read_claims(after)
    seen_keys = {url_key(u) for u in seen}
    urls = {**_source_urls(before), **_source_urls(after)}
    seen_ids = {sid for sid, url in urls.items() if url_key(url) in seen_keys}
    pairs, added = _pair(old, new)
    reasons: list[str] = []
    lost = [
        f"{a.name} ({', '.join(k for k in b.cites if k not in a.cites)})"
        for b, a in pairs
        if any(k not in a.cites for k in b.cites)
    ]
    if lost:
        reasons.append("citation(s) taken out of paragraph(s) kept: " + _listed(lost))
    cut = [
        f"{a.name} ({b.size} words → {a.size})" for b, a in pairs if _mostly_went(b.size, a.size)
    ]
    if cut:
        reasons.append("paragraph text mostly removed: " + _listed(cut))
    emptied = _emptied_sections(old, new)
    if emptied:
        reasons.append("section text mostly removed: " + _listed(emptied))
    uncited = [a for a in added if not a.cites and a.tag not in _SELF_SOURCED]
    if uncited:
        reasons.append(
            "new paragraph(s) citing no source: " + _listed([_named(a) for a in uncited])
        )
    unseen = _unseen(pairs, added, seen_ids)
    if unseen:
        reasons.append(
            "new or changed claim(s) citing source(s) of which this run saw no page: "
            + _listed(unseen)
        )
    renamed = _renamed_required(before, after, required)
    if renamed:
        reasons.append("required section heading(s) changed: " + _listed(renamed))
    return reasons


def _references_section(model: Model) -> str:
    """The id of the section holding the References list (the sources, not claims)."""
    refs = model.reference_list()
    at = refs.start if refs is not None else -1
    return next((s.id for s in model.sections if s.start <= at < s.end), "references")


def _pair(old: list[Claim], new: list[Claim]) -> tuple[list[tuple[Claim, Claim]], list[Claim]]:
    """(before, after) pairs, by pid first, then by unchanged words; and the new claims."""
    by_pid: dict[str, int] = {}
    for i, c in enumerate(old):
        if c.pid:
            by_pid.setdefault(c.pid, i)
    used: set[int] = set()
    match: dict[int, int] = {}  # after index -> before index
    for j, c in enumerate(new):
        i = by_pid.get(c.pid or "", -1)
        if i >= 0 and i not in used:
            used.add(i)
            match[j] = i
    by_words: dict[tuple[str, ...], list[int]] = {}
    for i, c in enumerate(old):
        if i not in used and c.words:
            by_words.setdefault(c.words, []).append(i)
    for j, c in enumerate(new):
        if j in match:
            continue
        free = [i for i in by_words.get(c.words, []) if i not in used]
        if free:
            used.add(free[0])
            match[j] = free[0]
    pairs = [(old[match[j]], c) for j, c in enumerate(new) if j in match]
    return pairs, [c for j, c in enumerate(new) if j not in match]


def _unseen(pairs: list[tuple[Claim, Claim]], added: list[Claim], seen: set[str]) -> list[str]:
    """Kept or edited claims citing a source they did not cite before of which the run saw no
    page; edited or new claims none of whose sources the run saw. (A new paragraph may also
    cite sources the document held: its claims come with the new source it cites.)"""
    out: list[str] = []
    for b, a in [*pairs, *((None, c) for c in added)]:
        fresh = [k for k in a.cites if b is not None and k not in b.cites and k not in seen]
        changed = b is None or b.words != a.words
        if not fresh and changed and not any(k in seen for k in a.cites):
            fresh = list(a.cites)
        if fresh:
            out.append(f"{_named(a)} ({', '.join(fresh)})")
    return out


def _emptied_sections(old: list[Claim], new: list[Claim]) -> list[str]:
    """Sections on both sides that kept less than half their words."""
    words_b, words_a = _section_words(old), _section_words(new)
    return [
        f"{sid} ({n} words → {words_a[sid]})"
        for sid, n in words_b.items()
        if sid in words_a and _mostly_went(n, words_a[sid])
    ]


def _section_words(claims: list[Claim]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in claims:
        out[c.section] = out.get(c.section, 0) + c.size
    return out


def _mostly_went(before: int, after: int) -> bool:
    return before >= _MIN_WORDS and after < before * _KEPT_SHARE


def _renamed_required(before: Document, after: Document, required: Collection[str]) -> list[str]:
    """Required sections whose heading (same id) reads otherwise in ``after``."""
    titles = {s.id: s.title for s in after.article_model.sections}
    return [
        f"{s.id} (“{s.title}” → “{titles[s.id]}”)"
        for s in before.article_model.sections
        if s.id in titles and titles[s.id] != s.title and is_required(required, s.id, s.title)
    ]


def _source_urls(doc: Document) -> dict[str, str]:
    """id -> URL of ``doc``'s cached sources (the first of an id held twice)."""
    try:
        return dict(reversed([(s.id, s.url) for s in doc.source_cache.sources]))
    except OOError:  # a damaged cache names no source: each id stands for itself
        return {}


def _first_words(text: str) -> str:
    return f"“{truncate(text, _FIRST_CHARS)}”"


def _named(claim: Claim) -> str:
    """A new or edited claim: its pid and its first words (a new pid says nothing to a reader)."""
    return (
        f"{claim.pid.removeprefix('pid:')} {_first_words(claim.text)}" if claim.pid else claim.name
    )


def _listed(items: list[str]) -> str:
    more = len(items) - _NAMED
    return "; ".join(items[:_NAMED]) + (f"; and {more} more" if more > 0 else "")
