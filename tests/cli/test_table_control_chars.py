"""``oo audit`` and ``oo library`` print text from the documents (titles, a paragraph's first
words): a terminal escape or a bidi override in it must not reach the terminal as one."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from oo_nb.cli.main import main as oo_main
from tests.support.tiny_docs import page, source

_ESC = "\x1b[2J\x1b]0;owned\x07"
_RLO = "\u202e"


def _run(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        oo_main(list(args))
    return out.getvalue()


@pytest.fixture
def library(tmp_path: Path) -> Path:
    doc = page(
        [("aaaaaaa1", f"Dup {_ESC} first {_RLO} words"), ("aaaaaaa1", "Second")],
        [source(1, title=f"T{_ESC}")],
    )
    doc = doc.edit_block("oo-manifest", lambda m: m.update(title=f"Title {_ESC}{_RLO}"))
    (tmp_path / "esc.o-o.html").write_bytes(doc.to_bytes())
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ("audit", "--all"),
        ("audit",),
        ("library",),
        ("library", "--frame", "sources"),
    ],
)
def test_no_control_character_reaches_the_terminal(library: Path, args: tuple[str, ...]) -> None:
    text = _run(*args, str(library))
    assert "esc" in text  # the document is listed
    for bad in ("\x1b", "\x07", _RLO):
        assert bad not in text, (args, text)
