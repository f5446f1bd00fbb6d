"""What a test must leave as it found it, so that the order tests run in changes nothing.

A test that patches ``oo_nb.api.update.propose_update`` and, while patched, makes the package
import ``oo_nb.cli.update`` for the first time leaves that module's ``from ... import
propose_update`` bound to the fake for the rest of the run: monkeypatch restores the attribute it
set, not the copies taken of it. Later tests then ran the fake (tests/edit before tests/api or
tests/cli failed 9 tests). ``tests/conftest.py`` checks these after every test's fixtures are
torn down, so such a leak fails the test that made it, not a test far away."""

from __future__ import annotations

import os
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from oo_nb import skin

__all__ = ["StateGuard", "fakes_in_package"]

PACKAGE = "oo_nb"
TEST_MODULES = ("tests.", "conftest")  # where the fakes a test makes are defined
MOCKS = "unittest.mock"  # Mock, MagicMock and their spec'd subclasses are defined there


def _made_by_tests(value: object) -> bool:
    # the cheapest test first: it runs on every global of every package module after each test
    kind = type(value)
    if kind is types.FunctionType or isinstance(value, type):
        module = getattr(value, "__module__", None)
    elif kind is types.MethodType:
        module = getattr(getattr(value, "__func__", None), "__module__", None)
    else:
        module = kind.__module__
    return isinstance(module, str) and (module.startswith(TEST_MODULES) or module == MOCKS)


def _named(value: object) -> str:
    # a qualified name, not the repr: the same fake reads the same after each test
    owner = getattr(value, "__func__", value)
    return str(getattr(owner, "__qualname__", type(value).__qualname__))


def fakes_in_package() -> set[str]:
    """``module.name = fake`` for each package global that holds a fake or object a test made."""
    found = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith(PACKAGE) or name[len(PACKAGE) : len(PACKAGE) + 1] not in ("", "."):
            continue
        for attr, value in list(vars(module).items()):
            if _made_by_tests(value):
                found.add(f"{name}.{attr} = {_named(value)}")
    return found


@dataclass
class StateGuard:
    """The process-wide state a test could change without monkeypatch. ``before`` is taken when
    a test's setup starts, ``changes`` when its teardown has ended (monkeypatch undone)."""

    environ: dict[str, str] = field(default_factory=dict)
    cwd: Path = field(default_factory=Path.cwd)
    # fakes already reported: a leak fails the test that made it, not every test after it
    known_fakes: set[str] = field(default_factory=set)

    def before(self) -> None:
        self.environ, self.cwd = dict(os.environ), Path.cwd()

    def changes(self) -> list[str]:
        """What the test left changed, one line each with the way to leave it unchanged."""
        fakes = fakes_in_package()
        found = [f"left in the package: {held}" for held in sorted(fakes - self.known_fakes)]
        self.known_fakes = fakes
        now = dict(os.environ)
        for name in sorted(self.environ.keys() | now.keys()):
            was, new = self.environ.get(name), now.get(name)
            if was != new:
                found.append(f"environment variable {name}: {was!r} -> {new!r} (use monkeypatch)")
        if Path.cwd() != self.cwd:
            found.append(f"working directory: {self.cwd} -> {Path.cwd()} (use monkeypatch.chdir)")
        if skin.current() != "python":
            found.append(f"skin left speaking {skin.current()!r} (use `with skin.speaking(...)`)")
        return found
