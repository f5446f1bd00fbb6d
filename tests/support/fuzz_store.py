"""Fuzzing the store's own files: a damaged ``log.jsonl``, snapshot or ``pending.json`` must give
an OOError from ``read_history``, ``version_bytes``, ``rollback``, ``load_pending`` and the next
``write_document`` — never another exception, and never a wrong document on disk."""

from __future__ import annotations

import itertools
import json
import random
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.store.store import (
    history_dir,
    load_pending,
    read_history,
    rollback,
    save_pending,
    version_bytes,
    write_document,
)
from tests.support.corpus import corpus_documents, document_versions
from tests.support.figures import Figure
from tests.support.fuzz_inputs import random_json

__all__ = ["fuzz_store"]


def _template(workdir: Path) -> tuple[Path, list[bytes]]:
    """A document with three versions in history and a pending proposal."""
    name, data = next(iter(corpus_documents().items()))
    folder = workdir / "template"
    folder.mkdir(parents=True)
    path = folder / name
    versions = document_versions(data, 4, seed=3)
    path.write_bytes(versions[0])
    for old, new in itertools.pairwise(versions):
        write_document(Document.parse(new, path=path), expected=old, action="fuzz setup")
    save_pending(path, Document.parse(versions[0], path=path), {"agent": "test"}, versions[-1])
    return path, versions


def _mutate_log(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    i = rng.randrange(len(lines))
    roll = rng.random()
    if roll < 0.5:
        row = json.loads(lines[i])
        key = rng.choice([*row, "seq", "file", "sha256"])
        if rng.random() < 0.3:
            row.pop(key, None)
        else:
            row[key] = rng.choice(
                [random_json(rng), "../../outside.snap", "/etc/hostname", -1, 10**30]
            )
        lines[i] = json.dumps(row)
    elif roll < 0.7:
        lines[i] = json.dumps(random_json(rng))
    elif roll < 0.85:
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    else:
        lines.insert(i, rng.choice(["", "{", "null", "[]", "\x00", '{"seq": "1"}']))
    return "\n".join(lines) + rng.choice(["\n", ""])


def _mutate_pending(data: bytes, rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.5:
        record: dict[str, Any] = json.loads(data)
        key = rng.choice([*record, "candidate", "base_sha256", "run"])
        if rng.random() < 0.3:
            record.pop(key, None)
        else:
            record[key] = random_json(rng)
        return json.dumps(record).encode()
    if roll < 0.7:
        return json.dumps(random_json(rng)).encode()
    if roll < 0.85:
        return data[: rng.randrange(len(data) + 1)]
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice([b"\xff", b"\x00", b"\xed\xa0\x80"]) + data[i:]


def _exercise(path: Path, versions: list[bytes], problems: Counter[str]) -> None:
    before = path.read_bytes()
    calls: list[tuple[str, Callable[[], object]]] = [
        ("read_history", lambda: read_history(path)),
        ("load_pending", lambda: load_pending(path)),
        ("version_bytes", lambda: [version_bytes(path, 100 + n) for n in range(len(versions))]),
        ("rollback", lambda: rollback(path, 100)),
        (
            "write_document",
            lambda: write_document(
                Document.parse(versions[1], path=path), expected=path.read_bytes()
            ),
        ),
    ]
    for name, call in calls:
        try:
            call()
        except OOError:
            pass
        except Exception as exc:
            problems[f"{name}: {type(exc).__name__}: {str(exc)[:60]}"] += 1
        now = path.read_bytes()
        if now != before and now not in versions:
            problems[f"{name}: the document now holds bytes of no known version"] += 1
        before = now


def fuzz_store(trials: int, workdir: Path, *, seed: int = 0) -> list[Figure]:
    rng = random.Random(seed)
    template, versions = _template(workdir)
    problems: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for n in range(trials):
        folder = workdir / f"t{n}"
        shutil.copytree(template.parent, folder)
        path = folder / template.name
        hist = history_dir(path)
        kind = rng.choice(["log", "log", "pending", "snapshot"])
        kinds[kind] += 1
        if kind == "log":
            log = hist / "log.jsonl"
            log.write_text(_mutate_log(log.read_text("utf-8"), rng), "utf-8")
        elif kind == "pending":
            pending = hist / "pending.json"
            pending.write_bytes(_mutate_pending(pending.read_bytes(), rng))
        else:
            snap = rng.choice(sorted((hist / "snapshots").iterdir()))
            if rng.random() < 0.5:
                snap.unlink()
            else:
                snap.write_bytes(snap.read_bytes()[: rng.randrange(snap.stat().st_size)])
        _exercise(path, versions, problems)
        shutil.rmtree(folder)
    bugs = sum(problems.values())
    first = problems.most_common(1)[0][0] if problems else "none"
    return [
        Figure(
            "3 fuzz",
            "damaged history/pending files",
            trials,
            ", ".join(f"{k} {v}" for k, v in kinds.items()),
            "info",
            None,
        ),
        Figure("3 fuzz", "… store errors other than OOError", trials * 5, bugs, "0", bugs == 0),
        Figure("3 fuzz", "… most frequent", bugs, first, "info", None),
    ]
