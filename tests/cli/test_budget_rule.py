"""One budget rule (``format.budget_rule``) for ``--budget``, ``oo contract --set budget`` and
the API's ``budget=``: the same bounds, the same words naming both, the field named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oo_nb.api.library import Library
from oo_nb.api.update import update_options
from oo_nb.cli.main import main
from oo_nb.errors import ValidationError
from tests.conftest import CORPUS

BOUNDS = "from 0.0001 to 100,000"


@pytest.mark.parametrize("budget", ["1e308", "1000000", "0", "true"])
def test_update_all_refuses_a_budget_out_of_bounds_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], budget: str
) -> None:
    with pytest.raises(SystemExit):
        main(["update-all", str(tmp_path), "--budget", budget, "--no-progress"])
    err = capsys.readouterr().err
    assert "--budget" in err and BOUNDS in err and repr(budget) in err


def test_the_contract_says_the_same_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "agi-declared.o-o.html"
    shutil.copyfile(CORPUS / doc.name, doc)
    before = doc.read_bytes()
    assert main(["contract", str(doc), "--set", "budget", "1000000"]) != 0
    err = capsys.readouterr().err
    assert BOUNDS in err and "'budget'" in err
    assert doc.read_bytes() == before
    assert main(["contract", str(doc), "--set", "budget", "100000"]) == 0  # the bound itself


def test_the_api_holds_a_budget_to_the_same_rule(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match=f"key 'budget': must be .* {BOUNDS}.*got True"):
        Library(tmp_path).update_all(budget=True, progress=False)  # not $1
    with pytest.raises(ValidationError, match=rf"{BOUNDS}.*got 1e\+308"):
        update_options(budget=1e308)
    assert update_options(budget="0.01").budget_usd == 0.01  # text as the CLI takes it
    assert update_options(budget=2).budget_usd == 2.0
