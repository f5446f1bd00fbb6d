"""``%load_ext oo_nb``: one ``%oo`` magic whose verbs return data.

``%oo VERB ARGS`` parses ARGS with the same verb module the ``oo`` CLI uses
(``oo_nb.cli.verbs``: one set of options), and ``oo_nb.notebook.results`` calls the Python API
(``oo_nb.api``) for the verb, returning one type per verb (``%oo library`` an ``oo_nb.Library``,
``%oo update`` a ``Proposal`` shown as the review widget, ``%oo history`` a DataFrame, ``%oo diff``
a ``Diff``, ``%oo rollback`` a ``Rollback``); verbs without a notebook form show the CLI's
result as text. So ``lib = %oo library docs/`` works, and the CLI and the magic cannot drift.

Decisions:
- Arguments are split with ``shlex`` (quotes grouped and removed); IPython has already expanded
  ``{expr}`` and ``$name`` in the line before we see it.
- Misuse raises IPython's own ``UsageError`` (IPython shows it without a traceback; it checks the
  class itself, so we never subclass it). ``--help`` prints the help and returns ``None``: argparse
  must not ``SystemExit`` the kernel.
- An ``OOError`` (bad file, locked, conflict, budget...) is re-raised as ``UsageError`` too, with
  the verb and the error's own message (file, block, line): the user needs the sentence, not our
  stack. The original error stays reachable as ``__cause__``. An ``OSError`` (missing path,
  folder given for a file, unwritable place) becomes a one-line ``UsageError`` the same way; any
  other exception is a bug and keeps its traceback. A kernel's Interrupt ends in one line too:
  what the run did (``oo``'s words), not the frames of the subprocess it was waiting on.
- Only the verb asked for is imported, so ``%load_ext`` stays fast and a slow import (anthropic,
  pandas) is paid by the verb that needs it.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any, NoReturn

from IPython.core.error import UsageError

__all__ = ["MagicParser", "magic_verbs", "oo_magic", "parse_line", "register"]

CELL_VERBS = ("contract",)


class _HelpShown(Exception):
    """argparse printed ``--help`` and wants to exit: end the magic quietly instead."""


class MagicParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that never exits the process: errors become ``UsageError``."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see `{self.prog} --help`)")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if status:
            raise UsageError(f"{self.prog}: {(message or 'invalid arguments').strip()}")
        if message:
            print(message, end="")
        raise _HelpShown


def magic_verbs() -> list[str]:
    from oo_nb.cli.verbs import VERBS

    return list(VERBS)


def _verb_module(verb: str) -> Any:
    from oo_nb.cli.verbs import VERBS, load

    if verb not in VERBS:
        raise UsageError(
            f"%oo: unknown verb {verb!r}; one of: {', '.join(magic_verbs())} (see `%oo?`)"
        )
    return load(verb)


def _verb_parser(verb: str) -> MagicParser:
    from oo_nb.notebook import results

    module = _verb_module(verb)
    parser = MagicParser(prog=f"%oo {verb}", description=str(module.HELP))
    module.add_arguments(parser)
    results.adapt_parser(verb, parser)
    return parser


def parse_line(line: str) -> tuple[str, argparse.Namespace]:
    """Split and parse one ``%oo`` line into (verb, namespace). Raises ``UsageError``."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:  # unbalanced quotes
        raise UsageError(f"%oo: cannot split the arguments: {exc}") from None
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(overall_help())
        raise _HelpShown
    verb, rest = argv[0], argv[1:]
    ns = _verb_parser(verb).parse_args(rest)
    ns.verb = verb
    return verb, ns


def overall_help() -> str:
    lines = [
        "%oo VERB [ARGS]   living documents in a notebook; every verb returns data.",
        "%%oo contract DOC  (cell magic) apply `key: value` lines or a JSON object to a contract.",
        "",
        "verbs:",
    ]
    for verb in magic_verbs():
        try:
            text = str(_verb_module(verb).HELP)
        except Exception as exc:  # a broken verb must not hide the others' help
            text = f"(unavailable: {exc})"
        lines.append(f"  {verb:<10} {text}")
    lines += [
        "",
        "`%oo VERB --help` shows a verb's options. Quote arguments with spaces:",
        '  doc = %oo new "Solar storms / forecasts for grid operators" --no-update',
        "  lib = %oo library docs/",
        'Python values can be passed with {expr} or $name:  %oo show "{doc.path}" (quote paths that may hold spaces)',
    ]
    return "\n".join(lines)


def oo_magic(line: str, cell: str | None = None) -> Any:
    """Living documents: ``%oo VERB [ARGS]`` (run ``%oo --help`` for the verbs)."""
    from oo_nb.errors import OOError
    from oo_nb.skin import speaking, verb_prefix

    try:
        verb, ns = parse_line(line)
        if cell is not None and verb not in CELL_VERBS:
            raise UsageError(
                f"%%oo: only {', '.join(CELL_VERBS)} takes a cell body; use %oo {verb} as a line"
            )
        from oo_nb.notebook import results

        with speaking("%oo"):  # advice from the layers below names the magic's options
            said = f"%{verb_prefix(verb)}" if cell is not None else verb_prefix(verb)
            try:
                return results.run_verb(verb, ns, cell=cell)
            except OOError as exc:
                raise UsageError(f"{said}: {exc}") from exc
            except OSError as exc:  # a bad path, said in one line; bugs keep their traceback
                from oo_nb.cli.main import describe_os_error

                raise UsageError(f"{said}: {describe_os_error(exc)}") from exc
            except KeyboardInterrupt as exc:  # one line, as `oo` says it: not 20 frames
                from oo_nb.agent.interrupt import interrupted_said

                raise UsageError(f"{said}: {interrupted_said(exc)}") from None
    except _HelpShown:
        return None


oo_magic.getdoc = overall_help  # type: ignore[attr-defined]  # `%oo?` reads this (IPython oinspect)


def register(ipython: Any) -> None:
    ipython.register_magic_function(oo_magic, magic_kind="line_cell", magic_name="oo")
    if getattr(ipython, "Completer", None) is not None:  # Tab: verbs, options, paths
        from oo_nb.notebook.completion import install

        install(ipython)
