"""The package's layers: every import points down, and no modules import each other in a cycle.

Every import counts, function-level ones included (a lazy import is still a dependency); only
imports under ``if TYPE_CHECKING:`` are left out, as they never run. The rule is ``LAYERS``
below, which docs/architecture.md draws (its doctest prints it from this table): redaction ←
{collector, errors, netguard} ← format ← store ← {library, edit, agent, review, schedule} ← {demo, alerts} ←
api ← cli ← notebook, with the package root (``oo_nb/__init__``, ``__main__``) on top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "oo_nb"

# layer of each top-level part of oo_nb; a part may import its own layer's part and lower layers
LAYERS: dict[str, int] = {
    "redaction": -1,  # what a secret is: errors redacts every message with it
    "errors": 0,
    "netguard": 0,  # connecting to public addresses only: links and image downloads share it
    "collector": 0,
    "skin": 0,  # where the user is (Python, oo, %oo): advice said as they would type it  # the cyclic collector paused over bulk work, frozen at exit (stdlib only)
    "format": 1,
    "store": 2,
    "library": 3,
    "edit": 3,
    "agent": 3,
    "review": 3,
    "schedule": 3,  # the update job as cron or systemd sees it: errors, the seal key's place, stdlib
    "demo": 4,
    "alerts": 4,  # reads library changes, agent outcomes and store records; the CLI calls it
    "api": 5,  # the Python calls a notebook user makes; cli and notebook are skins over it
    "cli": 6,
    "notebook": 7,
    "": 8,  # the package root: __init__ and __main__
    "__main__": 8,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return skipped


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """(imported oo_nb module, line) for every import in ``path`` that runs."""
    module, tree = module_name(path), ast.parse(path.read_text("utf-8"))
    skipped = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "oo_nb":
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, path.name == "__init__.py", node)
            if target.split(".")[0] != "oo_nb":
                continue
            for alias in node.names:  # `from pkg import submodule` depends on the submodule
                sub = f"{target}.{alias.name}"
                yield (sub if sub in known else target), node.lineno


def graph() -> dict[str, dict[str, int]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(p) for p in paths}
    edges: dict[str, dict[str, int]] = {}
    for path in paths:
        found = edges.setdefault(module_name(path), {})
        for target, line in imports_of(path, known):
            if target != module_name(path):
                found.setdefault(target, line)
    return edges


def layer(module: str) -> tuple[str, int]:
    part = module.split(".")[1] if "." in module else ""
    if part not in LAYERS:
        raise AssertionError(f"{module}: part {part!r} has no layer; add it to LAYERS")
    return part, LAYERS[part]


def test_every_import_points_down() -> None:
    upward = []
    for module, targets in graph().items():
        part, rank = layer(module)
        for target, line in targets.items():
            target_part, target_rank = layer(target)
            if target_rank > rank or (target_rank == rank and target_part != part):
                upward.append(f"{module}:{line} imports {target} ({part} → {target_part})")
    assert not upward, "imports that point up or sideways:\n" + "\n".join(upward)


def _cycle_from(start: str, edges: dict[str, dict[str, int]]) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for nxt in edges.get(node, {}):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


def test_no_import_cycles() -> None:
    edges = graph()
    # a package's __init__ is imported on the way to any of its modules: not an edge back
    cycles = {" → ".join(c) for m in edges if (c := _cycle_from(m, edges))}
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


def test_the_rule_sees_a_bad_import(tmp_path: Path) -> None:
    """The walk finds function-level imports and skips TYPE_CHECKING ones."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..notebook import preview\n"
        "def f():\n    from ..cli import main\n"
    )
    path = PACKAGE / "format" / "_layer_probe.py"
    path.write_text(source)
    try:
        found = list(imports_of(path, {"oo_nb.cli.main", "oo_nb.notebook.preview"}))
    finally:
        path.unlink()
    assert found == [("oo_nb.cli.main", 5)]


@pytest.mark.parametrize("part", sorted(p for p in LAYERS if p not in ("", "__main__")))
def test_every_layer_exists(part: str) -> None:
    assert (PACKAGE / part).is_dir() or (PACKAGE / f"{part}.py").is_file()
