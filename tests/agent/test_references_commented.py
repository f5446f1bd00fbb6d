"""An ``<li>`` inside a comment in the References list is no entry: the browser does not count
it, so neither may the update (it took the place of the new source's entry, which was never
written, and a comment in the middle flagged the list as out of order)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from oo_nb.agent.references import update_references
from oo_nb.agent.sources import url_key
from oo_nb.format.document import Document

FIXTURE = Path(__file__).parents[1] / "fixtures" / "issue12" / "refs-commented-entry.o-o.html"
NEW = {
    "id": "s17",
    "url": "https://news.example.com/x",
    "title": "Latest",
    "accessed": "2026-11-28",
}


def _refs_body(article: str) -> str:
    return article[article.index('<h2 id="references">References</h2>') + 36 :]


def _entries(doc: Document) -> dict[str, object]:
    return {s["id"]: s for s in doc.block_json("oo-source-cache")["sources"]}


def _update(body: str, doc: Document) -> tuple[str, str | None]:
    old = _entries(doc)
    urls = {url_key(str(s["url"])): sid for sid, s in old.items()}  # type: ignore[index]
    cited = {f"s{n}" for n in range(1, 18) if n != 12}
    up = update_references(body, {**old, "s17": NEW}, set(old), urls, cited, date(2026, 12, 1))
    return up.body, up.out_of_order


def _entries_in_list(body: str) -> list[str]:
    listed = body[: body.index("</ol>")]
    listed = re.sub(r"<!--.*?-->", "", listed, flags=re.S)
    return re.findall(r"<li\b.*?</li>", listed, re.S)


def test_a_new_source_gets_its_entry_after_a_commented_out_one() -> None:
    doc = Document.read(FIXTURE)
    body = _refs_body(doc.article_html)
    out, wrong = _update(body, doc)
    assert wrong is None
    items = _entries_in_list(out)
    assert len(items) == 17  # the browser links [s17] to the 17th entry
    assert 'href="https://news.example.com/x"' in items[16]
    assert "<!-- <li>Llama 3 launch notes — Meta AI, 2024</li> -->" in out  # kept as written
    assert out.startswith(body[: body.index("<!-- <li>")])  # the entries before: same bytes


def test_a_commented_out_entry_in_the_middle_is_not_out_of_order() -> None:
    doc = Document.read(FIXTURE)
    body = _refs_body(doc.article_html)
    note = "<!-- <li>Llama 3 launch notes — Meta AI, 2024</li> -->\n"
    body = body.replace(note, "")
    third = body.index("<li>", body.index("<li>", body.index("<li>") + 1) + 1)
    body = body[:third] + note + body[third:]  # now between entries 2 and 3
    out, wrong = _update(body, doc)
    assert wrong is None
    assert 'href="https://news.example.com/x"' in _entries_in_list(out)[16]
