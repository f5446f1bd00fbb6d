"""A review in progress: one decision per hunk (accept, reject, or edit), accept all / reject
all, and ``apply()`` to build the final document. The session never writes a file."""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass
from typing import Any

from oo_nb.errors import OOError, ValidationError
from oo_nb.format.article_model import read_model
from oo_nb.format.document import Document
from oo_nb.format.html_tokens import tokenize
from oo_nb.format.legacy_script import inert_fragment, runs_original_script
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from oo_nb.format.vocab import PID, truncate
from oo_nb.review.apply import ApplyResult, build_final, cited_ids
from oo_nb.review.blocks import source_ids
from oo_nb.review.diff import DocumentDiff, diff_documents
from oo_nb.review.hunks import Choice, Decision, Hunk
from oo_nb.review.units import text_of

__all__ = ["Choice", "Conflict", "Decision", "EditCheck", "ReviewSession"]

_SPACES = re.compile(r"\s*")
# What a section heading's edit may not hold: another heading or a block (it would stop being
# a heading). Read by article_model, as a browser reads the typed HTML.
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_NOT_IN_HEADING = _HEADINGS | frozenset(
    [
        "p",
        "div",
        "section",
        "article",
        "ul",
        "ol",
        "li",
        "dl",
        "table",
        "figure",
        "blockquote",
        "pre",
        "hr",
        "img",
        "details",
    ]
)
_SAFE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,79}$")
# Blocks edited as their text: the editor shows what is inside the tag, and text typed without
# a block of its own goes back into this tag (a paragraph stays a paragraph, its [sN] a citation).
_TEXT_BLOCKS = frozenset(("p", "h3", "h4", "h5", "h6"))
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class EditCheck:
    """What an edit would write (``clean``) and what cleaning took out of the typed text
    (``removed``, in a reader's words; empty when nothing was)."""

    clean: str
    removed: tuple[str, ...] = ()


def _without_pids(html: str) -> str:
    """``html`` without the pid comments (and the spaces after each) copied with a block's text:
    the edit's block gets its pid from the change. Comments as a browser ends them; the text
    of an attribute value is kept whatever it holds."""
    out: list[str] = []
    at = 0
    for tok in tokenize(html):
        if tok.kind == "comment" and PID.match(tok.data):
            out.append(html[at : tok.start])
            spaces = _SPACES.match(html, tok.end)
            at = spaces.end() if spaces else tok.end
    out.append(html[at:])
    return "".join(out)


def _tops(fragment: str) -> list[Any]:
    """The top-level nodes of ``fragment`` a reader sees (no comments, no blank text)."""
    return [
        n
        for n in read_model(fragment).root.children
        if n.kind == "element" or (n.kind == "text" and n.data.strip())
    ]


def _inline_only(clean: str) -> bool:
    from oo_nb.format.sanitize import INLINE_TAGS

    return all(n.kind == "text" or n.name in INLINE_TAGS for n in _tops(clean))


def _inside_text_block(fragment: str) -> str:
    """The inside of a lone, attribute-free ``<p>`` (or h3-h6), else ``fragment`` as it is."""
    tops = _tops(fragment)
    if len(tops) == 1 and tops[0].kind == "element" and tops[0].name in _TEXT_BLOCKS:
        node = tops[0]
        if fragment[node.start : node.open_end] == f"<{node.name}>":
            return fragment[node.open_end : node.close_start].strip()
    return fragment


@dataclass(frozen=True)
class Conflict:
    """Two decisions that disagree: a source decided out (a new one rejected, an old one's
    removal accepted) that kept text still cites, so writing would keep it anyway. Asked about
    before writing: ``ReviewSession.resolve(conflict, keep=...)``."""

    source_id: str
    source_change: str  # the id of the source's own change
    citing: tuple[str, ...]  # the changes whose decision makes the kept text cite it
    question: str  # in the reader's words, without change ids
    keep_label: str  # what keeping the source means, as a button or answer says it
    drop_label: str  # what giving it up means ("" when no change of text would)


class ReviewSession:
    """Decisions on the hunks of ``diff_documents(original, candidate)``. Undecided hunks are
    treated as rejected by ``apply()``: nothing unreviewed is written."""

    def __init__(
        self,
        original: Document,
        candidate: Document,
        run: dict[str, Any] | None = None,
        *,
        diff: DocumentDiff | None = None,
    ) -> None:
        self.diff = diff if diff is not None else diff_documents(original, candidate, run)
        self.run = dict(run or {})
        self._choices: dict[str, Choice] = {h.id: Choice() for h in self.diff.decidable}
        self._result: ApplyResult | None = None

    # ----------------------------------------------------------------- reading
    @property
    def original(self) -> Document:
        return self.diff.original

    @property
    def candidate(self) -> Document:
        return self.diff.candidate

    @property
    def hunks(self) -> tuple[Hunk, ...]:
        return self.diff.hunks

    def hunk(self, hunk_id: str) -> Hunk:
        try:
            return self.diff.hunk(hunk_id)
        except KeyError:
            raise OOError(
                f"no change {hunk_id!r} in this review", file=self.original.file
            ) from None

    def choice(self, hunk_id: str) -> Choice:
        self._decidable(hunk_id)
        return self._choices[hunk_id]

    def decision(self, hunk_id: str) -> Decision:
        return self.choice(hunk_id).decision

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(h for h, c in self._choices.items() if c.decision == "pending")

    def counts(self) -> dict[str, int]:
        out = {"pending": 0, "accept": 0, "reject": 0, "edit": 0}
        for c in self._choices.values():
            out[c.decision] += 1
        return out

    def editor_text(self, hunk_id: str) -> str:
        """What an editor starts from: the current edit, else the proposed text (the old text
        for a removal). A paragraph (or h3-h6) shows what is inside its tag, as text with any
        inline HTML; other blocks show their HTML. Embedded images appear as ``oo-image:N``
        references."""
        hunk = self.hunk(hunk_id)
        c = self._choices.get(hunk_id)
        if c is not None and c.decision == "edit" and c.html is not None:
            fragment = self.diff.images.shrink(c.html)[0]
        else:
            fragment = hunk.after_html if hunk.kind != "removed" else hunk.before_html
        return _inside_text_block(fragment)

    # ----------------------------------------------------------------- deciding
    def _decidable(self, hunk_id: str) -> Hunk:
        hunk = self.hunk(hunk_id)
        if hunk.derived:
            raise OOError(
                f"{hunk.title}: this change comes with the other decisions and cannot be decided "
                "on its own",
                file=self.original.file,
            )
        return hunk

    def _set(self, hunk_id: str, choice: Choice) -> None:
        self._decidable(hunk_id)
        self._choices[hunk_id] = choice
        self._result = None

    def accept(self, hunk_id: str) -> None:
        self._set(hunk_id, Choice("accept"))

    def reject(self, hunk_id: str) -> None:
        self._set(hunk_id, Choice("reject"))

    def reset(self, hunk_id: str) -> None:
        self._set(hunk_id, Choice())

    def decide(self, hunk_id: str, decision: Decision) -> None:
        if decision == "edit":
            raise OOError("use edit(change_id, text) to give the edited text")
        self._set(hunk_id, Choice(decision))

    def accept_all(self) -> int:
        """Accept every change except the ones edited by hand (an edit is a decision the user
        typed out; a bulk click must not throw it away). Returns how many edits were kept."""
        return self._all(Choice("accept"))

    def reject_all(self) -> int:
        """Reject every change except the edited ones (see ``accept_all``)."""
        return self._all(Choice("reject"))

    def _all(self, choice: Choice) -> int:
        kept = 0
        for hid, current in self._choices.items():
            if current.decision == "edit":
                kept += 1
            else:
                self._choices[hid] = choice
        self._result = None
        return kept

    def take_decisions(self, other: ReviewSession) -> None:
        """Take the decisions of ``other``, a review of the same changes asked elsewhere (a
        terminal review asks on a copy: quit early, it leaves these as they were)."""
        if other.diff is not self.diff:
            raise ValueError("take_decisions: not a review of the same changes")
        self._choices = dict(other._choices)
        self._result = None

    def edit(self, hunk_id: str, html: str) -> str:
        """Replace the hunk's text with ``html`` (plain text or HTML; sanitised, validated, see
        ``check_edit``) and return the clean HTML that will be written. Raises
        ``ValidationError`` naming the change when it is unusable."""
        clean = self.check_edit(hunk_id, html).clean
        self._set(hunk_id, Choice("edit", clean))
        return clean

    def check_edit(self, hunk_id: str, text: str) -> EditCheck:
        """What ``edit(hunk_id, text)`` would write and what cleaning would take out of
        ``text``, without deciding anything: ask the person before using an edit that lost
        something. Plain text is welcome: without a block of its own it goes into the change's
        own tag (``<p>``), a blank line starting a new one; ``[s3]`` cites source s3."""
        from oo_nb.format.sanitize import removed_by_cleaning

        hunk = self._decidable(hunk_id)
        if not hunk.editable:
            raise ValidationError(
                f"{hunk.title}: only article text can be edited",
                file=self.original.file,
            )
        expanded = _without_pids(self.diff.images.expand(text)).strip()
        clean = self._clean(hunk, text)
        return EditCheck(clean, tuple(removed_by_cleaning(expanded, clean)))

    def _clean(self, hunk: Hunk, html: str) -> str:
        from oo_nb.format.sanitize import (
            sanitize_html,  # imported on first edit: nh3 is not needed before
        )

        expanded = _without_pids(self.diff.images.expand(html)).strip()
        # a section heading stays an h2 with its id, whatever was typed (a whole removed section
        # edited back is a heading and its text: the sanitiser takes it as any article text)
        if hunk.tag == "h2" and not hunk.whole_section:
            typed, inner = self._heading_parts(hunk, expanded)
            hid = _written_id(hunk) or typed
            if typed and typed != hid:  # the id names the section (its pids, links to it)
                raise ValidationError(
                    f"{hunk.title}: the heading's id is {hid!r} (the section's name); change "
                    f"its text, not its id (got {typed!r})",
                )
            if hid and not _SAFE_ID.match(hid):
                raise ValidationError(f"{hunk.title}: heading id {hid!r} is not usable")
            inner = sanitize_html(f"<span>{inner}</span>")
            # a heading without an id (a hand-written page) keeps having none
            attr = f' id="{html_lib.escape(hid)}"' if hid else ""
            clean = f"<h2{attr}>{inner.removeprefix('<span>').removesuffix('</span>')}</h2>"
        else:
            clean = sanitize_html(expanded).strip()
            if _inline_only(clean):  # typed as text: it goes back into its block's tag
                tag = hunk.tag if hunk.tag in _TEXT_BLOCKS else "p"
                chunks = (sanitize_html(c).strip() for c in _BLANK_LINE.split(expanded))
                clean = "\n".join(f"<{tag}>{c}</{tag}>" for c in chunks if c)
        if runs_original_script(self.original):  # its script re-reads headings as HTML
            clean, _ = inert_fragment(clean)
        if not text_of(clean) and "<img" not in clean:
            raise ValidationError(
                f"{hunk.title}: the edited text is empty after cleaning; reject the hunk to drop it",
                file=self.original.file,
            )
        cited = cited_ids(clean)
        unknown = sorted(cited - self._known_sources(cited))
        if unknown:
            raise ValidationError(
                f"{hunk.title}: cites {', '.join(unknown)}, which neither version's sources hold",
                file=self.original.file,
            )
        return clean

    @staticmethod
    def _heading_parts(hunk: Hunk, expanded: str) -> tuple[str, str]:
        """The typed ``id`` ("" when none: the attribute itself, not ``data-id`` nor an
        ``id=`` inside another attribute's value) and inner HTML of a section heading's edit:
        one heading element (an h3 typed for it is still this section's h2), or bare inline text
        (the heading's words alone). Anything more would turn the heading into something else,
        so it is refused."""
        root = read_model(expanded).root
        tops = [n for n in root.children if n.kind != "text" or n.data.strip()]
        inside = [n for n in root.iter() if n.kind == "element" and n.name in _NOT_IN_HEADING]
        if len(tops) == 1 and tops[0].name in _HEADINGS and inside == tops:
            head = tops[0]
            return head.attr("id") or "", expanded[head.open_end : head.close_start]
        if not inside:
            return "", expanded
        raise ValidationError(
            f"{hunk.title}: a heading edit holds one <h2> only (edit the text under it in its own "
            "change)",
        )

    def _known_sources(self, cited: set[str]) -> set[str]:
        """Those of ``cited`` either version's cache holds or its References list gives an
        entry (the entry the page links the citation to)."""
        known: set[str] = set()
        for doc in (self.original, self.candidate):
            if doc.has_block(SOURCE_CACHE_BLOCK):
                known |= set(source_ids(doc.block_json(SOURCE_CACHE_BLOCK)))
            known |= doc.article.listed_ids(cited)
        return known

    # ----------------------------------------------------------------- conflicts
    def conflicts(self) -> tuple[Conflict, ...]:
        """The disagreements between decisions that writing would settle on its own (a source
        decided out but cited by kept text is kept): ask the person first."""
        found = []
        for sid in self.result().kept_cited:
            source = self.hunk(f"src:{sid}")
            citing = tuple(
                h.id
                for h in self.diff.decidable
                if h.area == "article" and sid in cited_ids(self._kept_text(h))
            )
            label = source.title.split(": ", 1)[-1] if ": " in source.title else sid
            what = (
                " and ".join(
                    f"“{truncate(self._kept_words(self.hunk(h)), 70)}”" for h in citing[:3]
                )
                if citing
                else "text or a fact you kept"
            )
            cites = "cite" if len(citing) > 1 else "cites"
            if source.kind == "added":
                question = f"You rejected the new source {sid} ({label}), but {what} {cites} it."
                keep = f"Keep source {sid}"
            else:
                question = (
                    f"You accepted removing source {sid} ({label}), but {what} still {cites} it."
                )
                keep = f"Keep source {sid} (do not remove it)"
            took = [self.choice(h).takes_candidate for h in citing]
            drop = (
                ""
                if not citing
                else "Reject the text citing it"
                if all(took)
                else "Accept the text without the citation"
                if not any(took)
                else "Reverse the decisions on the text citing it"
            )
            found.append(Conflict(sid, source.id, citing, question, keep, drop))
        return tuple(found)

    def resolve(self, conflict: Conflict, *, keep: bool) -> None:
        """Settle ``conflict``: ``keep`` the source (its own change decided the other way), or
        reverse the decisions on the text that cites it (an edit among them is rejected)."""
        if keep:
            source = self.hunk(conflict.source_change)
            self._set(source.id, Choice("accept" if source.kind == "added" else "reject"))
            return
        for hid in conflict.citing:
            self._set(hid, Choice("reject" if self.choice(hid).takes_candidate else "accept"))

    def _kept_text(self, hunk: Hunk) -> str:
        c = self._choices.get(hunk.id, Choice())
        if c.decision == "edit" and c.html is not None:
            return c.html
        return hunk.after_html if c.takes_candidate else hunk.before_html

    def _kept_words(self, hunk: Hunk) -> str:
        c = self._choices.get(hunk.id, Choice())
        return (
            text_of(self._kept_text(hunk))
            if c.decision == "edit"
            else (hunk.after_text if c.takes_candidate else hunk.before_text)
        )

    # ----------------------------------------------------------------- result
    def result(self) -> ApplyResult:
        if self._result is None:
            self._result = build_final(self.diff, dict(self._choices))
        return self._result

    def apply(self) -> Document:
        """The final document: the original if nothing was accepted (same bytes), the candidate
        if everything was accepted as proposed, else a consistent merge."""
        return self.result().document

    def __repr__(self) -> str:
        c = self.counts()
        return (
            f"<ReviewSession {self.original.file or '(unsaved)'}: {len(self._choices)} hunks, "
            f"{c['accept']} accepted, {c['edit']} edited, {c['reject']} rejected, {c['pending']} pending>"
        )


def _written_id(hunk: Hunk) -> str:
    """The id a section heading's hunk holds as its attribute ("" when none: the page script
    gives it one, the hunk's ``key``, which an edit does not write)."""
    head = next(iter(read_model(hunk.after_html or hunk.before_html).elements("h2")), None)
    return (head.attr("id") or "") if head is not None else ""
