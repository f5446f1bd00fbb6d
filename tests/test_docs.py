"""The documentation: a one-screen README that starts with the two commands, and the reference in
docs/ that builds with Sphinx with warnings as errors and every cross-reference resolved
(``-W -n``), documents every public name and every verb, and whose examples run (the doctest
builder, offline, on a fresh demo library in a temporary folder: docs/conf.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import oo_nb
from oo_nb.cli.verbs import VERBS
from oo_nb.demo import install_demo

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
ONE_SCREEN = 50  # lines: what a terminal or a repository page shows without scrolling far


def sphinx(builder: str, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "-n",
            "--keep-going",
            "-q",
            "-b",
            builder,
            "-d",
            str(out / "doctrees"),
            str(DOCS),
            str(out / builder),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    r = sphinx("html", out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "WARNING" not in r.stderr, r.stderr
    return out / "html"


def test_readme_starts_with_make_lab_and_make_test() -> None:
    title, body = README.read_text().split("\n", 1)
    assert title == "# oo_nb"
    first_block = re.match(r"\s*```\w*\n(.*?)```", body, re.S)  # right under the title
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands[:2] == ["make lab", "make test"]


def test_readme_is_one_screen_and_points_at_the_reference() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= ONE_SCREEN
    assert "make docs" in text
    assert "`docs/`" in text


def test_the_docs_build_without_a_warning(html: Path) -> None:
    assert (html / "index.html").is_file()


def test_every_public_name_is_documented(html: Path) -> None:
    page = (html / "api.html").read_text()
    missing = [name for name in oo_nb.__all__ if f'id="oo_nb.{name}"' not in page]
    assert not missing, f"not in the API page: {missing}"


def test_every_verb_is_in_the_cli_reference(html: Path) -> None:
    page = (html / "cli.html").read_text()
    missing = [verb for verb in VERBS if f'id="oo-{verb}"' not in page]
    assert not missing, f"not in the CLI reference: {missing}"
    # options in help texts as typed: `--yes`, not smart punctuation's en dash ("–yes")
    assert not re.findall(r"\W\u2013[a-z]", page)


def test_every_page_is_reachable(html: Path) -> None:
    pages = {p.stem for p in DOCS.glob("*.md")} | {p.stem for p in DOCS.glob("*.rst")}
    index = (html / "index.html").read_text()
    unlinked = [p for p in sorted(pages - {"index"}) if f'href="{p}.html"' not in index]
    assert not unlinked


def test_the_examples_run(tmp_path: Path) -> None:
    r = sphinx("doctest", tmp_path)
    report = (tmp_path / "doctest" / "output.txt").read_text() if r.returncode == 0 else ""
    assert r.returncode == 0, r.stdout + r.stderr
    ran = re.search(r"^\s+(\d+) tests$", report, re.M)
    assert ran is not None and int(ran.group(1)) >= 5, report
    assert re.search(r"^\s+0 failures in tests$", report, re.M), report


def readme_block(label: str) -> list[str]:
    """The lines of the README's code block that follows ``**label**``."""
    text = README.read_text()
    block = re.search(rf"\*\*{re.escape(label)}\*\*.*?```\w*\n(.*?)```", text, re.S)
    assert block is not None, label
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_shell_tour_runs(tmp_path: Path) -> None:
    """The whole block as one script in an empty folder (any failing line fails it): offline,
    the demo's research replayed; the review is answered ``a`` (this and every later change)."""
    bin_dir = Path(sys.executable).parent  # the venv's `oo`
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    lines = readme_block("In a shell")
    assert lines[0].startswith("oo demo ")
    assert any(line.startswith("oo review ") for line in lines)
    script = "set -euo pipefail\n" + "\n".join(lines) + "\n"
    r = subprocess.run(
        ["bash", "-c", script],
        input="a\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "restored version 1" in r.stdout


def test_the_readme_notebook_tour_runs(
    tmp_path: Path, shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line as a notebook cell, beside the demo library as ``make lab`` lays it out."""
    install_demo(tmp_path / "demo-library", quiet=True)
    monkeypatch.chdir(tmp_path)
    lines = readme_block("In a notebook")
    assert lines[0] == "%load_ext oo_nb"
    for line in lines:
        result = shell.run_cell(line)
        assert result.success, f"{line}: {result.error_before_exec or result.error_in_exec!r}"
    assert type(shell.user_ns["lib"]).__name__ == "Library"
