"""``%oo update`` on a path that is not a plain document fails at once, naming it: a named pipe
(opening one to test it would wait for a writer and hang the kernel) and a symbolic link to a
missing file (not "did you mean" the link's own name)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests.support.magic_helpers import oo


def test_a_named_pipe_is_refused_without_waiting(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.o-o.html"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            oo(shell, f"update {fifo}")
            outcome.append(None)
        except BaseException as exc:  # the UsageError, read below
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # free the blocked open before failing
        with open(fifo, "wb"):
            pass
        worker.join(10)
        pytest.fail("%oo update waited on a named pipe")
    (error,) = outcome
    assert isinstance(error, UsageError)
    assert "pipe.o-o.html" in str(error) and "not a regular file" in str(error)
    assert "Researching" not in capsys.readouterr().out


def test_a_link_to_a_missing_file_names_its_target(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "gone.o-o.html"
    link.symlink_to(tmp_path / "moved-away.o-o.html")
    with pytest.raises(UsageError) as caught:
        oo(shell, f"update {link}")
    message = str(caught.value)
    assert "moved-away.o-o.html" in message and "link" in message, message
    assert "did you mean gone.o-o.html" not in message
    assert "Researching" not in capsys.readouterr().out
