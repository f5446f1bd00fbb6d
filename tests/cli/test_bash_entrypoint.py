"""Running pages with bash: only our shell runs, and it reaches `python3 -m oo_nb` with the
original's meaning (argument bugs fixed). A stub interpreter (OO_PYTHON) records the calls;
a few tests run the real `python -m oo_nb` with fake update verbs (no network)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.edit.new import NewSpec, create_document
from oo_nb.format.document import Document
from oo_nb.format.template.render import CSP_BOOTSTRAP
from oo_nb.library.index_page import write_index
from oo_nb.store import store

HOSTILE = 'Q&A: "AI" </script><script>alert(1)</script> $(touch pwned.txt)'
STUB = """#!/bin/bash
# stands in for python3: `-P -c 'import oo_nb'` is the "is it installed" probe, `-P -c ''` the
# "has it -P" one; other calls are logged
if [ "$2" = "-c" ]; then
  if [ "$3" = "import oo_nb" ]; then exit "${OO_STUB_IMPORT_STATUS:-0}"; fi
  exit "${OO_STUB_SAFE_PATH_STATUS:-0}"
fi
{ printf '%s\\037' "$@"; printf '\\036'; } >> "$OO_STUB_LOG"
exit "${OO_STUB_STATUS:-0}"
"""


@pytest.fixture
def stub(tmp_path: Path) -> Path:
    path = tmp_path / "bin" / "fake-python"
    path.parent.mkdir()
    path.write_text(STUB)
    path.chmod(0o755)
    return path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OO_")}
    env.update(extra)
    return env


def _bash(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def _calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    records = log.read_text().split("\x1e")[:-1]
    return [r.split("\x1f")[:-1] for r in records]


def _listing(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.fixture
def library(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    create_document(NewSpec(HOSTILE, "scope"), lib)
    create_document(NewSpec("Solar storms", "grid"), lib)
    write_index(lib)
    return lib


def _hostile(lib: Path) -> Path:
    return next(p for p in lib.glob("q-and-a*.o-o.html"))


def _no_python_path(tmp_path: Path) -> str:
    """A PATH holding bash and the few tools the shells use, and no Python at all."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    for name in ("bash", "cat", "dirname"):
        found = shutil.which(name)
        assert found is not None
        if not (tools / name).exists():
            (tools / name).symlink_to(found)
    return str(tools)


# ----------------------------------------------------------------------------- documents
def test_help_answers_without_python_and_runs_nothing_else(tmp_path: Path, library: Path) -> None:
    doc = _hostile(library)
    before = _listing(tmp_path)
    result = _bash(
        [str(doc.relative_to(tmp_path)), "--help"], tmp_path, _env(PATH=_no_python_path(tmp_path))
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: bash {doc.name} [--force]")
    assert "--model NAME" in result.stdout and "--agent NAME" in result.stdout
    assert result.stderr == ""
    assert _listing(tmp_path) == before | {"tools", "tools/bash", "tools/cat", "tools/dirname"}
    assert not list(tmp_path.rglob("pwned.txt"))


def test_force_reaches_oo_nb_update(tmp_path: Path, library: Path, stub: Path) -> None:
    doc = _hostile(library)
    log = tmp_path / "calls"
    result = _bash(
        [str(doc), "--force", "--model", "claude-x"],
        tmp_path,
        _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log)),
    )
    assert result.returncode == 0, result.stderr
    assert _calls(log) == [
        ["-P", "-m", "oo_nb", "update", str(doc), "--force", "--model", "claude-x"]
    ]
    assert not list(tmp_path.rglob("pwned.txt"))


def test_options_pass_on_quoted_and_the_originals_agent_name_maps(
    tmp_path: Path, library: Path, stub: Path
) -> None:
    doc = library / "solar-storms.o-o.html"
    log = tmp_path / "calls"
    env = _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log))
    _bash([str(doc), "--agent", "claude", "--budget", "$(touch pwned.txt) 1"], tmp_path, env)
    _bash([str(doc), "--model", "--help"], tmp_path, env)  # a value, not a request for help
    assert _calls(log) == [
        [
            "-P",
            "-m",
            "oo_nb",
            "update",
            str(doc),
            "--agent",
            "claude-code",
            "--budget",
            "$(touch pwned.txt) 1",
        ],
        ["-P", "-m", "oo_nb", "update", str(doc), "--model", "--help"],
    ]
    assert not list(tmp_path.rglob("pwned.txt"))


def test_contract_options_go_to_oo_contract(tmp_path: Path, library: Path, stub: Path) -> None:
    doc = library / "solar-storms.o-o.html"
    log = tmp_path / "calls"
    env = _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log))
    _bash([str(doc), "--show"], tmp_path, env)
    _bash([str(doc), "--set", "budget", "2"], tmp_path, env)
    _bash([str(doc), "--add", "intent", "--help"], tmp_path, env)  # a value, not a request for help
    assert _calls(log) == [
        ["-P", "-m", "oo_nb", "contract", str(doc), "--show"],
        ["-P", "-m", "oo_nb", "contract", str(doc), "--set", "budget", "2"],
        ["-P", "-m", "oo_nb", "contract", str(doc), "--add", "intent", "--help"],
    ]


def test_missing_python_or_oo_nb_is_explained(tmp_path: Path, library: Path, stub: Path) -> None:
    doc = str(library / "solar-storms.o-o.html")
    gone = _bash([doc], tmp_path, _env(OO_PYTHON=str(tmp_path / "no-such-python")))
    assert gone.returncode == 127 and "cannot be run" in gone.stderr
    nothing = _bash([doc], tmp_path, _env(PATH=_no_python_path(tmp_path)))
    assert nothing.returncode == 127 and "Python 3 was not found" in nothing.stderr
    assert "pip install oo_nb" in nothing.stderr
    log = tmp_path / "calls"
    missing = _bash(
        [doc], tmp_path, _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log), OO_STUB_IMPORT_STATUS="1")
    )
    assert missing.returncode == 127 and "oo_nb is not installed" in missing.stderr
    assert _calls(log) == []


def test_an_article_line_oo_html_never_runs_as_shell(
    tmp_path: Path, library: Path, stub: Path
) -> None:
    path = library / "solar-storms.o-o.html"
    doc = Document.read(path)
    article = "\n<h2 id='x'>X</h2>\nOO_HTML\ntouch pwned.txt\necho owned >&2\n<p>text</p>\n"
    store.write_document(doc.with_article(article), expected=doc.to_bytes(), action="test")
    text = path.read_text()
    assert text.split("\n").count("OO_HTML") == 1
    assert "touch pwned.txt" in text  # the article still says it, as text
    result = _bash([str(path), "--help"], tmp_path, _env())
    assert result.returncode == 0 and result.stderr == ""
    log = tmp_path / "calls"
    result = _bash([str(path)], tmp_path, _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log)))
    assert result.returncode == 0 and result.stderr == ""
    assert _calls(log) == [["-P", "-m", "oo_nb", "update", str(path)]]
    assert not list(tmp_path.rglob("pwned.txt"))


# ----------------------------------------------------------------------------- the index
def _index_calls(
    tmp_path: Path, stub: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    log = tmp_path / "calls"
    log.unlink(missing_ok=True)
    result = _bash(
        ["lib/index.o-o.html", *args], tmp_path, _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log))
    )
    return result, _calls(log)


def test_index_commands_map_onto_oo_nb(tmp_path: Path, library: Path, stub: Path) -> None:
    m = ["-P", "-m", "oo_nb"]
    assert _index_calls(tmp_path, stub)[1] == [[*m, "index", "lib"]]
    assert _index_calls(tmp_path, stub, "--update-all")[1] == [
        [*m, "update-all", "lib"],
        [*m, "index", "lib"],
    ]
    assert _index_calls(tmp_path, stub, "--update-all", "--force", "--agent", "claude")[1] == [
        [*m, "update-all", "lib", "--force", "--agent", "claude-code"],
        [*m, "index", "lib"],
    ]
    assert _index_calls(tmp_path, stub, "--update-all", "--auto")[1] == [
        [*m, "update-all", "lib", "--auto"],
        [*m, "index", "lib"],
    ]
    # the original took `--force` for the title of a new document
    assert _index_calls(tmp_path, stub, "--new", "--force")[1] == [
        [*m, "new", "--dir", "lib"],
        [*m, "index", "lib"],
    ]
    assert _index_calls(
        tmp_path, stub, "--new", "Tides / sea level", "--force", "--audience", "Sailors"
    )[1] == [
        [*m, "new", "--dir", "lib", "Tides / sea level", "--audience", "Sailors"],
        [*m, "index", "lib"],
    ]
    # ... and `--force` for the section of a sync
    assert _index_calls(tmp_path, stub, "--sync", "--force")[1] == [[*m, "sync", "lib"]]
    assert _index_calls(tmp_path, stub, "--sync", "css", "--dry-run")[1] == [
        [*m, "sync", "lib", "css", "--dry-run"]
    ]
    assert _index_calls(tmp_path, stub, "--show")[1] == [
        [*m, "contract", "lib/index.o-o.html", "--show"]
    ]
    assert _index_calls(tmp_path, stub, "--show", "solar-storms.o-o.html")[1] == [
        [*m, "contract", "lib/solar-storms.o-o.html", "--show"]
    ]
    assert _index_calls(tmp_path, stub, "--set", "solar-storms.o-o.html", "budget", "2")[1] == [
        [*m, "contract", "lib/solar-storms.o-o.html", "--set", "budget", "2"]
    ]
    assert _index_calls(tmp_path, stub, "--remove", "section", "Overview")[1] == [
        [*m, "contract", "lib/index.o-o.html", "--remove", "section", "Overview"]
    ]


def test_index_exit_status_is_the_commands(tmp_path: Path, library: Path, stub: Path) -> None:
    log = tmp_path / "calls"
    env = _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log), OO_STUB_STATUS="3")
    result = _bash(["lib/index.o-o.html", "--update-all"], tmp_path, env)
    assert result.returncode == 3
    assert [c[3] for c in _calls(log)] == ["update-all", "index"]  # the index is rebuilt anyway


def test_index_help_and_unknown_commands(tmp_path: Path, library: Path) -> None:
    result = _bash(["lib/index.o-o.html", "--help"], tmp_path, _env(PATH=_no_python_path(tmp_path)))
    assert result.returncode == 0 and "--update-all [--force]" in result.stdout
    bad = _bash(
        ["lib/index.o-o.html", "--frobnicate"], tmp_path, _env(PATH=_no_python_path(tmp_path))
    )
    assert bad.returncode == 2 and "unknown command --frobnicate" in bad.stderr


# ----------------------------------------------------------------------------- the real oo_nb
FAKE_VERBS = """
import json, os, sys, types

def _fake(name):
    module = types.ModuleType("oo_nb.cli." + name)
    module.HELP = "fake " + name
    def add_arguments(p):
        p.add_argument("doc")
        p.add_argument("--force", action="store_true")
        p.add_argument("--model")
    def run(ns):
        with open(os.environ["OO_FAKE_LOG"], "a") as fh:
            fh.write(json.dumps({"verb": name, "doc": ns.doc, "force": ns.force, "model": ns.model}) + "\\n")
        from oo_nb.cli.verbs import TextResult
        return TextResult("fake " + name + " ran")
    module.add_arguments, module.run = add_arguments, run
    sys.modules[module.__name__] = module

_fake("update")
_fake("update_all")
"""


@pytest.fixture
def real_python(tmp_path: Path) -> dict[str, str]:
    """The project's interpreter, with `update` and `update-all` replaced by recorders."""
    site = tmp_path / "fake-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(FAKE_VERBS)
    # this checkout's oo_nb (the interpreter's own install may point at another one)
    path = os.pathsep.join([str(site), str(Path(__file__).resolve().parents[2])])
    return _env(OO_PYTHON=sys.executable, PYTHONPATH=path, OO_FAKE_LOG=str(tmp_path / "fake.log"))


def _fake_log(tmp_path: Path) -> list[dict[str, object]]:
    import json

    return [json.loads(line) for line in (tmp_path / "fake.log").read_text().splitlines()]


def test_bash_doc_force_reaches_the_real_cli(
    tmp_path: Path, library: Path, real_python: dict[str, str]
) -> None:
    doc = library / "solar-storms.o-o.html"
    result = _bash([str(doc), "--force", "--model", "m1"], tmp_path, real_python)
    assert result.returncode == 0, result.stderr
    assert "fake update ran" in result.stdout
    assert _fake_log(tmp_path) == [
        {"verb": "update", "doc": str(doc), "force": True, "model": "m1"}
    ]


def test_bash_index_update_all_reaches_the_real_cli(
    tmp_path: Path, library: Path, real_python: dict[str, str]
) -> None:
    index = library / "index.o-o.html"
    (library / "solar-storms.o-o.html").unlink()
    result = _bash([str(index), "--update-all", "--force"], tmp_path, real_python)
    assert result.returncode == 0, result.stderr
    assert _fake_log(tmp_path) == [
        {"verb": "update_all", "doc": str(library), "force": True, "model": None}
    ]
    assert (
        '<strong id="doc-count">1</strong>' in index.read_text()
    )  # then the real index rebuild ran


def test_bash_index_new_and_set_really_work(
    tmp_path: Path, library: Path, real_python: dict[str, str]
) -> None:
    index = library / "index.o-o.html"
    made = _bash(
        [str(index), "--new", "Tides / sea level", "--force", "--no-update"], tmp_path, real_python
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[0] == str(library / "tides.o-o.html")
    assert "tides.o-o.html" in index.read_text()
    edit = _bash([str(index), "--set", "tides.o-o.html", "budget", "2"], tmp_path, real_python)
    assert edit.returncode == 0, edit.stderr
    assert Document.read(library / "tides.o-o.html").contract.max_cost_usd == 2.0
    page = index.read_bytes()
    defaults = _bash([str(index), "--set", "budget", "2"], tmp_path, real_python)
    assert defaults.returncode == 0 and "defaults for new documents" in defaults.stdout
    assert index.read_bytes() == page


def test_bash_index_new_reads_piped_answers_and_refuses_a_taken_name(
    tmp_path: Path, library: Path, real_python: dict[str, str]
) -> None:
    """o-o's interactive `--new` reads its answers with `read -p`, so a pipe answers it too."""
    index = library / "index.o-o.html"
    made = subprocess.run(
        ["bash", str(index), "--new", "--no-update"],
        input="Tides\nsea level\n\n\n2\n",
        cwd=tmp_path,
        env=real_python,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[0] == str(library / "tides.o-o.html")
    doc = Document.read(library / "tides.o-o.html")
    assert (doc.contract.scope, doc.contract.max_cost_usd) == ("sea level", 2.0)
    before = (library / "tides.o-o.html").read_bytes()
    again = _bash([str(index), "--new", "Tides / other", "--no-update"], tmp_path, real_python)
    assert again.returncode == 2
    assert "file already exists" in again.stderr and str(library / "tides.o-o.html") in again.stderr
    assert (library / "tides.o-o.html").read_bytes() == before
    suffixed = _bash(
        [str(index), "--new", "Tides / other", "--suffix", "--no-update"], tmp_path, real_python
    )
    assert suffixed.returncode == 0, suffixed.stderr
    assert suffixed.stdout.splitlines()[0] == str(library / "tides-2.o-o.html")


def test_bash_doc_sync_works_as_from_the_index(tmp_path: Path, library: Path, stub: Path) -> None:
    """o-o accepts `--sync` on every page; it syncs the page's folder."""
    doc = library / "solar-storms.o-o.html"
    log = tmp_path / "calls"
    env = _env(OO_PYTHON=str(stub), OO_STUB_LOG=str(log))
    for args in (["--sync", "css", "--dry-run"], ["--sync", "--force"], ["--sync", "all"]):
        assert _bash([str(doc), *args], tmp_path, env).returncode == 0
    m = ["-P", "-m", "oo_nb", "sync", str(library)]
    assert _calls(log) == [[*m, "css", "--dry-run"], m, [*m, "all"]]
    helped = _bash([str(doc), "--help"], tmp_path, _env(PATH=_no_python_path(tmp_path)))
    assert "--sync [css|js|shell|all]" in helped.stdout and "--auto" in helped.stdout


def test_bash_doc_sync_really_syncs_the_folder(
    tmp_path: Path, library: Path, real_python: dict[str, str]
) -> None:
    doc = library / "solar-storms.o-o.html"
    result = _bash([str(doc), "--sync", "all", "--dry-run"], tmp_path, real_python)
    assert result.returncode == 0, result.stderr
    assert "solar-storms.o-o.html" in result.stdout and "q-and-a" in result.stdout


# ----------------------------------------------------------------------------- an original index, migrated
def test_original_index_hands_off_to_oo_nb_after_migrate(
    tmp_path: Path, corpus_copy: Path, real_python: dict[str, str]
) -> None:
    from oo_nb.edit.sync import sync_dir

    index = corpus_copy / "index.o-o.html"
    before = _bash([str(index), "--update-all"], tmp_path, real_python)
    assert "data-only extract" in before.stderr  # the original's shell (the corpus stand-in) ran
    assert not (tmp_path / "fake.log").exists()
    page = index.read_text()[: index.read_text().index("\nOO_HTML\n")]
    assert {r.rel: r.status for r in sync_dir(corpus_copy, migrate=True).reports}[
        "index.o-o.html"
    ] == "migrated"
    migrated = index.read_text().replace(CSP_BOOTSTRAP + "\n", "", 1)  # the page policy, added
    assert migrated.startswith(page + "\nOO_HTML\n# OO:SHELL:START\n")
    helped = _bash([str(index), "--help"], tmp_path, _env(PATH=_no_python_path(tmp_path)))
    assert helped.returncode == 0 and helped.stderr == ""
    assert (
        helped.stdout.startswith("Usage: bash index.o-o.html [COMMAND]")
        and "--update-all [--force]" in helped.stdout
    )
    result = _bash([str(index), "--update-all", "--force"], tmp_path, real_python)
    assert result.returncode == 0, result.stderr
    assert "data-only extract" not in result.stderr
    assert _fake_log(tmp_path) == [
        {"verb": "update_all", "doc": str(corpus_copy), "force": True, "model": None}
    ]
    assert (
        '<strong id="doc-count">4</strong>' in index.read_text()
    )  # then the real `oo index` rebuilt it
    rebuilt = Document.read(index)
    assert rebuilt.text.replace(CSP_BOOTSTRAP + "\n", "", 1).startswith(
        page[: page.index("<!-- INDEX-CONTENT-START -->")].split('<div class="stat')[0]
    )
    assert rebuilt.span_text(rebuilt.tail).startswith(
        "# OO:SHELL:START\n"
    )  # the rebuild kept our shell
