"""Link-check results as library data: the ``oo links`` frame, the sources frame's
``link_status`` column and the audit's ``dead-link`` / ``moved-link`` findings. All read the
stored results (``store.link_store``); none touches the network."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from oo_nb.store.link_store import LinkRow, read_links

if TYPE_CHECKING:
    import pandas as pd

    from oo_nb.library.digest import Digest

__all__ = ["LINK_COLUMNS", "add_link_status", "link_findings", "links_frame", "source_urls"]

LINK_COLUMNS = {
    "doc": "string",
    "source_id": "string",
    "url": "string",
    "status": "Int64",
    "final_url": "string",
    "dead": "boolean",
    "link_status": "string",
    "permanent": "boolean",
    "error": "string",
    "checked_at": "datetime64[ns, UTC]",
}


def source_urls(digests: Sequence[Digest]) -> list[tuple[str, str, str]]:
    """(doc, source id, url) of every cached source with an http(s) URL."""
    return [
        (d.slug, row[0], row[1])
        for d in digests
        for row in d.sources
        if row[1].startswith(("http://", "https://"))
    ]


def links_frame(
    sources: Sequence[tuple[str, str, str]], rows: Mapping[str, LinkRow]
) -> pd.DataFrame:
    import pandas as pd

    from oo_nb.library.frames import text_series

    data: dict[str, list[object]] = {c: [] for c in LINK_COLUMNS}
    for doc, sid, url in sources:
        r = rows.get(url)
        values: tuple[object, ...] = (
            (doc, sid, url, r.status, r.final_url, r.dead, r.link_status, r.permanent, r.error,
             r.checked_at)
            if r is not None
            else (doc, sid, url, None, None, None, "not checked", None, None, None)
        )  # fmt: skip
        for column, value in zip(LINK_COLUMNS, values, strict=True):
            data[column].append(value)
    frame = pd.DataFrame(data)
    for column, dtype in LINK_COLUMNS.items():
        if dtype.startswith("datetime"):
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
        elif dtype == "string":
            frame[column] = text_series(frame[column])  # a slug may not be UTF-8
        else:
            frame[column] = frame[column].astype(dtype)  # type: ignore[call-overload]
    return frame


def add_link_status(frame: pd.DataFrame, root: str | Path) -> pd.DataFrame:
    """The sources frame with ``link_status`` from the last stored check (NA: not checked)."""
    stored = read_links(root)
    statuses = {url: row.link_status for url, row in stored.items()}
    import pandas as pd

    status = pd.Series(pd.NA, index=frame.index, dtype="string")
    checked = frame["url"].isin(list(statuses))  # on Arrow text: no Python string per row
    if checked.any():
        status[checked] = frame.loc[checked, "url"].map(statuses).astype("string")
    frame["link_status"] = status
    return frame


def link_findings(
    root: str | Path, sources: Callable[[], Iterable[tuple[str, str, str]]]
) -> Iterator[tuple[str, str, str, str]]:
    """(doc, code, where, message) for dead and permanently moved source links; ``sources``
    gives (doc, source id, url), asked for only when some check was stored."""
    stored = read_links(root)
    if not stored:
        return
    for doc, sid, url in sources():
        row = stored.get(url)
        if row is None:
            continue
        if row.link_status == "dead":
            why = f"HTTP {row.status}" if row.status else (row.error or "unreachable")
            yield doc, "dead-link", sid, f"{url} is dead ({why}, checked {row.checked_at[:10]})"
        elif row.link_status == "moved" and row.final_url:
            yield doc, "moved-link", sid, f"{url} moved permanently to {row.final_url}"
