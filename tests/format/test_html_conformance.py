"""``tokenize`` gives the token stream the html5lib tokenizer tests expect, file by file.

The suite is in ``../shared/conformance/html5lib-tests`` (MIT, its REVISION file says which);
parse errors are not compared, only tokens."""

from __future__ import annotations

import pytest

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
