"""``tokenize`` gives the token stream the html5lib tokenizer tests expect, file by file.

The suite is in ``../shared/conformance/html5lib-tests`` (MIT, its REVISION file says which);
parse errors are not compared, only tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import html5lib_suite
from tests.support.html5lib_suite import cases, expected, produced, suite_folder

FILES = [
    "test1",
    "test2",
    "test3",
    "test4",
    "contentModelFlags",
    "escapeFlag",
    "domjs",
    "entities",
    "numericEntities",
    "unicodeChars",
]


@pytest.mark.parametrize("name", FILES)
def test_every_case_of_the_file_gives_the_expected_tokens(name: str) -> None:
    path = suite_folder() / "tokenizer" / f"{name}.test"
    failures = []
    total = 0
    for case in cases(path):
        total += 1
        got, want = produced(case), expected(case)
        if got != want:
            failures.append(f"{case.description!r} ({case.state}): {got!r} != {want!r}")
    assert total > 0
    assert not failures, f"{len(failures)} of {total} differ:\n" + "\n".join(failures[:15])


def test_without_the_suite_the_file_is_skipped_unless_it_is_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(html5lib_suite, "_RELATIVE", Path("no", "such", "suite"))
    monkeypatch.delenv("OO_REQUIRE_CONFORMANCE", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not at"):
        suite_folder()
    monkeypatch.setenv("OO_REQUIRE_CONFORMANCE", "1")
    with pytest.raises(pytest.fail.Exception, match="OO_REQUIRE_CONFORMANCE=1"):
        suite_folder()
