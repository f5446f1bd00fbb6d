"""Mutation testing one module at a time, each against only the tests that exercise it.

``make mutate`` runs every module of ``[tool.mutmut]`` against one wide test selection; on a
shared 2-core machine that is hours. Here each module in ``[tool.oo_nb_mutate.tests]``
(pyproject.toml: module -> its tests) is mutated in a scratch copy of the tree whose mutmut
settings name only that module and those tests, one worker by default; the per-module figures
of ``mutation_report`` are printed after each run.

    python tools/mutate_each.py                       # every module of the table
    python tools/mutate_each.py oo_nb/agent/clean.py  # one (or a few)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def targets(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, list[str]]:
    data = tomllib.loads(pyproject.read_text("utf-8"))
    table: dict[str, list[str]] = data["tool"]["oo_nb_mutate"]["tests"]
    return table


def without_mutmut_table(text: str) -> str:
    """pyproject.toml without its ``[tool.mutmut]`` table, so that mutmut reads setup.cfg."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if line.startswith("["):
            skipping = line.strip() == "[tool.mutmut]"
        if not skipping:
            out.append(line)
    return "".join(out)


def setup_cfg(base: dict[str, object], module: str, tests: list[str]) -> str:
    """The ``[mutmut]`` settings of one run: the project's, but only ``module`` and ``tests``."""
    settings = dict(base)
    settings["only_mutate"] = [module]
    settings["pytest_add_cli_args_test_selection"] = tests
    lines = ["[mutmut]"]
    for key, value in settings.items():
        items = value if isinstance(value, list) else [value]
        # setup.cfg lists are one value a line; mutmut splits on newlines
        lines.append(f"{key} =\n" + "".join(f"    {v}\n" for v in items).rstrip("\n"))
    return "\n".join(lines) + "\n"


def scratch_name(module: str) -> str:
    """The scratch folder of one module: its dotted name (agent/quotes.py and review/quotes.py
    share a stem)."""
    return module.removesuffix(".py").replace("/", ".")


def scratch_tree(dest: Path, module: str, tests: list[str]) -> None:
    """A copy of the tracked (and new, not ignored) files of the tree with this run's settings."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    if dest.exists():
        shutil.rmtree(dest)
    for name in filter(None, listed):
        src = ROOT / name.decode()
        if not src.is_file():
            continue  # a file deleted from the tree but not yet from the index
        target = dest / name.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    base = tomllib.loads(text)["tool"]["mutmut"]
    (dest / "pyproject.toml").write_text(without_mutmut_table(text), "utf-8")
    (dest / "setup.cfg").write_text(setup_cfg(base, module, tests), "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("modules", nargs="*", help="modules of the table (default: all)")
    parser.add_argument("--mutmut", default=str(Path(sys.executable).parent / "mutmut"))
    parser.add_argument("--max-children", default="1", help="mutmut workers (shared machine)")
    parser.add_argument("--scratch", default="/tmp/oo-mutate", help="where the copies go")
    ns = parser.parse_args(argv)
    table = targets()
    unknown = [m for m in ns.modules if m not in table]
    if unknown:
        parser.error(f"not in [tool.oo_nb_mutate.tests]: {', '.join(unknown)}")
    for module in ns.modules or list(table):
        dest = Path(ns.scratch) / scratch_name(module)
        scratch_tree(dest, module, table[module])
        print(f"== {module} ({' '.join(table[module])})", flush=True)
        with (dest / "mutmut-run.log").open("wb") as log:  # its progress spinner, kept apart
            subprocess.run(
                [ns.mutmut, "run", "--max-children", ns.max_children],
                cwd=dest,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
            )
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "tools/mutation_report.py"),
                "--mutmut",
                ns.mutmut,
                "--survivors",
            ],
            cwd=dest,
            check=False,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
