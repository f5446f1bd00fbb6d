"""The codes a finding can carry and their severities: the one table that ``oo check`` (one
file, format layer) and the library audit (many files) share, so both name a defect alike."""

from __future__ import annotations

__all__ = [
    "CHECKS",
    "SEVERITIES",
    "article_script",
    "unlinked_reference",
    "unmodelled_markup",
    "unsafe_text",
]

SEVERITIES = ("error", "warning", "info")

# code -> (severity, what it means). Severity may be lowered per finding where noted.
CHECKS: dict[str, tuple[str, str]] = {
    "unreadable": ("error", "the file is not a readable o-o document"),
    "invalid-json": ("error", "a JSON block is not valid JSON"),
    "invalid-block": ("error", "a JSON block has a value of the wrong type"),
    "missing-block": ("error", "a JSON block is missing"),
    "crlf-shell": ("error", "the shell lines end in CR LF: bash cannot run the file"),
    "unreadable-article": ("error", "the article element is missing or cannot be read"),
    "unresolved-citation": ("error", "an [sN] citation has no source in the cache"),
    "empty-cache": ("error", "a populated article with an empty source cache"),
    "denied-domain": ("error", "a cached source is in a domain the contract denies"),
    "orphan-reference": ("warning", "a reference has no cached source (by [sN], URL or domain)"),
    "duplicate-source-id": (
        "error",
        "one source id names several cached sources: which page a citation means is unknown",
    ),
    "duplicate-url": ("warning", "the same URL is cached under several ids"),
    "non-http-source": ("warning", "a cached source's URL is not http(s) (javascript:, data:…)"),
    "future-accessed": ("warning", "a source's access date is after today"),
    "odd-source-field": (
        "warning",
        "a source's verified or accessed value of the wrong kind, read as unknown (oo check)",
    ),
    "unsourced-fact": ("warning", "a fact object names no source"),
    "unknown-fact-source": ("warning", "a fact names a source id that is not cached"),
    "dead-link": ("warning", "a source URL answered 404/410, has no DNS name or never connects"),
    "moved-link": (
        "info",
        "a source URL redirects permanently: the next update proposes the new URL",
    ),
    "unsupported-fact": (
        "warning",
        "a fact's quote was not found in the text the update read from its sources",
    ),
    "old-source": ("warning", "a source was accessed longer ago than the limit"),
    "insecure-source": ("warning", "an http:// source where the contract requires https"),
    "missing-pid": ("warning", "paragraphs without a pid comment"),
    "malformed-pid": ("warning", "a pid that is not pid:SECTION:8HEX"),
    "duplicate-pid": ("warning", "a pid used by more than one element"),
    "unmodelled-markup": (
        "error",
        "article markup a browser reads otherwise than oo_nb (foreign-content raw text, a table's "
        "foster-parented content, a formatting element left open across blocks, a link inside a "
        "link)",
    ),
    "article-script": (
        "warning",
        "article markup that can run script in the reader's browser (an event handler, a "
        "<script>, a javascript: URL, a srcdoc, a meta refresh, a <base>), as page code can",
    ),
    "shadowed-block": (
        "error",
        "an element of the page's own markup (outside the article) has a JSON block's id: the "
        "page script shows that element's content, oo_nb reads the block",
    ),
    "unlinked-reference": (
        "warning",
        "a References entry the page script does not number (a nested or second list)",
    ),
    "duplicate-id": (
        "warning",
        "an id used by more than one element of the article: links and the contents go to the first",
    ),
    "unsafe-text": (
        "warning",
        "control, bidi or zero-width characters in the article's text or a block's text: a reader "
        "sees it reordered or hidden (a price shown as another), or a terminal rewritten",
    ),
    "overdue": ("warning", "the document is due by its cadence (today or earlier): is_stale"),
    "html-injection": (
        "warning",
        "the original page script would render a contract value, h2/h3 heading or paragraph "
        "attribute as HTML",
    ),
    "unknown-page-code": (
        "warning",
        "a shell or page-code region matches neither a known original o-o page nor our templates"
        " (info on pages with the original code: oo_nb cannot know every o-o version)",
    ),
    "never-updated": ("info", "the document has never been updated (as_of empty)"),
    "uncited-source": ("info", "a cached source is never cited in the article"),
    "string-facts": (
        "info",
        "facts in the original plain-string format, which cannot name a source (one row per "
        "document)",
    ),
}


def unmodelled_markup(line: int, what: str) -> str:
    """The ``unmodelled-markup`` message for ``what`` (``<style> inside <svg>``) at ``line``."""
    return (
        f"line {line}: {what}: a browser reads it otherwise than oo_nb does (sections, blocks); "
        "rewrite it"
    )


def article_script(line: int, what: str) -> str:
    """The ``article-script`` message for ``what`` (``<img onerror='…'> (an event handler)``)."""
    return (
        f"line {line}: {what}: markup in the article that can run script when the page is "
        "opened; read it before opening the page, and remove it if you did not write it"
    )


def unlinked_reference(line: int) -> str:
    """The ``unlinked-reference`` message for an entry at ``line``."""
    return (
        f"line {line}: a References entry in a nested or second list; the page numbers only the "
        "first list's own entries, so no [sN] links to it"
    )


def unsafe_text(where: str, names: list[str]) -> str:
    """The ``unsafe-text`` message for the characters ``names`` (escaped) found ``where``
    (``line 12`` of the article, ``oo-manifest title``)."""
    return (
        f"{where}: control or bidi character(s) {', '.join(names)}: a reader sees the text "
        "reordered or hidden, unlike what oo_nb reads from it; remove them"
    )
