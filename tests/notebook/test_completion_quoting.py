"""``%oo`` Tab completion of paths that need quoting (spaces, quotes): what Tab inserts must
parse back (shlex, as the magic splits its line) to the path it completed, and a path already
typed inside quotes or with escaped spaces keeps completing."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell


def _tab(shell: InteractiveShell, line: str) -> list[str]:
    """Every line Tab can make of ``line`` (the cursor at its end)."""
    with provisionalcompleter():
        found = list(shell.Completer.completions(line, len(line)))
    return [line[: c.start] + c.text + line[c.end :] for c in found]


def _split(line: str) -> list[str]:
    """The magic's words of ``line``; a quote left open (a folder, to go on typing) closed."""
    for close in ("", '"', "'"):
        try:
            return shlex.split(line.removeprefix("%oo ") + close)
        except ValueError:
            continue
    raise AssertionError(f"{line!r} does not split")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "my docs").mkdir()
    (tmp_path / "my docs" / "a b.o-o.html").write_text("x")
    (tmp_path / "it's.o-o.html").write_text("x")
    (tmp_path / "ünï.o-o.html").write_text("x")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("typed", "path"),
    [
        ("%oo show my", "my docs/"),
        ('%oo show "my', "my docs/"),
        ("%oo show 'my", "my docs/"),
        ('%oo show "my docs/', "my docs/a b.o-o.html"),
        ("%oo show my\\ docs/", "my docs/a b.o-o.html"),
        ("%oo show it", "it's.o-o.html"),
        ("%oo show ün", "ünï.o-o.html"),
    ],
)
def test_a_completed_path_parses_back_to_itself(
    shell: InteractiveShell, folder: Path, typed: str, path: str
) -> None:
    lines = _tab(shell, typed)
    assert lines, f"nothing completes {typed!r}"
    assert path in [_split(line)[1] for line in lines], lines


def test_an_absolute_path_with_a_space_completes_as_one_argument(
    shell: InteractiveShell, folder: Path
) -> None:
    typed = f"%oo show {folder}/my"
    (line,) = _tab(shell, typed)
    assert _split(line)[1:] == [f"{folder}/my docs/"]


def test_a_home_path_completes_to_one_the_magic_can_open(
    shell: InteractiveShell, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the magic does not expand "~" (no shell runs between it and the path): Tab gives the
    # path itself, not a "~/…" that then fails with "no such file"
    monkeypatch.setenv("HOME", str(folder))
    lines = _tab(shell, "%oo show ~/ün")
    assert lines and all(Path(_split(line)[1]).exists() for line in lines), lines


@pytest.mark.parametrize(
    "typed", ["%oo show a", "%oo audit --min-severity q", "%oo frobnicate x", "%oo show zz"]
)
def test_nothing_foreign_is_offered_when_nothing_matches(
    shell: InteractiveShell, folder: Path, typed: str
) -> None:
    # Python keywords and other magics mean nothing in a %oo argument: Tab must not insert
    # "%quickref" after --min-severity
    assert all(line == typed for line in _tab(shell, typed)), _tab(shell, typed)
