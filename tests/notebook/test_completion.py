"""Tab completion of ``%oo`` through a real IPython shell's completer, and ``%oo update`` on a
file that is not there failing before any research starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.completer import provisionalcompleter
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.cli.verbs import VERBS
from oo_nb.notebook.completion import complete_line, install, oo_matcher
from tests.support.magic_helpers import oo


def completions(shell: InteractiveShell, line: str) -> list[str]:
    """What Tab offers at the end of ``line`` (the API JupyterLab's kernel uses)."""
    with provisionalcompleter():
        return [c.text for c in shell.Completer.completions(line, len(line))]


def tab(shell: InteractiveShell, line: str) -> list[str]:
    """The older ``complete()`` API (terminal IPython)."""
    return list(shell.complete("", line, len(line))[1])


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "solar-power.o-o.html").write_text("x")
    (tmp_path / "docs" / "solar-storms.o-o.html").write_text("x")
    (tmp_path / "docs" / ".hidden").write_text("x")
    (tmp_path / "docs" / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.filterwarnings("ignore:`Completer.complete` is pending deprecation")
def test_verbs(shell: InteractiveShell) -> None:
    assert completions(shell, "%oo up") == ["update", "update-all"]
    assert tab(shell, "%oo up") == ["update", "update-all"]
    assert completions(shell, "%oo li") == ["library", "links"]
    assert sorted(completions(shell, "%oo ")) == sorted(VERBS)  # no Python names or keywords
    assert completions(shell, "lib = %oo lib") == ["library"]  # an assignment too
    assert completions(shell, "%%oo con") == ["contract"]


def test_options_and_their_choices(shell: InteractiveShell) -> None:
    assert completions(shell, "%oo audit --min") == ["--min-severity"]
    assert sorted(completions(shell, "%oo audit --min-severity ")) == ["error", "info", "warning"]
    assert completions(shell, "%oo audit --min-severity w") == ["warning"]
    assert completions(shell, "%oo library --format c") == ["csv"]
    assert "--force" in completions(shell, "%oo update x.o-o.html --")
    assert completions(shell, "%oo update x.o-o.html --ag") == ["--agent"]
    assert completions(shell, "%oo update x.o-o.html --agent r") == ["replay"]


def test_paths(shell: InteractiveShell, folder: Path) -> None:
    assert completions(shell, "%oo show do") == ["docs/"]
    assert completions(shell, "%oo update docs/solar-p") == ["docs/solar-power.o-o.html"]
    assert completions(shell, "%oo show docs/") == [
        "docs/solar-power.o-o.html",
        "docs/solar-storms.o-o.html",
        "docs/sub/",
    ]
    assert completions(shell, "%oo show docs/.") == ["docs/.hidden"]
    assert completions(shell, f"%oo show {folder}/docs/solar-s") == [
        f"{folder}/docs/solar-storms.o-o.html"
    ]
    # nothing matches: only the word as typed (Tab leaves it), no Python names or magics
    assert completions(shell, "%oo show nowhere/x") == ["nowhere/x"]


def test_the_token_is_replaced_whole(shell: InteractiveShell, folder: Path) -> None:
    line = "%oo show docs/solar-st"
    with provisionalcompleter():
        (done,) = list(shell.Completer.completions(line, len(line)))
    assert line[: done.start] + done.text == "%oo show docs/solar-storms.o-o.html"


def test_other_lines_are_left_alone(shell: InteractiveShell) -> None:
    assert complete_line("print(1)") == [] and complete_line("%ook") == []
    assert "print" in completions(shell, "pri")
    install(shell)  # %load_ext twice: one matcher
    assert shell.Completer.custom_matchers.count(oo_matcher) == 1


def test_update_of_a_missing_file_fails_before_researching(
    shell: InteractiveShell, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(UsageError, match=r"docs/solar-powr\.o-o\.html") as caught:
        oo(shell, "update docs/solar-powr.o-o.html")
    assert "did you mean solar-power.o-o.html" in str(caught.value)
    with pytest.raises(UsageError, match="docs/sub"):
        oo(shell, "update docs/sub")
    assert "Researching" not in capsys.readouterr().out
