"""One module per verb, shared by the ``oo`` CLI and the ``%oo`` magic.

A verb module defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(ns) -> result``.
A result has ``exit_code: int`` and ``to_text() -> str`` (what the CLI prints); notebook-facing
results may add ``_repr_mimebundle_``. Modules are imported only when their verb runs (or its
help is shown), so ``import oo_nb``, ``%load_ext oo_nb`` and one ``oo VERB`` stay fast.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol

__all__ = ["VERBS", "Result", "TextResult", "build_parser", "load"]

# verb -> module under oo_nb.cli
VERBS: dict[str, str] = {
    "show": "show",
    "check": "check",
    "history": "history",
    "rollback": "rollback",
    "update": "update",
    "update-all": "update_all",
    "new": "new",
    "contract": "contract",
    "index": "index",
    "sync": "sync",
    "library": "library",
    "audit": "audit",
    "links": "links",
    "review": "review",
    "diff": "diff",
    "demo": "demo",
    "changes": "changes",
    "alerts": "alerts",
    "schedule": "schedule",
}


class Result(Protocol):
    exit_code: int

    def to_text(self) -> str: ...


class TextResult:
    """A result that is only text (and an exit code)."""

    def __init__(self, text: str, exit_code: int = 0, value: Any = None) -> None:
        self.text = text
        self.exit_code = exit_code
        self.value = value

    def to_text(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


def load(verb: str) -> ModuleType:
    return importlib.import_module(f"oo_nb.cli.{VERBS[verb]}")


def build_parser(
    prog: str = "oo",
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
    *,
    verbs: Sequence[str] | None = None,
) -> argparse.ArgumentParser:
    """The parser for ``verbs`` (default: all). Building one imports its verb's module: the CLI
    asks for the one verb it runs, so ``oo show`` does not load the agent or pandas."""
    parser = parser_class(
        prog=prog, description="Living research documents: read, audit, update with review."
    )
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=parser_class)
    sub.required = True
    for verb in verbs if verbs is not None else VERBS:
        module = load(verb)
        p = sub.add_parser(verb, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
    return parser
