"""Issue 28, item 15: the changelog an older document keeps inside its manifest is shown by
`oo show` (text and JSON) and in the library's changelog frame, beside the changelog block's
entries; a note for a version the block holds too is not shown twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.format.document import Document
from tests.conftest import CORPUS

NOTES = [
    "v1: First research",
    "v2 (2026-02-01): Second pass",
    {"version": 3, "date": "2026-03-01", "summary": "Third pass"},
]


def _older_document(folder: Path) -> Path:
    """A document whose manifest keeps v1-v3 and whose changelog block starts at v3."""
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    doc = doc.edit_block("oo-manifest", lambda m: m.update(changelog=NOTES, version=4))
    doc = doc.with_block(
        "oo-changelog",
        {
            "entries": [
                {"version": 3, "timestamp": "2026-03-01", "summary": "Third pass, in the block"},
                {"version": 4, "timestamp": "2026-04-01", "summary": "Fourth pass"},
            ]
        },
    )
    folder.mkdir()
    path = folder / "older.o-o.html"
    path.write_bytes(doc.to_bytes())
    return path


def test_oo_show_lists_the_manifests_earlier_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _older_document(tmp_path / "lib")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 earlier, kept in the manifest:" in out
    assert "v1: First research" in out and "v2 (2026-02-01): Second pass" in out
    assert "Third pass\n" not in out  # v3 is the block's
    assert main(["show", "--json", str(path)]) == 0
    log = json.loads(capsys.readouterr().out)["changelog"]
    assert log["earlier"] == [
        {"version": 1, "date": None, "summary": "First research"},
        {"version": 2, "date": "2026-02-01", "summary": "Second pass"},
    ]
    assert [e["version"] for e in log["entries"]] == [3, 4]


def test_the_changelog_frame_holds_them_before_the_blocks_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _older_document(tmp_path / "lib")
    assert main(["library", str(path.parent), "--frame", "changelog", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["version"], r["summary"], r["origin"]) for r in rows] == [
        (1, "First research", "oo-manifest"),
        (2, "Second pass", "oo-manifest"),
        (3, "Third pass, in the block", "oo-changelog"),
        (4, "Fourth pass", "oo-changelog"),
    ]
