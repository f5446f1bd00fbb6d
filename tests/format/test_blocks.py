from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.errors import ValidationError
from oo_nb.format.blocks import Changelog, Contract, Manifest, SourceCache
from oo_nb.format.document import Document
from tests.conftest import CORPUS


def doc(name: str) -> Document:
    return Document.read(CORPUS / name)


def test_manifest_cadence_variants() -> None:
    assert doc("agi-declared.o-o.html").manifest.cadence_field == "update_every_days"
    early = doc("yc-w26-batch.o-o.html").manifest
    assert (early.cadence_field, early.cadence_days) == ("freshness", 7)
    assert Manifest.from_json({"title": "t", "freshness": "daily"}).cadence_days == 1
    assert Manifest.from_json({"title": "t", "freshness": "monthly"}).cadence_days == 30
    assert Manifest.from_json({"title": "t", "freshness": "fortnightly"}).cadence_days == 7
    missing = Manifest.from_json({"title": "t", "version": 0, "as_of": ""})
    assert (missing.cadence_field, missing.cadence_days, missing.as_of) == ("default", 7, None)


def test_manifest_changelog_shapes() -> None:
    assert doc("ai-model-landscape.o-o.html").manifest.changelog_notes[0].startswith("v1:")
    assert doc("anthropic-leadership.o-o.html").manifest.changelog_notes == ()
    m = Manifest.from_json(
        {"changelog": [{"version": 1, "date": "2026-01-01", "summary": "first"}]}
    )
    assert m.changelog_notes == ("first",)


def test_manifest_errors_name_block_and_key() -> None:
    with pytest.raises(ValidationError) as info:
        Manifest.from_json({"title": "t", "version": "two"}, file="x.o-o.html")
    assert info.value.block == "oo-manifest" and info.value.key == "version"
    assert "x.o-o.html" in str(info.value)
    with pytest.raises(ValidationError, match="as_of"):
        Manifest.from_json({"as_of": "yesterday"})


def test_contract_variants() -> None:
    flags = doc("anthropic-leadership.o-o.html").contract
    assert flags.instructions_form == "flags"
    assert flags.require_https is True
    assert flags.max_cost_usd == 3.0
    assert "reddit.com" in flags.deny_domains
    sentinel = doc("agi-declared.o-o.html").contract
    assert sentinel.is_sentinel and sentinel.sentinel is not None
    assert sentinel.sentinel.structured is False
    assert sentinel.sentinel.status == "not_occurred"
    assert sentinel.required_sections[0] == "Status"
    assert not doc("yc-w26-batch.o-o.html").contract.is_sentinel
    structured = Contract.from_json(
        {
            "sentinel": {
                "event": "X happens",
                "criteria": ["a"],
                "status": "occurred",
                "last_checked": "2026-11-01",
            }
        }
    )
    assert structured.sentinel is not None and structured.sentinel.structured
    assert structured.sentinel.last_checked is not None
    assert Contract.from_json({}).max_cost_usd == 0.5
    with pytest.raises(ValidationError, match=r"research\.intents"):
        Contract.from_json({"research": {"intents": "one"}})


def test_source_cache_variants() -> None:
    cache = doc("yc-w26-batch.o-o.html").source_cache
    assert cache.sources[0].id == "s1" and cache.sources[0].domain == "ycombinator.com"
    assert cache.facts[0].source_ids == ("s7",) and cache.facts[0].key == "batch_size"
    strings = doc("agi-declared.o-o.html").source_cache.facts
    assert strings[0].form == "string" and strings[0].source_ids == ()
    empty = doc("anthropic-leadership.o-o.html").source_cache
    assert empty.sources == () and empty.last_updated is None
    parsed = SourceCache.from_json(
        {
            "sources": [
                "cnbc.com - funding, board, leadership coverage",
                "https://x.org/a — paper",
            ],
            "facts": [],
        }
    )
    first, second = parsed.sources
    assert (first.domain, first.description, first.form) == (
        "cnbc.com",
        "funding, board, leadership coverage",
        "string",
    )
    assert second.url == "https://x.org/a" and second.domain == "x.org"


def test_changelog_variants() -> None:
    assert doc("anthropic-leadership.o-o.html").changelog.form == "array"
    log = doc("yc-w26-batch.o-o.html").changelog
    assert log.form == "entries" and log.latest is not None and log.latest.version == 1
    assert log.latest.date is not None and log.latest.date.isoformat() == "2026-02-16"
    extra = Changelog.from_json(
        {"entries": [{"version": 2, "timestamp": "2026-03-01", "summary": "s", "cost_usd": 0.2}]}
    )
    assert extra.entries[0].extra == {"cost_usd": 0.2}


def test_value_offset_finds_every_value_of_a_block() -> None:
    """Every key path of real blocks, dumped compact and pretty, leads to its own value."""
    import json

    from oo_nb.format.jsonblock import dump_block, key_path, value_offset

    def paths(value: object, prefix: str = "") -> list[tuple[str, object]]:
        found: list[tuple[str, object]] = []
        if isinstance(value, dict):
            for k, v in value.items():
                path = f"{prefix}.{k}" if prefix else k
                found += [(path, v), *paths(v, path)]
        elif isinstance(value, list):
            for i, v in enumerate(value):
                path = f"{prefix}[{i}]"
                found += [(path, v), *paths(v, path)]
        return found

    for name in ("agi-declared.o-o.html", "yc-w26-batch.o-o.html"):
        d = doc(name)
        for block in ("oo-manifest", "oo-contract", "oo-source-cache"):
            raw = d.block_json(block)
            for text in (d.block_text(block), json.dumps(raw), dump_block(raw)):
                for path, value in paths(raw):
                    if "." in path.rsplit(".", 1)[-1] or not key_path(path):
                        continue
                    at = value_offset(text, key_path(path))
                    assert at is not None, path
                    assert json.JSONDecoder().raw_decode(text, at)[0] == value, path
    assert value_offset('{"a": {"b": 1}}', ["a", "zz"]) == 6  # absent key: where it belongs
    assert value_offset('{"a": [1, 2]}', ["a", 5]) == 6
    assert value_offset("not json", ["a"]) == 0
    assert value_offset('{"a": 1, "a": 2}', ["a"]) == 14  # the one json.loads keeps
    assert key_path("facts[3].source") == ["facts", 3, "source"]


def test_key_of_a_list_item_has_no_trailing_dot() -> None:
    with pytest.raises(ValidationError) as info:
        SourceCache.from_json({"facts": ["ok", 3]})
    assert info.value.key == "facts[1]" and "key 'facts[1]':" in str(info.value)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (0, "at least 1 day, found 0"),
        (None, "found null"),
        (-3, "found -3"),
        (3_000_000, "at most 36500 days"),
        (10**11, "found 100000000000"),
    ],
)
def test_an_unusable_cadence_is_an_error_naming_the_key(value: object, says: str) -> None:
    with pytest.raises(ValidationError) as info:
        Manifest.from_json({"title": "t", "update_every_days": value})
    assert info.value.key == "update_every_days" and says in str(info.value)
    assert Manifest.from_json({"title": "t", "update_every_days": 1}).cadence_days == 1
    assert Manifest.from_json({"title": "t", "update_every_days": 36_500}).cadence_days == 36_500


def test_a_huge_cadence_is_a_listed_error_not_a_crash_of_the_library(tmp_path: Path) -> None:
    from oo_nb.library.library import Library

    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    (tmp_path / "a.o-o.html").write_bytes(
        doc.edit_block("oo-manifest", lambda m: m.update(update_every_days=10**11)).to_bytes()
    )
    (tmp_path / "b.o-o.html").write_bytes(doc.to_bytes())
    lib = Library(tmp_path)
    assert [Path(p).name for p in lib.errors["path"]] == ["a.o-o.html"]
    assert "update_every_days" in lib.errors["message"].iloc[0]
    assert "b.o-o.html" in {Path(p).name for p in lib.documents["path"]}


def test_a_due_date_past_year_9999_is_an_error_naming_as_of() -> None:
    with pytest.raises(ValidationError) as info:
        Manifest.from_json({"title": "t", "as_of": "9990-01-01", "update_every_days": 36_500})
    assert info.value.key == "as_of" and "9999-12-31" in str(info.value)
    assert (
        Manifest.from_json(
            {"title": "t", "as_of": "9990-01-01", "update_every_days": 30}
        ).cadence_days
        == 30
    )


@pytest.mark.parametrize("version", [10**40, -(2**53), 2.0**60])
def test_a_whole_number_past_what_javascript_holds_is_refused(version: object) -> None:
    """A manifest version of 10**40 crashed `oo library` (a frame's int64 column overflowed);
    the page's script could not hold it either."""
    with pytest.raises(ValidationError, match="at most 9,007,199,254,740,991") as info:
        Manifest.from_json({"title": "T", "version": version})
    assert info.value.key == "version"
    assert Manifest.from_json({"title": "T", "version": 2**53 - 1}).version == 2**53 - 1


def test_a_library_with_a_huge_version_lists_the_document_as_partly_read(tmp_path: Path) -> None:
    from oo_nb.library.library import FRAMES, Library

    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    (tmp_path / "big.o-o.html").write_bytes(
        doc.edit_block("oo-manifest", lambda m: m.update(version=10**40)).to_bytes()
    )
    lib = Library(tmp_path, cache=False)
    for name in FRAMES:
        lib.frame(name)
    assert "version" in " ".join(lib.frame("errors").astype(str).sum(axis=1))
