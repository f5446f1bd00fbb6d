"""Shared fixtures: the real corpus (read-only), copies of it in a temporary folder, no ambient
API settings, and an IPython shell with the extension loaded."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.isolation import AMBIENT
from tests.support.state_guard import StateGuard

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

# Real o-o documents kept with the tests (fixtures/corpus/README.md); OO_CORPUS overrides.
CORPUS = Path(os.environ.get("OO_CORPUS", Path(__file__).resolve().parent / "fixtures" / "corpus"))
DOC_NAMES = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]
ALL_NAMES = [*DOC_NAMES, "index.o-o.html"]


_STATE = StateGuard()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _STATE.before()  # before any fixture of the test is set up


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """Fail a test that leaves process-wide state changed once its fixtures (monkeypatch too)
    are torn down: left behind, it fails some other test, in one order only."""
    yield
    if left := _STATE.changes():
        pytest.fail(f"{item.nodeid} left state behind:\n  " + "\n  ".join(left), pytrace=False)


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    # dropped for the whole run by the root conftest; again here in case a test leaks one
    for name in AMBIENT:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    assert CORPUS.exists(), f"corpus not found at {CORPUS}"
    return CORPUS


def corpus_file(name: str, folder: Path) -> Path:
    """A writable, executable copy (as real documents are) of one corpus document in ``folder``."""
    target = folder / name
    shutil.copyfile(CORPUS / name, target)
    target.chmod(0o755)
    return target


@pytest.fixture
def corpus_copy(tmp_path: Path, corpus_dir: Path) -> Path:
    """A writable copy of the whole corpus."""
    target = tmp_path / "corpus"
    shutil.copytree(corpus_dir, target)
    for p in target.iterdir():
        p.chmod(0o644 if p.suffix != ".html" else 0o755)
    target.chmod(0o755)
    return target


@pytest.fixture(scope="module")
def shell() -> Iterator[InteractiveShell]:
    """An IPython shell with ``%load_ext oo_nb`` done."""
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    manager = ip.extension_manager
    assert manager is not None
    manager.load_extension("oo_nb")
    yield ip
