"""Block writes change only the values that changed; the rest of the block keeps its bytes."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from oo_nb.edit.contract import Edit, apply_edits
from oo_nb.format.document import Document
from oo_nb.format.jsonsplice import splice_json
from tests.conftest import CORPUS


def changed_lines(before: str, after: str) -> list[str]:
    return [
        ln
        for ln in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    ]


def edit(tmp_path: Path, name: str, *edits: Edit) -> tuple[str, str]:
    path = tmp_path / name
    path.write_bytes((CORPUS / name).read_bytes())
    before = Document.read(path).block_text("oo-contract")
    apply_edits(path, list(edits))
    return before, Document.read(path).block_text("oo-contract")


def test_setting_one_value_changes_one_line(tmp_path: Path) -> None:
    before, after = edit(tmp_path, "agi-declared.o-o.html", Edit("set", "budget", "2.5"))
    diff = changed_lines(before, after)
    assert len(diff) == 2 and "max_cost_usd" in diff[0] and "2.5" in diff[1], diff


def test_removing_a_section_leaves_other_arrays_as_written(tmp_path: Path) -> None:
    before, after = edit(
        tmp_path, "ai-model-landscape.o-o.html", Edit("remove", "section", "Overview")
    )
    diff = "\n".join(changed_lines(before, after))
    assert "Overview" in diff and "prefer_domains" not in diff and "deny_domains" not in diff


def test_a_new_source_is_inserted_after_the_last_one() -> None:
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    before = doc.block_text("oo-source-cache")
    new = {
        "id": "s99",
        "url": "https://example.org/x",
        "title": "X",
        "tier": "primary",
        "accessed": "2026-11-29",
    }
    after = doc.edit_block("oo-source-cache", lambda c: c["sources"].append(new)).block_text(
        "oo-source-cache"
    )
    diff = changed_lines(before, after)
    assert [d[0] for d in diff] == ["-", "+", "+"], (
        diff
    )  # the old last line gains a comma; one line added
    assert diff[1].rstrip(",") == diff[0].replace("-", "+", 1).rstrip(",") and "s99" in diff[2]


def test_a_value_of_another_json_type_is_rewritten() -> None:
    text = '{"a": 1, "b": [1, 2],\n "c": {"d": true}}'
    out = splice_json(text, json.loads(text), {"a": True, "b": [1, 2.0], "c": {"d": 1}})
    assert json.loads(out) == {"a": True, "b": [1, 2.0], "c": {"d": 1}}
    assert out.startswith('{"a": true, "b": [1, 2.0],\n "c": {"d": 1}}')


def test_strings_that_could_end_the_script_are_escaped() -> None:
    text = '{"a": "x", "b": "kept as is"}'
    out = splice_json(text, json.loads(text), {"a": "</script><!--", "b": "kept as is"})
    assert "</" not in out and "<!--" not in out and json.loads(out)["a"] == "</script><!--"
    assert out.endswith('"b": "kept as is"}')


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("abcd"), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(old=JSON, new=JSON, compact=st.booleans())
def test_any_change_reads_back_as_the_new_value(old: Any, new: Any, compact: bool) -> None:
    text = json.dumps(old) if compact else json.dumps(old, indent=2)
    assert json.loads(splice_json(text, old, new)) == new


@settings(max_examples=200, deadline=None)
@given(
    old=st.dictionaries(st.sampled_from("abcd"), JSON, min_size=1, max_size=4),
    extra=st.lists(JSON, min_size=1, max_size=3),
)
def test_appending_keeps_the_old_text_of_every_item(old: dict[str, Any], extra: list[Any]) -> None:
    old = {**old, "items": [1, {"k": "v"}]}
    text = json.dumps(old, indent=2)
    new = {**old, "items": [*old["items"], *extra]}
    out = splice_json(text, old, new)
    assert json.loads(out) == new
    head = text[: text.index('"items"')]
    assert out.startswith(head)


def test_an_unreadable_block_is_replaced_whole() -> None:
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    span = doc.blocks["oo-changelog"]
    broken = doc.replace_range(span.start, span.end, '\n{"entries": [ oops\n')
    fixed = broken.with_block("oo-changelog", {"entries": []})
    assert fixed.block_json("oo-changelog") == {"entries": []}


def test_a_value_nested_too_deep_to_read_back_is_refused() -> None:
    import pytest

    from oo_nb.errors import ValidationError

    deep: Any = "x"
    for _ in range(80):
        deep = [deep]
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    with pytest.raises(ValidationError, match="nested deeper"):
        doc.with_block("oo-changelog", {"entries": deep})


@settings(max_examples=200, deadline=None)
@given(old=JSON, new=JSON, crlf=st.booleans())
def test_json_types_and_line_ends_survive(old: Any, new: Any, crlf: bool) -> None:
    """Read back equal as JSON text (True is not 1, 1 is not 1.0), in CRLF text too."""
    text = json.dumps(old, indent=2, ensure_ascii=False)
    if crlf:
        text = text.replace("\n", "\r\n")
    out = splice_json(text, old, new)
    assert json.dumps(json.loads(out)) == json.dumps(new)
