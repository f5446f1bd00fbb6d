"""``oo check``: structural validation of one file, as a list of findings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .article import pid_is_wellformed
from .document import BLOCK_IDS, Document
from .errors import OOError

__all__ = ["Finding", "check_path"]


@dataclass(frozen=True)
class Finding:
    file: str
    severity: str  # error | warning | info
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.severity}: {self.code}: {self.message}"


def check_path(path: str | Path) -> list[Finding]:
    name = str(path)
    try:
        doc = Document.read(path)
    except OOError as exc:
        return [Finding(name, "error", type(exc).__name__, str(exc))]
    if doc.kind == "index":
        return []
    findings: list[Finding] = []

    def add(severity: str, code: str, message: str) -> None:
        findings.append(Finding(name, severity, code, message))

    for block in BLOCK_IDS:
        if not doc.has_block(block):
            add("error", "missing-block", f"no <script id=\"{block}\"> in the first heredoc")
    views = ("manifest", "contract", "source_cache", "changelog", "article")
    loaded = {}
    for view in views:
        try:
            loaded[view] = getattr(doc, view)
        except OOError as exc:
            if "missing" not in exc.message:
                add("error", type(exc).__name__, str(exc))
    cache, article = loaded.get("source_cache"), loaded.get("article")
    if cache is not None and article is not None:
        known = {s.id for s in cache.sources}
        for missing in sorted({c for c in article.cited_ids if c not in known}, key=lambda s: int(s[1:])):
            if known:
                add("warning", "unresolved-citation", f"[{missing}] cited but not in the source cache")
        if not cache.sources and not article.is_stub:
            add("warning", "empty-cache", "populated article with an empty source cache")
        for pid in article.pids:
            if not pid_is_wellformed(pid):
                add("warning", "malformed-pid", f"{pid!r} is not pid:SECTION:8hex")
    return findings
