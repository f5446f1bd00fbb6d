"""Library frames in a notebook (issue 27, 10): within a display limit and a height, the audit
as one line per kind of finding with what it means; other DataFrames as pandas shows them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.library.library import Library
from oo_nb.notebook import frame_display


@pytest.fixture
def shell() -> InteractiveShell:
    shell = InteractiveShell.instance()
    frame_display.register(shell)
    return shell


@pytest.fixture
def lib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Library:
    from oo_nb.demo import install_demo

    monkeypatch.setenv("OO_TODAY", "2026-12-01")
    install_demo(tmp_path / "lib", index=False)
    return Library(tmp_path / "lib")


def test_a_library_frame_shows_within_the_limit_and_a_height(
    shell: InteractiveShell, lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources = lib.sources
    monkeypatch.setattr(frame_display.options, "display_limit", 5)
    bundle, _ = shell.display_formatter.format(sources)
    assert bundle["text/html"].count("<tr") == 5 + 1  # five rows and the header
    assert ".oo-frame-box{max-height:24em;overflow:auto}" in bundle["text/html"]
    assert f"5 of {len(sources)} rows shown" in bundle["text/html"]
    assert f"5 of {len(sources)} rows shown" in bundle["text/plain"]
    assert len(sources) > 5  # the frame itself keeps every row
    monkeypatch.setattr(frame_display.options, "display_limit", None)
    bundle, _ = shell.display_formatter.format(sources)
    assert "rows shown" not in bundle["text/html"]


def test_the_audit_shows_per_kind_with_its_meaning(shell: InteractiveShell, lib: Library) -> None:
    findings = lib.audit()
    bundle, _ = shell.display_formatter.format(findings)
    text = bundle["text/plain"]
    assert text.startswith(f"{findings['count'].sum()} finding(s) of ")
    assert "overdue" in text and "the document is due by its cadence" in text
    overview = text.split("\n\n")[0]
    assert len(overview.splitlines()) == 1 + 1 + findings["code"].nunique()  # one line per kind
    assert "findings[findings.code ==" in bundle["text/html"]
    assert "The rows, most serious first:" in text  # then the rows, within the display limit
    assert "oo-manifest" in " ".join(findings["where"].astype(str))  # the data keeps the ids
    assert "oo-manifest" not in text and "document details" in text  # the display reads


def test_other_frames_show_as_pandas_shows_them(shell: InteractiveShell) -> None:
    frame = pd.DataFrame({"x": range(100)})
    bundle, _ = shell.display_formatter.format(frame)
    assert bundle["text/plain"] == repr(frame)
    assert bundle["text/html"] == frame._repr_html_()


def test_the_display_limit_is_the_public_oo_nb_options(
    shell: InteractiveShell, lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    import oo_nb

    assert "options" in dir(oo_nb) and oo_nb.options is frame_display.options
    monkeypatch.setattr(oo_nb.options, "display_limit", oo_nb.options.display_limit)  # restored
    oo_nb.options.display_limit = 3
    bundle, _ = shell.display_formatter.format(lib.sources)
    assert bundle["text/html"].count("<tr") == 3 + 1
    assert "oo_nb.options.display_limit = None shows every row" in bundle["text/plain"]
    for wrong in (-1, "10", 2.5, True):
        with pytest.raises(ValueError, match=r"oo_nb\.options\.display_limit: a number of rows"):
            oo_nb.options.display_limit = wrong  # type: ignore[assignment]
    assert oo_nb.options.display_limit == 3  # a refused value leaves the setting as it was
    oo_nb.options.reset()
    assert repr(oo_nb.options) == "oo_nb.options(display_limit=20)"
