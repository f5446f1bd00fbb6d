"""The ``oo`` command line: parse, run one verb, print its text, exit with its code."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from .commands import build_parser, load
from .errors import OOError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        result = load(ns.verb).run(ns)
    except OOError as exc:
        print(f"oo {ns.verb}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"oo {ns.verb}: interrupted; nothing was written", file=sys.stderr)
        return 130
    text = result.to_text()
    if text:
        try:
            print(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `oo library DIR | head`: the reader left, which is fine
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return int(result.exit_code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
