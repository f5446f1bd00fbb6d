"""A source cache whose JSON is valid but whose sources are not what they claim: one id for two
entries, a ``javascript:`` URL, an access date after today, a ``verified`` that is no boolean.
``oo check`` and the audit name each (one rule, ``format.source_checks``); the facts frame says
a fact naming only ids of no cached source has no source."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.format.check import check_path
from oo_nb.library.audit import audit
from oo_nb.library.library import Library
from tests.support.tiny_docs import page, source

TODAY = date(2026, 6, 1)


def _write(folder: Path, name: str, sources: list[dict[str, Any]], **kw: Any) -> Path:
    paras = [("00000001", "Tides rise twice a day [s1].")]
    path = folder / f"{name}.o-o.html"
    path.write_bytes(page(paras, sources, **kw).to_bytes())
    return path


def _codes(path: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in check_path(path, TODAY):
        found.setdefault(f.code, []).append(f"{f.severity}: {f.message}")
    return found


def test_two_sources_with_one_id_are_an_error_naming_both(tmp_path: Path) -> None:
    other = dict(source(1), url="https://other.example/x", title="Other")
    path = _write(tmp_path, "dup", [source(1), other])
    [message] = _codes(path)["duplicate-source-id"]
    assert message.startswith("error: s1:")
    assert "sources[0] https://example.org/1" in message
    assert "sources[1] https://other.example/x" in message
    found = audit(Library(tmp_path), today=TODAY)
    row = found[found["code"] == "duplicate-source-id"]
    assert list(row["severity"]) == ["error"] and list(row["where"]) == ["s1"]


def test_a_source_url_that_is_not_a_web_page_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "js", [dict(source(1), url=" JavaScript:alert(1)")])
    [message] = _codes(path)["non-http-source"]
    assert "javascript: URL" in message and "alert(1)" in message
    found = audit(Library(tmp_path), today=TODAY)
    assert "non-http-source" in set(found["code"])


def test_an_access_date_after_today_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "future", [dict(source(1), accessed="2099-01-01")])
    [message] = _codes(path)["future-accessed"]
    assert "2099-01-01" in message and "2026-06-01" in message
    found = audit(Library(tmp_path), today=TODAY)
    assert "future-accessed" in set(found["code"])
    # today's date is no defect
    assert "future-accessed" not in _codes(
        _write(tmp_path, "today", [dict(source(1), accessed=TODAY.isoformat())])
    )


def test_a_verified_or_accessed_of_the_wrong_kind_is_named_not_silently_unknown(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "odd", [dict(source(1), verified="false", accessed="last week")])
    messages = _codes(path)["odd-source-field"]
    assert any("sources[0]: verified is 'false'" in m for m in messages)
    assert any("sources[0]: accessed is 'last week'" in m for m in messages)
    plain = _write(tmp_path, "plain", [dict(source(1), verified=False)])
    assert "odd-source-field" not in _codes(plain)


def test_a_fact_naming_only_unknown_ids_has_no_source(tmp_path: Path) -> None:
    facts = [
        {"id": "f1", "text": "Tides rise.", "source_ids": ["s42"]},
        {"id": "f2", "text": "Twice a day.", "source_ids": ["s42", "s1"]},
    ]
    _write(tmp_path, "facts", [source(1)], facts=facts)
    frame = Library(tmp_path).facts.set_index("fact_id")
    assert not frame.loc["f1", "has_source"]
    assert frame.loc["f2", "has_source"]
