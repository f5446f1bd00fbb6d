"""``oo index DIR``: write or refresh the library index page of a folder of documents."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from oo_nb.api.library import Library

if TYPE_CHECKING:
    from oo_nb.library.index_page import IndexResult

__all__ = ["HELP", "add_arguments", "run"]

HELP = "write the library page DIR/index.o-o.html (cards, sortable table, search) for every document in DIR"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="folder of documents (sub-folders included)")
    parser.add_argument(
        "--title", help="heading of a new index page (an existing page keeps its own)"
    )


def run(ns: argparse.Namespace) -> IndexResult:
    return Library(ns.dir).index(title=ns.title)
