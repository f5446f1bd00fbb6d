"""What ``oo links`` found about a document's sources, as lines for the update prompt: a
permanently moved source gets its new URL proposed, a dead one is named so it can be replaced.
The results are read from the nearest ``.oo-cache/links.sqlite`` above the document, only when
that file and its folder are the user's own, and only rows this machine checked (sealed) within
the reuse age. A new URL
the contract forbids (http: under ``require_https``, a denied domain) is not proposed: the
ledger would reject the source the prompt asked for; the old one is named as needing a
replacement."""

from __future__ import annotations

import os
from pathlib import Path

from oo_nb.format.blocks import Contract
from oo_nb.format.document import Document
from oo_nb.format.sanitize import safe_http_url
from oo_nb.format.vocab import listed_domain
from oo_nb.store.link_store import links_path, read_links

__all__ = ["link_notes"]

_MAX_LINES = 30
_MAX_UP = 6  # folders above the document searched for a library's link results


def _yours(path: Path) -> bool:
    """``path`` and its folder belong to whoever runs this (POSIX): results above the
    document may sit in a shared folder (``/tmp``), where another user could plant them."""
    if not hasattr(os, "geteuid"):
        return True
    uid = os.geteuid()
    try:
        return path.stat().st_uid == uid and path.parent.stat().st_uid == uid
    except OSError:
        return False


def _store_folder(doc: Document) -> Path | None:
    if not doc.file:
        return None
    folder = Path(doc.file).resolve().parent
    for candidate in [folder, *folder.parents][:_MAX_UP]:
        path = links_path(candidate)
        if path.is_file():
            return candidate if _yours(path) else None
    return None


def _forbidden(url: str, contract: Contract) -> str | None:
    if contract.require_https and not url.lower().startswith("https:"):
        return "not https, which the contract requires"
    denied = listed_domain(url, contract.deny_domains)
    return f"on the contract's deny list ({denied})" if denied else None


def link_notes(doc: Document) -> list[str]:
    folder = _store_folder(doc)
    if folder is None:
        return []
    stored = read_links(folder, own_only=True)  # no planted or edited row steers the model
    contract = doc.contract
    lines: list[str] = []
    for source in doc.source_cache.sources:
        row = stored.get(source.url) if source.url else None
        if row is None or len(lines) >= _MAX_LINES:
            continue
        if row.link_status == "moved" and row.final_url:
            new = safe_http_url(row.final_url)
            why = _forbidden(new, contract) if new else None
            if why:
                lines.append(
                    f"- {source.id} ({source.url}) now redirects permanently to a URL {why}: "
                    "find a replacement or drop it where nothing else supports the claim."
                )
            elif new and len(new) <= 500:
                lines.append(
                    f"- {source.id} ({source.url}) now redirects permanently to {new}: cite the "
                    "new URL (a new source) where you keep the claim, and drop the old id."
                )
        elif row.link_status == "dead":
            why = f"HTTP {row.status}" if row.status else "unreachable"
            lines.append(
                f"- {source.id} ({source.url}) is dead ({why}, checked {row.checked_at[:10]}): "
                "find a replacement or drop it where nothing else supports the claim."
            )
    if not lines:
        return []
    return ["", "Link check of the cached sources (oo links):", *lines]
