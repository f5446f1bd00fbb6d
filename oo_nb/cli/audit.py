"""``oo audit DIR``: the library's findings; exit status 1 when any is an error."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from oo_nb.cli.library import add_common, open_library, render

if TYPE_CHECKING:
    import pandas as pd

HELP = "list the defects of a folder of documents (exit status 1 when there are errors)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_common(p)


class AuditResult:
    def __init__(self, findings: pd.DataFrame, fmt: str) -> None:
        self.findings = findings
        self.value = findings
        self.format = fmt
        counts = findings["severity"].value_counts()
        self.counts = {s: int(counts.get(s, 0)) for s in ("error", "warning", "info")}
        self.exit_code = 1 if self.counts["error"] else 0

    def summary(self) -> str:
        c = self.counts
        return f"{len(self.findings)} findings: {c['error']} errors, {c['warning']} warnings, {c['info']} info"

    def to_text(self) -> str:
        if self.format != "table":  # machine-readable output stays parseable
            return render(self.findings, self.format)
        body = render(self.findings, "table") if len(self.findings) else "no findings"
        return f"{body}\n{self.summary()}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        html = f"<p>{self.summary()}</p>" + self.findings.to_html(
            max_rows=60, escape=True, index=False
        )
        return {"text/plain": f"{self.summary()}\n{self.findings!r}", "text/html": html}


def run(ns: argparse.Namespace) -> AuditResult:
    lib = open_library(ns)
    return AuditResult(lib.audit(ns.stale_after), ns.format)
