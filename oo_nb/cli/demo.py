"""``oo demo DIR``: (re)create the demo library (documents + recorded updates) in DIR."""

from __future__ import annotations

import argparse

from oo_nb.demo import DemoInstall, install_demo

__all__ = ["HELP", "add_arguments", "run"]

HELP = (
    "create or reset the demo library in DIR: documents and recorded updates for the replay agent"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "dir",
        help="folder to (re)create; refused when it holds other files and no demo marker, "
        "or the user's work (without --reset)",
    )
    p.add_argument(
        "--no-index", dest="index", action="store_false", help="do not write index.o-o.html"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.add_argument(
        "--reset",
        action="store_true",
        help="reinstall even when the demo folder holds edited or new documents, history or "
        "pending proposals (they are deleted); without it such a folder is refused",
    )


def run(ns: argparse.Namespace) -> DemoInstall:
    return install_demo(ns.dir, index=ns.index, quiet=ns.quiet, reset=ns.reset)
