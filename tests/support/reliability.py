"""The reliability run: every measurement of the hardening issue at a full or reduced size.

``benchmarks/reliability.py`` prints the table; ``tests/test_reliability_*.py`` run the reduced
size of each part and assert its targets."""

from __future__ import annotations

import importlib
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from tests.support.figures import Figure

__all__ = ["FULL", "PARTS", "QUICK", "Sizes", "run"]


@dataclass(frozen=True)
class Sizes:
    full: bool  # a full run checks the minimum counts (200 kills, 50 races, 10,000 inputs)
    kills: int
    races: int
    lock_trials: int
    fuzz_inputs: int
    store_trials: int
    hostile_docs: int
    doc_mb: float
    sources: int
    image_mb: float

    def scaled(self, factor: float) -> Sizes:
        return replace(
            self,
            kills=max(1, int(self.kills * factor)),
            races=max(1, int(self.races * factor)),
            fuzz_inputs=max(10, int(self.fuzz_inputs * factor)),
        )


FULL = Sizes(
    full=True,
    kills=1000,
    races=200,
    lock_trials=5,
    fuzz_inputs=12_000,
    store_trials=400,
    hostile_docs=3,
    doc_mb=50,
    sources=10_000,
    image_mb=5,
)
QUICK = Sizes(
    full=False,
    kills=60,
    races=20,
    lock_trials=2,
    fuzz_inputs=800,
    store_trials=30,
    hostile_docs=1,
    doc_mb=5,
    sources=1_000,
    image_mb=1,
)


def _crash(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    from tests.support.faults import crash_safety, io_faults

    return crash_safety(
        sizes.kills, workdir / "crash", seed=seed, required=200 if sizes.full else None
    ) + io_faults(workdir / "io")


def _race(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    from tests.support.faults import lock_contention, races

    return races(
        sizes.races, workdir / "race", required=50 if sizes.full else None
    ) + lock_contention(sizes.lock_trials, workdir / "lock")


def _fuzz(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    from tests.support.fuzz import fuzz
    from tests.support.fuzz_store import fuzz_store

    rows, _ = fuzz(
        sizes.fuzz_inputs,
        seed=seed,
        workdir=workdir / "fuzz-failures",
        required=10_000 if sizes.full else None,
    )
    return rows + fuzz_store(sizes.store_trials, workdir / "store", seed=seed)


def _hostile(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    module = importlib.import_module("tests.support.hostile")
    rows: list[Figure] = module.hostile_output(workdir / "hostile", docs=sizes.hostile_docs)
    return rows


def _api(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    module = importlib.import_module("tests.support.apifaults")
    rows: list[Figure] = module.api_faults(workdir / "api")
    return rows


def _secrets(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    module = importlib.import_module("tests.support.leaks")
    rows: list[Figure] = module.secret_leaks(workdir / "secrets")
    return rows


def _size(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    from tests.support.sizes import size_limits

    return size_limits(
        workdir / "size", doc_mb=sizes.doc_mb, sources=sizes.sources, image_mb=sizes.image_mb
    )


# part 8: the outside attacks of the second and third hardening rounds, one module per area
ATTACK_AREAS = (
    "page", "pending", "agent", "errors", "lost", "code", "data", "evidence", "markup", "reading",
    "terminal",
)  # fmt: skip


def _attacks(sizes: Sizes, workdir: Path, seed: int) -> list[Figure]:
    rows: list[Figure] = []
    for area in ATTACK_AREAS:
        module = importlib.import_module(f"tests.support.attacks_{area}")
        rows += module.attacks(workdir / area)
    return rows


Part = Callable[[Sizes, Path, int], list[Figure]]
PARTS: dict[int, tuple[str, Part]] = {
    1: ("1 crash", _crash),
    2: ("2 race", _race),
    3: ("3 fuzz", _fuzz),
    4: ("4 hostile", _hostile),
    5: ("5 api", _api),
    6: ("6 secret", _secrets),
    7: ("7 size", _size),
    8: ("8 attack", _attacks),
}


def run(
    parts: list[int],
    sizes: Sizes,
    *,
    workdir: Path | None = None,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Figure]:
    """Run ``parts``. A part whose modules are missing gives one FAILING "not run" row (the
    other parts still run): a measurement that did not happen is never a pass."""
    rows: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="oo-reliability-") as tmp:
        base = workdir or Path(tmp)
        for n in parts:
            label, fn = PARTS[n]
            started = time.perf_counter()
            try:
                part_rows = fn(sizes, base / f"part{n}", seed)
            except ImportError as exc:
                part_rows = [
                    Figure(
                        label,
                        "not run: a module is missing",
                        0,
                        str(exc),
                        "all modules present",
                        False,
                    )
                ]
            elapsed = time.perf_counter() - started
            part_rows.append(
                Figure(label, "wall time of this part (s)", 1, round(elapsed, 1), "info", None)
            )
            if progress:
                progress(f"part {n} done in {elapsed:.1f} s")
            rows += part_rows
    return rows
