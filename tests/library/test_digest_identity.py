"""The library's digests stay byte-identical while the scan is made cheaper: every file of the
corpus and of a synthetic library (damaged files, an index page, a history copy) against the
fingerprints ``benchmarks/digest_identity.py --expectation`` stored from the reading before.

A change meant to alter a digest (a new field, a new reading rule) rewrites the expectation, and
says so in its commit."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "digest_identity.py"


def load_identity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oo_digest_identity", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["oo_digest_identity"] = module
    spec.loader.exec_module(module)
    return module


def test_every_digest_matches_the_stored_expectation() -> None:
    identity = load_identity()
    expected = json.loads(identity.EXPECTATION.read_text())
    found = identity.expected_fingerprints()
    assert len(found) >= identity.SYNTHETIC_DOCS
    differ = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
    assert not differ, f"{len(differ)} digests differ from the expectation, e.g. {differ[:5]}"
