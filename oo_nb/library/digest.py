"""One document reduced to the rows the library frames and the audit need.

A ``Digest`` holds plain tuples, never the document's text, so a library of thousands of
documents stays small in memory and digests can be built in worker processes. The article is
read through the one article model (``oo_nb.format.article``), as ``check``, the audit and the
agent read it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from operator import itemgetter
from pathlib import Path
from typing import Any

from oo_nb.errors import BlockError, OOError, ValidationError
from oo_nb.format.article import Reading, entry_row, pid_is_wellformed, read_article
from oo_nb.format.article_model import Model
from oo_nb.format.article_script import script_markup
from oo_nb.format.blocks import (
    MAX_WHOLE,
    Changelog,
    ChangelogEntry,
    Contract,
    FactRow,
    Manifest,
    QuoteRow,
    SourceRow,
    cache_rows,
)
from oo_nb.format.document import Document
from oo_nb.format.findings import article_script, unlinked_reference, unmodelled_markup, unsafe_text
from oo_nb.format.jsonblock import parse_block
from oo_nb.format.legacy_script import (
    InjectionRisk,
    article_risks,
    contract_risks,
    has_our_script,
)
from oo_nb.format.line_endings import shell_crlf_line
from oo_nb.format.manifest_log import ManifestNote, manifest_notes
from oo_nb.format.names import (
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    DOC_SUFFIX,
    MANIFEST_BLOCK,
    SOURCE_CACHE_BLOCK,
)
from oo_nb.format.page_code import page_code_findings
from oo_nb.format.sentinel_state import latest_status
from oo_nb.format.unsafe_text import article_unsafe_lines, block_unsafe_fields
from oo_nb.library.article_rows import LEAD_CHARS, ArticleScan

__all__ = [
    "ArticleScan",
    "Digest",
    "Failure",
    "digest_bytes",
    "digest_file",
    "first_words",
    "scan_article",
]

_FIRST = itemgetter(0)


@dataclass(slots=True)
class Problem:
    block: str
    error_type: str
    message: str
    line: int | None
    column: int | None = None


@dataclass(slots=True)
class Failure:
    """A file that could not be read as an o-o document at all."""

    path: str
    slug: str
    error_type: str
    message: str
    line: int | None
    block: str | None
    column: int | None = None


@dataclass(slots=True)
class Digest:
    path: str
    slug: str
    nbytes: int
    layout: str
    title: str | None = None
    version: int | None = None
    as_of: date | None = None
    cadence_days: int | None = None
    is_sentinel: bool | None = None
    sentinel_status: str | None = None
    budget_usd: float | None = None
    deny: tuple[str, ...] = ()
    prefer: tuple[str, ...] = ()
    require_https: bool = False
    cache_read: bool = False  # the source cache block was readable
    sources: list[SourceRow] = field(default_factory=list)
    facts: list[FactRow] = field(default_factory=list)
    # facts carrying a quote: (fact id, quote, quote_found) — issue 16
    quotes: list[QuoteRow] = field(default_factory=list)
    changelog: list[dict[str, Any]] = field(default_factory=list)
    has_article: bool = False
    # values the original page script would turn into markup (see legacy_script); only for
    # documents still on that script
    original_script: bool = False
    injection_risks: list[InjectionRisk] = field(default_factory=list)
    # page-code regions no known original page and no template has: (where, message)
    unknown_code: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # severity, where, message
    is_stub: bool = True
    n_paragraphs: int = 0
    figures: int = 0
    # Citations as three parallel columns (section, pid, source id): a tenth of the memory of
    # one tuple per citation, and the citations frame extends whole columns.
    cite_sections: tuple[str, ...] = ()
    cite_pids: tuple[str | None, ...] = ()
    cite_ids: tuple[str, ...] = ()
    cite_counts: dict[str, int] = field(default_factory=dict)  # sid -> citations
    references: list[tuple[int, str | None, str]] = field(default_factory=list)  # (pos, sid, url)
    unpidded: list[str] = field(default_factory=list)  # section of each <p> without a pid
    bad_pids: list[str] = field(default_factory=list)  # pids that are not pid:SECTION:8HEX
    dup_pids: list[str] = field(default_factory=list)  # pids used more than once
    # first words of the element of each malformed or duplicate pid, and of each section's
    # first paragraph without a pid (only these: memory)
    pid_leads: dict[str, str] = field(default_factory=dict)
    unpidded_leads: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    crlf_line: int | None = None  # first shell line ending in CR LF: bash cannot run the file
    markup: list[tuple[str, str]] = field(default_factory=list)  # (code, message): oo check's
    # (block, message): oo check's unsafe-text findings in the JSON blocks' strings
    unsafe_blocks: list[tuple[str, str]] = field(default_factory=list)

    @property
    def citations(self) -> list[tuple[str, str | None, str]]:
        """(section, pid, source id) per citation, in article order."""
        return list(zip(self.cite_sections, self.cite_pids, self.cite_ids, strict=True))

    def take_article(self, scan: ArticleScan) -> None:
        """Keep the article's rows and anomalies, not every paragraph (memory)."""
        self.has_article = True
        self.is_stub, self.n_paragraphs, self.figures = (
            scan.is_stub,
            len(scan.paragraphs),
            scan.figures,
        )
        self.references = scan.references
        if scan.citations:
            # (not interned here: a scan sends the digest as text, and decoding it interns the
            # ids, "s1".."s40", shared library-wide)
            self.cite_sections, self.cite_pids, self.cite_ids = zip(*scan.citations, strict=True)
        self.cite_counts = dict(Counter(self.cite_ids))
        paragraphs = scan.paragraphs
        self.unpidded = (  # (most pages: every paragraph has a pid, known in one C-level pass)
            [section for pid, section, tag in paragraphs if pid is None and tag == "p"]
            if None in map(_FIRST, paragraphs)
            else []
        )
        self.bad_pids = [p for p in dict.fromkeys(scan.pids) if not pid_is_wellformed(p)]
        every = scan.pids
        self.dup_pids = (
            [] if len(set(every)) == len(every) else [p for p, n in Counter(every).items() if n > 1]
        )
        self.pid_leads = {p: first_words(text) for p, text in scan.leads.items() if text.strip()}
        if self.unpidded:
            self.unpidded_leads = {
                section: first_words(text)
                for section, text in scan.unpidded_leads.items()
                if text.strip()
            }


def first_words(text: str, n: int = 8, limit: int = 60) -> str:
    """The start of a paragraph, to name it: ``n`` words at most, cut at ``limit`` characters,
    with "…" when there is more."""
    words = text.split()
    lead = " ".join(words[:n])
    if len(lead) > limit:
        lead = lead[: limit - 1].rstrip()
    return lead + ("…" if len(lead) < len(" ".join(words)) else "")


# --------------------------------------------------------------------------- article
def scan_article(article: str | Model, *, risks: bool = False) -> ArticleScan:
    """Sections, paragraphs (pid, section, tag), citations, references, pids and figures, read
    from the one article model (``article.read_article``; the article's HTML, or its model:
    ``Document.article_model``); with ``risks``, also what the original page script would turn
    into markup (same model)."""
    scan = ArticleScan()
    html = article if isinstance(article, str) else article.source
    if not html or html.isspace():  # (strip() would copy the article)
        return scan
    r = read_article(article)
    scan.sections = [(r.model.id_of(h), int(h.name[1])) for h in r.headings]
    scan.paragraphs = [(pid, section, node.name) for pid, section, node in r.blocks]
    scan.citations = r.citations
    scan.references = [entry_row(i, li) for i, li in enumerate(r.entries, 1)]
    scan.pids = r.pids
    if "<fig" in html or "<FIG" in html or "<Fig" in html:  # (else no figure to count)
        scan.figures = sum(len(r.figures(node)) for _, _, node in r.blocks)
    _keep_leads(scan, r)
    if risks:
        scan.injection_risks = article_risks(r.model)
    scan.unmodelled = r.model.unmodelled_markup()  # (as ``oo check`` reads it: the same rule)
    scan.scripted = script_markup(r.model)
    if r.entries:
        scan.unnumbered = [li.start for li in r.model.unnumbered_entries()]
    scan.is_stub = r.stub or not scan.paragraphs
    return scan


def _keep_leads(scan: ArticleScan, r: Reading) -> None:
    """The start of the element of each odd pid and of each section's first pid-less ``<p>``:
    read for their words only when needed, not for every paragraph."""
    nodes = r.pid_nodes
    odd = [p for p in nodes if not pid_is_wellformed(p)]
    if len(nodes) != len(scan.pids):  # some pid is used more than once
        odd += [p for p, n in Counter(scan.pids).items() if n > 1]
    for pid in odd:
        scan.leads[pid] = nodes[pid].text[:LEAD_CHARS]
    for block_pid, section, node in r.blocks:
        if block_pid is None and node.name == "p" and section not in scan.unpidded_leads:
            scan.unpidded_leads[section] = node.text[:LEAD_CHARS]


# --------------------------------------------------------------------------- blocks
def _block(doc: Document, name: str, digest: Digest) -> Any:
    """The block's JSON, or None after noting the problem (the digest stays usable)."""
    if not doc.has_block(name):
        digest.problems.append(
            Problem(name, "BlockError", "missing: no such block in the first heredoc", None)
        )
        return None
    text = doc.block_text(name)
    try:
        value = parse_block(text, block=name)
    except BlockError:
        pass
    else:
        digest.unsafe_blocks += [
            (name, unsafe_text(f"{name} {where}", names))
            for where, names in block_unsafe_fields(text, value)
        ]
        return value
    # Only a failing block pays for the line table: parse again for the located error.
    try:
        line, column = doc.block_position(name)
        return parse_block(text, block=name, first_line=line, first_column=column)
    except BlockError as exc:
        digest.problems.append(Problem(name, "BlockError", exc.message, exc.line, exc.column))
    return None


def _note(digest: Digest, block: str, exc: OOError, doc: Document) -> None:
    if isinstance(exc, ValidationError):
        doc.locate(exc, block)  # only a failing view pays for finding the key's line
    where = f"key {exc.key!r}: " if exc.key else ""
    digest.problems.append(
        Problem(block, type(exc).__name__, where + exc.message, exc.line, exc.column)
    )


def _fill_manifest(doc: Document, d: Digest) -> None:
    raw = _block(doc, MANIFEST_BLOCK, d)
    if raw is None:
        return
    try:
        m = Manifest.from_json(raw)
    except OOError as exc:
        _note(d, MANIFEST_BLOCK, exc, doc)
        return
    d.title, d.version, d.as_of, d.cadence_days = m.title, m.version, m.as_of, m.cadence_days
    d.changelog = [_manifest_row(n) for n in manifest_notes(raw)]


def _manifest_row(note: ManifestNote) -> dict[str, Any]:
    return {
        "version": note.version,
        "timestamp": note.date,
        "summary": note.summary,
        "origin": MANIFEST_BLOCK,
    }


def _fill_contract(doc: Document, d: Digest) -> bool:
    """Fill the contract's fields; whether the document is an original sentinel document (its
    status then comes from the changelog, ``_reported_sentinel``)."""
    raw = _block(doc, CONTRACT_BLOCK, d)
    if raw is None:
        return False
    if d.original_script and isinstance(raw, dict):  # shown by the page even when invalid here
        d.injection_risks += contract_risks(raw)
    try:
        c = Contract.from_json(raw)
    except OOError as exc:
        _note(d, CONTRACT_BLOCK, exc, doc)
        return False
    d.is_sentinel = c.is_sentinel
    d.sentinel_status = c.sentinel.status if c.sentinel else None
    d.budget_usd = c.max_cost_usd
    d.deny, d.prefer, d.require_https = c.deny_domains, c.prefer_domains, c.require_https
    return c.sentinel is not None and not c.sentinel.structured


def _fill_cache(doc: Document, d: Digest) -> None:
    raw = _block(doc, SOURCE_CACHE_BLOCK, d)
    if raw is None:
        return
    try:
        d.sources, d.facts, d.quotes = cache_rows(raw)
    except OOError as exc:
        _note(d, SOURCE_CACHE_BLOCK, exc, doc)
        return
    d.cache_read = True


def _fill_changelog(doc: Document, d: Digest) -> None:
    raw = _block(doc, CHANGELOG_BLOCK, d)
    if raw is None:
        return
    rows = _changelog_rows(raw)
    if rows is None:  # some entry the shortcut does not read: the view, with its errors
        try:
            log = Changelog.from_json(raw)
        except OOError as exc:
            _note(d, CHANGELOG_BLOCK, exc, doc)
            return
        rows = [_changelog_row(e) for e in log.entries]
    if rows:  # the manifest's notes of versions the block lacks come first: they are older
        held = {row["version"] for row in rows}
        d.changelog = [r for r in d.changelog if r["version"] is None or r["version"] not in held]
        d.changelog += rows


def _reported_sentinel(d: Digest) -> None:
    """An original sentinel document's status is the newest one its changelog reports
    (``sentinel_state``): the rows hold each report as ``sentinel_status``."""
    statuses = [row.get("sentinel_status") for row in d.changelog or ()]
    found = latest_status(statuses)
    if found is not None:
        d.sentinel_status = str(statuses[found])


def _changelog_row(e: ChangelogEntry) -> dict[str, Any]:
    row: dict[str, Any] = {
        "version": e.version,
        "timestamp": e.timestamp or None,
        "summary": e.summary,
        "origin": CHANGELOG_BLOCK,
    }
    for key, value in e.extra.items():
        if isinstance(value, dict):  # e.g. tokens: {input, output} -> tokens_input, ...
            row.update({f"{key}_{k}": v for k, v in value.items()})
        else:
            row[key] = value
    return row


_ENTRY_KEYS = frozenset({"version", "timestamp", "summary"})  # what an entry's extra leaves out


def _changelog_rows(raw: Any) -> list[dict[str, Any]] | None:
    """``_changelog_row`` of each entry ``Changelog.from_json(raw)`` reads, straight from the
    JSON when every entry is an object with a whole version (or none) and a string summary (or
    none), as ``blocks._entry`` reads them without checks; None otherwise."""
    items = raw if type(raw) is list else raw.get("entries") if type(raw) is dict else None
    if type(items) is not list:
        return [] if items is None and type(raw) is dict else None
    rows = []
    for item in items:
        if type(item) is not dict:
            return None
        get = item.get
        version, summary = get("version"), get("summary", "")
        if not (
            (version is None or (type(version) is int and -MAX_WHOLE <= version <= MAX_WHOLE))
            and type(summary) is str
        ):
            return None
        row: dict[str, Any] = {
            "version": version,
            "timestamp": str(get("timestamp") or get("date") or "") or None,
            "summary": summary,
            "origin": CHANGELOG_BLOCK,
        }
        for key, value in item.items():
            if key in _ENTRY_KEYS:
                continue
            if isinstance(value, dict):
                row.update({f"{key}_{k}": v for k, v in value.items()})
            else:
                row[key] = value
        rows.append(row)
    return rows


def digest_document(doc: Document, *, slug: str, nbytes: int) -> Digest:
    d = Digest(path=str(doc.path), slug=slug, nbytes=nbytes, layout=doc.layout)
    d.crlf_line = shell_crlf_line(doc)
    d.original_script = not has_our_script(doc)
    d.unknown_code = page_code_findings(doc, ours=not d.original_script)
    _fill_manifest(doc, d)
    original_sentinel = _fill_contract(doc, d)
    _fill_cache(doc, d)
    _fill_changelog(doc, d)
    if original_sentinel:
        _reported_sentinel(d)
    if doc.article_span is None:
        d.problems.append(
            Problem("article", "FormatError", 'no <article id="article"> element', None)
        )
    else:
        try:
            scan = scan_article(doc.article_model, risks=d.original_script)
            d.take_article(scan)
            d.injection_risks += scan.injection_risks
            d.markup = _markup(doc, scan)
        except OOError as exc:
            d.problems.append(
                Problem(
                    "article", type(exc).__name__, exc.message, doc.line_of(doc.article_span.start)
                )
            )
    return d


def _markup(doc: Document, scan: ArticleScan) -> list[tuple[str, str]]:
    """``oo check``'s markup findings, their lines counted in the whole file."""
    assert doc.article_span is not None
    start, end = doc.article_span.start, doc.article_span.end
    return [
        *(("unmodelled-markup", unmodelled_markup(doc.line_of(start + at), what))
          for at, what in scan.unmodelled),
        *(("unlinked-reference", unlinked_reference(doc.line_of(start + at)))
          for at in scan.unnumbered),
        *(("article-script", article_script(doc.line_of(start + at), what))
          for at, what in scan.scripted),
        *(("unsafe-text", unsafe_text(f"line {line}", names))
          for line, names in article_unsafe_lines(doc.text, start, end, doc.line_of)),
    ]  # fmt: skip


def digest_file(path: str, slug: str) -> Digest | Failure | None:
    """Read and digest one file; None for index documents (not part of the library)."""
    return digest_bytes(None, path, slug)


def digest_bytes(data: bytes | None, path: str, slug: str) -> Digest | Failure | None:
    """``digest_file`` of bytes already read from ``path`` (None: read them now)."""
    try:
        doc = Document.read(path) if data is None else Document.parse(data, path=path)
    except OOError as exc:
        return Failure(path, slug, type(exc).__name__, exc.message, exc.line, exc.block, exc.column)
    except (RecursionError, MemoryError, ValueError) as exc:  # hostile input must not stop a scan
        return Failure(path, slug, type(exc).__name__, str(exc), None, None)
    if doc.kind == "index":
        return None
    try:
        return digest_document(doc, slug=slug, nbytes=len(doc.to_bytes()))
    except OOError as exc:
        return Failure(path, slug, type(exc).__name__, exc.message, exc.line, exc.block, exc.column)


def digest_many(items: list[tuple[str, str]]) -> list[Digest | Failure | None]:
    """Batch entry point for worker processes (one pickled call per chunk)."""
    return [digest_file(path, slug) for path, slug in items]


def relative_slug(path: Path, root: Path) -> str:
    try:
        rel = path.relative_to(root)
    except ValueError:
        rel = Path(path.name)
    name = rel.as_posix()
    return name.removesuffix(DOC_SUFFIX)
