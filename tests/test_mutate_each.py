"""``tools/mutate_each.py``: each module's run names only that module and its tests, every file
of the table exists, and the project's other mutmut settings are kept."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

from tools.mutate_each import ROOT, scratch_name, setup_cfg, targets, without_mutmut_table


def test_every_module_and_test_of_the_table_exists_and_is_mutated_by_make_mutate() -> None:
    table = targets()
    only = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["only_mutate"]
    assert table and set(table) <= set(only)
    for module, tests in table.items():
        assert (ROOT / module).is_file(), module
        assert tests and all((ROOT / t).exists() for t in tests), module


def test_one_run_reads_its_own_settings_and_keeps_the_rest(tmp_path: Path) -> None:
    text = (ROOT / "pyproject.toml").read_text()
    kept = without_mutmut_table(text)
    assert "[tool.mutmut]" not in kept and "[tool.pytest.ini_options]" in kept
    assert "[tool.oo_nb_mutate.tests]" in kept
    base = tomllib.loads(text)["tool"]["mutmut"]
    cfg = configparser.ConfigParser()
    cfg.read_string(setup_cfg(base, "oo_nb/agent/clean.py", ["tests/a.py", "tests/b.py"]))
    lines = [v for v in cfg["mutmut"]["only_mutate"].split("\n") if v]
    assert lines == ["oo_nb/agent/clean.py"]
    tests = [v for v in cfg["mutmut"]["pytest_add_cli_args_test_selection"].split("\n") if v]
    assert tests == ["tests/a.py", "tests/b.py"]
    also = [v for v in cfg["mutmut"]["also_copy"].split("\n") if v]
    assert also == base["also_copy"]
    assert [v for v in cfg["mutmut"]["pytest_add_cli_args"].split("\n") if v] == [
        str(v) for v in base["pytest_add_cli_args"]
    ]


def test_each_module_has_a_scratch_folder_of_its_own() -> None:
    names = [scratch_name(m) for m in targets()]
    assert len(set(names)) == len(names)
    assert scratch_name("oo_nb/review/quotes.py") == "oo_nb.review.quotes"
