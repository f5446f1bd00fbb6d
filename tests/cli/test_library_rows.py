"""``oo library`` prints a long table as pandas does: its first and last rows and its size;
``--max-rows 0`` and the machine-readable formats give every row."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd
import pytest

from oo_nb.cli.library import render
from oo_nb.cli.main import main as oo_main
from tests.support.tiny_docs import page, source


def _run(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert oo_main(list(args)) == 0
    return out.getvalue()


@pytest.fixture
def library(tmp_path: Path) -> Path:
    data = page([("aaaaaaa1", "Words")], [source(1)]).to_bytes()
    for i in range(9):
        (tmp_path / f"doc-{i}.o-o.html").write_bytes(data)
    return tmp_path


def test_a_long_table_shows_its_head_tail_and_size(library: Path) -> None:
    text = _run("library", str(library), "--max-rows", "4")
    shown = [f"doc-{i}" for i in range(9) if f"doc-{i} " in text]
    assert shown == ["doc-0", "doc-1", "doc-7", "doc-8"]
    assert "..." in text
    assert text.rstrip().endswith("[9 rows x 19 columns]")


@pytest.mark.parametrize("args", [("--max-rows", "0"), ("--format", "csv"), ("--max-rows", "9")])
def test_every_row_when_asked_or_for_tools(library: Path, args: tuple[str, ...]) -> None:
    text = _run("library", str(library), *args)
    assert all(f"doc-{i}" in text for i in range(9))
    assert "rows x" not in text


def test_a_table_with_messages_under_its_rows_is_cut_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # too narrow: each message goes under its row
    frame = pd.DataFrame({"doc": [f"d{i}" for i in range(10)], "message": ["m" * 60] * 10})
    text = render(frame, "table", max_rows=4)
    lines = text.splitlines()
    assert [line.strip() for line in lines if line.strip().startswith("d")] == [
        "doc",
        "d0",
        "d1",
        "d8",
        "d9",
    ]
    assert "..." in lines and lines[-1] == "[10 rows x 2 columns]"
    assert sum(line.strip() == "m" * 60 for line in lines) == 4
