"""oo new: the document it writes, options, sentinels, names, the first update."""

from __future__ import annotations

import argparse
import io
import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from oo_nb.api.new import NewDefaults, NewRequest
from oo_nb.api.proposal import Proposal
from oo_nb.cli import new as new_cmd
from oo_nb.cli import update as _update_cmd  # noqa: F401  imported now, not under a patch (below)
from oo_nb.cli.new_prompts import ask_request
from oo_nb.edit.new import NewSpec, create_document, split_title
from oo_nb.errors import OOError, ValidationError
from oo_nb.format.blocks import Contract
from oo_nb.format.check import check_path
from oo_nb.format.document import Document

HOSTILE = 'Q&A: "AI" </script><script>alert(1)</script> $(touch pwned.txt) / scope'


def _ns(title: str | None, folder: Path, **kw: Any) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    new_cmd.add_arguments(parser)
    argv = ([title] if title is not None else []) + ["--dir", str(folder)]
    for key, value in kw.items():
        flag = "--" + key.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return parser.parse_args(argv)


def _new(title: str, folder: Path, **kw: Any) -> new_cmd.NewResult:
    return new_cmd.run(_ns(title, folder, no_update=True, **kw))


def test_new_document_has_the_originals_shape(tmp_path: Path) -> None:
    result = _new("Solar storms / forecasts for grid operators", tmp_path)
    path = result.path
    assert path == tmp_path / "solar-storms.o-o.html"
    assert result.to_text().splitlines()[0] == str(path)  # the path first, alone
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    doc = Document.read(path)
    assert doc.layout == "marker" and doc.article.is_stub
    assert doc.block_json("oo-manifest") == {
        "title": "Solar storms",
        "update_every_days": 7,
        "version": 0,
        "as_of": "",
        "changelog": [],
    }
    raw = doc.block_json("oo-contract")
    assert list(raw) == [
        "version",
        "instructions",
        "identity",
        "research",
        "budget",
        "images",
        "output",
    ]
    assert raw["version"] == "2.0"
    steps = raw["instructions"]["procedure"]
    assert raw["instructions"]["role"] and all(
        s.startswith(f"{n}. ") for n, s in enumerate(steps, 1)
    )
    assert raw["identity"] == {
        "subject": "Solar storms",
        "scope": "forecasts for grid operators",
        "audience": "General readers",
        "tone": "Informative, well-researched, accessible",
    }
    assert raw["research"]["required_sections"][-1] == "References"
    assert raw["research"]["source_policy"] == {
        "prefer_domains": [],
        "deny_domains": ["reddit.com", "quora.com"],
    }
    assert raw["budget"] == {"max_cost_usd": 0.5}
    assert set(raw["images"]) >= {
        "allow",
        "max_per_article",
        "max_file_kb",
        "resize_max_px",
        "caption_required",
    }
    # o-o's defaults: up to 8 images, 150 KB each, 800 px wide
    assert (raw["images"]["max_per_article"], raw["images"]["max_file_kb"]) == (8, 150)
    assert raw["images"]["resize_max_px"] == 800 and doc.contract.images.max_per_article == 8
    assert raw["output"]["preserve_pids"] is True
    assert doc.block_json("oo-source-cache") == {"last_updated": None, "sources": [], "facts": []}
    assert doc.block_json("oo-changelog") == {"entries": []}
    assert not doc.contract.is_sentinel
    assert [f for f in check_path(path) if f.severity == "error"] == []


def test_everything_after_the_first_slash_is_the_scope() -> None:
    assert split_title("A / B / C") == ("A", "B / C")
    assert split_title("  Just a title  ") == ("Just a title", "")
    assert split_title("AC/DC tour") == ("AC/DC tour", "")
    with pytest.raises(ValidationError):
        split_title(" / only scope")


def test_scope_defaults_to_the_title(tmp_path: Path) -> None:
    doc = Document.read(_new("Solar storms", tmp_path).path)
    assert doc.contract.scope == "Solar storms"


def test_options(tmp_path: Path) -> None:
    result = _new(
        "Grid / x", tmp_path, audience="Engineers", tone="Terse", budget="$2.5", every="3"
    )
    doc = Document.read(result.path)
    assert (doc.contract.audience, doc.contract.tone, doc.contract.max_cost_usd) == (
        "Engineers",
        "Terse",
        2.5,
    )
    assert doc.manifest.cadence_days == 3


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("budget", "-1"),
        ("budget", "0"),
        ("budget", "abc"),
        ("every", "0"),
        ("every", "1.5"),
        ("every", "x"),
    ],
)
def test_bad_options_create_nothing(tmp_path: Path, option: str, value: str) -> None:
    with pytest.raises(ValidationError):
        _new("Grid", tmp_path, **{option: value})
    assert list(tmp_path.iterdir()) == []


def test_sentinel_documents_carry_structured_fields_and_the_originals_marks(tmp_path: Path) -> None:
    doc = Document.read(
        _new("AGI declared / who first", tmp_path, sentinel="A major lab declares AGI").path
    )
    raw = doc.block_json("oo-contract")
    assert raw["sentinel"] == {
        "event": "A major lab declares AGI",
        "criteria": [],
        "status": "not_occurred",
        "last_checked": None,
        "evidence": "",
    }
    assert "SENTINEL" in raw["instructions"]["sentinel"]
    assert any("SENTINEL CHECK" in step for step in raw["instructions"]["procedure"])
    assert raw["research"]["required_sections"][0] == "Status"
    assert "sentinel" in raw["identity"]["scope"]
    s = doc.contract.sentinel
    assert (
        s is not None
        and s.structured
        and s.status == "not_occurred"
        and s.event == "A major lab declares AGI"
    )
    # an original-style copy (no structured block) is still recognised
    del raw["sentinel"]
    original = Contract.from_json(raw)
    assert original.sentinel is not None and not original.sentinel.structured


def test_sentinel_criteria_are_written(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    new_cmd.add_arguments(parser)
    ns = parser.parse_args(
        [
            "AGI declared",
            "--dir",
            str(tmp_path),
            "--no-update",
            "--sentinel",
            "A major lab declares AGI",
            "--criteria",
            "the lab's CEO says so publicly",
            "--criteria",
            "  an independent   evaluation agrees ",
            "--criteria",
            "the lab's CEO says so publicly",
        ]
    )
    doc = Document.read(new_cmd.run(ns).path)
    expected = ["the lab's CEO says so publicly", "an independent evaluation agrees"]
    assert doc.block_json("oo-contract")["sentinel"]["criteria"] == expected
    assert doc.contract.sentinel is not None and list(doc.contract.sentinel.criteria) == expected


def test_criteria_without_a_sentinel_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="criteria are for sentinel documents"):
        _new("Grid", tmp_path, criteria="it happens")
    assert list(tmp_path.iterdir()) == []


def test_interactive_sentinel_asks_for_criteria() -> None:
    answers = iter(["AGI declared", "", "", "", "", "a CEO says so", " a benchmark agrees ", ""])
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    spec = ask_request(
        NewDefaults(), ask=ask, say=lambda _text: None, sentinel="A lab declares AGI"
    )
    assert (
        spec.criteria == ("a CEO says so", "a benchmark agrees")
        and spec.sentinel == "A lab declares AGI"
    )
    assert prompts[-3:] == ["  Criterion 1: ", "  Criterion 2: ", "  Criterion 3: "]
    given = iter(["AGI declared", "", "", "", ""])  # criteria from the command line: not asked
    spec = ask_request(
        NewDefaults(),
        ask=lambda _p: next(given),
        say=lambda _t: None,
        sentinel="E",
        criteria=("c",),
    )
    assert spec.criteria == ("c",)


def test_no_title_in_a_terminal_asks_a_sentinel_s_criteria(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    answers = iter(["Tides", "", "", "", "", "a king tide floods the quay", ""])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(answers))
    result = new_cmd.run(_ns(None, tmp_path, no_update=True, sentinel="A record tide"))
    sentinel = Document.read(result.path).contract.sentinel
    assert sentinel is not None and sentinel.criteria == ("a king tide floods the quay",)


def test_an_existing_file_is_an_error_naming_it_unless_suffix(tmp_path: Path) -> None:
    first = _new("Solar storms / a", tmp_path).path
    before = first.read_bytes()
    with pytest.raises(OOError, match="file already exists") as caught:
        _new("Solar storms / b", tmp_path)  # o-o: "Error — file already exists: PATH"
    assert str(first) in str(caught.value) and "--suffix" in str(caught.value)
    # nothing else made (the history folder keeps the first one's state as written)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".oo-history", "solar-storms.o-o.html"]
    assert [p.name for p in (tmp_path / ".oo-history").iterdir()] == ["solar-storms.o-o.html"]
    second = _new("Solar storms / b", tmp_path, suffix=True).path
    third = _new("Solar  storms!", tmp_path, suffix=True).path
    assert (first.name, second.name, third.name) == (
        "solar-storms.o-o.html",
        "solar-storms-2.o-o.html",
        "solar-storms-3.o-o.html",
    )
    assert first.read_bytes() == before
    assert Document.read(second).contract.scope == "b"


def test_a_name_taken_at_the_last_moment_is_skipped_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from oo_nb.store import store

    real = store.atomic_write_bytes
    calls: list[Path] = []

    def racing(path: Path, data: bytes, **kw: Any) -> None:
        calls.append(path)
        if path.name.startswith("race.") and not path.exists():
            path.write_text("someone else's file")  # appears between the check and the write
        real(path, data, **kw)

    monkeypatch.setattr(store, "atomic_write_bytes", racing)
    doc = create_document(NewSpec("Race"), tmp_path, suffix=True)
    assert doc.path == tmp_path / "race-2.o-o.html"
    assert (tmp_path / "race.o-o.html").read_text() == "someone else's file"
    (tmp_path / "race.o-o.html").unlink()
    with pytest.raises(OOError, match="file already exists"):
        create_document(NewSpec("Race"), tmp_path)
    assert (tmp_path / "race.o-o.html").read_text() == "someone else's file"


def test_non_latin_titles_get_a_name(tmp_path: Path) -> None:
    assert _new("Économie française", tmp_path).path.name == "economie-francaise.o-o.html"
    name = _new("日本の経済", tmp_path).path.name
    assert name.startswith("doc-") and name.endswith(".o-o.html")
    assert Document.read(tmp_path / name).manifest.title == "日本の経済"


def test_hostile_title(tmp_path: Path) -> None:
    path = _new(HOSTILE, tmp_path).path
    data = path.read_bytes()
    text = data.decode()
    doc = Document.parse(data, path=path)
    assert [f for f in check_path(path) if f.severity == "error"] == []
    for name in doc.blocks:
        json.loads(doc.block_text(name))
    assert doc.manifest.title == 'Q&A: "AI" </script><script>alert(1)</script> $(touch pwned.txt)'
    assert doc.contract.scope == "scope"
    assert (
        "<title>Q&amp;A: &quot;AI&quot; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; $(touch pwned.txt)</title>"
        in text
    )
    assert (
        '<h1 id="doc-title">Q&amp;A: &quot;AI&quot; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;'
        in text
    )
    assert "</script><script>alert(1)" not in text
    assert not (tmp_path / "pwned.txt").exists()


def test_interactive_answers(tmp_path: Path) -> None:
    answers = iter(["", "Solar storms", "grid impact", "", "Terse", "abc", "1.25"])
    said: list[str] = []
    spec = ask_request(NewDefaults(), ask=lambda _prompt: next(answers), say=said.append)
    # an empty answer is None: the folder's default, resolved by the API
    assert spec == NewRequest("Solar storms", "grid impact", None, "Terse", 1.25)
    assert "  A title is needed." in said
    assert any("positive number" in s or "number" in s for s in said)


def test_no_title_reads_piped_answers_as_o_o_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """o-o's `read -p` takes answers from a pipe; so does `oo new` with no title."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("Tides\nsea level\n\nTerse\n2\n"))
    result = new_cmd.run(_ns(None, tmp_path, no_update=True))
    doc = Document.read(result.path)
    assert result.path == tmp_path / "tides.o-o.html"
    assert (doc.manifest.title, doc.contract.scope, doc.contract.audience) == (
        "Tides",
        "sea level",
        "General readers",
    )
    assert doc.contract.tone == "Terse" and doc.contract.max_cost_usd == 2.0
    assert capsys.readouterr().out == ""  # no prompts on stdout: it carries the path


def test_no_title_and_no_answers_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(ValidationError, match="no title given"):
        new_cmd.run(_ns(None, tmp_path, no_update=True))


def test_no_title_and_stdin_closed_is_the_same_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`oo new <&-` (a daemon or cron job with stdin closed): Python has no sys.stdin at all.
    That is the end of input, as for /dev/null, not an AttributeError traceback."""
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(ValidationError, match="no title given"):
        new_cmd.run(_ns(None, tmp_path, no_update=True))
    assert list(tmp_path.iterdir()) == []
    assert list(tmp_path.iterdir()) == []


def test_no_title_in_a_terminal_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    answers = iter(["Tides", "", "", "", ""])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(answers))
    result = new_cmd.run(_ns(None, tmp_path, no_update=True, budget="3"))
    doc = Document.read(result.path)
    assert doc.manifest.title == "Tides" and doc.contract.max_cost_usd == 3.0


# ----------------------------------------------------------------------------- first update
def _fake_update(
    monkeypatch: pytest.MonkeyPatch, behaviour: str = "written"
) -> list[dict[str, Any]]:
    """The API's update replaced: what it was asked, and a proposal of ``behaviour``.

    ``oo_nb.cli.update`` is imported at the top of this file: first imported under this patch
    (``oo new`` loads it for its progress lines), its ``from ... import propose_update`` would
    keep the fake for every later test of the run."""
    seen: list[dict[str, Any]] = []

    def propose_update(path: Path, reopen: Any, **options: Any) -> Proposal:
        seen.append({"path": path, **options})
        if behaviour == "fail":
            raise OOError("no API key and no recording", file=str(path))
        done = Proposal(path, behaviour, f"{path.name}: v1 from replay")
        if behaviour == "written":
            done.written_to = path
        else:
            done.saved_to = path.with_name("pending.json")
        return done

    monkeypatch.setattr("oo_nb.api.update.propose_update", propose_update)
    return seen


def test_first_update_runs_through_the_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _fake_update(monkeypatch)
    result = new_cmd.run(_ns("Solar storms", tmp_path, yes=True, agent="replay"))
    assert len(seen) == 1
    assert (seen[0]["path"], seen[0]["yes"], seen[0]["agent"]) == (result.path, True, "replay")
    assert result.exit_code == 0
    assert result.to_text().splitlines() == [
        str(result.path),
        "solar-storms.o-o.html: v1 from replay",
        # a new document had no previous version to keep (s35 attack 2, row 11 b)
        f"  written: {result.path} (its first researched version)",
    ]


def test_review_keeps_the_first_update_for_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _fake_update(monkeypatch, "proposed")
    result = new_cmd.run(_ns("Solar storms", tmp_path, review=True, agent="replay"))
    assert seen[0]["yes"] is False and result.exit_code == 0
    assert "proposal saved for review" in result.to_text()


def test_a_first_update_kept_back_exits_1_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked to write (the default), the update kept it for review (warnings): exit 1."""
    _fake_update(monkeypatch, "proposed")
    result = new_cmd.run(_ns("Solar storms", tmp_path, agent="replay"))
    assert result.exit_code == 1 and "not written automatically" in result.to_text()


def test_a_failed_first_update_keeps_the_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_update(monkeypatch, "fail")
    result = new_cmd.run(_ns("Solar storms", tmp_path, agent="replay"))
    assert result.exit_code == 1 and result.path.exists()
    assert result.made.first_update == "failed"
    assert "first update failed" in result.to_text()
    assert f"try again with: oo update {result.path}" in result.to_text()


def test_an_unknown_agent_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="unknown agent 'bogus'") as err:
        new_cmd.run(_ns("Solar storms", tmp_path, agent="bogus"))
    assert err.value.key == "agent" and list(tmp_path.iterdir()) == []


def test_no_update_skips_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _fake_update(monkeypatch)
    _new("Solar storms", tmp_path)
    assert seen == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "\udcff\udcfe bad"),
        ("scope", "x \ud800"),
        ("audience", "caf\udce9"),
        ("tone", "\udc80"),
        ("sentinel", "event \udcff"),
        ("criteria", ("fine", "bad \udcff")),
    ],
)
def test_text_that_is_not_utf8_is_refused_naming_the_field(
    tmp_path: Path, field: str, value: object
) -> None:
    """Bytes that were not UTF-8 on the command line arrive as surrogate escapes; the file could
    not be written (a traceback). Each field is refused by name; nothing is created."""
    options: dict[str, object] = {field: value}
    if field == "criteria":
        options["sentinel"] = "an event"
    spec = NewSpec(title="Tides", **options) if field != "title" else NewSpec(title=str(value))
    with pytest.raises(ValidationError, match="is not valid UTF-8 text") as err:
        create_document(spec, tmp_path)
    assert err.value.key == ("criteria[1]" if field == "criteria" else field)
    assert list(tmp_path.iterdir()) == []
