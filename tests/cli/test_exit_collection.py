"""A command run as the program keeps what it built to its exit (no last collection walks the
SDK's and pandas' objects), and the SDK imported in the background is imported with the
collector paused, and frozen when the process is the program; ``main(argv)`` in a long-lived
process (tests, a notebook) freezes nothing."""

from __future__ import annotations

import gc
import importlib
import sys
import threading
from typing import Any

import pytest

import oo_nb.agent.many as many
from oo_nb import collector
from oo_nb.agent.run import UpdateOptions
from tests.conftest import CORPUS

# the module (``oo_nb.cli.main`` as an attribute is the function the package exports)
cli_main = importlib.import_module("oo_nb.cli.main")


def test_the_program_keeps_its_objects_to_exit_and_a_call_with_argv_does_not(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(cli_main, "keep_to_exit", lambda: frozen.append(True))
    doc = str(next(CORPUS.glob("*.o-o.html")))
    assert cli_main.main(["check", doc]) == 0
    assert frozen == []  # called with its words: a caller that goes on
    monkeypatch.setattr(sys, "argv", ["oo", "check", doc])
    assert cli_main.main() == 0
    assert frozen == [True]
    capsys.readouterr()


def test_the_sdk_is_imported_in_the_background_with_the_collector_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, bool]] = []
    real = importlib.import_module

    def import_module(name: str, *args: Any) -> Any:
        seen.append((name, gc.isenabled()))
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", import_module)
    before = set(threading.enumerate())
    many._warm_sdk(UpdateOptions(agent="anthropic"))
    for t in set(threading.enumerate()) - before:
        t.join(timeout=60)
    assert seen == [("oo_nb.agent.backends.anthropic", False)]
    assert gc.isenabled()  # left as it was


def _warm_in_background() -> None:
    before = set(threading.enumerate())
    many._warm_sdk(UpdateOptions(agent="anthropic"))
    for t in set(threading.enumerate()) - before:
        t.join(timeout=60)


def test_the_program_freezes_the_sdk_it_imports_and_a_long_lived_process_does_not() -> None:
    """After the import, three collections would walk the SDK's ~1 M objects (two of them before
    update-all's first request): the program freezes them; a kernel or a test keeps collecting."""
    start = gc.get_freeze_count()
    try:
        _warm_in_background()
        assert gc.get_freeze_count() == start  # not the program: nothing kept for good
        with collector.program():
            _warm_in_background()
        assert gc.get_freeze_count() > start
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_only_a_command_run_as_the_program_may_freeze(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts: list[int] = []

    def verb(args: list[str]) -> int:
        with collector.paused(lasting=True):
            counts.append(gc.get_freeze_count())
        counts.append(gc.get_freeze_count())
        return 0

    monkeypatch.setattr(cli_main, "_run", verb)
    monkeypatch.setattr(cli_main, "keep_to_exit", lambda: None)
    start = gc.get_freeze_count()
    try:
        assert cli_main.main(["check", "x"]) == 0  # called with its words: a caller goes on
        assert counts == [start, start]
        monkeypatch.setattr(sys, "argv", ["oo", "check", "x"])
        assert cli_main.main() == 0
        assert counts[2] == start and counts[3] > start  # frozen as the block ended
        gc.unfreeze()
        with collector.paused(lasting=True):  # the program has ended: nothing frozen now
            inside = gc.get_freeze_count()
        assert inside == start and gc.get_freeze_count() == start
    finally:
        gc.unfreeze()
