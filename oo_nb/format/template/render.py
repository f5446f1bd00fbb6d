"""Render oo_nb's pages as text: a new document and the library index, and the marker
sections (``OO:CSS``, ``OO:JS``, ``OO:SHELL``, ``OO:CUSTOM``) that ``oo sync`` copies into
existing files.

Every value that comes from a user goes in as text: HTML through ``html.escape``, JSON through
``dump_block`` (which writes ``</`` as ``<\\/``), the whole HTML part through
``neutralise_terminator`` so no line can end the heredoc early. Shell code never contains a
user value at all: it reads the file name from ``$0``.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any, Literal

from oo_nb.errors import ValidationError
from oo_nb.format.document import neutralise_terminator
from oo_nb.format.jsonblock import dump_block
from oo_nb.format.names import (
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    HEREDOC_TERMINATOR,
    INDEX_CONTENT_END,
    INDEX_CONTENT_START,
    INDEX_NAME,
    LEGACY_HEREDOC_TERMINATOR,
    MANIFEST_BLOCK,
    RENDERING_BOUNDARY,
    SECTION_MARKERS,
    SOURCE_CACHE_BLOCK,
)
from oo_nb.format.template import asset
from oo_nb.format.vocab import UNSAFE_IN_LINE

__all__ = [
    "CSP",
    "CSP_BOOTSTRAP",
    "MARKERS",
    "PageKind",
    "css_section",
    "custom_section",
    "js_section",
    "render_document",
    "render_index",
    "shell_section",
    "stub_article",
]

PageKind = Literal["document", "index"]
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
# The shell lines before <!DOCTYPE> make the parser open <body> early, so a CSP <meta> in the
# markup lands outside <head> and Chromium ignores it. A policy meta inserted into document.head
# by script is enforced: this first script does that before anything else on the page loads.
CSP_BOOTSTRAP = (
    '<script>(function(){var m=document.createElement("meta");'
    'm.httpEquiv="Content-Security-Policy";'
    f'm.content="{CSP}";'
    "document.head.appendChild(m);})();</script>"
)
# section name -> (start line, end line); whole lines in the file (kept under its old name)
MARKERS = SECTION_MARKERS
_STYLE_END = re.compile(r"</style", re.IGNORECASE)
_CONTROL = re.compile(rf"{UNSAFE_IN_LINE.pattern}+")


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _one_line(text: str) -> str:
    """Titles and file names live on one line (a title's line breaks become spaces)."""
    return _CONTROL.sub(" ", text).strip()


# --------------------------------------------------------------------------- marker sections
def css_section(kind: PageKind = "document") -> str:
    start, end = MARKERS["css"]
    return f"{start}\n<style>\n{asset('base.css')}{asset(kind + '.css')}</style>\n{end}\n"


def js_section(kind: PageKind = "document") -> str:
    start, end = MARKERS["js"]
    body = asset("common.js") + asset(kind + ".js")
    return f'{start}\n<script>\n(function () {{\n"use strict";\n{body}}})();\n</script>\n{end}\n'


def shell_section(kind: PageKind = "document") -> str:
    start, end = MARKERS["shell"]
    return f"{start}\n{asset('common.sh')}{asset(kind + '.sh')}{end}\n"


def custom_section(css: str, *, source: str = "oo.css") -> str:
    """A user's stylesheet in the CUSTOM block. ``</style`` would end the block early and let
    the rest be read as HTML, and a line equal to the terminator would end the heredoc: both
    are refused rather than altered."""
    if _STYLE_END.search(css):
        raise ValidationError(
            "contains `</style`, which would end the page's style block early", file=source
        )
    if any(
        line.rstrip("\r") in (HEREDOC_TERMINATOR, LEGACY_HEREDOC_TERMINATOR)
        for line in css.split("\n")
    ):
        raise ValidationError(
            "contains a line `OO_HTML`, which would end the page early in bash", file=source
        )
    start, end = MARKERS["custom"]
    body = css if css.endswith("\n") else css + "\n"
    return f"{start}\n<style>\n{body}</style>\n{end}\n"


# --------------------------------------------------------------------------- documents
def stub_article(file_name: str) -> str:
    name = _esc(_one_line(file_name))
    return (
        '\n<div class="stub-notice">\n'
        "<p><strong>This document has not been researched yet.</strong></p>\n"
        "<p>Its first update fills it in:</p>\n"
        f"<p><code>bash {name}</code> &nbsp;or&nbsp; <code>oo update {name}</code></p>\n"
        "</div>\n"
    )


@dataclass(frozen=True)
class _Head:
    title: str
    kind: PageKind
    custom_css: str | None


def _head(h: _Head) -> str:
    custom = custom_section(h.custom_css) if h.custom_css is not None else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f"{CSP_BOOTSTRAP}\n"
        f"<title>{_esc(h.title)}</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"{css_section(h.kind)}{custom}"
        "</head>\n"
    )


def render_document(
    *,
    file_name: str,
    manifest: dict[str, Any],
    contract: dict[str, Any],
    source_cache: dict[str, Any],
    changelog: dict[str, Any] | list[Any],
    article_html: str | None = None,
    custom_css: str | None = None,
) -> str:
    """The complete text of a document page in the marker layout (FORMAT.md §1)."""
    name = _one_line(file_name)
    title = _one_line(str(manifest.get("title") or "Untitled"))
    version = manifest.get("version", 0)
    as_of = str(manifest.get("as_of") or "")
    article = stub_article(name) if article_html is None else article_html
    header = (
        "#!/usr/bin/env bash\n"
        "# o-o living document (made by oo_nb): open it in a browser to read it.\n"
        f"# To update: bash {name} [--force] [--model NAME] [--agent NAME]\n"
        f"# Help:      bash {name} --help\n"
        f": << '{HEREDOC_TERMINATOR}'\n"
    )
    page = (
        _head(_Head(title, "document", custom_css)) + "<body>\n"
        '<div class="wrap">\n'
        "<header>\n"
        f'<h1 id="doc-title">{_esc(title)}</h1>\n'
        f'<div class="meta">As of <span id="doc-asof">{_esc(as_of) if as_of else "&mdash;"}</span> &bull; '
        'Version <span class="version-badge" role="button" tabindex="0" aria-controls="contract-panel" '
        f'aria-expanded="false"><span id="doc-version">{_esc(str(version))}</span></span></div>\n'
        f'<p class="note">A living document: <code>bash {_esc(name)}</code> researches what changed and updates it.</p>\n'
        '<button type="button" class="theme-toggle" aria-label="Switch between light and dark theme"></button>\n'
        '<div class="contract-panel" id="contract-panel"></div>\n'
        "</header>\n"
        '<nav class="toc" id="toc" aria-label="Contents"></nav>\n'
        f'<article id="article">{article}</article>\n'
        '<footer id="run-meta"></footer>\n'
        "</div>\n"
        "\n"
        "<!-- Manifest: title, version, as-of date, update cadence -->\n"
        f'<script id="{MANIFEST_BLOCK}" type="application/json">\n{dump_block(manifest)}\n</script>\n'
        "\n"
        f"{js_section('document')}"
        "\n"
        "<!-- Update contract: what the research agent is asked to cover and how -->\n"
        f'<script id="{CONTRACT_BLOCK}" type="application/json">\n{dump_block(contract)}\n</script>\n'
        "\n"
        "<!-- Rendering boundary: the browser stops reading the page here -->\n"
        f"{RENDERING_BOUNDARY}\n"
        "\n"
        "<!-- Machine-readable zone: never shown; read by oo_nb and the research agent -->\n"
        f'<script id="{SOURCE_CACHE_BLOCK}" type="application/json">\n{dump_block(source_cache)}\n</script>\n'
        f'<script id="{CHANGELOG_BLOCK}" type="application/json">\n{dump_block(changelog)}\n</script>\n'
        "</body>\n"
        "</html>\n"
    )
    return (
        header
        + neutralise_terminator(page)
        + f"{HEREDOC_TERMINATOR}\n"
        + shell_section("document")
        + "exit 0\n"
    )


# --------------------------------------------------------------------------- index
def render_index(
    *,
    title: str,
    content_html: str,
    count: int,
    last_scan: str,
    file_name: str = INDEX_NAME,
    custom_css: str | None = None,
) -> str:
    """The complete text of oo_nb's own library index page; ``content_html`` goes between the
    INDEX-CONTENT markers (FORMAT.md §4), where ``oo index`` later replaces it."""
    name = _one_line(file_name)
    clean_title = _one_line(title) or "Library"
    header = (
        "#!/usr/bin/env bash\n"
        "# o-o library index (made by oo_nb): open it in a browser to browse the documents beside it.\n"
        f'# Rebuild:  bash {name}            New document: bash {name} --new "Title / scope"\n'
        f"# Update:   bash {name} --update-all [--force]\n"
        f"# Help:     bash {name} --help\n"
        f": << '{HEREDOC_TERMINATOR}'\n"
    )
    page = (
        _head(_Head(clean_title, "index", custom_css)) + "<body>\n"
        '<div class="wrap">\n'
        "<header>\n"
        f'<h1 id="doc-title">{_esc(clean_title)}</h1>\n'
        '<p class="subtitle">Living documents, kept current by their research agent</p>\n'
        '<button type="button" class="theme-toggle" aria-label="Switch between light and dark theme"></button>\n'
        "</header>\n"
        '<div class="stats-bar">\n'
        f'  <div class="stat"><strong id="doc-count">{count}</strong> documents</div>\n'
        f'  <div class="stat">Last scanned: <span id="last-scan">{_esc(last_scan)}</span></div>\n'
        "</div>\n"
        '<div class="search-bar">\n'
        '  <input type="search" id="search-input" placeholder="Search documents..." '
        'aria-label="Search documents" autocomplete="off">\n'
        "</div>\n"
        '<p id="no-results" hidden>No document matches your search.</p>\n'
        '<article id="article">\n'
        f"  {INDEX_CONTENT_START}\n"
        f"{content_html}"
        f"  {INDEX_CONTENT_END}\n"
        "</article>\n"
        "</div>\n"
        "\n"
        f"{js_section('index')}"
        "\n"
        "<!-- Rendering boundary: the browser stops reading the page here -->\n"
        f"{RENDERING_BOUNDARY}\n"
        "</body>\n"
        "</html>\n"
    )
    return (
        header
        + neutralise_terminator(page)
        + f"{HEREDOC_TERMINATOR}\n"
        + shell_section("index")
        + "exit 0\n"
    )
