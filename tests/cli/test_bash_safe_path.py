"""Issue 28, item 1: ``bash PAGE`` in a cloned library never runs code the library planted (a
folder ``oo_nb/`` beside the pages, or a ``python3`` there with ``.`` in PATH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.attacks_code import PLANTED_CASES, planted_code_runs


@pytest.mark.parametrize("page", ["index", "document"])
@pytest.mark.parametrize("case", list(PLANTED_CASES))
def test_planted_code_in_the_library_never_runs(tmp_path: Path, case: str, page: str) -> None:
    ran, status = planted_code_runs(tmp_path, case, page)
    assert not ran
    # the installed oo_nb still answers; without it, the page says so (127)
    assert status == (127 if case == "not installed" else 0)
