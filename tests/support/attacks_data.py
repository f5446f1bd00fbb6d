"""Reliability part 8 (attacks, round three): data lost or written outside the library. Each row
re-runs one attack of issue 28 from outside (the CLI's ``main`` or the public functions) and
counts the breaks found.

- Hard links (tar, ``cp -a`` and ``rsync -H`` keep them): a file oo writes in place (the history
  lock, ``research.lock``, ``log.jsonl``, the library and link caches) sharing its bytes with
  another document; a break is that document changed, or the refusal not naming the file.
- A document that is a symbolic link to a file outside the library: ``oo update --force`` (the
  loopback mock API), ``oo contract --set``, ``oo sync`` and ``oo update-all``; a break is the
  file outside written, a ``.oo-history`` made beside it, a request paid for, or the link not
  reported as an error.
- The Claude Code backend's sweep of killed runs' scratch folders, with the user's own
  ``oo-claude-*`` folders in the temp folder (named like ours, old, with a dead PID, a marker of
  another PID or a linked marker): a break is one of them removed.
- A FIFO, a folder or a dangling link at ``pending.json``: a break is a paid run started,
  ``oo update`` and ``oo review --list`` not both calling it damaged, no alert event for it, or
  ``oo review --discard pending.json`` (the advice given) not removing it.
- A paid Claude Code run that edits a section whose id is not a slug (``Recent_Releases.2026``,
  valid by ``oo check``): a break is the run refused; and a run whose proposal the validator
  refuses: a break is an error without the cost, or the proposal not kept.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.support.figures import Figure

__all__ = [
    "HARD_LINKED",
    "LINK_OUT_COMMANDS",
    "attacks",
    "claude_code_edit",
    "hard_link_attack",
    "link_out_attack",
    "plant_pending",
    "refuse_proposal",
    "run_oo",
    "two_documents",
    "users_scratch_lookalikes",
]

PART = "8 attack"


def _row(measure: str, trials: int, breaks: int) -> Figure:
    return Figure(PART, measure, trials, breaks, "0", breaks == 0)


def run_oo(*argv: str) -> tuple[int, str]:
    """``oo ARGV`` in this process: (exit status, stdout and stderr)."""
    from oo_nb.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(list(argv))
    return code, out.getvalue()


def two_documents(folder: Path) -> tuple[Path, Path]:
    """``mine`` and ``other`` (the document the attack aims at), each with one contract edit kept
    in history."""
    from oo_nb.edit.new import NewSpec, create_document

    folder.mkdir(parents=True)
    create_document(NewSpec("Mine", "a"), folder)
    create_document(NewSpec("Other", "b"), folder)
    mine, other = folder / "mine.o-o.html", folder / "other.o-o.html"
    for path in (mine, other):
        assert run_oo("contract", str(path), "--set", "budget", "2")[0] == 0
    return mine, other


# --------------------------------------------------------------------------- hard links
def _contract_edit(mine: Path) -> tuple[bool, str]:
    code, said = run_oo("contract", str(mine), "--set", "budget", "3")
    return code == 0, said


def _research_claim(mine: Path) -> tuple[bool, str]:
    from oo_nb.errors import OOError
    from oo_nb.store.research_claim import ResearchClaim, claim_research

    try:
        claim = claim_research(mine)
    except OOError as exc:
        return False, str(exc)
    if isinstance(claim, ResearchClaim):
        claim.release()
    return True, ""


def _library_scan(mine: Path) -> tuple[bool, str]:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        code, out = run_oo("library", str(mine.parent), "--format", "json")
    return code == 0 and not said, out + "".join(str(w.message) for w in said)


def _links_kept(mine: Path) -> tuple[bool, str]:
    from oo_nb.store.link_store import LinkRow, write_links

    row = LinkRow(
        "https://example.org/", 200, None, False, "ok", False, None, "2026-12-01T00:00:00+00:00"
    )
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        write_links(mine.parent, [row])
    return not said, "".join(str(w.message) for w in said)


# file (from the library folder) -> (what writes it in place, the file it is linked to)
HARD_LINKED: dict[str, tuple[Callable[[Path], tuple[bool, str]], str]] = {
    ".oo-history/mine.o-o.html/lock": (_contract_edit, "other.o-o.html"),
    ".oo-history/mine.o-o.html/log.jsonl": (_contract_edit, ".oo-history/other.o-o.html/log.jsonl"),
    ".oo-history/mine.o-o.html/research.lock": (_research_claim, "other.o-o.html"),
    ".oo-cache/library.sqlite": (_library_scan, "other.o-o.html"),
    ".oo-cache/links.sqlite": (_links_kept, "other.o-o.html"),
}


def hard_link_attack(workdir: Path, name: str) -> tuple[bool, bytes, bytes, str]:
    """Replace the library's file ``name`` with a hard link to another document's file and run
    what writes it: (whether that reported success, the other file's bytes before and after,
    what was said)."""
    mine, _ = two_documents(workdir / "lib")
    write, victim_name = HARD_LINKED[name]
    target, victim = mine.parent / name, mine.parent / victim_name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    os.link(victim, target)
    before = victim.read_bytes()
    ok, said = write(mine)
    return ok, before, victim.read_bytes(), said


def _hard_links(workdir: Path) -> Figure:
    breaks = 0
    for n, name in enumerate(HARD_LINKED):
        ok, before, after, said = hard_link_attack(workdir / str(n), name)
        breaks += ok or after != before or Path(name).name not in said
    return _row(
        "hard-linked file oo writes in place changed or not named", len(HARD_LINKED), breaks
    )


# --------------------------------------------------------------------------- links out
LINK_OUT_COMMANDS: dict[str, list[str]] = {
    "update": ["update", "{link}", "--force", "--yes"],
    "contract": ["contract", "{link}", "--set", "budget", "3"],
    "sync": ["sync", "{lib}"],
    "update-all": ["update-all", "{lib}", "--force", "--yes"],
}


@contextlib.contextmanager
def _mock_api() -> Iterator[Any]:
    """The loopback mock API answering a research scenario, with a fake key set."""
    from tests.support.agent_helpers import MARKER, start_mock
    from tests.support.mock_scenarios import research_scenario

    mock = start_mock(research_scenario(with_image=False))
    saved = {k: os.environ.get(k) for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    os.environ.update(ANTHROPIC_API_KEY=MARKER, ANTHROPIC_BASE_URL=mock.base_url)
    try:
        yield mock
    finally:
        mock.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def link_out_attack(workdir: Path, command: str) -> tuple[int, str, bool, int]:
    """``lib/linked.o-o.html`` is a link to a document outside ``lib``; run ``oo COMMAND`` on it
    (or on ``lib``): (exit status, what was said, whether anything outside changed, requests
    sent to the API)."""
    from oo_nb.edit.new import NewSpec, create_document

    outside, lib = workdir / "outside", workdir / "lib"
    create_document(NewSpec("Linked", "x"), outside)
    create_document(NewSpec("Mine", "y"), lib)
    real = outside / "linked.o-o.html"
    (lib / "linked.o-o.html").symlink_to(real)
    before = sorted(p.name for p in outside.iterdir()), real.read_bytes()
    argv = [a.format(link=lib / "linked.o-o.html", lib=lib) for a in LINK_OUT_COMMANDS[command]]
    with _mock_api() as mock:
        code, said = run_oo(*argv)
        requests = len(mock.message_requests)
    after = sorted(p.name for p in outside.iterdir()), real.read_bytes()
    return code, said, after != before, requests


def _links_out(workdir: Path) -> Figure:
    breaks = 0
    for command in LINK_OUT_COMMANDS:
        code, said, changed, requests = link_out_attack(workdir / command, command)
        paid = requests > (1 if command == "update-all" else 0)  # update-all: mine only
        breaks += changed or paid or code == 0 or "outside the folder" not in said
    return _row(
        "document linked outside the library written, researched or not refused",
        len(LINK_OUT_COMMANDS),
        breaks,
    )


# --------------------------------------------------------------------------- scratch sweep
def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def users_scratch_lookalikes(parent: Path) -> list[str]:
    """Folders of the user's own in the temp folder ``parent`` that look like the Claude Code
    backend's scratch folders (each holds ``mine.txt``); their names."""
    from oo_nb.agent.backends.claude_code import SCRATCH_PREFIX
    from oo_nb.store.stale import SCRATCH_MARKER

    dead, old = _dead_pid(), time.time() - 3 * 86400
    names = {
        "notes": f"{SCRATCH_PREFIX}notes",
        "drafts": f"{SCRATCH_PREFIX}{dead}-drafts",
        "other pid": f"{SCRATCH_PREFIX}{dead}-other",
        "linked marker": f"{SCRATCH_PREFIX}{dead}-linked",
    }
    for name in names.values():
        (parent / name).mkdir(parents=True)
        (parent / name / "mine.txt").write_text("my notes")
    (parent / names["other pid"] / SCRATCH_MARKER).write_text(f"{dead + 1}\n")
    (parent / "elsewhere").write_text(f"{dead}\n")
    (parent / names["linked marker"] / SCRATCH_MARKER).symlink_to(parent / "elsewhere")
    for name in names.values():
        os.utime(parent / name, (old, old))
    return [*names.values(), "elsewhere"]


def _scratch_sweep(workdir: Path) -> Figure:
    from oo_nb.agent.backends.claude_code import SCRATCH_PREFIX
    from oo_nb.store.stale import mark_scratch, sweep_scratch_folders

    kept = users_scratch_lookalikes(workdir)
    ours = workdir / f"{SCRATCH_PREFIX}{_dead_pid()}-abc"  # a killed run's: it goes
    ours.mkdir()
    mark_scratch(ours, int(ours.name.split("-")[2]))
    sweep_scratch_folders(workdir, SCRATCH_PREFIX)
    left = {p.name for p in workdir.iterdir()}
    breaks = len(set(kept) - left) + ours.exists()
    return _row("the user's own oo-claude-* folders swept from the temp folder", len(kept), breaks)


# --------------------------------------------------------------------------- paid runs kept
NOT_SLUG_FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "issue12" / "section-id-not-slug.o-o.html"
)
NOT_SLUG_ID = "Recent_Releases.2026"


@contextlib.contextmanager
def _environment(env: dict[str, str], tmp: Path) -> Iterator[None]:
    """``env`` set and ``tmp`` as the temp folder, for an in-process backend run."""
    saved = {k: os.environ.get(k) for k in env}
    saved_tmp = tempfile.tempdir
    os.environ.update(env)
    tempfile.tempdir = str(tmp)
    try:
        yield
    finally:
        tempfile.tempdir = saved_tmp
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def claude_code_edit(
    workdir: Path, validate: Callable[[Any], Any] | None = None
) -> tuple[Any, str, Path]:
    """Run the Claude Code backend (a fake ``claude`` that adds a paragraph to the section
    ``Recent_Releases.2026``) on a copy of a page with that id, validating with ``validate``
    (the real validator by default): (what the run returned or None, the error, the document)."""
    from datetime import date
    from types import SimpleNamespace

    from oo_nb.agent.backends.claude_code import ClaudeCodeBackend
    from oo_nb.agent.budget import Budget
    from oo_nb.agent.pricing import price_for
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.errors import OOError
    from tests.support.fake_claude import fake_claude_env

    lib, tmp = workdir / "lib", workdir / "tmp"
    lib.mkdir(parents=True)
    tmp.mkdir()
    doc = lib / NOT_SLUG_FIXTURE.name
    doc.write_bytes(NOT_SLUG_FIXTURE.read_bytes())
    env = {
        **fake_claude_env(workdir / "fake"),
        "FAKE_CLAUDE_MODE": "edit-section",
        "FAKE_CLAUDE_DROP": NOT_SLUG_ID,
        "FAKE_CLAUDE_TEXT": "Newly released this week [s1].",
    }
    backend = ClaudeCodeBackend(model="claude-sonnet-5-5", doc_path=doc)
    ctx = SimpleNamespace(
        as_of=None, today=date(2026, 12, 4), next_source_id="s1", blocked_domains=(), sentinel=None
    )
    budget = Budget(limit_usd=1.0, price=price_for("claude-sonnet-5-5"))
    with _environment(env, tmp):
        try:
            got = backend.run(
                ctx,  # type: ignore[arg-type]
                budget=budget,
                run=backend.new_run(1.0),
                validate=validate or validate_proposal,
            )
        except OOError as exc:
            return None, str(exc), doc
    return got, "", doc


def refuse_proposal(proposal: Any) -> Any:
    from oo_nb.errors import AgentError

    raise AgentError("invalid submit_proposal input: key 'sections[0].html': too long")


def _paid_runs(workdir: Path) -> Figure:
    from oo_nb.store.history import history_dir

    got, said, _ = claude_code_edit(workdir / "not-slug")
    breaks = int(got is None or NOT_SLUG_ID not in [s.id for s in got.sections])
    got, said, doc = claude_code_edit(workdir / "refused", refuse_proposal)
    kept = sorted(history_dir(doc).glob("refused-*.json")) if history_dir(doc).is_dir() else []
    breaks += got is not None or "(cost $0.0500)" not in said or len(kept) != 1
    return _row(
        "paid Claude Code run lost (id as written refused, or proposal not kept)", 2, breaks
    )


# --------------------------------------------------------------------------- pending.json
PENDING_KINDS = ("fifo", "folder", "dangling link")


def plant_pending(doc: Path, kind: str) -> Path:
    """Put something that is no proposal at ``doc``'s ``pending.json``: damaged ``text``, a
    ``fifo``, a ``folder`` or a ``dangling link``."""
    from oo_nb.store.history import history_dir

    folder = history_dir(doc)
    folder.mkdir(parents=True, exist_ok=True)
    pending = folder / "pending.json"
    if kind == "text":
        pending.write_text("{damaged")
    elif kind == "fifo":
        os.mkfifo(pending)
    elif kind == "folder":
        pending.mkdir()
    else:
        pending.symlink_to(folder / "no-such-file")
    return pending


def _pending_not_a_file(workdir: Path) -> Figure:
    """A FIFO (a folder, a dangling link) at ``pending.json``: ``oo update`` must not start a
    paid run, and ``oo update`` and ``oo review --list`` must both call it damaged."""
    from oo_nb.alerts.events import collect_events
    from oo_nb.edit.new import NewSpec, create_document

    breaks = 0
    for kind in PENDING_KINDS:
        folder = workdir / kind.replace(" ", "-")
        create_document(NewSpec("Solar storms", "grid"), folder)
        doc = folder / "solar-storms.o-o.html"
        plant_pending(doc, kind)
        with _mock_api() as mock:
            said = run_oo("update", str(doc))[1]
            paid = len(mock.message_requests)
        listed = run_oo("review", str(doc), "--list")[1]
        # no run researches it again: an alert tells it, once (s35 I2), with advice that works
        told = [e for e in collect_events(folder, kinds=["failed"]) if "damaged" in e.title]
        discarded = run_oo("review", str(doc), "--discard", "pending.json")[0] == 0
        breaks += (
            paid > 0
            or "damaged" not in said
            or "pending.json: damaged" not in listed
            or len(told) != 1
            or not discarded
        )
    return _row(
        "pending.json not a file: a paid run started, not called damaged, no alert or no discard",
        3,
        breaks,
    )


def attacks(workdir: Path) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    steps: list[Callable[[Path], Figure]] = [
        _hard_links,
        _links_out,
        _scratch_sweep,
        _paid_runs,
        _pending_not_a_file,
    ]
    return [step(workdir / step.__name__.strip("_")) for step in steps]


if __name__ == "__main__":  # quick look: python -m tests.support.attacks_data
    from tests.support.figures import render_table

    with tempfile.TemporaryDirectory() as tmp:
        print(render_table(attacks(Path(tmp))))
