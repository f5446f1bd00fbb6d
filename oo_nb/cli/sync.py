"""``oo sync DIR [css|js|shell|all]``: give every page in DIR this version's shared code."""

from __future__ import annotations

import argparse

from oo_nb.edit.sync import SyncResult, sync_dir

__all__ = ["HELP", "add_arguments", "run"]

HELP = "replace the marked CSS/JS/shell code of every page in DIR with this version's (DIR/oo.css goes in CUSTOM)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="folder of documents (sub-folders included)")
    parser.add_argument(
        "section",
        nargs="?",
        default="all",
        choices=("css", "js", "shell", "all"),
        help="which code to replace (default: all)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="report what would change; write nothing"
    )
    parser.add_argument(
        "--migrate",
        action="store_true",
        help="convert early-layout documents (no markers) to the marker layout, keeping all their data; "
        "an early index page gets this version's shell, its page kept byte for byte",
    )

    parser.add_argument(
        "--fix-line-endings",
        action="store_true",
        help="turn CR LF into LF in the shell lines (before and after the page), which bash "
        "needs to run the file; the page between them keeps every byte",
    )


def run(ns: argparse.Namespace) -> SyncResult:
    return sync_dir(
        ns.dir,
        ns.section,
        dry_run=ns.dry_run,
        migrate=ns.migrate,
        fix_line_endings=ns.fix_line_endings,
    )
