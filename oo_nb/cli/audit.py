"""``oo audit DIR``: the library's findings; exit status 1 when any is an error.

By default the findings read by root cause: one row per document and code (how many, and the
first as an example), and when even that is long (a large library) a table per code first and
only the first ``ROW_LIMIT`` rows, so the output stays a page or two at 10,000 documents.
``--all`` prints every finding; ``--format csv|json`` always gives every finding (for tools)."""

from __future__ import annotations

import argparse
import html
from typing import TYPE_CHECKING, Any

from oo_nb.cli.library import add_common, open_library, render
from oo_nb.format.display import no_typesetting
from oo_nb.format.findings import SEVERITIES

if TYPE_CHECKING:
    import pandas as pd

HELP = "list the defects of a folder of documents (exit status 1 when there are errors)"

ROW_LIMIT = 100  # document-and-code rows printed by default (each at most two lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_common(p)
    p.add_argument(
        "--all",
        action="store_true",
        help="every finding, one per row (default: one row per document and code)",
    )
    p.add_argument(
        "--min-severity",
        choices=SEVERITIES,
        default=None,
        help="leave out what is less severe: warning hides info, error keeps errors only",
    )


class AuditResult:
    def __init__(self, findings: pd.DataFrame, fmt: str, *, all: bool = False) -> None:
        from oo_nb.library.audit import summarize

        self.findings = findings  # every finding (at the asked severity)
        self.all = all
        everything = all or fmt != "table"  # a machine-readable format gives every finding
        self.rows = findings if everything else summarize(findings)
        self.value = self.rows
        self.format = fmt
        counts = findings["severity"].value_counts()
        self.counts = {s: int(counts.get(s, 0)) for s in SEVERITIES}
        self.exit_code = 1 if self.counts["error"] else 0

    def summary(self) -> str:
        c = self.counts
        return f"{len(self.findings)} findings: {c['error']} errors, {c['warning']} warnings, {c['info']} info"

    def to_text(self) -> str:
        if self.format != "table":  # machine-readable output stays parseable and complete
            return render(self.findings, self.format)
        if self.findings.empty:
            return f"no findings\n{self.summary()}"
        if self.all:
            return f"{render(self.findings, 'table')}\n{self.summary()}"
        return self._summary_text()

    def _summary_text(self) -> str:
        from oo_nb.library.audit import by_code

        rows = self.rows
        parts = []
        if len(rows) > ROW_LIMIT:
            parts += [
                "by code, across the library (one example each):",
                render(by_code(self.findings), "table"),
                "",
                f"by document and code, the first {ROW_LIMIT} of {len(rows)} (most severe first):",
                render(rows.head(ROW_LIMIT), "table"),
                f"... {len(rows) - ROW_LIMIT} more document-and-code rows not shown",
            ]
        else:
            parts.append(render(rows, "table"))
        parts += [
            "(one row per document and code, the first finding as an example; "
            "--all lists every finding, --min-severity warning hides info)",
            self.summary(),
        ]
        return "\n".join(parts)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        table = self.rows.to_html(max_rows=60, escape=True, index=False)
        markup = no_typesetting(f"<p>{html.escape(self.summary())}</p>{table}")
        return {"text/plain": f"{self.summary()}\n{self.rows!r}", "text/html": markup}


def run(ns: argparse.Namespace) -> AuditResult:
    from oo_nb.library.audit import at_least

    lib = open_library(ns)
    findings = at_least(lib.audit(ns.stale_after, all=True), ns.min_severity)
    return AuditResult(findings, ns.format, all=ns.all)
