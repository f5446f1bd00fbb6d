"""The article's paragraphs are the blocks the edit splices by (s36, one rule in one place):
the smallest element the model names a block (``article_model.LEAF_BLOCKS``) wherever it sits,
and an element around one is a wrapper, whatever its name. So the library scan, ``check``, the
audit and the agent's context read a paragraph in a ``<details>``, a ``<fieldset>`` or a
``<form>`` with its own pid, as the edit (``agent/nested_splice``) writes it; they read the
whole container as one pid-less block before."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.nested_splice import UNWRITABLE, _parts
from oo_nb.format.article import read_article
from oo_nb.format.article_model import LEAF_BLOCKS, Node, read_model
from oo_nb.format.document import Document
from oo_nb.library.digest import Digest, digest_file

CONTAINERS = Path(__file__).resolve().parents[1] / "fixtures" / "containers"
PIDS = ["pid:overview:ecfcac73", "pid:overview:030632e6"]


@pytest.mark.parametrize("name", ["details-two-paragraphs", "fieldset", "form"])
def test_a_paragraph_in_any_container_is_read_with_its_pid(name: str) -> None:
    path = CONTAINERS / f"{name}.o-o.html"
    doc = Document.read(path)
    found = [p for p in doc.article.paragraphs if p.section == "overview" and p.tag == "p"]
    assert [p.pid for p in found] == PIDS
    digest = digest_file(str(path), name)
    assert isinstance(digest, Digest)
    assert digest.unpidded == []  # (the container was a paragraph without a pid)


@pytest.mark.parametrize("path", sorted(CONTAINERS.glob("*.o-o.html")), ids=lambda p: p.stem)
def test_the_walk_and_the_splice_see_the_same_blocks(path: Path) -> None:
    doc = Document.read(path)
    model = doc.article_model
    section = next(s for s in model.sections if s.id == "overview")
    body = model.source[section.heading.end : section.end]
    spliced = [" ".join(p.node.text.split()) for p in _parts(read_model(body).root)
               if p.kind == "block"]  # fmt: skip
    reading = read_article(model)
    walked = [
        " ".join(node.text.split())
        for _, sec, node in reading.blocks
        if sec == "overview" and node.name in LEAF_BLOCKS and not _unwritable(node)
    ]
    assert walked == spliced


def _unwritable(node: Node) -> bool:
    """Inside what an update cannot write (a ``<form>``): the page shows it, the splice leaves
    it whole."""
    up = node.parent
    while up is not None:
        if up.name in UNWRITABLE:
            return True
        up = up.parent
    return False
