"""What an update does to the article's claims, paragraph by paragraph: the part of the ``--auto``
rule (``clean.py``) that reads the text, from the one article model (``format/article``).

A claim is one block of the article (a paragraph, a list, a table, a figure, an h5...) that shows
words or an image or cites a source, an ``<h3>``/``<h4>`` subheading, or text no block holds (bare
between blocks, or straight inside a ``<div>`` or ``<blockquote>``); a stub notice is none. Claims
of the two sides are paired by pid, then by unchanged words (a document without pids, a paragraph
moved), then by the most words kept (an edit of a paragraph without pid); what is left is new
(after) or gone (before). Sources are compared by id (an update keeps the ids the document holds: a
new source takes a new one, ``ledger.py``) and count as read when this run fetched the URL the
candidate's cache gives them (``url_key``; ``RunInfo.read_urls``): a search hit listing it, or a
page naming it, is not its page read.

What a careful reviewer would not let through unattended, one sentence each:

- a kept or edited paragraph that lost citations (its claims left unsourced); a cited paragraph
  removed, and a source it cited left cited by nothing (a claim dropped with its evidence);
- a paragraph, or a section, that kept less than half of its words (a multiset of words: the same
  length in other words is a rewrite, ``<p>.</p>`` for two cited paragraphs a cut);
- new text that cites nothing, whatever holds it (an advert in a new section, a ``<div>``, an
  ``<h3>``, a caption); a figure or image is its own source (its credit link, ``images.py``) only
  when its image is one the document held before or its credit links a page the run read;
- a new or edited claim whose changed words rest on a source this run did not read: the
  citations closing those words (``claim_spans``), all of them when several close it (which one
  the words rest on cannot be told: a number changed under ``[s1][s4]`` with only s4 read, or
  under ``[s1][s4][s6]`` with only the new s6 read); a kept or edited one citing a source it did
  not cite before of which this run read no page (a claim re-pointed). (An edited paragraph
  that cited nothing before may cite nothing after while it keeps half its words: o-o's
  summaries, a sentinel's status, are written so and revised by every update.)
- a kept claim whose words read in other markup (``claim_markup``): struck out, marked inserted,
  made a quotation (``<q>``, in a ``<blockquote>``), raised or lowered, shown right to left;
- a section the contract requires whose heading text changed ("Key Details" shown as "Buy Now").

A span of words kept whose closing citations changed is a changed claim (citations traded
between two sentences of one paragraph keep its set of sources: ``claim_spans.unread_grounds``).
Claims that only regroup text (a paragraph split in two, two merged, the words, citations and
markup read in the same order: ``claim_spans.regrouped``) are taken out of the comparison. A
copy edit of a cited claim's words is not: one word can negate a claim.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cached_property

from oo_nb.agent.claim_markup import markup_changes, read_in
from oo_nb.agent.claim_spans import TOKEN, regrouped, unread_grounds
from oo_nb.agent.sections import is_required
from oo_nb.errors import OOError
from oo_nb.format.article import cited_in, loose_text, read_article
from oo_nb.format.article_model import Model, Node
from oo_nb.format.document import Document
from oo_nb.format.vocab import CITATION_WITH_SPACE, truncate, url_key

__all__ = ["Claim", "article_reasons", "read_claims"]

# A paragraph or section "mostly went" when it keeps less than this share of its words, counted
# only from this many words on (a two-word line shortened is no lost text).
_KEPT_SHARE = 0.5
_MIN_WORDS = 8
_SUBHEADINGS = frozenset(("h3", "h4"))  # (h5, h6 are blocks already; an h2 starts a section)
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
    images: tuple[str, ...] = ()  # the ``src`` of each image it shows
    links: tuple[str, ...] = ()  # the ``href`` of each link in it (an image's credit)
    marked: tuple[
        str, ...
    ] = ()  # its words and marks with each citation in place (``claim_spans``)
    reads_in: tuple[str, ...] = ()  # the meaning markup around each of those (``claim_markup``)

    @property
    def reading(self) -> tuple[tuple[str, str, str], ...]:
        """Each token with what it reads in and the kind of block it is in: the same for text
        only cut at other places (a paragraph's sentence made a heading or preformatted text
        reads otherwise, and a heading's citation is linked by no page)."""
        return tuple((t, m, self.tag) for t, m in zip(self.marked, self.reads_in, strict=True))

    @property
    def size(self) -> int:
        """How many words (not punctuation marks) it holds."""
        return sum(self.bag.values())

    @cached_property  # (asked once per pairing tried: a frozen dataclass keeps it in __dict__)
    def bag(self) -> Counter[str]:
        """Its words (not punctuation marks), case folded, each with its count."""
        return Counter(t.casefold() for t in self.words if t[0].isalnum() or t[0] == "_")

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
    model = reading.model
    pid_of = {id(node): pid for pid, node in reading.pid_nodes.items()}
    # (pid, section, node, the element it is in when a text node, the element showing it)
    held: list[tuple[str | None, str, Node, Node | None, str]] = [
        (p, s, node, None, node.name) for p, s, node in reading.blocks
    ]
    held += [
        (pid_of.get(id(h)), _section_at(model, h.start), h, None, h.name)
        for h in reading.headings
        if h.name in _SUBHEADINGS
    ]
    held += [
        (None, _section_at(model, t.start), t, up, "text" if up is model.root else up.name)
        for up, t in loose_text(reading)
    ]
    held.sort(key=lambda one: one[2].start)
    out: list[Claim] = []
    for pid, section, node, holder, tag in held:
        if section == refs or "stub-notice" in (node.attr("class") or "").split():
            continue  # the sources' own list (written from the cache), a stub's placeholder
        ids = cited_in(reading, node)
        shown, marked, reads_in = read_in(node, holder)
        text = " ".join(CITATION_WITH_SPACE.sub("", shown).split())
        images = _attrs(node, "img", "src")
        if not text and not ids and not images:
            continue  # an empty paragraph, a rule
        words = tuple(TOKEN.findall(text))
        links = _attrs(node, "a", "href") if images else ()
        cites = tuple(dict.fromkeys(ids))
        out.append(Claim(pid, section, tag, text, words, cites, images, links, marked, reads_in))
    return out


def article_reasons(
    before: Document, after: Document, read: Iterable[str], required: Collection[str]
) -> list[str]:
    """Why the article of ``after`` may not be written unattended over ``before``'s (``[]``:
    it may). ``read``: the URLs of the pages this run read (``RunInfo.read_urls``: fetched, not
    a search's hit list); ``required``: the contract's required sections."""
    old, new = read_claims(before), read_claims(after)
    read_keys = {url_key(u) for u in read}
    urls = {**_source_urls(before), **_source_urls(after)}
    read_ids = {sid for sid, url in urls.items() if url_key(url) in read_keys}
    pairs, added = _pair(old, new)
    pairs, added, regrouped_old = _without_regrouped(old, new, pairs, added)
    reasons: list[str] = []
    lost = [
        f"{a.name} ({', '.join(k for k in b.cites if k not in a.cites)})"
        for b, a in pairs
        if any(k not in a.cites for k in b.cites)
    ]
    if lost:
        reasons.append("citation(s) taken out of paragraph(s) kept: " + _listed(lost))
    paired = {id(b) for b, _ in pairs} | regrouped_old
    # (a section removed whole is a reason of its own: ``clean.py``)
    live = {"", *(s.id for s in after.article_model.sections)}
    gone = [b for b in old if id(b) not in paired and b.cites and b.section in live]
    if gone:
        cited_after = {k for a in new for k in a.cites}
        orphaned = [
            k for k in dict.fromkeys(k for b in gone for k in b.cites) if k not in cited_after
        ]
        reasons.append(
            "cited paragraph(s) removed: "
            + _listed([f"{b.name} ({', '.join(b.cites)})" for b in gone])
            + (f"; leaving {', '.join(orphaned)} cited by nothing" if orphaned else "")
        )
    cut = [
        f"{a.name} ({b.size} words, {_kept(b.bag, a.bag)} kept)"
        for b, a in pairs
        if _mostly_went(b.size, _kept(b.bag, a.bag))
    ]
    if cut:
        reasons.append("paragraph text mostly removed or replaced: " + _listed(cut))
    emptied = _emptied_sections(old, new)
    if emptied:
        reasons.append("section text mostly removed or replaced: " + _listed(emptied))
    old_images = {src for b in old for src in b.images}
    uncited = [a for a in added if not a.cites and not _self_sourced(a, old_images, read_keys)]
    if uncited:
        reasons.append(
            "new paragraph(s) citing no source: " + _listed([_named(a) for a in uncited])
        )
    unseen = _unseen(pairs, added, read_ids)
    if unseen:
        reasons.append(
            "new or changed claim(s) resting on source(s) of which this run read no page: "
            + _listed(unseen)
        )
    remarked = [
        f"{_named(a)} ({', '.join(names)})"
        for b, a in pairs
        if (names := markup_changes(b.marked, b.reads_in, a.marked, a.reads_in))
    ]
    if remarked:
        reasons.append(
            "markup changing how kept words read (struck out, inserted, quoted, raised or "
            "lowered, their direction) put on or taken off: " + _listed(remarked)
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


def _section_at(model: Model, at: int) -> str:
    """The id of the section holding offset ``at`` ("" before the first heading)."""
    return next((s.id for s in model.sections if s.start <= at < s.end), "")


def _attrs(node: Node, tag: str, name: str) -> tuple[str, ...]:
    """Attribute ``name`` of each ``tag`` element in ``node`` ("" where it has none)."""
    if node.kind != "element":
        return ()
    return tuple(n.attr(name) or "" for n in node.iter() if n.kind == "element" and n.name == tag)


def _self_sourced(claim: Claim, old_images: set[str], read_keys: set[str]) -> bool:
    """A figure or image sourced by its own credit link (``images.py``): one showing only images
    the document held before, or crediting a page this run read (a new image crediting nothing
    the run read, a ``data:`` chart, is the agent's own)."""
    if not claim.images:
        return False
    if all(src in old_images for src in claim.images):
        return True
    return any(url_key(href) in read_keys for href in claim.links if href.startswith("http"))


def _kept(before: Counter[str], after: Counter[str]) -> int:
    """How many of ``before``'s words ``after`` still holds (each as often as both have it)."""
    return sum((before & after).values())


def _pair(old: list[Claim], new: list[Claim]) -> tuple[list[tuple[Claim, Claim]], list[Claim]]:
    """(before, after) pairs, by pid first, then by unchanged words, then by the most words
    kept (at least half); and the new claims."""
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
    for j, c in enumerate(new):  # (only what is left: a few edited paragraphs without pids)
        if j in match or not c.words:
            continue
        kept = {i: _kept(b.bag, c.bag) for i, b in enumerate(old) if i not in used}
        best = max(kept, key=lambda i: kept[i], default=-1)
        if best >= 0 and kept[best] > 0 and not _mostly_went(old[best].size, kept[best]):
            used.add(best)
            match[j] = best
    pairs = [(old[match[j]], c) for j, c in enumerate(new) if j in match]
    return pairs, [c for j, c in enumerate(new) if j not in match]


def _without_regrouped(
    old: list[Claim], new: list[Claim], pairs: list[tuple[Claim, Claim]], added: list[Claim]
) -> tuple[list[tuple[Claim, Claim]], list[Claim], set[int]]:
    """``pairs`` and ``added`` without the claims that only regroup text, section by section
    (``claim_spans.regrouped``: a paragraph split in two, two merged, their tokens and what each
    reads in the same sequence), and the ids of the old claims so regrouped. A claim paired with
    one regrouped becomes new (its partner's words went elsewhere)."""
    same: set[int] = {id(b) for b, a in pairs if b.reading == a.reading} | {
        id(a) for b, a in pairs if b.reading == a.reading
    }
    out_old: set[int] = set()
    out_new: set[int] = set()
    for section in dict.fromkeys(c.section for c in new):
        # (the unchanged claims stay in: a run is adjacent in the document, not only among the
        # changed ones; one kept between two halves of a split reorders the text)
        was = [c for c in old if c.section == section]
        now = [c for c in new if c.section == section]
        if all(id(c) in same for c in (*was, *now)):
            continue
        gone, came = regrouped([c.reading for c in was], [c.reading for c in now])
        out_old |= {id(was[i]) for i in gone}
        out_new |= {id(now[j]) for j in came}
    if not out_old:
        return pairs, added, out_old
    kept = [(b, a) for b, a in pairs if id(b) not in out_old and id(a) not in out_new]
    left = [a for b, a in pairs if id(b) in out_old and id(a) not in out_new]
    return kept, [a for a in added if id(a) not in out_new] + left, out_old


def _unseen(pairs: list[tuple[Claim, Claim]], added: list[Claim], read: set[str]) -> list[str]:
    """Kept or edited claims citing a source they did not cite before of which the run read no
    page (a claim re-pointed); new or edited claims whose changed wording rests on a source the
    run did not read (``claim_spans.unread_grounds``: the citations closing the changed words;
    a page the run read, cited beside old sources, vouches for the words it closes alone, not
    for the old sources' words changed)."""
    out: list[str] = []
    for b, a in [*pairs, *((None, c) for c in added)]:
        fresh = [k for k in a.cites if b is not None and k not in b.cites and k not in read]
        if not fresh and (b is None or b.marked != a.marked):
            fresh = unread_grounds(b.marked if b else None, a.marked, a.cites, read)
        if fresh:
            out.append(f"{_named(a)} ({', '.join(fresh)})")
    return out


def _emptied_sections(old: list[Claim], new: list[Claim]) -> list[str]:
    """Sections on both sides that kept less than half their words, new text counting only
    where it cites a source (a section's claims replaced by newly sourced ones is an update;
    by uncited words of the same length, a rewrite)."""
    words_b, words_a = _section_words(old), _section_words(new)
    cited_a: Counter[str] = Counter()
    for c in new:
        cited_a[c.section] += c.size if c.cites else 0
    out = []
    for sid, bag in words_b.items():
        if sid not in words_a:
            continue
        n, kept = sum(bag.values()), _kept(bag, words_a[sid])
        if _mostly_went(n, max(kept, cited_a[sid])):
            out.append(f"{sid} ({n} words, {kept} kept)")
    return out


def _section_words(claims: list[Claim]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for c in claims:
        out.setdefault(c.section, Counter()).update(c.bag)
    return out


def _mostly_went(before: int, kept: int) -> bool:
    """Whether a text of ``before`` words kept too few of them (``kept``)."""
    return before >= _MIN_WORDS and kept < before * _KEPT_SHARE


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
