"""The ``oo`` command line: parse, run one verb, print its text, exit with its code.

An ``OOError`` prints its own sentence. An ``OSError`` (a path that is missing, a folder where a
file was expected, a place that cannot be written) prints one line naming the operation and the
path (``describe_os_error``) with the same exit code: the user needs to fix a path, not read our
stack. Every other exception is a bug in oo_nb and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import traceback
from collections.abc import Sequence

from oo_nb.cli.verbs import VERBS, build_parser, load
from oo_nb.collector import keep_to_exit, program
from oo_nb.errors import OOError
from oo_nb.format.surrogates import replaced
from oo_nb.format.vocab import terminal_safe
from oo_nb.skin import speaking

__all__ = ["describe_os_error", "main"]

# errno -> what it means for the path, in the words the rest of oo_nb uses
_REASONS = {
    errno.ENOENT: "no such file or folder",
    errno.EISDIR: "is a folder, not a file",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the device",
    errno.EEXIST: "already exists",
}
# Whole names of the os / pathlib / shutil / io functions (and the store's own write
# primitives, which call os directly) in a traceback -> the operation that failed. Whole names
# only: a substring would also take `deepcopy` for a copy, `download` for a read, `status` for
# a stat. Searched from the innermost frame outwards, so `Path.read_bytes` wins over the verb
# that called it; `open` says nothing of the direction, so it counts only when no frame names
# anything more precise (`Path.write_bytes` runs `Path.open`).
_OPERATIONS: dict[str, str] = {
    **dict.fromkeys(("mkdir", "makedirs"), "create the folder"),
    **dict.fromkeys(
        ("unlink", "remove", "removedirs", "rmdir", "rmtree", "_rmtree_safe_fd", "_rmtree_unsafe"),
        "remove",
    ),
    **dict.fromkeys(
        ("copy", "copy2", "copyfile", "copyfileobj", "copytree", "copymode", "copystat"), "copy"
    ),
    **dict.fromkeys(
        (
            "write_bytes",
            "write_text",
            "touch",
            "rename",
            "replace",
            "move",
            "symlink_to",
            "hardlink_to",
            "chmod",
            "mkstemp",
            "_mkstemp_inner",
            "mkdtemp",
            "atomic_write_bytes",
            "write_document",
        ),
        "write",
    ),
    **dict.fromkeys(
        (
            "read_bytes",
            "read_text",
            "stat",
            "lstat",
            "scandir",
            "listdir",
            "iterdir",
            "walk",
            "glob",
            "rglob",
            "exists",
            "is_dir",
            "is_file",
            "is_symlink",
            "samefile",
            "resolve",
            "readlink",
        ),
        "read",
    ),
}


def _operation(exc: BaseException) -> str:
    names = [frame.f_code.co_name for frame, _ in traceback.walk_tb(exc.__traceback__)]
    for name in reversed(names):
        if name in _OPERATIONS:
            return _OPERATIONS[name]
    return "open" if "open" in names else "use"


def describe_os_error(exc: OSError) -> str:
    """One line for an operating-system error: ``cannot read lib: is a folder, not a file``."""
    reason = _REASONS.get(exc.errno or 0) or exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return str(exc) or reason
    path = os.fsdecode(exc.filename)
    if exc.filename2 is not None:
        return f"cannot {_operation(exc)} {path} to {os.fsdecode(exc.filename2)}: {reason}"
    return f"cannot {_operation(exc)} {path}: {reason}"


def _print(text: str) -> None:
    """Print a verb's text. A file name that is not UTF-8 (Python holds its bad bytes as lone
    surrogates) cannot be printed to a strict UTF-8 terminal: it shows U+FFFD there instead of
    ending the command in a traceback (nothing is written before the encoding fails)."""
    try:
        print(text)
    except UnicodeEncodeError:
        print(replaced(text))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; its exit code. Without ``argv`` this is the program (``oo``, ``python -m
    oo_nb``), about to exit: what it built is then kept to the end instead of being walked by a
    last collection (``collector.keep_to_exit``; ~0.3 s of an ``oo update-all``)."""
    # advice from the layers below names `oo`'s options; as the program, what is imported to
    # last may be frozen at once (``collector.paused``)
    with speaking("oo"), program() if argv is None else contextlib.nullcontext():
        code = _run(list(sys.argv[1:] if argv is None else argv))
    if argv is None:
        keep_to_exit()
    return code


def _run(args: list[str]) -> int:
    # One verb's parser when the first word names a verb; all of them for `oo --help` or a typo
    parser = build_parser(verbs=[args[0]] if args and args[0] in VERBS else None)
    ns = parser.parse_args(args)
    try:
        result = load(ns.verb).run(ns)
        text = result.to_text()
    except OOError as exc:
        print(terminal_safe(f"oo {ns.verb}: error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        print(terminal_safe(f"oo {ns.verb}: error: {describe_os_error(exc)}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        from oo_nb.agent.interrupt import interrupted_said

        print(terminal_safe(f"oo {ns.verb}: {interrupted_said(exc)}"), file=sys.stderr)
        return 130
    if text:
        # Documents and agents write what verbs print (a changelog summary, a paragraph): no
        # escape sequence of theirs reaches the terminal. Text in colour has had each piece
        # made safe where it was painted (review/terminal.py), its own colours kept.
        if not getattr(result, "painted", False):
            text = terminal_safe(text)
        try:
            _print(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `oo library DIR | head`: the reader left, which is fine
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    # what the output alone would hide (e.g. files that could not be read): after the output,
    # on stderr, so a pipe's data stays clean
    for line in getattr(result, "stderr_notes", ()):
        print(terminal_safe(f"oo {ns.verb}: {line}"), file=sys.stderr)
    return int(result.exit_code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
