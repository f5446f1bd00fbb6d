"""Quoted facts in the library (issue 16): the facts frame shows quote and verdict, the audit
reports a quote that was not found as ``unsupported-fact``."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.library.audit import CHECKS
from oo_nb.library.library import Library
from tests.conftest import CORPUS

TODAY = date(2026, 3, 1)


def test_quotes_show_in_the_facts_frame_and_the_audit(tmp_path: Path) -> None:
    path = tmp_path / "yc-w26-batch.o-o.html"
    shutil.copy(CORPUS / path.name, path)
    doc = Document.read(path)
    cache = doc.block_json("oo-source-cache")
    sid = cache["sources"][0]["id"]
    cache["facts"] = [
        "a plain fact [s1]",
        {"text": "backed", "source_ids": [sid], "quote": "the page says so", "quote_found": True,
         "quote_url": cache["sources"][0]["url"]},
        {"text": "not backed", "source_ids": [sid], "quote": "no page says this", "quote_found": False},
    ]  # fmt: skip
    path.write_bytes(doc.with_block("oo-source-cache", cache).to_bytes())
    lib = Library(tmp_path, today=TODAY, workers=1)
    facts = lib.facts
    assert facts["quote"].isna().tolist() == [True, False, False]
    assert facts["quote_found"].tolist()[1:] == [True, False]
    assert str(facts["quote_found"].dtype) == "boolean"
    found = lib.audit()
    unsupported = found[found["code"] == "unsupported-fact"]
    assert unsupported["where"].tolist() == ["f3"]
    assert (
        set(unsupported["severity"]) == {"warning"} and CHECKS["unsupported-fact"][0] == "warning"
    )
    assert "no page says this" in unsupported["message"].iloc[0]
