"""The vocabulary of the o-o format: file and folder names, block ids and marker strings.

Each of these strings is part of the format (FORMAT.md) or of the files oo_nb keeps beside a
document, so more than one module tests for it or builds it. This module is their one home: code
imports the constant instead of spelling the string again. It imports nothing from oo_nb, so any
layer may use it. Prose (docstrings, help texts, error messages) may still spell them out.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "BLOCK_IDS",
    "BLOCK_PREFIX",
    "BLOCK_WORDS",
    "CACHE_DIR",
    "CACHE_FILE",
    "CASSETTE_DIR",
    "CASSETTE_SUFFIX",
    "CHANGELOG_BLOCK",
    "CONTRACT_BLOCK",
    "DOC_SUFFIX",
    "HEREDOC_TERMINATOR",
    "HISTORY_DIR",
    "IMAGE_REF_PREFIX",
    "INDEX_CONTENT_END",
    "INDEX_CONTENT_START",
    "INDEX_NAME",
    "LEGACY_BLOCK_PREFIX",
    "LEGACY_HEREDOC_TERMINATOR",
    "LEGACY_LOCK_SUFFIX",
    "LOCK_NAME",
    "MANIFEST_BLOCK",
    "MAX_IMAGE_PIXELS",
    "MAX_IMAGE_SIDE",
    "NEW_DEFAULTS_FILE",
    "PENDING_PROPOSAL",
    "RENDERING_BOUNDARY",
    "RESERVED_ID_PREFIXES",
    "SECTION_MARKERS",
    "SOURCE_CACHE_BLOCK",
    "BlockId",
]

# --------------------------------------------------------------------------- files
# Every document is NAME.o-o.html: a file is found, listed and named by this suffix.
DOC_SUFFIX: Final = ".o-o.html"
# The library index page a folder's documents are listed on (FORMAT.md §4).
INDEX_NAME: Final = f"index{DOC_SUFFIX}"

# --------------------------------------------------------------------------- the page
# The bash heredoc around the page: `: << 'OO_HTML'` ... `OO_HTML`. Files written before the
# rename still use LIKI_HTML, and are read the same way.
HEREDOC_TERMINATOR: Final = "OO_HTML"
LEGACY_HEREDOC_TERMINATOR: Final = "LIKI_HTML"

# The JSON blocks, ``<script id="…" type="application/json">`` (FORMAT.md §1), in page order.
# ``BlockId`` spells the same four ids as a type (a Literal cannot be built from constants);
# mypy checks BLOCK_IDS against it.
BlockId = Literal["oo-manifest", "oo-contract", "oo-source-cache", "oo-changelog"]
MANIFEST_BLOCK: Final = "oo-manifest"
CONTRACT_BLOCK: Final = "oo-contract"
SOURCE_CACHE_BLOCK: Final = "oo-source-cache"
CHANGELOG_BLOCK: Final = "oo-changelog"
BLOCK_IDS: Final[tuple[BlockId, ...]] = (
    MANIFEST_BLOCK,
    CONTRACT_BLOCK,
    SOURCE_CACHE_BLOCK,
    CHANGELOG_BLOCK,
)
# The blocks as a reader knows them: what a notebook or a review shows instead of the ids.
BLOCK_WORDS: Final[dict[str, str]] = {
    MANIFEST_BLOCK: "document details",
    CONTRACT_BLOCK: "contract",
    SOURCE_CACHE_BLOCK: "saved sources",
    CHANGELOG_BLOCK: "change log",
}
# Block ids start with BLOCK_PREFIX; files from before the rename use LEGACY_BLOCK_PREFIX, read
# as the same blocks. Ids with either prefix belong to the format: article content may not use them.
BLOCK_PREFIX: Final = "oo-"
LEGACY_BLOCK_PREFIX: Final = "liki-"
RESERVED_ID_PREFIXES: Final = (BLOCK_PREFIX, LEGACY_BLOCK_PREFIX)

# The template's sections that `oo sync` replaces with this version's copy:
# section name -> (start line, end line); whole lines in the file.
SECTION_MARKERS: Final[dict[str, tuple[str, str]]] = {
    "css": ("<!-- OO:CSS:START -->", "<!-- OO:CSS:END -->"),
    "js": ("<!-- OO:JS:START -->", "<!-- OO:JS:END -->"),
    "shell": ("# OO:SHELL:START", "# OO:SHELL:END"),
    "custom": ("<!-- OO:CUSTOM:START -->", "<!-- OO:CUSTOM:END -->"),
}
# The browser stops reading the page here; the machine-readable blocks come after it.
RENDERING_BOUNDARY: Final = "<script>window.stop();</script>"
# An index page's generated content sits between these comments (FORMAT.md §4); `oo index`
# rewrites only what is between them, and a page with them and no JSON blocks is an index.
INDEX_CONTENT_START: Final = "<!-- INDEX-CONTENT-START -->"
INDEX_CONTENT_END: Final = "<!-- INDEX-CONTENT-END -->"
# ``oo-image:N`` stands for the document's Nth embedded image wherever base64 data would be in
# the way: in the article the research agent reads, and in review hunks.
IMAGE_REF_PREFIX: Final = "oo-image:"

# --------------------------------------------------------------------------- beside a document
# .oo-history/<file name>/ holds snapshots, the writer's lock and the pending proposal.
HISTORY_DIR: Final = ".oo-history"
LOCK_NAME: Final = "lock"
PENDING_PROPOSAL: Final = "pending.json"  # the proposal `oo review` opens
# An early version locked a document with NAME.oo-lock beside it; such leftovers are removed
# with the demo's own files.
LEGACY_LOCK_SUFFIX: Final = ".oo-lock"
# Recorded agent runs for replay: NAME.cassette.json beside the document, or
# .oo-cassettes/NAME.o-o.html.json in its folder.
CASSETTE_SUFFIX: Final = ".cassette.json"
CASSETTE_DIR: Final = ".oo-cassettes"
# A library's defaults for new documents (`bash index.o-o.html --set KEY VALUE`, `oo new`):
# DIR/.oo-new-defaults.json (``edit.new_defaults``).
NEW_DEFAULTS_FILE: Final = ".oo-new-defaults.json"
# What was read from a library's documents, kept between scans: DIR/.oo-cache/library.sqlite
# (``store.scan_cache``). Other caches of the library live in the same folder.
CACHE_DIR: Final = ".oo-cache"
CACHE_FILE: Final = "library.sqlite"
# The largest image any reader decodes (an agent's proposal, a review's thumbnail): far above a
# web image, far below a decompression bomb. 5000 x 5000 is 100 MB as RGBA.
MAX_IMAGE_PIXELS: Final = 25_000_000
MAX_IMAGE_SIDE: Final = 20_000
