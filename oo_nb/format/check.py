"""``oo check``: structural validation of one file, as a list of findings."""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from oo_nb.errors import BlockError, OOError
from oo_nb.format.article import pid_problem
from oo_nb.format.article_script import script_markup
from oo_nb.format.document import BLOCK_IDS, Document
from oo_nb.format.findings import (
    CHECKS,
    article_script,
    unlinked_reference,
    unmodelled_markup,
    unsafe_text,
)
from oo_nb.format.legacy_script import injection_risks, legacy_script_hint
from oo_nb.format.line_endings import crlf_message, shell_crlf_line
from oo_nb.format.page_code import finding_code, page_code_findings
from oo_nb.format.source_checks import odd_source_fields, source_row_problems
from oo_nb.format.unsafe_text import article_unsafe_lines, block_unsafe_fields

__all__ = ["Finding", "check_path"]

# The blocks whose text the page shows as it is (title, contract panel, changelog); the source
# cache holds pages' own words, quoted.


@dataclass(frozen=True)
class Finding:
    file: str
    severity: str  # error | warning | info
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.severity}: {self.code}: {self.message}"


def _code(exc: OOError, view: str) -> str:
    """The audit's code for an error met while reading a view (same names, same severities)."""
    if view == "article":
        return "unreadable-article"
    if isinstance(exc, BlockError):  # a missing block never gets here: check_path reports it once
        return "invalid-json"
    return "invalid-block"


def _where(exc: OOError) -> str:
    """The error without the file name (each finding already starts with it)."""
    text = str(exc)
    return text.removeprefix(f"{exc.file}: ") if exc.file else text


def check_path(path: str | Path, today: date | None = None) -> list[Finding]:
    """Structural findings for one file, as of ``today`` (a source accessed after it is named).
    Codes and severities are the audit's (``CHECKS``): a defect both report has the same code and
    severity in each (``html-injection`` included)."""
    name = str(path)
    try:
        doc = Document.read(path)
    except OOError as exc:
        return [Finding(name, CHECKS["unreadable"][0], "unreadable", _where(exc))]
    findings: list[Finding] = []

    def add(code: str, message: str) -> None:
        findings.append(Finding(name, CHECKS[code][0], code, message))

    crlf = shell_crlf_line(doc)
    if crlf is not None:  # an index page is a bash script too
        add("crlf-shell", crlf_message(crlf, str(Path(path).parent)))

    def add_page_code() -> None:
        for severity, where, message in page_code_findings(doc):
            findings.append(Finding(name, severity, finding_code(where), message))

    if doc.kind == "index":  # no data to check, but `bash index.o-o.html` runs its shell
        add_page_code()
        return findings

    for block in BLOCK_IDS:
        if not doc.has_block(block):
            add("missing-block", f'no <script id="{block}"> in the first heredoc')
    views = ("manifest", "contract", "source_cache", "changelog", "article")
    loaded = {}
    for view in views:
        try:
            loaded[view] = getattr(doc, view)
        except OOError as exc:
            # a view over a block that is not there: already reported as missing-block above.
            # Only that error is skipped; any other (whatever its words) is a finding.
            if not (isinstance(exc, BlockError) and exc.message.startswith("missing:")):
                add(_code(exc, view), _where(exc))
    for block in BLOCK_IDS:  # (a block that cannot be read is reported above)
        if doc.has_block(block):
            with contextlib.suppress(OOError):
                fields = block_unsafe_fields(doc.block_text(block), doc.block_json(block))
                for field, names in fields:
                    add("unsafe-text", unsafe_text(f"{block} {field}", names))
    cache, article = loaded.get("source_cache"), loaded.get("article")
    if cache is not None:
        rows = [
            (s.id, s.url, s.domain, s.title, s.description, s.tier, s.accessed, s.verified, s.form)
            for s in cache.sources
        ]
        for code, where, message in source_row_problems(rows, today or date.today()):
            add(code, f"{where}: {message}")
        for where, message in odd_source_fields(cache.raw):
            add("odd-source-field", f"{where}: {message}")
    if cache is not None and article is not None:
        known = {s.id for s in cache.sources}
        for missing in sorted(
            {c for c in article.cited_ids if c not in known}, key=lambda s: int(s[1:])
        ):
            if known:  # with an empty cache, empty-cache says it once
                add("unresolved-citation", f"[{missing}] cited but not in the source cache")
        if not cache.sources and not article.is_stub:
            add("empty-cache", "populated article with an empty source cache")
        for pid in article.pids:
            problem = pid_problem(pid)
            if problem is not None:
                add("malformed-pid", f"{pid!r}: {problem}")
    if article is not None:
        # e.g. a heading written twice (issue 26): the page's contents and links find the first
        model = doc.article_model
        ids = Counter(model.element_ids)
        for element_id in sorted(i for i, n in ids.items() if n > 1):
            add("duplicate-id", f'id="{element_id}" is used by {ids[element_id]} elements')
        assert doc.article_span is not None
        for offset, what in model.unmodelled_markup():
            line = doc.line_of(doc.article_span.start + offset)
            add("unmodelled-markup", unmodelled_markup(line, what))
        # (the article is data, but a cloned page's code can sit in it as well as around it)
        for offset, what in script_markup(model):
            add(
                "article-script", article_script(doc.line_of(doc.article_span.start + offset), what)
            )
        for li in model.unnumbered_entries():
            add(
                "unlinked-reference",
                unlinked_reference(doc.line_of(doc.article_span.start + li.start)),
            )
        span = doc.article_span
        for line, names in article_unsafe_lines(doc.text, span.start, span.end, doc.line_of):
            add("unsafe-text", unsafe_text(f"line {line}", names))
    # what the page script reads, read as it reads it (raw JSON, the parsed article), whether or
    # not oo_nb finds the rest valid: the reader's browser runs it either way
    for risk in injection_risks(doc):
        add("html-injection", f"{risk.describe()}; {legacy_script_hint()}")
    add_page_code()
    return findings
