"""`oo sync --migrate` says why a page grew (issue 28, item 16): every page carries its own page
code, and this version's (script, stylesheet, shell) replaces the original's."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from tests.conftest import CORPUS


def test_the_migration_report_says_how_much_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "ai-model-landscape.o-o.html"
    shutil.copy(CORPUS / page.name, page)
    before = page.stat().st_size
    assert main(["sync", str(tmp_path), "--migrate"]) == 0
    said = capsys.readouterr().out
    growth = re.search(r"\+(\d+\.\d) KB: this version's page code \((\d+\.\d) KB: script", said)
    assert growth is not None, said
    assert float(growth.group(1)) == round((page.stat().st_size - before) / 1024, 1)
    assert "stylesheet" in said and "shell" in said and "replaces the original's" in said
