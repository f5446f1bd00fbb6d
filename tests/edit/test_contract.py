"""oo contract: edits change only the operative block, validate, keep history."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from oo_nb.cli import contract as contract_cmd
from oo_nb.edit.contract import ContractEditResult, Edit, apply_edits
from oo_nb.edit.contract_cells import apply_contract_body, parse_body
from oo_nb.edit.new import NewSpec, create_document
from oo_nb.errors import ValidationError
from oo_nb.format.document import Document
from oo_nb.skin import speaking
from oo_nb.store.store import read_history


def _outside(doc: Document, block: str) -> tuple[str, str]:
    span = doc.blocks[block]
    return doc.text[: span.start], doc.text[span.end :]


def _run(doc: Path, *argv: str) -> object:
    parser = argparse.ArgumentParser()
    contract_cmd.add_arguments(parser)
    return contract_cmd.run(parser.parse_args([str(doc), *argv]))


@pytest.mark.parametrize("tiny", ["0.0000001", "1e-9", "0.00004"])
def test_a_budget_that_would_be_stored_as_zero_is_refused(corpus_copy: Path, tiny: str) -> None:
    """The contract keeps 4 decimals: 1e-9 was written as 0.0, which every update then refused
    (the outside attack of round four)."""
    path = corpus_copy / "agi-declared.o-o.html"
    before = path.read_bytes()
    with pytest.raises(ValidationError, match=r"US dollars from 0\.0001 to 100,000"):
        _run(path, "--set", "budget", tiny)
    assert path.read_bytes() == before


def test_set_budget_changes_only_the_operative_contract(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    before = Document.read(path)
    result = _run(path, "--set", "budget", "2.5")
    after = Document.read(path)
    assert _outside(before, "oo-contract") == _outside(after, "oo-contract")
    assert after.contract.max_cost_usd == 2.5
    # the template after the terminator (which also says max_cost_usd) is untouched
    assert '"budget": {"max_cost_usd": 0.50}' in after.span_text(after.tail)
    assert after.span_text(after.tail) == before.span_text(before.tail)
    assert "budget" in result.to_text()  # type: ignore[attr-defined]
    history = read_history(path)
    assert len(history) == 2 and history[0].snapshot is not None
    assert history[0].snapshot.read_bytes() == before.to_bytes()


def test_remove_section_changes_only_the_operative_contract(corpus_copy: Path) -> None:
    path = corpus_copy / "anthropic-leadership.o-o.html"
    before = Document.read(path)
    _run(path, "--remove", "section", "Board of Directors")
    after = Document.read(path)
    assert _outside(before, "oo-contract") == _outside(after, "oo-contract")
    assert after.contract.required_sections == (
        "Overview",
        "Co-Founders",
        "Executive Team",
        "Research Leadership",
        "References",
    )
    assert after.contract.intents == before.contract.intents  # no other array touched


def test_add_to_an_empty_array_gives_valid_json(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    assert Document.read(path).contract.prefer_domains == ()
    _run(path, "--add", "prefer", "https://www.Nature.com/articles")
    after = Document.read(path)
    raw = json.loads(after.block_text("oo-contract"))
    assert raw["research"]["source_policy"]["prefer_domains"] == ["nature.com"]
    assert after.contract.prefer_domains == ("nature.com",)


def test_missing_lists_and_containers_are_created(tmp_path: Path) -> None:
    doc = create_document(NewSpec("Tides"), tmp_path)
    assert doc.path is not None
    bare = doc.edit_block("oo-contract", lambda c: c.pop("research"))
    doc.path.write_bytes(bare.to_bytes())
    apply_edits(doc.path, [Edit("add", "deny", "example.com"), Edit("add", "intent", "tides 2026")])
    contract = Document.read(doc.path).contract
    assert contract.deny_domains == ("example.com",) and contract.intents == ("tides 2026",)


def test_cadence_goes_to_the_manifest_converting_freshness(corpus_copy: Path) -> None:
    path = corpus_copy / "anthropic-leadership.o-o.html"
    before = Document.read(path)
    result = apply_edits(path, [Edit("set", "update_every_days", "14")])
    after = Document.read(path)
    assert _outside(before, "oo-manifest") == _outside(after, "oo-manifest")
    manifest = after.block_json("oo-manifest")
    assert "freshness" not in manifest and manifest["update_every_days"] == 14
    assert list(manifest)[1] == "update_every_days"  # in the legacy field's place
    warning = next(note for note in result.notes if note.startswith("warning:"))
    assert "freshness='weekly'" in warning and "shell tail" in warning and "will not see" in warning
    assert "  warning: " in result.to_text() and "note: warning" not in result.to_text()
    assert after.manifest.cadence_days == 14


@pytest.mark.parametrize(("days", "word"), [("30", "monthly"), ("1", "daily"), ("7", "weekly")])
def test_cadence_with_a_word_keeps_the_freshness_field(
    corpus_copy: Path, days: str, word: str
) -> None:
    """Early documents' own shell tails read only ``freshness``: 1, 7 and 30 days stay a word."""
    path = corpus_copy / "ai-model-landscape.o-o.html"
    before = Document.read(path)
    assert before.block_json("oo-manifest")["freshness"] == "weekly"
    result = _run(path, "--set", "update_every_days", days)
    assert isinstance(result, ContractEditResult)
    after = Document.read(path)
    manifest = after.block_json("oo-manifest")
    assert manifest["freshness"] == word and "update_every_days" not in manifest
    assert list(manifest) == list(before.block_json("oo-manifest"))  # same keys, same order
    assert after.manifest.cadence_days == int(days) and after.manifest.cadence_field == "freshness"
    assert not any(n.startswith("warning:") for n in result.notes)
    if word == "weekly":
        assert (
            result.changes == [] and not result.written and path.read_bytes() == before.to_bytes()
        )
    else:
        assert result.changes == [
            f"freshness: 'weekly' -> {word!r} (manifest, every {days} day{'s' if days != '1' else ''})"
        ]


def test_cadence_of_a_document_with_both_fields_keeps_them_in_step(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    both = Document.read(path).edit_block("oo-manifest", lambda m: {**m, "freshness": "daily"})
    path.write_bytes(both.to_bytes())
    apply_edits(path, [Edit("set", "update_every_days", "30")])
    manifest = Document.read(path).block_json("oo-manifest")
    assert (manifest["update_every_days"], manifest["freshness"]) == (30, "monthly")


def test_section_is_added_before_references(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    apply_edits(path, [Edit("add", "section", "Timeline")])
    assert Document.read(path).contract.required_sections[-2:] == ("Timeline", "References")


def test_text_fields_and_model(corpus_copy: Path) -> None:
    path = corpus_copy / "yc-w26-batch.o-o.html"
    apply_edits(
        path,
        [Edit("set", "audience", 'Founders & "angels" \\ all'), Edit("set", "model", "claude-x")],
    )
    c = Document.read(path).contract
    assert c.audience == 'Founders & "angels" \\ all' and c.model == "claude-x"
    apply_edits(path, [Edit("set", "model", "")])
    assert Document.read(path).contract.model is None


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--set", "budget", "-1"], "from 0.0001 to 100,000"),
        (["--set", "budget", "abc"], "number"),
        (["--set", "budget", "0"], "from 0.0001 to 100,000"),
        (["--set", "update_every_days", "0"], "whole number"),
        (["--set", "update_every_days", "2.5"], "whole number"),
        (["--set", "colour", "red"], "valid fields: subject, scope, audience, tone, budget"),
        (["--add", "colour", "red"], "valid fields"),
        (["--add", "budget", "1"], "unknown list"),
        (["--set", "scope", "  "], "empty"),
        (["--add", "deny", "not a domain"], "domain"),
        (["--remove", "section", "Nope"], "not in the list; it holds: 'Status'"),
        (["--set", "model", "two words"], "no spaces"),
    ],
)
def test_bad_edits_are_refused_and_nothing_is_written(
    corpus_copy: Path, argv: list[str], match: str
) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    before = path.read_bytes()
    with pytest.raises(ValidationError, match=match):
        _run(path, *argv)
    assert path.read_bytes() == before
    assert (
        read_history(path)[0].snapshot is None
    )  # only the current file: nothing was kept or written


def test_on_an_index_the_defaults_for_new_documents_are_edited(corpus_copy: Path) -> None:
    path = corpus_copy / "index.o-o.html"
    before = path.read_bytes()
    _run(path, "--set", "budget", "1")
    assert "1.00 USD" in str(_run(path, "--show"))
    assert path.read_bytes() == before  # the index page itself is never edited
    assert (corpus_copy / ".oo-new-defaults.json").is_file()


def test_no_change_writes_nothing(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    before = path.read_bytes()
    result = apply_edits(path, [Edit("add", "deny", "reddit.com"), Edit("set", "budget", "5")])
    assert not result.written and result.changes == []
    assert "already there" in result.to_text()
    assert path.read_bytes() == before


def test_dry_run(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    before = path.read_bytes()
    result = _run(path, "--set", "budget", "9", "--dry-run")
    assert "nothing written" in result.to_text()  # type: ignore[attr-defined]
    assert path.read_bytes() == before


def test_show(corpus_copy: Path) -> None:
    text = _run(corpus_copy / "agi-declared.o-o.html", "--show").to_text()  # type: ignore[attr-defined]
    assert "subject   AGI Declared" in text and "budget    5.00 USD per update" in text
    assert "sentinel" in text and "status not occurred" in text
    raw = json.loads(
        _run(corpus_copy / "anthropic-leadership.o-o.html", "--show", "--json").to_text()
    )  # type: ignore[attr-defined]
    assert raw["manifest"]["freshness"] == "weekly" and raw["contract"]["version"] == "2.0"


# ----------------------------------------------------------------------------- %%oo contract bodies
def test_body_lines() -> None:
    edits = parse_body(
        """
        # a comment
        budget: 2
        scope: "Who leads, and why"
        intent: first search
        intent: second search
        +section: Timeline
        -deny: quora.com
        """
    )
    assert edits == [
        Edit("set", "budget", "2"),
        Edit("set", "scope", "Who leads, and why"),
        Edit("add", "section", "Timeline"),
        Edit("remove", "deny", "quora.com"),
        Edit("replace", "intent", ("first search", "second search")),
    ]


def test_body_json() -> None:
    edits = parse_body(
        '{"budget": 1.5, "intents": ["a", "b"], "section": "Timeline", "update_every_days": 3}'
    )
    assert edits == [
        Edit("set", "budget", "1.5"),
        Edit("replace", "intent", ("a", "b")),
        Edit("add", "section", "Timeline"),
        Edit("set", "update_every_days", "3"),
    ]


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("", "empty"),
        ("budget 2", "line 1"),
        ("scope: x\ncolour: red", "line 2"),
        ("+budget: 2", "lists only"),
        ("[1, 2]", "expected `key: value`"),
        ('{"budget": [1]}', "text or a number"),
        ('{"intent": 3}', "list of strings"),
        ("{not json", "invalid JSON"),
    ],
)
def test_bad_bodies(body: str, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        parse_body(body)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("budget: 0.5\nscope: x\nbudget: 9", "line 3, key 'budget': given twice, on line 1"),
        ("Budget: 0.5\nbudget: 9", "line 2, key 'budget': given twice, on line 1 ('Budget: 0.5')"),
        (
            '{"budget": 0.5, "budget": 9}',
            "key 'budget': given twice in the JSON object (0.5 and 9)",
        ),
        ('{"section": "A", "section": "B"}', "key 'section': given twice"),
    ],
)
def test_a_key_set_twice_in_a_cell_is_refused(corpus_copy: Path, body: str, said: str) -> None:
    """A field given twice is a mistake to ask about, not a last value that silently wins."""
    path = corpus_copy / "ai-model-landscape.o-o.html"
    before = path.read_bytes()
    with pytest.raises(ValidationError) as caught:
        apply_contract_body(path, body)
    assert said in str(caught.value)
    assert path.read_bytes() == before


def test_apply_body_is_one_write(corpus_copy: Path) -> None:
    path = corpus_copy / "ai-model-landscape.o-o.html"
    before = Document.read(path)
    result = apply_contract_body(
        path, "budget: 4\naudience: Engineers\n+intent: LLM prices 2027\nupdate_every_days: 2"
    )
    assert result.written and result.exit_code == 0
    after = Document.read(path)
    assert after.contract.max_cost_usd == 4 and after.contract.audience == "Engineers"
    assert after.contract.intents[-1] == "LLM prices 2027" and after.manifest.cadence_days == 2
    assert len(read_history(path)) == 2  # one snapshot for the whole cell
    assert after.span_text(after.tail) == before.span_text(before.tail)


def test_a_bad_line_in_a_body_writes_nothing(corpus_copy: Path) -> None:
    path = corpus_copy / "ai-model-landscape.o-o.html"
    before = path.read_bytes()
    with pytest.raises(ValidationError):
        apply_contract_body(path, "budget: 4\nupdate_every_days: never")
    assert path.read_bytes() == before


def test_replacing_the_section_list_keeps_references_last(tmp_path: Path, corpus_dir: Path) -> None:
    p = tmp_path / "yc.o-o.html"
    p.write_bytes((corpus_dir / "yc-w26-batch.o-o.html").read_bytes())
    apply_contract_body(p, "section: Overview\nsection: Timeline")
    assert Document.read(p).contract.required_sections == ("Overview", "Timeline", "References")


# --------------------------------------------------------------------------- sentinel fields
def test_sentinel_criteria_event_and_status(tmp_path: Path) -> None:
    doc = create_document(
        NewSpec("AGI declared", sentinel="A major lab declares AGI", criteria=("a CEO says so",)),
        tmp_path,
    )
    assert doc.path is not None
    result = _run(
        doc.path,
        "--add",
        "criteria",
        "an independent evaluation agrees",
        "--set",
        "sentinel.status",
        "occurred",
        "--set",
        "sentinel.event",
        "OpenAI declares AGI",
    )
    assert isinstance(result, ContractEditResult) and result.written
    after = Document.read(doc.path)
    s = after.contract.sentinel
    assert s is not None and s.structured
    assert (s.event, s.status) == ("OpenAI declares AGI", "occurred")
    assert s.criteria == ("a CEO says so", "an independent evaluation agrees")
    raw = after.block_json("oo-contract")
    assert (
        "OpenAI declares AGI" in raw["instructions"]["sentinel"]
        and "A major lab" not in raw["instructions"]["sentinel"]
    )
    assert "OpenAI declares AGI" in raw["identity"]["scope"]
    _run(doc.path, "--remove", "criteria", "A CEO SAYS SO")
    assert Document.read(doc.path).contract.sentinel.criteria == (
        "an independent evaluation agrees",
    )  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match="not_occurred, occurred, unknown"):
        _run(doc.path, "--set", "sentinel.status", "maybe")
    text = _run(doc.path, "--show").to_text()  # type: ignore[attr-defined]
    assert "  criteria  an independent evaluation agrees" in text


def test_criteria_on_an_original_sentinel_add_structured_fields(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    result = apply_contract_body(
        path, "+criteria: a lab's board confirms it\nsentinel.status: not occurred"
    )
    assert any("structured fields added" in c for c in result.changes)
    raw = Document.read(path).block_json("oo-contract")
    assert raw["sentinel"]["criteria"] == ["a lab's board confirms it"]
    assert raw["sentinel"]["status"] == "not_occurred"
    assert raw["sentinel"]["event"] == raw["instructions"]["sentinel"]  # what the original says
    assert any("SENTINEL CHECK" in step for step in raw["instructions"]["procedure"])


def test_sentinel_fields_on_a_plain_document_are_refused(corpus_copy: Path) -> None:
    path = corpus_copy / "yc-w26-batch.o-o.html"
    before = path.read_bytes()
    for argv in (
        ("--add", "criteria", "x"),
        ("--set", "sentinel.status", "occurred"),
        ("--set", "event", "x"),
    ):
        with pytest.raises(ValidationError, match="not a sentinel document"):
            _run(path, *argv)
    assert path.read_bytes() == before


def test_a_new_event_restates_only_the_sentences_oo_new_wrote(tmp_path: Path) -> None:
    """The user's own scope naming the old event ("GPT-6 benchmarks") is kept word for word;
    only the generated sentences name the new event, exactly as oo new would have written them."""
    spec = NewSpec.from_text(
        "GPT-6 watch / OpenAI model launches and GPT-6 benchmarks.", sentinel="GPT-6"
    )
    doc = create_document(spec, tmp_path / "a")
    assert doc.path is not None
    result = _run(doc.path, "--set", "sentinel.event", "GPT-6 is released publicly")
    assert isinstance(result, ContractEditResult) and result.written
    raw = Document.read(doc.path).block_json("oo-contract")
    expected = create_document(
        NewSpec.from_text(
            "GPT-6 watch / OpenAI model launches and GPT-6 benchmarks.",
            sentinel="GPT-6 is released publicly",
        ),
        tmp_path / "b",
    ).block_json("oo-contract")
    assert raw["identity"]["scope"] == expected["identity"]["scope"]
    assert raw["identity"]["scope"].startswith("OpenAI model launches and GPT-6 benchmarks. ")
    assert raw["instructions"]["sentinel"] == expected["instructions"]["sentinel"]
    assert raw["sentinel"]["event"] == "GPT-6 is released publicly"
    # the generated search intent follows the event; the others are as oo new wrote them
    assert raw["research"]["intents"] == expected["research"]["intents"]
    assert any(i.startswith("GPT-6 is released publicly ") for i in raw["research"]["intents"])


def test_a_new_event_leaves_rewritten_or_original_wording_alone(
    tmp_path: Path, corpus_copy: Path
) -> None:
    doc = create_document(NewSpec("Launch watch", sentinel="GPT-6"), tmp_path)
    assert doc.path is not None
    apply_edits(
        doc.path, [Edit("set", "scope", "Whether GPT-6 ships this year, and its benchmarks.")]
    )
    result = apply_edits(doc.path, [Edit("set", "sentinel.event", "GPT-7")])
    raw = Document.read(doc.path).block_json("oo-contract")
    assert raw["identity"]["scope"] == "Whether GPT-6 ships this year, and its benchmarks."
    assert "(GPT-7)" in raw["instructions"]["sentinel"]
    assert any("identity.scope names the old event" in n for n in result.notes)
    # an original sentinel: its instructions.sentinel is the author's prose, not oo new's sentence
    path = corpus_copy / "agi-declared.o-o.html"
    before = Document.read(path).block_json("oo-contract")["instructions"]["sentinel"]
    result = apply_edits(path, [Edit("set", "sentinel.event", "OpenAI declares AGI")])
    raw = Document.read(path).block_json("oo-contract")
    assert raw["instructions"]["sentinel"] == before
    assert raw["sentinel"]["event"] == "OpenAI declares AGI"
    assert any("instructions.sentinel names the old event" in n for n in result.notes)


# --------------------------------------------------------------------------- original page script
# The original o-o page script shows these values with innerHTML (format/legacy_script.py).
SHOWN_VALUE_EDITS = [
    ("--set", "subject"),
    ("--set", "scope"),
    ("--set", "audience"),
    ("--set", "tone"),
    ("--add", "intent"),
    ("--add", "section"),
]
MARKUP_VALUES = ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;", "a > b"]


@pytest.mark.parametrize("value", MARKUP_VALUES)
@pytest.mark.parametrize(("op", "key"), SHOWN_VALUE_EDITS)
def test_markup_in_a_shown_value_is_refused_on_an_original_page(
    corpus_copy: Path, op: str, key: str, value: str
) -> None:
    path = corpus_copy / "ai-model-landscape.o-o.html"
    before = path.read_bytes()
    with speaking("oo"), pytest.raises(ValidationError) as refused:  # (as `oo contract` words it)
        _run(path, op, key, value)
    message = str(refused.value)
    field = {"intent": "intents[", "section": "required_sections["}.get(key, f"key '{key}'")
    assert field in message and "original o-o page script" in message
    assert f"oo sync {corpus_copy} --migrate" in message and "\n" not in message
    assert path.read_bytes() == before
    assert read_history(path)[0].snapshot is None  # nothing written, nothing kept


def test_a_list_replaced_with_markup_is_refused(corpus_copy: Path) -> None:
    """The notebook's contract cell replaces whole lists."""
    path = corpus_copy / "yc-w26-batch.o-o.html"
    before = path.read_bytes()
    with pytest.raises(ValidationError, match=r"required_sections\[0\].*migrate=True"):
        apply_edits(path, [Edit("replace", "section", ("<b>Overview</b>", "References"))])
    assert path.read_bytes() == before


def test_shown_values_with_markup_are_written_once_migrated(corpus_copy: Path) -> None:
    from oo_nb.edit.sync import migrate_early

    path = corpus_copy / "ai-model-landscape.o-o.html"
    path.write_bytes(migrate_early(Document.read(path)).to_bytes())
    result = apply_edits(path, [Edit("set", "scope", MARKUP_VALUES[0])])
    assert result.written and Document.read(path).contract.scope == MARKUP_VALUES[0]
    assert not any("original" in n for n in result.notes)  # our page script shows it as text


def test_markup_already_there_does_not_block_other_edits(corpus_copy: Path) -> None:
    """A value written by hand before stays reported by oo check; other edits go on, and the
    value itself can be replaced by a clean one."""
    path = corpus_copy / "ai-model-landscape.o-o.html"
    doc = Document.read(path)
    doc = doc.edit_block("oo-contract", lambda c: c["identity"].update(scope="a <b>"))
    doc = doc.edit_block("oo-contract", lambda c: c["research"]["intents"].insert(0, "<i>x</i>"))
    path.write_bytes(doc.to_bytes())
    assert apply_edits(path, [Edit("set", "tone", "Plain")]).written
    assert apply_edits(path, [Edit("add", "intent", "more news")]).written
    assert apply_edits(path, [Edit("set", "scope", "a, b")]).written
    with pytest.raises(ValidationError, match="key 'scope'"):
        apply_edits(path, [Edit("set", "scope", "a <b>")])  # put back: refused like any new one
