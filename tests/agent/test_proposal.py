"""validate_proposal: the issue's exact example shape, types, ids, sizes, error paths."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from oo_nb.agent.proposal import LIMITS, MAX_DEPTH, Proposal, validate_proposal
from oo_nb.errors import AgentError
from tests.support.bad_text import deep_list

EXAMPLE: dict[str, Any] = {
    "summary": "what changed and why",
    "sections": [{"id": "section-id", "title": "Heading", "html": "<p>… [s17]</p>"}],
    "sources": [
        {
            "id": "s17",
            "url": "https://example.org/a",
            "title": "…",
            "tier": "primary",
            "accessed": "2026-03-01",
        }
    ],
    "drop_sources": ["s3"],
    "facts": [{"text": "…", "source_ids": ["s17"]}],
    "images": [
        {
            "url": "https://example.org/x.png",
            "page_url": "https://example.org/",
            "caption": "…",
            "alt": "…",
            "layout": "fig-right",
        }
    ],
    "sentinel": {"status": "not_occurred", "evidence": "…"},
}


def test_issue_example_shape_is_accepted() -> None:
    p = validate_proposal(copy.deepcopy(EXAMPLE))
    assert isinstance(p, Proposal)
    assert p.summary == "what changed and why"
    assert p.sections[0].id == "section-id" and p.sections[0].html == "<p>… [s17]</p>"
    assert p.sources[0].id == "s17" and p.sources[0].accessed == "2026-03-01"
    assert p.drop_sources == ("s3",)
    assert p.facts[0].source_ids == ("s17",)
    assert p.images[0].layout == "fig-right" and p.images[0].section is None
    assert p.sentinel is not None and p.sentinel.status == "not_occurred"
    assert p.ignored == ()


def test_only_summary_and_sections_required() -> None:
    p = validate_proposal({"summary": "s", "sections": []})
    assert p.sources == () and p.sentinel is None
    for missing in ("summary", "sections"):
        raw = {"summary": "s", "sections": []}
        del raw[missing]
        with pytest.raises(AgentError, match=missing):
            validate_proposal(raw)


def test_json_text_and_round_trip() -> None:
    p = validate_proposal(json.dumps(EXAMPLE))
    assert validate_proposal(p.to_json()) == p
    with pytest.raises(AgentError, match="not JSON"):
        validate_proposal("{nope")


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r["sections"][0].update(html=5), "sections[0].html"),
        (lambda r: r["sections"][0].update(id="Bad Id!"), "sections[0].id"),
        (lambda r: r["sections"][0].update(id="toc"), "sections[0].id"),
        (lambda r: r["sections"][0].update(id="oo-manifest"), "sections[0].id"),
        (lambda r: r["sections"].append(dict(r["sections"][0])), "sections[1].id"),
        (lambda r: r["sections"][0].pop("title"), "sections[0].title"),
        (
            lambda r: r["sections"][0].update(html="x" * (LIMITS["section.html"] + 1)),
            "sections[0].html",
        ),
        (lambda r: r["sources"][0].update(id="17"), "sources[0].id"),
        (lambda r: r["sources"][0].update(id="s0"), "sources[0].id"),
        (lambda r: r["sources"][0].update(url=None), "sources[0].url"),
        (lambda r: r["sources"][0].update(title=["x"]), "sources[0].title"),
        (lambda r: r.update(drop_sources=["s3", "x3"]), "drop_sources[1]"),
        (lambda r: r.update(drop_sources="s3"), "drop_sources"),
        (lambda r: r["facts"][0].update(source_ids=["s17", 4]), "facts[0].source_ids[1]"),
        (lambda r: r["images"][0].update(layout="fig-huge"), "images[0].layout"),
        (lambda r: r["images"][0].pop("caption"), "images[0].caption"),
        (lambda r: r["sentinel"].update(status="maybe"), "sentinel.status"),
        (lambda r: r.update(sections={"id": "x"}), "sections"),
        (lambda r: r.update(summary=""), "summary"),
        (lambda r: r.update(summary="a\x00b"), "summary"),
        (
            lambda r: r.update(
                sources=[{"id": "s1", "url": "u", "title": "t"}] * (LIMITS["sources"] + 1)
            ),
            "sources",
        ),
    ],
)
def test_errors_name_the_field(mutate: Any, field: str) -> None:
    raw = copy.deepcopy(EXAMPLE)
    mutate(raw)
    with pytest.raises(AgentError) as info:
        validate_proposal(raw)
    assert info.value.key == field, str(info.value)


def test_not_an_object() -> None:
    for raw in (None, [], 3, True):
        with pytest.raises(AgentError, match="must be an object"):
            validate_proposal(raw)


def test_unknown_keys_ignored_and_listed() -> None:
    raw = copy.deepcopy(EXAMPLE)
    raw["mood"] = "happy"
    raw["sections"][0]["note"] = "x"
    p = validate_proposal(raw)
    assert p.ignored == ("mood", "sections[0].note")


def test_bad_accessed_date_becomes_none_and_ids_are_trimmed() -> None:
    raw = copy.deepcopy(EXAMPLE)
    raw["sources"][0]["accessed"] = "yesterday"
    raw["sources"][0]["id"] = " s17 "
    p = validate_proposal(raw)
    assert p.sources[0].accessed is None and p.sources[0].id == "s17"


def test_duplicate_source_ids_rejected() -> None:
    raw = copy.deepcopy(EXAMPLE)
    raw["sources"].append(dict(raw["sources"][0]))
    with pytest.raises(AgentError) as info:
        validate_proposal(raw)
    assert info.value.key == "sources[1].id"


def test_ignored_key_names_are_plain_text() -> None:
    raw = copy.deepcopy(EXAMPLE)
    raw["<img src=x onerror=alert(1)>x"] = 1
    assert validate_proposal(raw).ignored == ("x",)


@pytest.mark.parametrize("where", ["sources", "extra", "sentinel"])
def test_input_nested_hundreds_deep_is_one_line_naming_the_field(where: str) -> None:
    """An answer nested ~400 deep ended in pydantic's "Maximum serialization depth exceeded"
    (a traceback); the depth is checked first, naming where, well below that limit."""
    raw = copy.deepcopy(EXAMPLE)
    if where == "sources":
        raw["sources"][0]["title"] = deep_list(400)
        path = "sources[0].title[0][0][0]…"
    elif where == "extra":
        raw["notes"] = {"a": deep_list(40)}
        path = "notes.a[0][0][0][0]…"
    else:
        raw["sentinel"]["evidence"] = deep_list(MAX_DEPTH)
        path = "sentinel.evidence[0][0][0][0]…"
    with pytest.raises(AgentError) as err:
        validate_proposal(raw)
    assert err.value.key == path
    assert str(err.value) == (
        f"key {path!r}: invalid submit_proposal input: nested deeper than {MAX_DEPTH} levels"
    )
    assert validate_proposal(copy.deepcopy(EXAMPLE)).summary  # the schema's depth is fine


def test_json_text_nested_past_the_parser_is_one_line() -> None:
    with pytest.raises(AgentError, match=f"nested deeper than {MAX_DEPTH} levels"):
        validate_proposal('{"summary": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_lone_surrogates_are_replaced_and_listed() -> None:
    """Text no UTF-8 file can hold crashed the sanitiser after the answer was paid for: it is
    replaced by U+FFFD (keys too) and every field is named for the reviewer."""
    raw = copy.deepcopy(EXAMPLE)
    raw["summary"] = "what \ud800 changed"
    raw["sections"][0]["html"] = "<p>caf\udce9 [s17]</p>"
    raw["sources"][0]["title"] = "\udfff"
    raw["odd\udc80"] = 1
    p = validate_proposal(raw)
    assert p.summary == "what \ufffd changed" and p.sections[0].html == "<p>caf\ufffd [s17]</p>"
    assert p.sources[0].title == "\ufffd"
    assert sorted(p.repaired) == [
        "odd\ufffd (key)",
        "sections[0].html",
        "sources[0].title",
        "summary",
    ]
    assert p.ignored == ("odd\ufffd",)
    json.dumps(p.to_json(), ensure_ascii=False).encode("utf-8")  # writable now
    assert "repaired" not in p.to_json() and validate_proposal(EXAMPLE).repaired == ()
