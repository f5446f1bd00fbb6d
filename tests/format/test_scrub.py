"""A document cleaned of secrets stays a valid document, changed only where a secret was."""

from __future__ import annotations

import pytest

from oo_nb.format.document import Document
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from oo_nb.format.scrub import scrub_document
from tests.conftest import CORPUS

KEY = "sk-ant-api03-MARKERw2Xe4Rt6Yu8Io0Pa1Sd3Fg5Hj7Kl9Zx-Cv_7BB"


def test_a_document_without_secrets_is_returned_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    out, found = scrub_document(doc)
    assert found == 0 and out is doc


def test_secrets_in_html_and_json_are_replaced_and_the_document_stays_valid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a proxy token with HTML and JSON syntax in it: a replacement never swallows that syntax
    token = 'tok<en&"quote\\back-QWERTYUIOPASDF'
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", token)
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    middle = KEY[len("sk-ant-api03-") :][5:25]
    html = doc.article_html.replace(
        "</p>",
        f' {middle.upper()} <a href="https://u:pw-secret@example.org/" title="{KEY}">x</a></p>',
        1,
    )
    dirty = doc.with_article(html).edit_block(
        SOURCE_CACHE_BLOCK,
        lambda c: {
            **c,
            KEY: token,
            "key-" + middle: [token, {"x": KEY.lower()}],
            "key-[redacted]": 1,
        },
    )
    out, found = scrub_document(dirty)
    assert found >= 6
    text = out.text
    assert KEY.lower() not in text.lower() and middle.lower() not in text.lower()
    assert "pw-secret" not in text and "QWERTYUIOPASDF" not in text
    # every block still reads, the article still parses, the other bytes are untouched
    cache = out.block_json(SOURCE_CACHE_BLOCK)
    assert cache["[redacted]"] == "[redacted]"
    clashing = [cache["key-[redacted]"], cache["key-[redacted]'"]]  # two keys alike: both kept
    assert ["[redacted]", {"x": "[redacted]"}] in clashing and 1 in clashing
    _ = out.manifest, out.contract, out.source_cache, out.changelog, out.article
    assert '<a href="https://[redacted]@example.org/" title="[redacted]">x</a>' in out.article_html
    assert out.text[: dirty.article_span.start] == dirty.text[: dirty.article_span.start]  # type: ignore[union-attr]
    assert scrub_document(out)[1] == 0
