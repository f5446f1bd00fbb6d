"""``oo review``, ``oo diff``, ``oo history`` and ``oo show`` print text that documents and agents
wrote (a paragraph, a changelog summary): a terminal escape or a bidi override in it reaches the
terminal shown escaped (``\\u001b``, ``\\u202e``), never as the character that would erase a
line, rewrite a link or reorder what the reviewer reads."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.store import store
from tests.support.tiny_docs import page, source, updated

# erase the line, an OSC 8 link, a right-to-left override
_HOSTILE = "\x1b[2K\x1b]8;;https://evil.example/\x1b\\\u202e"
_RAW = ("\x1b[2K", "\x1b]", "\u202e")
_SHOWN = ("\\u001b[2K", "\\u001b]8;;https://evil.example/", "\\u202e")


def _assert_safe(text: str) -> None:
    for raw in _RAW:
        assert raw not in text, (raw, text)
    for shown in _SHOWN:
        assert shown in text, (shown, text)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _old() -> Document:
    return page([("aaaaaaa1", "Tides rise [s1].")], [source(1)])


def _new() -> Document:
    return updated(
        [("aaaaaaa1", f"Tides rise{_HOSTILE} [s1]."), ("aaaaaaa2", f"FALSE CLAIM{_HOSTILE} [s1].")],
        [source(1)],
        entry={"summary": f"Second{_HOSTILE}."},
    )


@pytest.fixture
def proposed(tmp_path: Path) -> Path:
    """A document whose saved proposal changes a paragraph and adds one, both hostile."""
    path = tmp_path / "tides.o-o.html"
    old = _old()
    path.write_bytes(old.to_bytes())
    store.save_pending(path, _new(), {"cost_usd": 0.01, "backend": "replay"}, old.to_bytes())
    return path


@pytest.fixture
def written(tmp_path: Path) -> Path:
    """The same change written: version 2 is the hostile one."""
    path = tmp_path / "tides.o-o.html"
    old = _old()
    path.write_bytes(old.to_bytes())
    store.write_document(_new(), expected=old.to_bytes(), action="update", path=path)
    return path


@pytest.mark.parametrize("color", [[], ["--color"]])
def test_interactive_review_shows_agent_text_escaped(
    proposed: Path,
    color: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\nn\nn\nn\nn\n"))
    assert main(["review", str(proposed), *color]) == 0
    out = capsys.readouterr().out
    assert "FALSE CLAIM" in out and "accept this change" in out
    _assert_safe(out)


@pytest.mark.parametrize("color", [[], ["--color"]])
def test_diff_shows_paragraph_text_escaped(
    written: Path, color: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(written), "--from", "1", *color]) == 0
    out = capsys.readouterr().out
    assert "FALSE CLAIM" in out
    _assert_safe(out)
    if color:  # its own colours are kept
        assert "\x1b[32m" in out


def test_diff_as_json_escapes_them_and_keeps_the_data(
    written: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(written), "--from", "1", "--json"]) == 0
    out = capsys.readouterr().out
    for raw in _RAW:
        assert raw not in out
    assert any(_HOSTILE in text for text in _strings(json.loads(out)))  # the same data


def test_history_shows_a_changelog_summary_escaped(
    written: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", str(written)]) == 0
    out = capsys.readouterr().out
    assert "Second" in out
    for raw in _RAW:
        assert raw not in out
    assert "\\u202e" in out  # (the column is cut at 70 characters: the override is in it)


def test_show_shows_a_changelog_summary_escaped(
    written: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(written)]) == 0
    out = capsys.readouterr().out
    assert "Second" in out
    _assert_safe(out)
    assert main(["show", str(written), "--json"]) == 0
    out = capsys.readouterr().out
    for raw in _RAW:
        assert raw not in out
    assert any(_HOSTILE in text for text in _strings(json.loads(out)))
