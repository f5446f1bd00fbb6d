"""Tab completion for ``%oo``: verbs, then each verb's options, their choices, and paths.

``oo_matcher`` is an IPython completion matcher (API version 2, in ``Completer.custom_matchers``):
on a line that is a ``%oo`` call (``%oo …``, ``%%oo …``, ``x = %oo …``) it gives whole tokens
that replace the one being typed and suppresses the other matchers (Python names and keywords
mean nothing there). The options come from the verb's own parser (``oo_nb.cli.verbs``), so
completion cannot drift from what ``%oo VERB`` accepts. Paths: folders end in ``/``; hidden
entries only when the typed part starts with a dot.

The line is read as the magic reads it (``shlex``): the word being typed may be quoted or hold
escaped spaces, and a completion that needs quoting (a space, a quote) is given quoted, so what
Tab inserts parses back to the path. The whole word as typed is what it replaces
(``matched_fragment``), not IPython's own token, which stops at a space or a quote.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

__all__ = ["complete_line", "install", "oo_matcher"]

# A %oo call: the line starts with it, or assigns its result.
_CALL = re.compile(r"\s*(?:[\w.]+\s*=\s*)?%%?oo(?:\s+|$)")


def install(shell: Any) -> None:
    """Add ``oo_matcher`` to the shell's completer (once, however often the extension loads)."""
    matchers = shell.Completer.custom_matchers
    if oo_matcher not in matchers:
        matchers.append(oo_matcher)


def _matcher(fn: Any) -> Any:
    from IPython.core.completer import context_matcher

    return context_matcher(identifier="oo_nb.%oo")(fn)


@_matcher
def oo_matcher(context: Any) -> dict[str, Any]:
    """IPython matcher (API 2): the ``%oo`` completions of the line up to the cursor."""
    from IPython.core.completer import SimpleCompletion

    line = str(context.text_until_cursor)
    if _CALL.match(line) is None:
        return {"completions": []}
    found, typed = _complete(line)
    if not found and typed:
        # IPython lets other matchers in when this one has nothing, and Python keywords or
        # other magics ("%quickref") mean nothing in a %oo argument: offer the word as typed,
        # so Tab leaves it alone
        found = [typed]
    return {
        "completions": [SimpleCompletion(text=t, type="oo") for t in found],
        "matched_fragment": typed,  # the whole word as typed, quotes and escapes included
        "suppress": True,  # on a %oo line nothing else applies: no Python names, no keywords
    }


def complete_line(line: str) -> list[str]:
    """Completions for the word under the cursor at the end of ``line`` (each replaces that
    whole word as typed, quoted where it needs to be)."""
    return _complete(line)[0]


def _complete(line: str) -> tuple[list[str], str]:
    """The completions and the word as typed that they replace."""
    found = _CALL.match(line)
    if found is None:
        return [], ""
    words, typed, current, quote = _words(line[found.end() :])
    if not words:
        return _verbs(current), typed
    parser = _parser(words[0])
    if parser is None:
        return [], typed
    choices = _option_choices(parser, words[-1]) if len(words) > 1 else None
    if choices is not None:
        return [c for c in choices if c.startswith(current)], typed
    if current.startswith("-"):
        return sorted(
            o
            for a in parser._actions
            for o in a.option_strings
            if o.startswith(current) and o.startswith("--")
        ) or sorted(
            o for a in parser._actions for o in a.option_strings if o.startswith(current)
        ), typed
    return [_quoted(p, quote) for p in paths(current)], typed


def _words(rest: str) -> tuple[list[str], str, str, str | None]:
    """``rest`` split as ``shlex`` splits it: the words before the last one, the last as typed
    (raw) and as meant (quotes and escapes removed), and the quote it leaves open, if any."""
    words: list[str] = []
    start: int | None = None  # where the word being read begins
    value: list[str] = []
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(rest):
        if escaped:
            value.append(ch)
            escaped = False
        elif quote == "'":
            if ch == "'":
                quote = None
            else:
                value.append(ch)
        elif quote == '"':
            if ch == '"':
                quote = None
            elif ch == "\\" and rest[i + 1 : i + 2] in ('"', "\\"):
                escaped = True
            else:
                value.append(ch)
        elif ch.isspace():
            if start is not None:
                words.append("".join(value))
                start, value = None, []
        else:
            if start is None:
                start = i
            if ch == "\\":
                escaped = True
            elif ch in "'\"":
                quote = ch
            else:
                value.append(ch)
    if start is None:
        return words, "", "", None
    return words, rest[start:], "".join(value), quote


_NEEDS_QUOTES = re.compile(r"[\s'\"\\]")


def _quoted(path: str, quote: str | None) -> str:
    """``path`` as it must be typed to reach the magic whole: bare when it can be, else in the
    quotes already opened (double quotes for a new one). A folder leaves its quote open, to go
    on typing into it; a file closes it."""
    if quote is None and not _NEEDS_QUOTES.search(path):
        return path
    q = quote if quote == "'" and "'" not in path else '"'
    body = path if q == "'" else path.replace("\\", "\\\\").replace('"', '\\"')
    return q + body + ("" if path.endswith("/") else q)


def _verbs(prefix: str) -> list[str]:
    from oo_nb.cli.verbs import VERBS

    return [v for v in VERBS if v.startswith(prefix)]


def _parser(verb: str) -> argparse.ArgumentParser | None:
    from oo_nb.cli.verbs import VERBS, load

    if verb not in VERBS:
        return None
    parser = argparse.ArgumentParser(prog=f"%oo {verb}", add_help=True)
    load(verb).add_arguments(parser)
    return parser


def _option_choices(parser: argparse.ArgumentParser, previous: str) -> list[str] | None:
    """The values an option takes when ``previous`` is that option and it lists them."""
    for action in parser._actions:
        if previous in action.option_strings and action.choices is not None:
            return [str(c) for c in action.choices]
    return None


def paths(prefix: str) -> list[str]:
    """Folders (with a trailing ``/``) and files whose path starts with ``prefix`` (a leading
    ``~`` given expanded: the magic opens paths as given)."""
    expanded = os.path.expanduser(prefix)
    folder, _, start = expanded.rpartition("/")
    base = Path(folder + "/" if folder or expanded.startswith("/") else ".")
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    # what the user typed before the name; "~" expanded, as the magic (no shell) will not
    shown = expanded[: len(expanded) - len(start)]
    out = []
    for entry in entries:
        if not entry.name.startswith(start) or (
            entry.name.startswith(".") and not start.startswith(".")
        ):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        out.append(shown + entry.name + ("/" if is_dir else ""))
    return out
