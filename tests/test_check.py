"""``oo check``: view errors are findings whatever their words; a missing block is reported once."""

from __future__ import annotations

import re
from pathlib import Path

from oo_nb.check import check_path
from oo_nb.document import Document

from .conftest import CORPUS


def test_a_view_error_mentioning_missing_is_still_reported(tmp_path: Path) -> None:
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    path = tmp_path / "yc.o-o.html"
    path.write_bytes(doc.edit_block("oo-manifest", lambda m: m.update(version="missing")).to_bytes())
    found = check_path(path)
    bad = [f for f in found if f.code == "invalid-block"]
    assert len(bad) == 1 and bad[0].severity == "error"
    assert "key 'version'" in bad[0].message and "found 'missing'" in bad[0].message


def test_a_missing_block_is_one_finding(tmp_path: Path) -> None:
    text = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    without, n = re.subn(r'<script[^>]*id="oo-changelog"[^>]*>.*?</script>\n?', "", text, count=1, flags=re.S)
    assert n == 1
    path = tmp_path / "yc.o-o.html"
    path.write_text(without, "utf-8")
    found = check_path(path)
    assert [f.code for f in found] == ["missing-block"]
    assert "oo-changelog" in found[0].message and found[0].severity == "error"


def test_html_injection_is_reported_by_check_only(tmp_path: Path) -> None:
    """What check_path's docstring claims: the codes both report agree; html-injection (which
    needs the full page) is check's alone."""
    from oo_nb.library import Library

    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    path = tmp_path / "a.o-o.html"
    hostile = "<img src=x onerror=alert(1)>"
    path.write_bytes(doc.edit_block("oo-contract", lambda c: c["identity"].update(tone=hostile)).to_bytes())
    checked = check_path(path)
    assert "html-injection" in {f.code for f in checked}
    audited = Library(tmp_path, workers=1).audit()
    assert "html-injection" not in set(audited["code"])
    for f in checked:
        if f.code != "html-injection":
            same = audited[audited["code"] == f.code]
            assert set(same["severity"]) == {f.severity}, f
