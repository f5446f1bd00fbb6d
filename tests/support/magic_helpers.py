"""``%oo`` in a test: the ``shell`` fixture (tests/conftest.py) runs it."""

from __future__ import annotations

from typing import Any

from IPython.core.interactiveshell import InteractiveShell


def oo(shell: InteractiveShell, line: str) -> Any:
    """``%oo LINE`` in ``shell``; returns what the cell would show."""
    return shell.run_line_magic("oo", line)
