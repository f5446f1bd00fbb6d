"""One row of the reliability table and the table itself.

Every measurement of ``benchmarks/reliability.py`` returns ``Figure`` rows; the tests run the same
measurements at a reduced size and assert ``passed``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Figure", "failures", "render_table"]


@dataclass(frozen=True)
class Figure:
    part: str  # "1 crash", "2 race", ...
    measure: str
    count: int | str  # how many trials the figure is over
    result: int | float | str
    target: str  # "0", "≥ 200", "info", ...
    passed: bool | None  # None: a figure reported for information, no target

    @property
    def verdict(self) -> str:
        return "info" if self.passed is None else "PASS" if self.passed else "FAIL"


def failures(rows: Iterable[Figure]) -> list[Figure]:
    return [r for r in rows if r.passed is False]


def _fmt(value: int | float | str) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return value


def render_table(rows: Iterable[Figure], *, width: int = 60) -> str:
    """A plain-text table; long results (user-facing messages) are cut to ``width``."""
    header = ("part", "measure", "count", "result", "target", "pass")
    body = []
    for r in rows:
        result = _fmt(r.result).replace("\n", " ")
        if len(result) > width:
            result = result[: width - 1] + "…"
        body.append((r.part, r.measure, _fmt(r.count), result, r.target, r.verdict))
    widths = [
        max(len(h), *(len(row[i]) for row in body)) if body else len(h)
        for i, h in enumerate(header)
    ]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)), line]
    for row in body:
        out.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(out)
