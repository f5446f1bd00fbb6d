"""A section is one piece when it is new or removed: a new section's body follows its heading,
and a removed section's heading follows its body. Deciding them apart could otherwise leave a
paragraph under another section's heading, or a heading with nothing under it."""

from __future__ import annotations

from collections.abc import Mapping

from oo_nb.review.diff import DocumentDiff
from oo_nb.review.hunks import Choice

__all__ = ["tie_sections"]


def tie_sections(
    diff: DocumentDiff, choices: Mapping[str, Choice]
) -> tuple[dict[str, Choice], list[str]]:
    """The decisions as they take effect, and a note for each one the section rule changed.

    - A new section whose heading is not accepted is not added: accepted changes in its body
      that only exist there (new or moved-in units) are not applied. But an edit is never
      overwritten: when one of those was edited by hand, the heading is accepted instead.
    - A new section whose heading is accepted but none of whose body is kept is not added
      either (an empty heading is not a section), unless the heading itself was edited.
    - A removed section's heading stays while any of its paragraphs stays (rejected removal),
      and goes when all of them go, whatever was decided on the heading itself.
    """
    return _Tie(diff, choices).run()


class _Tie:
    def __init__(self, diff: DocumentDiff, choices: Mapping[str, Choice]) -> None:
        self.diff = diff
        self.plan = diff.article
        self.out: dict[str, Choice] = {h.id: choices.get(h.id, Choice()) for h in diff.decidable}
        self.notes: list[str] = []
        self.slot_after = {s.after: n for n, s in enumerate(self.plan.slots) if s.after is not None}
        self.slot_before = {
            s.before: n for n, s in enumerate(self.plan.slots) if s.before is not None
        }

    def takes(self, hunk_id: str) -> bool:
        return self.out.get(hunk_id, Choice()).takes_candidate

    def run(self) -> tuple[dict[str, Choice], list[str]]:
        headings = [
            (n, self.diff.hunk(hid)) for n, hid in enumerate(self.plan.hunk_ids) if hid is not None
        ]
        headings = [(n, h) for n, h in headings if h.tag == "h2" and not h.derived and not h.moved]
        for n, hunk in headings:
            if hunk.kind == "added":
                self.new_section(n, hunk.id, hunk.key or hunk.title)
        for n, hunk in headings:
            if hunk.kind == "removed":
                self.removed_section(n, hunk.id, hunk.key or hunk.title)
        return self.out, self.notes

    def _body(self, units: int, start: int, side: str) -> list[int]:
        """Slot numbers of the units after index ``start`` up to the next h2 on ``side``."""
        seq = self.plan.after if side == "after" else self.plan.before
        where = self.slot_after if side == "after" else self.slot_before
        out = []
        for i in range(start + 1, units):
            if seq[i].tag == "h2":
                break
            out.append(where[i])
        return out

    def new_section(self, n: int, hid: str, name: str) -> None:
        start = self.plan.slots[n].after
        assert start is not None
        body = self._body(len(self.plan.after), start, "after")
        if not body:  # the candidate itself adds an empty section: nothing to tie
            return
        if not self.takes(hid):
            edited = [m for m in body if self._edited_here(m)]
            if edited:
                # an edit is never overwritten: the edited text needs its heading, so the
                # heading is kept (as the candidate has it) rather than the edit dropped
                self.out[hid] = Choice("accept")
                self.notes.append(
                    f"new section {name!r} added although its heading was rejected: you edited "
                    f"{len(edited)} change(s) under it, and an edit is never dropped "
                    f"(reject those edits too to leave the section out)"
                )
                return
            dropped = 0
            for m in body:
                other = self.plan.hunk_ids[m]
                if other is None:
                    continue
                unit = self.diff.hunk(other)
                if (unit.kind == "added" or unit.moved) and self.takes(other):
                    self.out[other] = Choice("reject")
                    dropped += 1
            if dropped:
                self.notes.append(
                    f"new section {name!r} not added because its heading was not accepted: "
                    f"{dropped} change(s) under it not applied"
                )
            return
        if not any(self._places(m) for m in body):
            if self.out[hid].decision == "edit":  # an edit is never overwritten
                self.notes.append(
                    f"new section {name!r} added with no text under it: you edited its heading"
                )
                return
            self.out[hid] = Choice("reject")
            self.notes.append(
                f"new section {name!r} not added: none of the text under its heading was accepted"
            )

    def _edited_here(self, m: int) -> bool:
        """Is slot ``m`` a hand-edited unit that only exists in the new section?"""
        other = self.plan.hunk_ids[m]
        if other is None:
            return False
        unit = self.diff.hunk(other)
        return (unit.kind == "added" or unit.moved) and self.out.get(
            other, Choice()
        ).decision == "edit"

    def _places(self, m: int) -> bool:
        """Does slot ``m`` put a unit in the final article?"""
        other = self.plan.hunk_ids[m]
        if other is None:
            return True  # unchanged
        unit = self.diff.hunk(other)
        if unit.kind == "changed" and not unit.moved:
            return True  # one side or the other stays here
        slot = self.plan.slots[m]
        if unit.moved:  # the old place when rejected, the new place when taken
            return self.takes(other) == (slot.after is not None)
        return self.takes(other) == (unit.kind == "added")

    def _left_behind(self, m: int) -> bool:
        other = self.plan.hunk_ids[m]
        if other is None:
            return False
        unit = self.diff.hunk(other)
        return (unit.kind == "removed" or unit.moved) and not self.takes(other)

    def removed_section(self, n: int, hid: str, name: str) -> None:
        start = self.plan.slots[n].before
        assert start is not None
        body = self._body(len(self.plan.before), start, "before")
        if not body:
            return
        # only text the candidate drops can be left under no heading: unchanged or changed units
        # are in the candidate too, under the heading before (the candidate merged the sections)
        kept = any(self._left_behind(m) for m in body)
        if self.takes(hid) and kept:
            self.out[hid] = Choice("reject")
            self.notes.append(f"section heading {name!r} kept: some of the text under it is kept")
        elif not self.takes(hid) and not any(self._places(m) for m in body):
            self.out[hid] = Choice("accept")
            self.notes.append(
                f"section {name!r} removed: all of the text under its heading was removed"
            )
