"""Which documents a library scan parses: the slugs, in order."""

from __future__ import annotations

import pytest

from oo_nb.library import scan as scan_module
from oo_nb.library.digest import digest_bytes, digest_many


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The slugs the scan parses from here on (in worker batches or one by one)."""
    read: list[str] = []
    many, one = digest_many, digest_bytes  # what the scan module calls them by

    def count_many(items: list[tuple[str, str]]) -> object:
        read.extend(slug for _, slug in items)
        return many(items)

    def count_one(data: bytes | None, path: str, slug: str) -> object:
        read.append(slug)
        return one(data, path, slug)

    monkeypatch.setattr(scan_module, "digest_many", count_many)
    monkeypatch.setattr(scan_module, "digest_bytes", count_one)
    return read
