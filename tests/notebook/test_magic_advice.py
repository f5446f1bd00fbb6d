"""Advice in the magic's own words (docs/notebook.md: "advice names the magic's options"):
`%oo review` said "run `oo update` first" and "`oo update --force`", `%%oo contract` named
`oo new … --sentinel`, though each is a shell command. The words come from ``oo_nb.skin``, the
one place that knows whether the caller is the command, the magic or Python."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import oo_nb
from oo_nb.cli.main import main
from oo_nb.demo import demo_today, install_demo
from tests.support.magic_helpers import oo

HEAT = "heat-pumps-in-europe.o-o.html"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("OO_TODAY", demo_today())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OO_AGENT", raising=False)
    folder = tmp_path / "lib"
    install_demo(folder)
    yield folder


def test_review_with_nothing_saved_names_the_magic_update(
    demo: Path, shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = demo / HEAT
    with pytest.raises(UsageError) as caught:
        oo(shell, f'review "{doc}"')
    said = str(caught.value)
    assert f"run `%oo update {shlex.quote(str(doc))}` first" in said, said
    assert "`oo update" not in said
    listed = oo(shell, f'review "{doc}" --list').text
    assert f"run `%oo update {shlex.quote(str(doc))}` first" in listed, listed
    assert main(["review", str(doc), "--list"]) == 0  # the command keeps its own words
    assert f"run `oo update {doc}` first" in capsys.readouterr().out


def test_review_of_a_stale_proposal_names_the_magic_force(
    demo: Path, shell: InteractiveShell
) -> None:
    doc = demo / HEAT
    oo_nb.open(doc).update(agent="replay")
    doc.write_bytes(doc.read_bytes().replace(b"</body>", b"<!-- edited --></body>", 1))
    said = oo(shell, f'review "{doc}" --accept-all').text
    assert f"Research again with `%oo update {shlex.quote(str(doc))} --force`" in said, said
    assert "`oo update" not in said


def test_contract_sentinel_advice_names_the_magic_new(demo: Path, shell: InteractiveShell) -> None:
    with pytest.raises(UsageError) as caught:
        shell.run_cell_magic("oo", f'contract "{demo / HEAT}"', '{"sentinel.status": "occurred"}')
    said = str(caught.value)
    assert '%oo new "Title" --sentinel EVENT --criteria TEXT' in said, said
    assert " oo new" not in said
