"""Digest identity check: the library's digest of every document, as one fingerprint per file,
so a change meant to make the scan cheaper can be shown to leave every digest byte-identical.

    PYTHONPATH=. .venv/bin/python benchmarks/digest_identity.py DIR... --out new.json
    PYTHONPATH=/tmp/old .venv/bin/python benchmarks/digest_identity.py DIR... --out old.json
    .venv/bin/python benchmarks/digest_identity.py --compare old.json new.json
    PYTHONPATH=. .venv/bin/python benchmarks/digest_identity.py --expectation  # rewrite it

A fingerprint is the SHA-256 of the digest's ``repr`` (every field, dataclass order; failures
and index pages too) with the path made relative to its folder, so two checkouts reading the
same files agree. ``tests/library/test_digest_identity.py`` holds the corpus's and a small
synthetic library's fingerprints against a stored expectation."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "fixtures" / "corpus"
EXPECTATION = HERE.parent / "tests" / "fixtures" / "digest_identity.json"
# the synthetic library the expectation holds: damaged files, an index page, a history copy
SYNTHETIC_DOCS, SYNTHETIC_SEED, SYNTHETIC_CORRUPT = 150, 7, 0.05


def fingerprints(folders: list[Path]) -> dict[str, str]:
    from oo_nb.format.names import DOC_SUFFIX
    from oo_nb.library.digest import digest_file

    out: dict[str, str] = {}
    for folder in folders:
        for path in sorted(folder.rglob(f"*{DOC_SUFFIX}")):
            rel = f"{folder.name}/{path.relative_to(folder).as_posix()}"
            result = digest_file(str(path), rel)
            if result is not None:
                result = dataclasses.replace(result, path=rel)
            out[rel] = hashlib.sha256(repr(result).encode()).hexdigest()
    return out


def expected_fingerprints() -> dict[str, str]:
    """The fingerprints of the corpus and of the synthetic library ``EXPECTATION`` holds."""
    sys.path.insert(0, str(HERE))
    from synth import make_library

    with tempfile.TemporaryDirectory() as tmp:
        synthetic = Path(tmp) / "synthetic"
        make_library(synthetic, SYNTHETIC_DOCS, SYNTHETIC_SEED, corrupt_rate=SYNTHETIC_CORRUPT)
        return fingerprints([CORPUS, synthetic])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--expectation", action="store_true", help=f"rewrite {EXPECTATION.name}")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = ap.parse_args()
    if args.compare:
        old, new = (json.loads(p.read_text()) for p in args.compare)
        differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        print(f"{len(old)} vs {len(new)} files, {len(differ)} differ")
        for name in differ[:20]:
            print("  differs:", name)
        return 1 if differ else 0
    if args.expectation:
        EXPECTATION.write_text(json.dumps(expected_fingerprints(), indent=0, sort_keys=True) + "\n")
        return 0
    found = fingerprints(args.folders)
    text = json.dumps(found, indent=0, sort_keys=True)
    if args.out:
        args.out.write_text(text)
    print(f"{len(found)} files fingerprinted", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
