"""A brand-new document gets its first version, and a library keeps defaults for its new
documents (issue 28, item 14): `bash index.o-o.html --new` writes a researched v1 (offline: the
recorded run), says once what to run when no agent is at hand, and `--show/--set` on the index
show and edit what `oo new` starts every document with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.format.names import CASSETTE_DIR, NEW_DEFAULTS_FILE
from oo_nb.library.index_page import write_index
from oo_nb.store.history import history_dir

CASSETTES = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "cassettes"
ARTEMIS = "artemis-moon-landing.o-o.html"


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No API key, no OO_AGENT, no `claude` on PATH."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OO_AGENT", raising=False)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def _library(tmp_path: Path, *, recorded: bool = False) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    if recorded:
        (lib / CASSETTE_DIR).mkdir()
        shutil.copy(CASSETTES / f"{ARTEMIS}.json", lib / CASSETTE_DIR)
    write_index(lib)
    return lib


@pytest.mark.usefixtures("offline")
def test_a_new_document_gets_its_first_version(tmp_path: Path) -> None:
    lib = _library(tmp_path, recorded=True)
    assert main(["new", "Artemis moon landing / crewed landing", "--dir", str(lib)]) == 0
    doc = Document.read(lib / ARTEMIS)
    assert doc.manifest.version == 1 and doc.manifest.as_of is not None
    assert not (history_dir(lib / ARTEMIS) / "pending.json").exists()


@pytest.mark.usefixtures("offline")
def test_review_keeps_the_first_version_for_review(tmp_path: Path) -> None:
    lib = _library(tmp_path, recorded=True)
    main(["new", "Artemis moon landing / crewed landing", "--dir", str(lib), "--review"])
    assert Document.read(lib / ARTEMIS).manifest.version == 0
    assert (history_dir(lib / ARTEMIS) / "pending.json").exists()


@pytest.mark.usefixtures("offline")
def test_with_no_agent_it_says_once_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path)
    assert main(["new", "Geothermal / deep geothermal", "--dir", str(lib)]) == 1
    said = capsys.readouterr()
    text = said.out + said.err
    path = lib / "geothermal.o-o.html"
    assert path.exists() and Document.read(path).manifest.version == 0
    assert text.count("not researched yet") == text.count("ANTHROPIC_API_KEY") == 1
    assert "failed" not in text
    assert f"then run: bash {path}" in text


def _contract(index: Path, *args: str) -> int:
    return main(["contract", str(index), *args])


def test_the_index_shows_and_edits_the_defaults_for_new_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path)
    index = lib / "index.o-o.html"
    assert _contract(index, "--set", "audience", "Energy analysts") == 0
    assert _contract(index, "--set", "budget", "1.25", "--set", "every", "14") == 0
    assert _contract(index, "--add", "deny", "x.com", "--add", "section", "Costs") == 0
    assert _contract(index, "--set", "review", "auto", "--set", "model", "claude-x") == 0
    assert (lib / NEW_DEFAULTS_FILE).is_file() and index.read_bytes() == index.read_bytes()
    capsys.readouterr()
    assert _contract(index, "--show") == 0
    shown = capsys.readouterr().out
    assert "Energy analysts" in shown and "1.25 USD" in shown and "x.com" in shown

    main(["new", "Wave power / waves", "--dir", str(lib), "--no-update"])
    wave = Document.read(lib / "wave-power.o-o.html")
    c = wave.contract
    assert (c.audience, c.max_cost_usd, wave.manifest.cadence_days) == ("Energy analysts", 1.25, 14)
    assert list(c.required_sections[-2:]) == ["Costs", "References"] and "x.com" in c.deny_domains
    assert c.model == "claude-x" and wave.block_json("oo-contract")["review"] == "auto"

    # an option given wins; a sentinel keeps its own sections
    main(["new", "Tides", "--dir", str(lib), "--no-update", "--audience", "Kids", "--budget", "2"])
    tides = Document.read(lib / "tides.o-o.html").contract
    assert (tides.audience, tides.max_cost_usd) == ("Kids", 2.0)
    main(["new", "Fusion", "--dir", str(lib), "--no-update", "--sentinel", "net power"])
    assert "Costs" not in Document.read(lib / "fusion.o-o.html").contract.required_sections


def test_what_is_each_documents_own_is_no_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path)
    for args in (["--set", "subject", "X"], ["--add", "intent", "X"], ["--set", "budget", "-3"]):
        assert _contract(lib / "index.o-o.html", *args) == 2
        assert NEW_DEFAULTS_FILE in capsys.readouterr().err
    assert not (lib / NEW_DEFAULTS_FILE).exists()


def test_damaged_defaults_stop_oo_new_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path)
    for bad in (
        "{not json",
        json.dumps({"format": "oo-nb-new-defaults", "fields": {"subject": "X"}}),
        json.dumps({"format": "oo-nb-new-defaults", "fields": {"budget": "-1"}}),
    ):
        (lib / NEW_DEFAULTS_FILE).write_text(bad)
        assert main(["new", "Tides", "--dir", str(lib), "--no-update"]) != 0
        assert NEW_DEFAULTS_FILE in capsys.readouterr().err
        assert not (lib / "tides.o-o.html").exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_index_show_and_set_edit_the_defaults(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OO_")}
    env["OO_PYTHON"] = sys.executable

    def bash(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "index.o-o.html", *args], cwd=lib, env=env, capture_output=True, text=True
        )

    assert bash("--set", "tone", "Plain").returncode == 0
    shown = bash("--show")
    assert shown.returncode == 0 and "Plain" in shown.stdout
    assert json.loads((lib / NEW_DEFAULTS_FILE).read_text())["fields"] == {"tone": "Plain"}


def test_the_questions_offer_the_library_s_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`oo new` with no title asks with the folder's defaults in brackets, and an empty answer
    takes them; an answer typed as oo_nb's own default is kept as typed."""
    import io

    lib = _library(tmp_path)
    index = lib / "index.o-o.html"
    assert _contract(index, "--set", "audience", "Sailors", "--set", "budget", "1.25") == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("Tides\n\nGeneral readers\n\n\n"))
    assert main(["new", "--dir", str(lib), "--no-update"]) == 0
    said = capsys.readouterr().err
    assert "  Audience [Sailors]: " not in said  # piped: no prompts, only what is said
    tides = Document.read(lib / "tides.o-o.html").contract
    assert (tides.audience, tides.tone, tides.max_cost_usd) == (
        "General readers",
        "Informative, well-researched, accessible",
        1.25,
    )
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    asked: list[str] = []
    answers = iter(["Waves", "", "", "", ""])
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append(prompt) or next(answers))
    assert main(["new", "--dir", str(lib), "--no-update"]) == 0
    assert "  Audience [Sailors]: " in asked and "  Budget per update, USD [1.25]: " in asked
    waves = Document.read(lib / "waves.o-o.html").contract
    assert (waves.audience, waves.max_cost_usd) == ("Sailors", 1.25)
