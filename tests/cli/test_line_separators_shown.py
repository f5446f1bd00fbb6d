"""U+2028 and U+2029 (line and paragraph separator) are unsafe text as ESC or a bidi override
is: a manifest title or a changelog entry holding them is flagged by ``oo check`` and shown
escaped (``\\u2028``) by ``oo show`` and in the CSV export, never printed raw (a reader, a CSV
tool or ``str.splitlines`` breaks the line there)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from oo_nb.cli.main import main as oo_main
from tests.support.tiny_docs import page, source

_SEPARATORS = ("\u2028", "\u2029")


def _run(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        oo_main(list(args))
    return out.getvalue()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    doc = page([("aaaaaaa1", "Tides rise [s1].")], [source(1)], entry={"summary": "Sec\u2029ond."})
    doc = doc.edit_block("oo-manifest", lambda m: m.update(title="Tides\u2028rising"))
    target = tmp_path / "tides.o-o.html"
    target.write_bytes(doc.to_bytes())
    return target


@pytest.mark.parametrize("verb", ["show", "check", "library"])
def test_line_separators_are_shown_escaped(path: Path, verb: str) -> None:
    args = {
        "show": ("show", str(path)),
        "check": ("check", str(path)),
        "library": ("library", str(path.parent), "--format", "csv"),
    }[verb]
    out = _run(*args)
    assert not any(c in out for c in _SEPARATORS), out
    shown = "\\u2029" if verb == "check" else "\\u2028"
    assert shown in out, out
    if verb == "check":  # each field named
        assert "oo-manifest title" in out and "\\u2028" in out
