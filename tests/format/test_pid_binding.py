"""A block's pid is the one the page's ``bindPids`` gives it (attack s36, #3): the FIRST pid
comment before it, never over its own ``data-pid``, the comment read with JavaScript's white
space (U+FEFF is space, U+001C is not). Every reader (the article, its model, the library scan)
names the paragraph the page names. The documents are the attack's reproducers."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.format.document import Document
from oo_nb.format.vocab import bound_pid, comment_pid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pids"


@pytest.mark.parametrize(
    ("name", "pid"),
    [
        ("two-comments", "pid:one:00000001"),  # the first comment, as the page binds it
        ("comment-and-attr", "pid:one:00000009"),  # the element's own data-pid, as a pid
        ("feff", "pid:one:00000001"),  # U+FEFF trimmed as JavaScript trims
        ("x1c", None),  # U+001C before "pid:": no pid comment for the page
    ],
)
def test_the_pid_of_a_paragraph_is_the_one_the_page_binds(name: str, pid: str | None) -> None:
    doc = Document((FIXTURES / f"{name}.o-o.html").read_text())
    assert doc.article.paragraphs[0].pid == pid
    block = next(b for b in doc.article_model.blocks if b.tag == "p")
    assert block.pid == pid


def test_one_rule_binds_a_pid() -> None:
    assert comment_pid(" pid:a:00000001\ufeff") == "pid:a:00000001"
    assert comment_pid("\x1cpid:a:00000001") is None
    assert bound_pid(None, ["pid:a:1", "pid:a:2"]) == "pid:a:1"
    assert bound_pid("a:9", ["pid:a:1"]) == "pid:a:9"
    assert bound_pid("a:1", ["pid:a:1"]) == "pid:a:1"  # the attribute that comment gives
    assert bound_pid("", ["pid:a:1"]) is None
