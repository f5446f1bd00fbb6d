"""A source cache whose JSON is valid but whose sources are not what they claim: one id for two
entries, a ``javascript:`` URL, an access date after today, a ``verified`` that is no boolean.
``oo check`` and the audit name each (one rule, ``format.source_checks``); the facts frame says
a fact naming only ids of no cached source has no source."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

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


# a source field that is not what it claims: the change to source(1) that makes it so, the code
# ``oo check`` names it by, each message's words (one tuple a message), the same field as it may
# be (no defect), and whether the audit names it too (odd fields: check only, it alone reads the
# raw block)
FIELD_CASES = {
    "a URL that is not a web page": (
        {"url": " JavaScript:alert(1)"},
        "non-http-source",
        [("javascript: URL", "alert(1)")],
        {"url": "https://example.org/1"},
        True,
    ),
    "an access date after today": (
        {"accessed": "2099-01-01"},
        "future-accessed",
        [("2099-01-01", "2026-06-01")],
        {"accessed": TODAY.isoformat()},
        True,
    ),
    "a verified or accessed of the wrong kind, named not silently unknown": (
        {"verified": "false", "accessed": "last week"},
        "odd-source-field",
        [("sources[0]: verified is 'false'",), ("sources[0]: accessed is 'last week'",)],
        {"verified": False},
        False,
    ),
}


@pytest.mark.parametrize(
    ("bad", "code", "words", "fine", "audited"), list(FIELD_CASES.values()), ids=list(FIELD_CASES)
)
def test_a_source_field_that_is_not_what_it_claims_is_named(
    tmp_path: Path,
    bad: dict[str, Any],
    code: str,
    words: list[tuple[str, ...]],
    fine: dict[str, Any],
    audited: bool,
) -> None:
    messages = _codes(_write(tmp_path, "bad", [dict(source(1), **bad)]))[code]
    assert len(messages) == len(words), messages
    for each in words:
        assert any(all(w in m for w in each) for m in messages), (each, messages)
    if audited:
        assert code in set(audit(Library(tmp_path), today=TODAY)["code"])
    assert code not in _codes(_write(tmp_path, "fine", [dict(source(1), **fine)]))


def test_a_fact_naming_only_unknown_ids_has_no_source(tmp_path: Path) -> None:
    facts = [
        {"id": "f1", "text": "Tides rise.", "source_ids": ["s42"]},
        {"id": "f2", "text": "Twice a day.", "source_ids": ["s42", "s1"]},
    ]
    _write(tmp_path, "facts", [source(1)], facts=facts)
    frame = Library(tmp_path).facts.set_index("fact_id")
    assert not frame.loc["f1", "has_source"]
    assert frame.loc["f2", "has_source"]
