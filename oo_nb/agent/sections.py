"""The article as a list of h2 sections, spliced as text so untouched sections keep every byte.

A chunk is one ``<h2>`` and everything up to the next ``<h2>``, where a browser finds them
(``article_model``; a pid comment right before the heading belongs to it); the text before the
first ``<h2>`` is the preamble. Paragraph ids are
assigned to agent-written sections only: an unchanged paragraph (same text, citations aside)
keeps its old pid, a pid the model copied from the old article is kept while unused, any other
paragraph gets a new ``pid:SECTION:8hex`` (``splice.py`` writes them).
"""

from __future__ import annotations

import hashlib
import html as html_lib
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from oo_nb.format.article import new_pid
from oo_nb.format.article_model import Model, read_model
from oo_nb.format.vocab import CITATION, PID

__all__ = [
    "SVG_PLACEHOLDER",
    "UNSEEN_TAGS",
    "Chunk",
    "PidKeeper",
    "assemble",
    "is_required",
    "remove_stub_notices",
    "split_article",
]


# Elements the agent is never shown (``context.compact_article`` leaves them and their content
# out), so a section it rewrites cannot hold them: ``splice.splice_body`` keeps such a block of
# the old section where it was (a <template> was dropped on apply, and the review showed it).
UNSEEN_TAGS = frozenset(
    ("script", "style", "noscript", "template", "iframe", "object", "embed", "link", "meta")
)
# What the agent is shown for an inline SVG (its markup is long and no agent may write one)
SVG_PLACEHOLDER = '<span class="oo-omitted">[inline SVG graphic omitted]</span>'


@dataclass
class Chunk:
    """``head`` is the optional heading pid comment plus the ``<h2>…</h2>`` tag; ``body`` the
    rest up to the next chunk. For the preamble ``id`` is None and ``head`` is empty."""

    id: str | None
    head: str
    body: str
    changed: bool = False
    nested: bool = False  # the h2 sits inside a container (div, section...): not spliceable
    title: str = ""  # the heading's text, as the page shows it
    # where the heading's start tag is in ``head`` when it holds no id (the page script gives
    # it ``id``): an edit of the section writes the id there (``write_id``)
    unwritten_id_at: int | None = None

    @property
    def text(self) -> str:
        return self.head + self.body

    @property
    def has_heading_pid(self) -> bool:
        return self.head.lstrip().startswith("<!--")

    def write_id(self) -> None:
        """Give the heading the id the page gives it, as its first attribute (one a browser
        reads before an empty ``id=""``); every other byte of the heading stays."""
        at = self.unwritten_id_at
        if at is None or self.id is None:
            return
        name_end = at + len("<h2")
        self.head = f'{self.head[:name_end]} id="{html_lib.escape(self.id)}"{self.head[name_end:]}'
        self.unwritten_id_at = None


def split_article(article: str | Model) -> list[Chunk]:
    """Preamble first, then one chunk per h2, where a browser finds them (article_model; the
    article's HTML, or the document's model), under the id the page gives it.
    ``assemble(split_article(t)) == t``."""
    model = read_model(article) if isinstance(article, str) else article
    text = model.source
    chunks = [Chunk(None, "", text[: model.preamble_end])]
    for s in model.sections:
        head_end = s.heading.end if not s.nested else s.heading.start
        head_end = max(head_end, s.start)
        chunks.append(
            Chunk(
                s.id,
                text[s.start : head_end],
                text[head_end : s.end],
                nested=s.nested,
                title=s.title,
                unwritten_id_at=None if s.id_written or s.nested else s.heading.start - s.start,
            )
        )
    return chunks


def assemble(chunks: Iterable[Chunk]) -> str:
    return "".join(c.text for c in chunks)


def heading(section_id: str, title: str, pid: str | None = None) -> str:
    """A new ``<h2>``: the title is plain text, escaped here."""
    lead = f"<!-- {pid} -->\n" if pid else ""
    return (
        f'{lead}<h2 id="{html_lib.escape(section_id)}">{html_lib.escape(title, quote=False)}</h2>'
    )


def _name_key(name: str) -> str:
    words = re.sub(r"[^a-z0-9]+", " ", name.lower().replace("&", " and ")).split()
    return " ".join(w for w in words if w != "and")


def is_required(required: Collection[str], section_id: str, title: str) -> bool:
    """Does the contract's ``required_sections`` list (names like "Benchmarks & Rankings") name
    this section? By its heading text or its id, ignoring case, punctuation and "and"/"&"."""
    names = {_name_key(n) for n in required}
    return _name_key(title) in names or _name_key(section_id) in names


def _norm(text: str) -> str:
    """Paragraph text for "unchanged?" comparisons: citations and spacing do not count."""
    return re.sub(r"\s+", " ", CITATION.sub("", text)).strip()


class PidKeeper:
    """Remembers the old article's paragraph ids and which are taken in the new one."""

    def __init__(
        self,
        old_paragraphs: Iterable[tuple[str | None, str, str]],
        taken: Collection[str],
        seed: str | None = None,
    ) -> None:
        # New ids are random, or drawn from ``seed`` when given: a saved proposal keeps its seed,
        # so the review rebuilds the very candidate the update built.
        self.seed = seed
        self.drawn = 0
        # (pid, tag, text) of every old paragraph, in order
        self.by_text: dict[str, list[str]] = {}
        self.old: set[str] = set()
        for pid, tag, text in old_paragraphs:
            if pid is None or not PID.match(pid):
                continue
            self.old.add(pid)
            if tag == "p" and _norm(text):
                self.by_text.setdefault(_norm(text), []).append(pid)
        self.taken: set[str] = set(taken)
        self.kept = 0
        self.generated = 0

    def _claim(self, pid: str) -> bool:
        if pid in self.taken:
            return False
        self.taken.add(pid)
        return True

    def choose(self, section: str, text: str, offered: str | None) -> str:
        if offered and offered in self.old and self._claim(offered):
            self.kept += 1
            return offered
        for pid in self.by_text.get(_norm(text), []):
            if self._claim(pid):
                self.kept += 1
                return pid
        while True:
            pid = self._new(section)
            if self._claim(pid):
                self.generated += 1
                return pid

    def _new(self, section: str) -> str:
        if self.seed is None:
            return new_pid(section)
        self.drawn += 1
        digest = hashlib.sha256(f"{self.seed}\n{section}\n{self.drawn}".encode()).hexdigest()
        return f"pid:{section}:{digest[:8]}"


def remove_stub_notices(text: str) -> str:
    """The ``.stub-notice`` elements of one chunk cut out; every other byte stays."""
    if "stub-notice" not in text:
        return text
    cut: list[tuple[int, int]] = []
    for node in read_model(text).root.iter():
        stub = node.kind == "element" and "stub-notice" in (node.attr("class") or "").split()
        if stub and (not cut or node.start >= cut[-1][1]):  # one inside another goes with it
            cut.append((node.start, node.end))
    for start, end in reversed(cut):
        text = text[:start] + text[end:]
    return text
