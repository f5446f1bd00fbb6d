"""The library audit: defects real documents have, as a findings frame
(doc, severity, code, where, message), most severe first.

``where`` names the place to look: a block (``oo-source-cache``), a section id, a pid, a source
or fact id, or ``references #N``. Checks read digests (rows, never the documents' text)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from oo_nb.errors import ValidationError
from oo_nb.format.article import pid_problem
from oo_nb.format.findings import CHECKS, SEVERITIES
from oo_nb.format.legacy_script import legacy_script_hint
from oo_nb.format.line_endings import crlf_message
from oo_nb.format.names import MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.format.page_code import finding_code
from oo_nb.format.source_checks import source_row_problems
from oo_nb.format.vocab import domain_of, domain_patterns, matched_pattern, truncate, url_key
from oo_nb.library.digest import Digest
from oo_nb.library.link_frames import source_urls

if TYPE_CHECKING:
    import pandas as pd

    from oo_nb.library.library import Library

# pandas is imported where frames are built, not here.

__all__ = [
    "CHECKS",
    "FINDING_COLUMNS",
    "SEVERITIES",
    "SUMMARY_COLUMNS",
    "at_least",
    "audit",
    "by_code",
    "findings_frame",
    "summarize",
]

FINDING_COLUMNS = {
    "doc": "string",
    "severity": "string",
    "code": "string",
    "where": "string",
    "message": "string",
}

# The default view: one row per document and code, with how many and the first as an example.
SUMMARY_COLUMNS = ["doc", "severity", "code", "count", "where", "message"]
# Across the library: one row per code.
BY_CODE_COLUMNS = ["severity", "code", "findings", "documents", "doc", "where", "message"]

Finding = tuple[str, str, str, str, str]


def _f(doc: str, code: str, where: str, message: str, severity: str | None = None) -> Finding:
    return (doc, severity or CHECKS[code][0], code, where, message)


def _block_findings(d: Digest) -> Iterator[Finding]:
    for p in d.problems:
        if p.block == "article":
            code = "unreadable-article"
        elif p.error_type == "BlockError":
            code = "missing-block" if p.message.startswith("missing:") else "invalid-json"
        else:
            code = "invalid-block"
        line = f" (line {p.line})" if p.line else ""
        yield _f(d.slug, code, p.block, f"{p.message}{line}")


def _source_findings(d: Digest, today: date, stale_after_days: int) -> Iterator[Finding]:
    cited = d.cite_counts
    deny = domain_patterns(d.deny)
    by_url: dict[str, list[tuple[str, str]]] = {}  # url_key -> (id, url as cached)
    populated = d.has_article and not d.is_stub
    for sid, url, domain, _title, _desc, _tier, accessed, _verified, _form in d.sources:
        if url:
            by_url.setdefault(url_key(url), []).append((sid, url))
        if domain and matched_pattern(domain, deny) is not None:
            yield _f(
                d.slug,
                "denied-domain",
                sid,
                f"{domain} is in the contract's deny_domains ({url or domain})",
            )
        if accessed is not None and (today - accessed).days > stale_after_days:
            age = (today - accessed).days
            yield _f(
                d.slug,
                "old-source",
                sid,
                f"accessed {accessed.isoformat()}, {age} days ago (limit {stale_after_days})",
            )
        if d.require_https and url.startswith("http://"):
            yield _f(
                d.slug, "insecure-source", sid, f"{url} is not https, which the contract requires"
            )
        if populated and sid not in cited:
            yield _f(d.slug, "uncited-source", sid, f"[{sid}] is never cited in the article")
    for code, where, message in source_row_problems(d.sources, today):
        yield _f(d.slug, code, where, message)
    for same_page in by_url.values():
        if len(same_page) > 1:
            ids = [sid for sid, _url in same_page]
            yield _f(
                d.slug,
                "duplicate-url",
                ", ".join(ids),
                f"{same_page[0][1]} is cached under {len(ids)} ids: {', '.join(ids)}",
            )


def _fact_findings(d: Digest) -> Iterator[Finding]:
    if not d.cache_read:
        return
    known = {s[0] for s in d.sources}
    strings: list[str] = []
    for fid, text, _key, _value, sids, form in d.facts:
        short = truncate(text, 60)
        if not sids and form == "string":  # the original format: no field to name a source
            strings.append(fid)
        elif not sids:
            yield _f(d.slug, "unsourced-fact", fid, f"no source for {short!r}")
        for sid in sids:
            if sid not in known:
                yield _f(
                    d.slug, "unknown-fact-source", fid, f"names [{sid}], which is not in the cache"
                )
    if strings:
        # One row per document, not one per fact: the format, not each fact, is the cause.
        n = len(strings)
        span = strings[0] if n == 1 else f"{strings[0]}..{strings[-1]}"
        yield _f(
            d.slug,
            "string-facts",
            span,
            f"{n} fact{'s' if n != 1 else ''} without source ids — original format "
            "(plain strings cannot name a source)",
        )
    for fid, quote, found in d.quotes:
        if found is False:
            short = truncate(quote, 60)
            yield _f(
                d.slug,
                "unsupported-fact",
                fid,
                f"its quote {short!r} was not found in the text the update read from its sources",
            )


def _article_findings(d: Digest) -> Iterator[Finding]:
    yield from _pid_findings(d)
    if not d.cache_read:
        return  # the cache is unreadable (reported as such): citations cannot be judged
    known = {s[0] for s in d.sources}
    seen: set[tuple[str, str]] = set()
    for section, pid, sid in d.citations:
        where = pid or section or "article"
        if sid not in known and (where, sid) not in seen:
            seen.add((where, sid))
            yield _f(
                d.slug,
                "unresolved-citation",
                where,
                f"[{sid}] in section {section!r} is not in the source cache",
            )
    urls = {url_key(s[1]) for s in d.sources if s[1]}
    domains = {s[2] for s in d.sources if s[2]}
    for position, ref_id, url in d.references:
        if ref_id is not None:
            ok = ref_id in known
        else:
            ok = bool(url) and (url_key(url) in urls or domain_of(url) in domains)
        if not ok:
            label = f"[{ref_id}] " if ref_id else ""
            yield _f(
                d.slug,
                "orphan-reference",
                f"references #{position}",
                f"{label}{url or 'no link'} has no cached source",
            )
    if d.has_article and not d.is_stub and not d.sources:
        yield _f(
            d.slug,
            "empty-cache",
            SOURCE_CACHE_BLOCK,
            f"the article is populated ({d.n_paragraphs} elements, {len(d.cite_ids)} citations) "
            "but the source cache holds no sources",
        )


def _markup_findings(d: Digest) -> Iterator[Finding]:
    for code, message in d.markup:  # (the message names the line, as oo check's does)
        yield _f(d.slug, code, "article", message)
    for block, message in d.unsafe_blocks:  # (the message names the field, as oo check's does)
        yield _f(d.slug, "unsafe-text", block, message)


def _pid_findings(d: Digest) -> Iterator[Finding]:
    if d.has_article and not d.is_stub:
        per_section: dict[str, int] = {}
        for section in d.unpidded:
            per_section[section] = per_section.get(section, 0) + 1
        for section, n in per_section.items():
            lead = d.unpidded_leads.get(section)
            yield _f(
                d.slug,
                "missing-pid",
                section or "article",
                f"{n} paragraph(s) without a pid comment"
                + (f", the first: “{lead}”" if lead else ""),
            )
    for pid in d.bad_pids:
        problem = pid_problem(pid) or "not of the form pid:SECTION:8HEX"
        yield _f(d.slug, "malformed-pid", pid, problem + _lead(d, pid))
    for pid in d.dup_pids:
        yield _f(d.slug, "duplicate-pid", pid, "used by more than one element" + _lead(d, pid))


def _lead(d: Digest, pid: str) -> str:
    """`` — “The paragraph's first words…”`` when the digest kept them."""
    lead = d.pid_leads.get(pid)
    return f" — “{lead}”" if lead else ""


def _shell_findings(d: Digest) -> Iterator[Finding]:
    if d.crlf_line is not None:
        folder = str(Path(d.path).parent)
        yield _f(d.slug, "crlf-shell", "shell", crlf_message(d.crlf_line, folder))


def _script_findings(d: Digest) -> Iterator[Finding]:
    for risk in d.injection_risks:
        yield _f(d.slug, "html-injection", risk.where, f"{risk.describe()}; {legacy_script_hint()}")
    for severity, where, message in d.unknown_code:
        yield _f(d.slug, finding_code(where), where, message, severity)


def _freshness_findings(d: Digest, today: date) -> Iterator[Finding]:
    if d.cadence_days is None:
        return
    if d.as_of is None:
        yield _f(
            d.slug,
            "never-updated",
            MANIFEST_BLOCK,
            "as_of is empty: the document has never been updated",
        )
        return
    due = date.fromordinal(d.as_of.toordinal() + d.cadence_days)
    if (
        today >= due
    ):  # as the documents frame's is_stale and the update gate: fresh while age < cadence
        late = (today - due).days
        yield _f(
            d.slug,
            "overdue",
            MANIFEST_BLOCK,
            f"as of {d.as_of.isoformat()}, due {due.isoformat()} (every {d.cadence_days} days): "
            + (f"{late} days overdue" if late else "due today"),
        )


def findings_frame(rows: list[Finding]) -> pd.DataFrame:
    import pandas as pd

    from oo_nb.library.frames import make_frame

    frame = make_frame(rows, FINDING_COLUMNS)
    frame["severity"] = pd.Categorical(
        frame["severity"].astype(object), categories=SEVERITIES, ordered=True
    )
    frame["code"] = frame["code"].astype("category")
    frame = frame.sort_values(["severity", "doc", "code"], kind="stable", ignore_index=True)
    return frame


def audit(lib: Library, stale_after_days: int = 365, today: date | None = None) -> pd.DataFrame:
    """Every finding in the library (see ``CHECKS``)."""
    found = document_findings(lib, stale_after_days, today or lib.today)
    return with_link_findings(found, lib.root, lambda: source_urls(lib.digests))


def document_findings(lib: Library, stale_after_days: int, day: date) -> pd.DataFrame:
    """The findings read from the documents' digests: all but the link checks' (``oo links``
    stores new ones at any time, so a stored audit keeps these only)."""
    rows: list[Finding] = [
        _f(
            f.slug,
            "unreadable",
            f.block or "file",
            f"{f.error_type}: {f.message}" + (f" (line {f.line})" if f.line else ""),
        )
        for f in lib.failures
    ]
    for d in lib.digests:
        rows.extend(_block_findings(d))
        rows.extend(_shell_findings(d))
        rows.extend(_freshness_findings(d, day))
        rows.extend(_source_findings(d, day, stale_after_days))
        rows.extend(_fact_findings(d))
        rows.extend(_article_findings(d))
        rows.extend(_markup_findings(d))
        rows.extend(_script_findings(d))
    return findings_frame(rows)


def with_link_findings(
    found: pd.DataFrame, root: Path, sources: Callable[[], Sequence[tuple[str, str, str]]]
) -> pd.DataFrame:
    """``found`` with the dead and moved links the last ``oo links`` stored, in the audit's
    order; ``sources`` (doc, source id, url) is asked for only when checks were stored."""
    from oo_nb.library.link_frames import link_findings

    links = [_f(*row) for row in link_findings(root, sources)]
    if not links:
        return found
    # (findings_frame's sort is stable: the documents' findings first, as before, then links)
    return findings_frame([*found.astype(object).itertuples(index=False, name=None), *links])


def code_version_of_audit() -> str:
    """What a stored audit is keyed on besides the documents: the code that words and grades
    the findings (this module, and with it the format package: ``digest_codec.code_version``)."""
    from oo_nb.library.digest_codec import code_version

    return code_version(Path(__file__).resolve())


def at_least(findings: pd.DataFrame, min_severity: str | None) -> pd.DataFrame:
    """The findings of ``min_severity`` or worse ("warning" drops info); all when None."""
    if min_severity is None:
        return findings
    if min_severity not in SEVERITIES:
        raise ValidationError(
            f"must be one of {', '.join(SEVERITIES)}, not {min_severity!r}", key="min_severity"
        )
    keep = list(SEVERITIES[: SEVERITIES.index(min_severity) + 1])
    return findings[findings["severity"].isin(keep)].reset_index(drop=True)


def summarize(findings: pd.DataFrame) -> pd.DataFrame:
    """One row per document and code, in the findings' order (most severe first): ``count``,
    and the ``where`` and ``message`` of the first finding as an example. A library whose
    citations all miss one cache reads as one row, not forty."""
    keys = ["doc", "severity", "code"]
    counts = findings.groupby(keys, observed=True, sort=False)["message"].transform("size")
    out = findings.assign(count=counts.astype("Int64"))
    out = out[~findings.duplicated(keys)]
    return out[SUMMARY_COLUMNS].reset_index(drop=True)


def by_code(findings: pd.DataFrame) -> pd.DataFrame:
    """One row per code across the library: how many findings, in how many documents, and the
    first one (doc, where, message) as an example; most severe first, then most frequent."""
    import pandas as pd

    keys = ["severity", "code"]
    grouped = findings.groupby(keys, observed=True, sort=False)
    firsts = findings[~findings.duplicated(keys)].set_index(keys)
    sizes = grouped.size()
    table = pd.DataFrame(
        {
            "findings": sizes.astype("Int64"),
            "documents": grouped["doc"].nunique().astype("Int64"),
        }
    ).join(firsts[["doc", "where", "message"]])
    table = table.reset_index()
    table = table.sort_values(
        ["severity", "findings"], ascending=[True, False], kind="stable", ignore_index=True
    )
    return table[BY_CODE_COLUMNS]
