"""Which cited sources already have a References entry is read as the page links them: the
first entry labelled ``[sN]``, else the N-th entry. An entry labelled ``[s9]`` in first place
that links s1's URL is s1's entry (the page links ``[s1]`` to it): an update adding another
source must not append a second s1 entry."""

from __future__ import annotations

from datetime import date

from oo_nb.agent.references import update_references
from oo_nb.format.vocab import linked_entry

TODAY = date(2026, 12, 4)
S1 = {"url": "https://one.example/a", "title": "One"}
S2 = {"url": "https://two.example/b", "title": "Two"}
S3 = {"url": "https://three.example/c", "title": "Three"}
OLD_URLS = {"//one.example/a": "s1", "//two.example/b": "s2"}


def _li(label: str, host: str, path: str, title: str) -> str:
    href = f"https://{host}/{path}"
    return f'<li>[{label}] <a href="{href}" rel="noopener noreferrer">{title}</a>, {host}</li>'


def test_an_entry_labelled_otherwise_at_the_sources_position_is_its_entry() -> None:
    body = f"\n<ol>\n{_li('s9', 'one.example', 'a', 'One')}\n{_li('s2', 'two.example', 'b', 'Two')}\n</ol>\n"
    update = update_references(
        body, {"s1": S1, "s2": S2, "s3": S3}, {"s1", "s2"}, OLD_URLS, {"s1", "s2", "s3"}, TODAY
    )
    assert update.out_of_order == "item 1 is s9"
    assert update.body.count("one.example/a") == 1  # no second s1 entry
    assert update.body.endswith(f"{_li('s3', 'three.example', 'c', 'Three')}\n</ol>\n")


def test_an_entry_at_the_position_linking_another_source_is_not_its_entry() -> None:
    # [s2] would link to the s3 entry by position: s2 gets its own labelled entry
    body = f"\n<ol>\n{_li('s1', 'one.example', 'a', 'One')}\n{_li('s3', 'three.example', 'c', 'Three')}\n</ol>\n"
    update = update_references(
        body, {"s1": S1, "s2": S2, "s3": S3}, {"s1", "s3"}, OLD_URLS, {"s1", "s2", "s3"}, TODAY
    )
    assert update.body.endswith(f"{_li('s2', 'two.example', 'b', 'Two')}\n</ol>\n")


def test_the_page_links_a_citation_by_label_first_then_by_position() -> None:
    assert linked_entry("s1", ["s9", "s2"]) == 0
    assert linked_entry("s2", ["s9", "s2"]) == 1
    assert linked_entry("s2", ["s2", None]) == 0
    assert linked_entry("s3", ["s9", "s2"]) is None
    assert linked_entry("s0", ["s9"]) is None
    assert linked_entry("s" + "9" * 40, ["s9"]) is None
