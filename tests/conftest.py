"""Shared fixtures: the real corpus (read-only) and copies of it in a temporary folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Real o-o documents kept with the tests (fixtures/corpus/README.md); OO_CORPUS overrides.
CORPUS = Path(os.environ.get("OO_CORPUS", Path(__file__).resolve().parent / "fixtures" / "corpus"))
DOC_NAMES = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]
ALL_NAMES = [*DOC_NAMES, "index.o-o.html"]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    assert CORPUS.exists(), f"corpus not found at {CORPUS}"
    return CORPUS


@pytest.fixture
def corpus_copy(tmp_path: Path, corpus_dir: Path) -> Path:
    """A writable copy of the whole corpus."""
    target = tmp_path / "corpus"
    shutil.copytree(corpus_dir, target)
    for p in target.iterdir():
        p.chmod(0o644 if p.suffix != ".html" else 0o755)
    target.chmod(0o755)
    return target
