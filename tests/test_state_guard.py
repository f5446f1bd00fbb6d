"""The guard tests/conftest.py runs after each test: it names what a test left changed, blames a
leak once, and says nothing of a test that left things as they were."""

from __future__ import annotations

import os
import unittest.mock
from pathlib import Path

import pytest

import oo_nb.api.update
from oo_nb import skin
from tests.support.state_guard import StateGuard, fakes_in_package


def _fake_update() -> None:
    """Stands for a fake a test passes to monkeypatch."""


def test_a_clean_test_leaves_nothing_to_say() -> None:
    guard = StateGuard()
    guard.before()
    guard.changes()  # what earlier tests left is theirs
    guard.before()
    assert guard.changes() == []


@pytest.mark.parametrize("fake", [_fake_update, unittest.mock.Mock(), lambda: None])
def test_a_fake_left_in_the_package_is_named_once(fake: object) -> None:
    guard = StateGuard()
    guard.before()
    guard.changes()
    guard.before()
    oo_nb.api.update.left_fake = fake  # type: ignore[attr-defined]
    try:
        left = guard.changes()
        guard.before()
        again = guard.changes()
    finally:
        del oo_nb.api.update.left_fake  # type: ignore[attr-defined]
    assert len(left) == 1 and left[0].startswith("left in the package: oo_nb.api.update.left_fake")
    assert again == []  # the next test did not leave it


def test_the_package_s_own_objects_are_not_fakes() -> None:
    import oo_nb.cli.main
    import oo_nb.cli.update  # noqa: F401  the module whose copy of propose_update leaked

    assert fakes_in_package() == set()


def test_environment_cwd_and_skin_left_changed_are_named(tmp_path: Path) -> None:
    guard = StateGuard()
    guard.before()
    guard.changes()
    guard.before()
    here = Path.cwd()
    os.environ["OO_LEFT_BY_A_TEST"] = "yes"
    os.chdir(tmp_path)
    speaking = skin.speaking("oo")
    speaking.__enter__()
    try:
        left = guard.changes()
    finally:
        speaking.__exit__(None, None, None)
        os.chdir(here)
        del os.environ["OO_LEFT_BY_A_TEST"]
    assert left == [
        "environment variable OO_LEFT_BY_A_TEST: None -> 'yes' (use monkeypatch)",
        f"working directory: {here} -> {tmp_path} (use monkeypatch.chdir)",
        "skin left speaking 'oo' (use `with skin.speaking(...)`)",
    ]
