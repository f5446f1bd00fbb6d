"""Library plots as matplotlib figures: staleness timeline and source-tier mix.

matplotlib is imported on first use (``import oo_nb`` stays light). Without a display, and when
no backend was chosen, the Agg backend is selected so scripts and CI never try to open a window.
Figures are closed in pyplot right away: a notebook shows the returned figure once (as the cell's
value) instead of twice."""

from __future__ import annotations

import os
import sys
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["plot_staleness", "plot_tiers"]

_FRESH, _OVERDUE, _NEVER = "#2a9d8f", "#d62828", "#8d99ae"
_GREYS = {"other": "#9a9a9a", "none": "#d9d9d9"}


def _has_display() -> bool:
    if "ipykernel" in sys.modules or os.environ.get("MPLBACKEND"):
        return True  # a kernel (inline backend) or an explicit choice: leave it alone
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _pyplot() -> Any:
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules and not _has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _new_axes(ax: Any, height: float) -> tuple[Figure, Any]:
    if ax is not None:
        return ax.figure, ax
    plt = _pyplot()
    fig, new_ax = plt.subplots(figsize=(9.0, height), layout="constrained")
    plt.close(fig)
    return fig, new_ax


def plot_staleness(
    documents: pd.DataFrame, today: date, *, limit: int = 40, ax: Any = None
) -> Figure:
    """Each document's as-of and due dates on a timeline (most overdue on top); overdue
    documents in red with their overdue stretch up to today, never-updated ones listed grey."""
    import pandas as pd

    docs = documents.copy()
    docs["_rank"] = docs["overdue_days"].fillna(-1)
    docs = docs.sort_values(
        ["is_stale", "_rank", "due"], ascending=[False, False, True], na_position="first"
    )
    shown = docs.head(limit).iloc[::-1]
    fig, ax = _new_axes(ax, max(2.5, 0.32 * len(shown) + 1.2))
    now = pd.Timestamp(today)
    labels: list[str] = []
    rows: list[tuple[Any, Any, Any, Any]] = list(
        zip(
            shown["slug"],
            shown["as_of"],
            shown["due"],
            shown["overdue_days"].fillna(0),
            strict=True,
        )
    )
    for y, (slug, as_of, due, overdue_days) in enumerate(rows):
        labels.append(str(slug))
        if pd.isna(as_of):
            ax.plot([now], [y], marker="x", color=_NEVER, linestyle="none")
            continue
        overdue = int(overdue_days) > 0
        color = _OVERDUE if overdue else _FRESH
        ax.plot([as_of, due], [y, y], color=color, linewidth=2.5, solid_capstyle="butt")
        ax.plot([as_of], [y], marker="o", color=color, markersize=4)
        ax.plot([due], [y], marker="|", color=color, markersize=10)
        if overdue:
            ax.plot([due, now], [y, y], color=_OVERDUE, linewidth=1, linestyle=":")
    ax.axvline(now, color="#444", linewidth=1, linestyle="--")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    n_over = int((documents["overdue_days"].fillna(0) > 0).sum())
    more = f" (showing {len(shown)} of {len(documents)})" if len(documents) > len(shown) else ""
    ax.set_title(f"Staleness as of {today.isoformat()}: {n_over} overdue{more}", fontsize=10)
    ax.set_xlabel("as of (dot) → due (bar); red = overdue, x = never updated")
    fig.autofmt_xdate()
    return fig


def plot_tiers(
    sources: pd.DataFrame, *, limit: int = 40, top_tiers: int = 8, ax: Any = None
) -> Figure:
    """Stacked bars: the tier mix of each document's sources (the ``top_tiers`` most common tiers
    across the library, the rest as "other", untiered as "none")."""
    tiers = sources["tier"].astype("string").fillna("none")
    common = [t for t in tiers.value_counts().index if t != "none"][:top_tiers]
    tiers = tiers.where(tiers.isin([*common, "none"]), "other")
    table = (
        sources.assign(tier=tiers)
        .groupby(["doc", "tier"], observed=True)
        .size()
        .unstack(fill_value=0)
    )
    order = [t for t in [*common, "other", "none"] if t in table.columns]
    table = table[order]
    table = table.loc[table.sum(axis=1).sort_values(ascending=False).index].head(limit).iloc[::-1]
    fig, ax = _new_axes(ax, max(2.5, 0.3 * len(table) + 1.5))
    left = None
    colors = [_GREYS.get(t) or c for t, c in zip(order, _palette(len(order)), strict=True)]
    for tier, color in zip(order, colors, strict=True):
        values = table[tier].to_numpy()
        ax.barh(range(len(table)), values, left=left, color=color, label=tier, height=0.7)
        left = values if left is None else left + values
    ax.set_yticks(range(len(table)), [str(i) for i in table.index], fontsize=8)
    ax.set_xlabel("sources")
    more = (
        f" (top {len(table)} of {sources['doc'].nunique()} documents)"
        if sources["doc"].nunique() > len(table)
        else ""
    )
    ax.set_title(f"Source tiers per document{more}", fontsize=10)
    if order:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def _palette(n: int) -> list[Any]:
    from matplotlib import colormaps

    # tab10 without its grey (index 7), which "other" and "none" use.
    base = [colormaps["tab10"](i) for i in range(10) if i != 7]
    extra = [colormaps["tab20"](i) for i in range(1, 20, 2) if i not in (15,)]
    colors = base + extra
    return [colors[i % len(colors)] for i in range(n)]
