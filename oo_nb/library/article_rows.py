"""What a library scan keeps of one article: the rows ``digest.scan_article`` fills from the article
model."""

from __future__ import annotations

from dataclasses import dataclass, field

from oo_nb.format.legacy_script import InjectionRisk

__all__ = ["LEAD_CHARS", "ArticleScan"]

LEAD_CHARS = 120  # of an odd element's text: enough for its first words


@dataclass(slots=True)
class ArticleScan:
    sections: list[tuple[str, int]] = field(default_factory=list)  # (id, level)
    paragraphs: list[tuple[str | None, str, str]] = field(
        default_factory=list
    )  # (pid, section, tag)
    citations: list[tuple[str, str | None, str]] = field(
        default_factory=list
    )  # (section, pid, sid)
    references: list[tuple[int, str | None, str]] = field(default_factory=list)  # (pos, sid, url)
    pids: list[str] = field(default_factory=list)
    # the start of the element of each malformed or duplicate pid and of each section's first
    # <p> without a pid, so a pid finding can name the paragraph by its words
    leads: dict[str, str] = field(default_factory=dict)
    unpidded_leads: dict[str, str] = field(default_factory=dict)
    figures: int = 0
    is_stub: bool = True
    # what the original page script would turn into markup (legacy_script), when asked for
    injection_risks: list[InjectionRisk] = field(default_factory=list)
    # markup a browser reads otherwise (offset in the article, what) and References entries
    # the page does not number (offset): ``oo check``'s two findings, for the audit
    unmodelled: list[tuple[int, str]] = field(default_factory=list)
    unnumbered: list[int] = field(default_factory=list)
    # markup that can run script (offset in the article, what): ``oo check``'s article-script
    scripted: list[tuple[int, str]] = field(default_factory=list)
