"""Per-module figures of the last ``mutmut run``: mutants, killed, survived, no tests, timeouts.

``make mutate`` prints this after mutmut; ``--survivors`` lists the surviving mutants by module
(``mutmut show NAME`` shows one)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter, defaultdict


def _module(mutant: str) -> str:
    """``oo_nb.store.atomic.x_write__mutmut_4`` -> ``oo_nb.store.atomic`` (methods carry the
    class: ``...ledger.xǁSourceLedgerǁmerge__mutmut_2``)."""
    return mutant.split(".x", 1)[0]


def results(mutmut: str) -> dict[str, Counter[str]]:
    out = subprocess.run(
        [mutmut, "results", "--all", "true"], capture_output=True, text=True, check=True
    ).stdout
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name or "__mutmut_" not in name:
            continue
        by_module[_module(name)][status.strip()] += 1
    return by_module


def survivors(mutmut: str) -> dict[str, list[str]]:
    out = subprocess.run([mutmut, "results"], capture_output=True, text=True, check=True).stdout
    found: dict[str, list[str]] = defaultdict(list)
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if status.strip() == "survived":
            found[_module(name)].append(name)
    return found


def table(by_module: dict[str, Counter[str]]) -> str:
    rows: list[tuple[str, ...]] = [
        ("module", "mutants", "killed", "survived", "no tests", "timeout", "not run", "killed %")
    ]
    total: Counter[str] = Counter()
    for module in sorted(by_module):
        c = by_module[module]
        total += c
        rows.append(_row(module, c))
    rows.append(_row("all", total))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows
    )


def _row(name: str, c: Counter[str]) -> tuple[str, ...]:
    n = sum(c.values())
    checked = n - c["not checked"]
    # a timeout is a mutant the tests stopped (an endless loop): it counts as killed
    killed = c["killed"] + c["timeout"]
    pct = f"{100 * killed / checked:.1f}" if checked else "-"
    cells = (n, killed, c["survived"], c["no tests"], c["timeout"], c["not checked"])
    return (name, *(str(v) for v in cells), pct)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mutmut", default="mutmut", help="the mutmut executable")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    ns = parser.parse_args(argv)
    print(table(results(ns.mutmut)))
    if ns.survivors:
        for module, names in sorted(survivors(ns.mutmut).items()):
            print(f"\n{module}: {len(names)} survived")
            print("\n".join(f"  {n}" for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
