"""``oo links DIR``: check every source URL of a library (see ``library.links``)."""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from oo_nb.cli.library import render

if TYPE_CHECKING:
    import pandas as pd

HELP = "check every source URL of a folder of documents: dead, moved, unknown (results kept 7 days)"


def _positive(kind: type[float] | type[int]) -> Any:
    def parse(text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (math.isfinite(value) and value > 0):  # nan and inf are floats too
            raise argparse.ArgumentTypeError(f"must be above 0: {text!r}")
        return value

    return parse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", default=".", help="folder of NAME.o-o.html documents")
    p.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    p.add_argument(
        "--max-age",
        type=_positive(float),
        default=7.0,
        metavar="DAYS",
        help="reuse results younger than this (default: 7)",
    )
    p.add_argument("--refresh", action="store_true", help="check every link again now")
    p.add_argument(
        "--timeout", type=_positive(float), default=10.0, metavar="S", help="per request"
    )
    p.add_argument(
        "--per-host",
        type=_positive(int),
        default=2,
        metavar="N",
        help="requests in flight to one host at most (default: 2)",
    )
    p.add_argument(
        "--concurrency", type=_positive(int), default=32, metavar="N", help="in flight at most"
    )
    p.add_argument(
        "--allow-private",
        action="store_true",
        help="also check private, loopback and link-local addresses (skipped by default)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--no-recursive", dest="recursive", action="store_false", help="not the sub-folders"
    )


class LinksResult:
    def __init__(self, frame: pd.DataFrame, fmt: str) -> None:
        self.frame = self.value = frame
        self.format = fmt
        counts = frame["link_status"].value_counts()
        self.counts = {str(k): int(v) for k, v in counts.items()}
        self.exit_code = 0

    def summary(self) -> str:
        parts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        line = f"{len(self.frame)} source links: {parts or 'none'}"
        from oo_nb.library.links import RESOLVER_DOWN

        if (self.frame["error"] == RESOLVER_DOWN).any():  # said once, not on every row only
            line += "\nno name resolved: the DNS resolver is down (offline?), so nothing was marked dead; run again later"
        return line

    def to_text(self) -> str:
        if self.format != "table":
            return render(self.frame, self.format)
        return f"{render(self.frame, 'table')}\n{self.summary()}"


def links_frame_for(ns: argparse.Namespace, *, progress: bool) -> pd.DataFrame:
    from oo_nb.api.library import Library

    return Library(ns.dir, recursive=ns.recursive).links(
        max_age_days=ns.max_age,
        refresh=ns.refresh,
        timeout=ns.timeout,
        per_host=ns.per_host,
        concurrency=ns.concurrency,
        allow_private=ns.allow_private,
        progress=progress,
    )


def run(ns: argparse.Namespace) -> LinksResult:
    return LinksResult(links_frame_for(ns, progress=not ns.no_progress), ns.format)
