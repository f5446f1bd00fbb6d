"""The data a review works on: hunks (one reviewable change each) and their field changes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from oo_nb.review.images import ImageRef
from oo_nb.review.words import WordOp, word_diff

__all__ = ["Area", "Choice", "Decision", "FieldChange", "Hunk", "Kind", "pretty_json"]

Kind = Literal["added", "removed", "changed"]
Decision = Literal["pending", "accept", "reject", "edit"]


@dataclass(frozen=True)
class Choice:
    decision: Decision = "pending"
    html: str | None = None  # the sanitised replacement, for "edit"

    @property
    def takes_candidate(self) -> bool:
        return self.decision in ("accept", "edit")


Area = Literal[
    "article", "sources", "facts", "manifest", "contract", "source-cache", "changelog", "page"
]


def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False)


@dataclass(frozen=True)
class FieldChange:
    """One leaf of a JSON block: ``path`` like ``("identity", "scope")``."""

    path: tuple[str, ...]
    kind: Kind
    before: Any = None
    after: Any = None

    @property
    def name(self) -> str:
        return ".".join(self.path)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.name, "kind": self.kind, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class Hunk:
    """One reviewable change. Article hunks carry HTML (embedded images replaced by
    ``oo-image:N`` references, see ``images``) and text; block hunks carry field changes and
    pretty JSON. A ``derived`` hunk is not decided on its own: it follows the other decisions
    (the References list, version and dates, the new changelog entry)."""

    id: str
    index: int
    area: Area
    kind: Kind
    title: str
    section: str = ""
    pid: str | None = None
    tag: str = ""
    key: str | None = None  # source id, fact key, or field path
    before_html: str = ""
    after_html: str = ""
    before_text: str = ""
    after_text: str = ""
    fields: tuple[FieldChange, ...] = ()
    images: tuple[ImageRef, ...] = ()
    moved: bool = False
    derived: bool = False
    unverified: bool = False
    badges: tuple[str, ...] = ()  # quote check: "quote found" / "quote not found ..."
    cited: tuple[str, ...] = ()  # "[sN] passage" the API cited from the pages a paragraph cites
    lines: bool = False  # shown line by line (the References list: one line per entry)
    whole_section: bool = False  # a removed section: its heading and text as one change

    @property
    def editable(self) -> bool:
        return self.area == "article" and not self.derived

    @property
    def decidable(self) -> bool:
        return not self.derived

    @property
    def markup_only(self) -> bool:
        """The text reads the same; only the HTML changed (a link, an image, emphasis)."""
        return (
            self.kind == "changed"
            and self.before_text == self.after_text
            and self.before_html != self.after_html
        )

    @cached_property
    def words(self) -> tuple[WordOp, ...]:
        """Word-level highlights between the before and after text, or between the HTML when
        only the markup changed (computed on first use)."""
        if self.lines:
            return ()
        if self.markup_only:
            return word_diff(self.before_html, self.after_html)
        return word_diff(self.before_text, self.after_text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "area": self.area,
            "kind": self.kind,
            "title": self.title,
            "section": self.section,
            "pid": self.pid,
            "tag": self.tag,
            "key": self.key,
            "before_html": self.before_html,
            "after_html": self.after_html,
            "before_text": self.before_text,
            "after_text": self.after_text,
            "fields": [f.to_dict() for f in self.fields],
            "images": [{"ref": i.ref, "mime": i.mime, "bytes": i.size_bytes} for i in self.images],
            "moved": self.moved,
            "derived": self.derived,
            "unverified": self.unverified,
            "badges": list(self.badges),
            "cited": list(self.cited),
            "words": [[w.op, w.text] for w in self.words],
        }
