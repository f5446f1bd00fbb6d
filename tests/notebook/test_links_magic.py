"""``%oo links DIR`` returns the links frame (its progress bar is tqdm's) and prints a summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.support.link_server import LinkServer, library_with_sources
from tests.support.magic_helpers import oo


def test_links_magic_returns_the_frame(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LinkServer() as server:
        folder = library_with_sources(tmp_path, [server.url("/ok"), server.url("/gone")])
        frame = oo(shell, f"links {folder} --allow-private --timeout 2")
    assert isinstance(frame, pd.DataFrame)
    assert frame["link_status"].tolist() == ["ok", "dead"]
    assert {"doc", "source_id", "url", "status", "final_url", "dead", "error", "checked_at"} <= set(
        frame.columns
    )
    assert "2 source links: 1 dead, 1 ok" in capsys.readouterr().out
