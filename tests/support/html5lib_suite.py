"""The html5lib tokenizer tests (``../shared/conformance/html5lib-tests``) read for ``tokenize``.

CI clones the repository beside a ``shared/`` folder; the worktrees here sit beside it too.
``suite_folder`` finds it, ``cases`` reads one ``.test`` file, ``expected``/``produced`` put the
two token streams in one form (adjacent characters merged, parse errors not compared).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from oo_nb.format.html_tokens import DoctypeToken, tokenize

REPO_ROOT = Path(__file__).resolve().parents[2]
_RELATIVE = Path("shared", "conformance", "html5lib-tests")
_STATES = {
    "Data state": "data",
    "PLAINTEXT state": "plaintext",
    "RCDATA state": "rcdata",
    "RAWTEXT state": "rawtext",
    "Script data state": "script data",
    "CDATA section state": "cdata section",
}
_ESCAPED = re.compile(r"\\u([0-9A-Fa-f]{4})")


def suite_folder() -> Path:
    """The suite's folder; skips the test without it, or fails it under OO_REQUIRE_CONFORMANCE=1."""
    for folder in (REPO_ROOT.parent / _RELATIVE, Path("/work") / _RELATIVE):
        if (folder / "tokenizer").is_dir():
            return folder
    reason = f"the html5lib tests are not at {REPO_ROOT.parent / _RELATIVE}"
    if os.environ.get("OO_REQUIRE_CONFORMANCE") == "1":
        pytest.fail(reason + " and OO_REQUIRE_CONFORMANCE=1", pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class Case:
    description: str
    input: str
    state: str
    last_start_tag: str
    output: list[Any]


def _unescape(value: Any) -> Any:
    if isinstance(value, str):
        return _ESCAPED.sub(lambda match: chr(int(match.group(1), 16)), value)
    if isinstance(value, list):
        return [_unescape(item) for item in value]
    if isinstance(value, dict):
        return {_unescape(key): _unescape(item) for key, item in value.items()}
    return value


def cases(path: Path) -> Iterator[Case]:
    """Each test of one ``.test`` file, once for each of its initial states."""
    for test in json.loads(path.read_text(encoding="utf-8"))["tests"]:
        text, output = test["input"], test["output"]
        if test.get("doubleEscaped"):
            text, output = _unescape(text), _unescape(output)
        for state in test.get("initialStates", ["Data state"]):
            yield Case(
                test["description"], text, _STATES[state], test.get("lastStartTag", ""), output
            )


def _merged(tokens: list[list[Any]]) -> list[list[Any]]:
    merged: list[list[Any]] = []
    for token in tokens:
        if token[0] == "Character" and merged and merged[-1][0] == "Character":
            merged[-1] = ["Character", merged[-1][1] + token[1]]
        else:
            merged.append(list(token))
    return merged


def expected(case: Case) -> list[list[Any]]:
    return _merged(case.output)


def produced(case: Case) -> list[list[Any]]:
    """``tokenize``'s stream in the suite's form, the tree builder's state switches off."""
    stream: list[list[Any]] = []
    tokens = tokenize(
        case.input, state=case.state, last_start_tag=case.last_start_tag, follow_tree_builder=False
    )
    for token in tokens:
        if token.kind == "text":
            if token.data:
                stream.append(["Character", token.data])
        elif token.kind == "comment":
            stream.append(["Comment", token.data])
        elif token.kind == "end":
            stream.append(["EndTag", token.name])
        elif isinstance(token, DoctypeToken):
            name = token.name or None
            stream.append(
                ["DOCTYPE", name, token.public_id, token.system_id, not token.force_quirks]
            )
        else:
            start = ["StartTag", token.name, {attr.name: attr.value for attr in token.attrs}]
            stream.append([*start, True] if token.self_closing else start)
    return _merged(stream)
