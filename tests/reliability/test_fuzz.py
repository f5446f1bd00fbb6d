"""Fuzzing at reduced size: parse, views, round trip and edits of mutated documents."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CORPUS
from tests.support.fuzz import FuzzStats, check_input
from tests.support.fuzz_inputs import MUTATORS
from tests.support.reliability_helpers import run_part


def test_fuzzed_documents_raise_only_ooerror_and_round_trip(tmp_path: Path) -> None:
    rows = run_part(3, tmp_path)
    assert rows["exceptions other than OOError"].result == 0
    assert rows["round trip not byte-identical"].result == 0
    assert rows["edits giving a wrong/unreadable doc"].result == 0
    parsed = rows["inputs that parse"].result
    assert (
        isinstance(parsed, int) and parsed > 100
    )  # the fuzzer reaches the views, not only the parser


def test_the_checker_catches_a_non_ooerror(monkeypatch: object) -> None:
    """The harness itself can fail: a view raising KeyError is counted as a bug."""
    import pytest

    from oo_nb.format.document import Document

    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(Document, "manifest", property(lambda self: {}["x"]))
        stats = FuzzStats()
        check_input((CORPUS / "yc-w26-batch.o-o.html").read_bytes(), stats, "corpus", edits=False)
    finally:
        mp.undo()
    assert any(k.startswith("manifest: KeyError") for k in stats.bugs)


def test_every_mutator_runs_on_every_corpus_document() -> None:
    import random

    rng = random.Random(0)
    for path in sorted(CORPUS.glob("*.o-o.html")):
        data = path.read_bytes()
        for name, mutator in MUTATORS.items():
            out = mutator(data, rng)
            assert isinstance(out, bytes), name
