"""What the library index shows about each document, read with the document model (never by
grepping the file, which found template values after the terminator)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html

from .article import excerpt_of
from .document import Document
from .errors import OOError
from .store import HISTORY_DIR

__all__ = ["DocEntry", "DocError", "Scan", "discover", "quick_excerpt", "read_entry", "scan"]

_INDEX_NAME = re.compile(r"^index.*\.o-o\.html$", re.IGNORECASE)
_P_END = re.compile(r"</p\s*>", re.IGNORECASE)
_CONTAINERS = {"div", "section", "blockquote"}


@dataclass(frozen=True)
class DocEntry:
    path: Path
    rel: str  # POSIX path relative to the index folder (what the links use)
    title: str
    version: int
    as_of: date | None
    cadence_days: int
    excerpt: str
    bytes: int
    n_sources: int
    sentinel_status: str | None  # None: not a sentinel document
    mtime: float

    @property
    def is_new(self) -> bool:
        return self.as_of is None

    def age_days(self, today: date) -> int | None:
        return (today - self.as_of).days if self.as_of else None

    def is_stale(self, today: date) -> bool:
        """Due by its own cadence: as old as its cadence or older (the update gate skips a
        document only while its age is below the cadence)."""
        age = self.age_days(today)
        return age is not None and age >= self.cadence_days


@dataclass(frozen=True)
class DocError:
    rel: str
    message: str


@dataclass(frozen=True)
class Scan:
    root: Path
    entries: tuple[DocEntry, ...]
    errors: tuple[DocError, ...]


def discover(root: Path) -> list[Path]:
    """Every ``*.o-o.html`` under ``root``, sorted; index pages (``index*.o-o.html``) and hidden
    folders (the ``.oo-history`` snapshots among them) are left out."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != HISTORY_DIR)
        for name in files:
            if name.endswith(".o-o.html") and not name.startswith(".") and not _INDEX_NAME.match(name):
                found.append(Path(folder) / name)
    return sorted(found)


def quick_excerpt(article_html: str) -> str:
    """``Article.excerpt`` without analysing the whole article: the same walk (top-level
    elements, into div/section/blockquote but not table wrappers) over the smallest prefix
    holding the first paragraph. A stub article has no excerpt."""
    if "stub-notice" in article_html:
        return ""
    end = _P_END.search(article_html)
    if end is None:
        return ""
    for text in (article_html[: end.end()], article_html):
        found = _first_paragraph(text)
        if found is not None:
            return excerpt_of(found)
    return ""


def _first_paragraph(fragment: str) -> str | None:
    try:
        root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    except (etree.ParserError, ValueError):
        return None
    return _walk(root)


def _walk(parent: etree._Element) -> str | None:
    for node in parent:
        if not isinstance(node.tag, str):
            continue  # comments, processing instructions
        tag = node.tag.lower()
        if tag == "p":
            text = re.sub(r"\s+", " ", node.text_content()).strip()
            if text:
                return text
        elif tag in _CONTAINERS and not node.get("class", "").startswith("table-wrap"):
            found = _walk(node)
            if found is not None:
                return found
    return None


def read_entry(path: Path, root: Path) -> DocEntry:
    doc = Document.read(path)
    if doc.kind != "document":
        raise OOError("is an index page, not a document", file=str(path))
    m = doc.manifest
    c = doc.contract
    stat = path.stat()
    return DocEntry(
        path=path,
        rel=path.relative_to(root).as_posix(),
        title=m.title.strip() or c.subject.strip() or path.name,
        version=m.version,
        as_of=m.as_of,
        cadence_days=m.cadence_days,
        excerpt=quick_excerpt(doc.article_html) if doc.article_span else "",
        bytes=stat.st_size,
        n_sources=len(doc.source_cache.sources),
        sentinel_status=c.sentinel.status if c.sentinel is not None else None,
        mtime=stat.st_mtime,
    )


def scan(root: str | Path) -> Scan:
    """Read every document under ``root``; a document that cannot be read becomes an error
    entry and never stops the scan."""
    base = Path(root)
    entries: list[DocEntry] = []
    errors: list[DocError] = []
    for path in discover(base):
        rel = path.relative_to(base).as_posix()
        try:
            entries.append(read_entry(path, base))
        except OOError as exc:
            text = str(exc)
            errors.append(DocError(rel, text.removeprefix(f"{exc.file}: ") if exc.file else text))
        except OSError as exc:
            errors.append(DocError(rel, f"cannot read: {exc.strerror}"))
    return Scan(base, tuple(entries), tuple(errors))
