"""The %oo magic in a real IPython shell with the extension loaded: every verb, its return value,
its UsageErrors, help, quoting and variable expansion."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.cli.verbs import VERBS
from oo_nb.format.document import Document
from oo_nb.notebook.preview import ArticlePreview, IndexPreview
from oo_nb.notebook.results import TextOutput
from oo_nb.store import store
from tests.support.magic_helpers import oo

YC = "yc-w26-batch.o-o.html"


def bump(path: Path, version: int) -> bytes:
    before = path.read_bytes()
    doc = Document.read(path).edit_block("oo-manifest", lambda m: m.update(version=version))
    doc = doc.edit_block(
        "oo-changelog",
        lambda c: c["entries"].append(
            {
                "version": version,
                "timestamp": "2026-11-29",
                "summary": f"v{version}",
                "cost_usd": 0.1,
            }
        ),
    )
    store.write_document(doc, expected=before, action="update")
    return before


# ----------------------------------------------------------------------------- registration
def test_extension_registers_one_line_and_cell_magic(shell: InteractiveShell) -> None:
    assert "oo" in shell.magics_manager.magics["line"]
    assert "oo" in shell.magics_manager.magics["cell"]


def test_overall_help_lists_every_cli_verb(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    assert oo(shell, "--help") is None
    out = capsys.readouterr().out
    for verb in VERBS:
        assert f"  {verb} " in out
    assert oo(shell, "") is None
    assert "%%oo contract DOC" in capsys.readouterr().out


def test_question_mark_shows_the_verbs(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_cell("%oo?")
    out = capsys.readouterr().out
    assert "every verb returns data" in out and "history" in out


def test_verb_help_prints_and_does_not_exit(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    assert oo(shell, "show --help") is None  # no SystemExit reaches the kernel
    out = capsys.readouterr().out
    assert out.startswith("usage: %oo show") and "--json" in out


# ----------------------------------------------------------------------------- usage errors
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("frobnicate x", "unknown verb 'frobnicate'"),
        ("show", "the following arguments are required: doc"),
        ("show a.o-o.html b.o-o.html", "unrecognized arguments: b.o-o.html"),
        ("show 'unbalanced", "No closing quotation"),
        ("rollback a.o-o.html --to notanumber", "invalid int value"),
        ("rollback a.o-o.html", "--to"),
        # a kernel has no terminal and nothing piped in: never wait on its stdin
        ("new --no-update", 'give a title: %oo new "Title / scope"'),
    ],
)
def test_misuse_raises_usage_error(shell: InteractiveShell, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as info:
        oo(shell, line)
    assert type(info.value) is UsageError  # IPython matches the class itself


def test_oo_errors_become_short_usage_errors(shell: InteractiveShell, tmp_path: Path) -> None:
    missing = tmp_path / "missing.o-o.html"
    with pytest.raises(UsageError, match=r"oo show: .*missing\.o-o\.html: no such file") as info:
        oo(shell, f"show {missing}")
    assert info.value.__cause__ is not None  # the typed error stays reachable
    bad = tmp_path / "bad.o-o.html"
    bad.write_text("<html>not a polyglot</html>")
    with pytest.raises(UsageError, match="not an o-o document"):
        oo(shell, f"show {bad}")


def test_usage_error_shows_no_traceback(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_cell("%oo show /nonexistent/x.o-o.html")
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "UsageError" in text and "no such file" in text
    assert "Traceback" not in text


def test_cell_body_only_for_contract(shell: InteractiveShell, corpus_copy: Path) -> None:
    with pytest.raises(UsageError, match="only contract takes a cell body"):
        shell.run_cell_magic("oo", f"show {corpus_copy / YC}", "budget: 1")


# ----------------------------------------------------------------------------- quoting and expansion
def test_quotes_group_and_disappear(shell: InteractiveShell, corpus_copy: Path) -> None:
    spaced = corpus_copy / "with space"
    spaced.mkdir()
    target = spaced / YC
    target.write_bytes((corpus_copy / YC).read_bytes())
    preview = oo(shell, f'show "{target}"')
    assert isinstance(preview, ArticlePreview) and preview.path == target


def test_braces_and_dollar_expand_python_values(shell: InteractiveShell, corpus_copy: Path) -> None:
    shell.user_ns["doc_path"] = corpus_copy / YC
    shell.user_ns["info"] = {"name": YC}
    # run_cell goes through the input transformer, as a notebook cell does
    shell.run_cell("a = %oo show {doc_path}\nb = %oo show $doc_path")
    a, b = shell.user_ns["a"], shell.user_ns["b"]
    assert a.path == b.path == corpus_copy / YC
    shell.user_ns["folder"] = str(corpus_copy)
    shell.run_cell("c = %oo show \"{folder}/{info['name']}\" --json")
    assert shell.user_ns["c"]["manifest"]["title"] == "Y Combinator W26 Batch"


# ----------------------------------------------------------------------------- verbs
def test_show_returns_sandboxed_preview(shell: InteractiveShell, corpus_dir: Path) -> None:
    preview = oo(shell, f"show {corpus_dir / YC}")
    assert isinstance(preview, ArticlePreview)
    bundle = preview._repr_mimebundle_()
    assert bundle["text/plain"].startswith("Y Combinator W26 Batch")
    assert bundle["text/html"].startswith(
        '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" '
    )
    assert "<h2" not in bundle["text/html"]  # the article is escaped inside srcdoc


def test_show_json_returns_the_dict(shell: InteractiveShell, corpus_dir: Path) -> None:
    data = oo(shell, f"show {corpus_dir / YC} --json")
    assert isinstance(data, dict) and data["layout"] == "early"
    json.dumps(data)


def test_show_index_returns_index_preview(shell: InteractiveShell, corpus_dir: Path) -> None:
    preview = oo(shell, f"show {corpus_dir / 'index.o-o.html'}")
    assert isinstance(preview, IndexPreview)
    assert "library index" in repr(preview)


def test_check_returns_text_with_findings_and_exit_code(
    shell: InteractiveShell, corpus_dir: Path
) -> None:
    out = oo(shell, f"check {corpus_dir / YC}")
    assert isinstance(out, TextOutput)
    assert out.exit_code == 0 and "1 checked" in out.text and isinstance(out.value, list)
    assert out._repr_mimebundle_() == {"text/plain": out.text}


def test_history_returns_a_frame_and_rollback_restores(
    shell: InteractiveShell, corpus_copy: Path
) -> None:
    p = corpus_copy / YC
    original = bump(p, 2)
    frame = oo(shell, f"history {p}")
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["version"]) == [1, 2]
    assert str(frame["version"].dtype) == "Int64"
    assert str(frame["as_of"].dtype).startswith("datetime64")
    assert list(frame["state"]) == ["replaced by update", "current"]
    assert frame["cost_usd"].iloc[-1] == pytest.approx(0.1)
    import oo_nb

    out = oo(shell, f"rollback {p} --to 1")
    assert isinstance(out, oo_nb.Rollback) and "restored version 1" in out.message
    assert out.written and out.version == 1 and repr(out) == out.message
    assert p.read_bytes() == original
    assert list(oo(shell, f"history {p}")["version"]) == [1, 2, 1]
    with pytest.raises(UsageError, match="no version 7"):
        oo(shell, f"rollback {p} --to 7")


def test_errors_start_with_the_magic_as_typed(
    shell: InteractiveShell, corpus_copy: Path, tmp_path: Path
) -> None:
    """An error of `%oo VERB` says `%oo VERB:` (the place the user is in), not the command's
    `oo VERB:`; a cell's error says `%%oo VERB:`."""
    p = corpus_copy / YC
    cases = {
        f"rollback {p} --to 7": "%oo rollback: ",
        f"diff {p} --from 1 --to 2": "%oo diff: ",
        f"show {tmp_path / 'none.o-o.html'}": "%oo show: ",
        f"history {tmp_path / 'none.o-o.html'}": "%oo history: ",
    }
    for line, start in cases.items():
        with pytest.raises(UsageError) as caught:
            oo(shell, line)
        assert str(caught.value).startswith(start), (line, str(caught.value))
    before = p.read_bytes()
    with pytest.raises(UsageError) as caught:
        shell.run_cell_magic("oo", f"contract {p}", "budget: 0.5\nbudget: 9\n")
    said = str(caught.value)
    assert said.startswith("%%oo contract: ") and "line 1 ('budget: 0.5')" in said
    assert p.read_bytes() == before
    done = shell.run_cell_magic("oo", f"contract {p}", "budget: 0.5\n")
    assert f"the previous version is kept (%oo history {p})" in done.text


def test_history_of_nothing_is_a_usage_error(shell: InteractiveShell, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such document"):
        oo(shell, f"history {tmp_path / 'none.o-o.html'}")


def test_load_ext_imports_no_heavy_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
        "before = set(sys.modules)\nInteractiveShell.instance().extension_manager.load_extension('oo_nb')\n"
        "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
        "{'pandas','lxml','anthropic','matplotlib','ipywidgets','nh3','PIL','httpx2','numpy'}))"
    )
    # the background imports (oo_nb.notebook.warm) are off: this is what load_ext itself does
    env = {**os.environ, "OO_NB_PREWARM": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.strip() == "[]"


def test_a_first_library_call_imports_only_what_its_frame_needs(demo: Path) -> None:
    """Run All: `%load_ext oo_nb` then `lib = %oo library DIR`, shown, with no idle second
    between (nothing imported in the background). The call pays pandas and its own reading,
    not the SDK, the Jupyter server (index links), plotting, widgets or lxml (HTML cleaning of
    agent output: the link findings use only the URL check beside it)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\nshell.run_cell('%load_ext oo_nb')\n"
        f"shell.run_cell('lib = %oo library {demo}').raise_error()\n"
        "shell.display_formatter.format(shell.user_ns['lib'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'anthropic', "
        "'jupyter_server', 'matplotlib', 'ipywidgets', 'lxml', 'tqdm', 'httpx2', 'PIL'}))"
    )
    env = {**os.environ, "OO_NB_PREWARM": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.strip().splitlines()[-1] == "['pandas']"


@pytest.mark.parametrize(("key", "sdk"), [("sk-ant-test-MARKER", "True"), ("", "False")])
def test_load_ext_imports_pandas_then_the_sdk_once_the_kernel_is_idle(key: str, sdk: str) -> None:
    """The SDK only when an update would use it: without a key the update is a replay (or
    Claude Code), which never imports it."""
    import subprocess
    import sys

    code = (
        "import sys, threading, time\nfrom IPython.core.interactiveshell import InteractiveShell\n"
        "import oo_nb.notebook.warm as warm\nwarm.IDLE_S = 0.3\n"
        # the loader made, kept: its thread may be done before it is looked for
        "made = []\ninit = warm.IdleImport.__init__\n"
        "warm.IdleImport.__init__ = lambda self, *a: (made.append(self), init(self, *a))[1]\n"
        "shell = InteractiveShell.instance()\nshell.run_cell('%load_ext oo_nb')\n"
        "shell.run_cell('x = 1')\n"  # cells that follow at once: nothing started yet
        "print(any(t.name == 'oo-prewarm' for t in threading.enumerate()))\n"
        "time.sleep(1.5)\n"  # idle: the imports start
        "(loader,) = made\nt = loader.thread\n"
        "t.join()\nprint(t.daemon, *(m in sys.modules for m in ('pandas', 'pyarrow', 'anthropic')))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OO_NB_PREWARM", "OO_AGENT")}
    env.update(ANTHROPIC_API_KEY=key, ANTHROPIC_AUTH_TOKEN="")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.split() == ["False", "True", "True", "True", sdk]


def test_a_cell_that_starts_runs_alone_and_the_next_import_waits_for_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between two modules the thread waits while a cell runs: the SDK import does not compete
    with the cell that needs pandas (it made the first %oo library 1.6x slower)."""
    import time
    from types import SimpleNamespace

    from oo_nb.notebook import warm

    handlers: dict[str, list[object]] = {}
    events = SimpleNamespace(
        register=lambda name, f: handlers.setdefault(name, []).append(f),
        unregister=lambda name, f: handlers[name].remove(f),
    )
    loaded: list[str] = []
    idle = warm.IdleImport(SimpleNamespace(events=events), ("first", "second"), idle_s=0.05)

    def import_module(name: str) -> None:
        loaded.append(name)
        if name == "first":
            idle.busy()  # a cell starts while the first module is imported

    monkeypatch.setattr(warm, "importlib", SimpleNamespace(import_module=import_module))
    idle.idle()  # a cell ended
    deadline = time.monotonic() + 5
    while not loaded and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # well past idle_s, but the cell still runs: the second module waits
    assert loaded == ["first"]
    idle.idle()  # the cell ended
    assert idle.thread is not None
    idle.thread.join(5)
    assert loaded == ["first", "second"]
    assert handlers == {"pre_run_cell": [], "post_run_cell": []}  # done with the events


def test_loading_the_extension_again_adds_no_second_loader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`%reload_ext oo_nb` three times left three pairs of pre/post cell callbacks."""
    from types import SimpleNamespace

    from oo_nb.notebook import warm

    handlers: dict[str, list[object]] = {}

    class Shell:  # (a shell the loaders are kept by: weakly, as IPython's)
        events = SimpleNamespace(register=lambda name, f: handlers.setdefault(name, []).append(f))

    monkeypatch.delenv(warm.PREWARM_ENV, raising=False)
    shell = Shell()
    loaders = {id(warm.prewarm(shell)) for _ in range(3)}
    assert len(loaders) == 1
    assert {name: len(f) for name, f in handlers.items()} == {"pre_run_cell": 1, "post_run_cell": 1}
    assert warm.prewarm(Shell()) is not None and len(handlers["pre_run_cell"]) == 2  # another


# ----------------------------------------------------------------------------- verbs on the demo library
@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from oo_nb.demo import install_demo

    monkeypatch.setenv("OO_TODAY", "2026-12-01")
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OO_AGENT"):
        monkeypatch.delenv(name, raising=False)
    install_demo(tmp_path / "lib", index=False)
    monkeypatch.chdir(tmp_path)
    return Path("lib")


HEAT = "lib/heat-pumps-in-europe.o-o.html"


def test_demo_verb_returns_the_install(
    shell: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = oo(shell, "demo fresh --no-index")
    assert out.folder == Path("fresh") and len(out.documents) == 4
    assert "demo library ready: fresh" in out._repr_mimebundle_()["text/plain"]
    assert oo(shell, "demo fresh --no-index").reset


def test_library_returns_the_library_and_frames(shell: InteractiveShell, demo: Path) -> None:
    import oo_nb

    shell.run_cell(f"lib = %oo library {demo}")
    lib = shell.user_ns["lib"]
    assert isinstance(lib, oo_nb.Library)
    assert len(lib.documents) == 4
    bundle = lib._repr_mimebundle_()
    assert "4 documents" in bundle["text/plain"]
    assert "tier" in lib.sources.columns
    # one verb, one type: a frame is taken from the Library, as the error says
    with pytest.raises(UsageError, match=r"lib = %oo library .* then lib\.sources"):
        oo(shell, f"library {demo} --frame sources")


def test_library_and_audit_default_to_the_current_folder(
    shell: InteractiveShell, demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(demo)
    assert len(oo(shell, "library").documents) == 4
    assert len(oo(shell, "audit")) > 0


def test_audit_returns_the_findings_frame(
    shell: InteractiveShell, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    findings = oo(shell, f"audit {demo}")
    assert isinstance(findings, pd.DataFrame)
    assert {"doc", "severity", "code", "where", "message"} <= set(findings.columns)
    assert {"overdue", "uncited-source", "old-source", "unsourced-fact"} <= set(findings["code"])
    assert "findings:" in capsys.readouterr().out
    # by default one row per document and code; --all: every finding; --min-severity filters
    assert not findings.duplicated(["doc", "code"]).any() and "count" in findings.columns
    every = oo(shell, f"audit {demo} --all")
    assert len(every) == int(findings["count"].sum()) and "count" not in every.columns
    assert set(oo(shell, f"audit {demo} --min-severity warning")["severity"]) <= {
        "error",
        "warning",
    }


def test_index_writes_and_returns_a_preview(shell: InteractiveShell, demo: Path) -> None:
    preview = oo(shell, f"index {demo}")
    assert isinstance(preview, IndexPreview)
    assert (demo / "index.o-o.html").exists()
    assert "4 documents" in repr(preview)
    assert preview._repr_mimebundle_()["text/html"].startswith(
        '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" '
    )


def test_new_returns_the_document(shell: InteractiveShell, demo: Path) -> None:
    import oo_nb

    shell.user_ns["folder"] = demo
    shell.run_cell(
        'doc = %oo new "Tide power / tidal stream and tidal range projects" --dir {folder} --every 14 --no-update'
    )
    doc = shell.user_ns["doc"]
    assert isinstance(doc, oo_nb.Document)  # the API's, not the codec's
    assert doc.path == (demo / "tide-power.o-o.html").absolute() and doc.path.exists()
    assert (
        doc.manifest.title == "Tide power"
        and doc.contract.scope == "tidal stream and tidal range projects"
    )
    assert doc.manifest.cadence_days == 14
    # shown as the article in the sandboxed preview, not only `<Document … chars>`
    shown, _ = shell.display_formatter.format(doc)
    assert shown["text/plain"] == repr(doc)
    assert (
        shown["text/html"].startswith(
            '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" '
        )
        and "Tide power" in shown["text/html"]
    )
    with pytest.raises(UsageError, match="budget"):
        oo(shell, f'new "X / y" --dir {demo} --budget -3 --no-update')


def test_new_goes_through_the_api_not_the_cli_verb(
    shell: InteractiveShell, demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`%oo new` calls `oo_nb.api.new.new_document` as `oo new` does; it does not run the
    CLI verb and read its result."""
    import oo_nb.api.new
    from oo_nb.cli import new as new_verb

    def no_cli(_ns: object) -> None:
        raise AssertionError("the magic ran the CLI verb")

    calls: list[object] = []
    real = oo_nb.api.new.new_document
    monkeypatch.setattr(new_verb, "run", no_cli)
    monkeypatch.setattr(
        oo_nb.api.new, "new_document", lambda *a, **k: calls.append(a[0]) or real(*a, **k)
    )
    doc = oo(shell, f'new "Tide power / tidal range" --dir {demo} --budget 2 --no-update')
    assert (
        doc.path == (demo / "tide-power.o-o.html").absolute() and doc.contract.max_cost_usd == 2.0
    )
    assert calls == [oo_nb.api.new.NewRequest("Tide power", "tidal range", budget="2")]


def test_contract_line_and_cell(shell: InteractiveShell, demo: Path) -> None:
    shown = oo(shell, f"contract {HEAT}")
    assert isinstance(shown, TextOutput) and "scope" in shown.text
    out = oo(shell, f'contract {HEAT} --set audience "Energy journalists" --add section Timeline')
    assert "contract updated" in out.text
    c = Document.read(HEAT).contract
    assert c.audience == "Energy journalists" and "Timeline" in c.required_sections
    out = shell.run_cell_magic("oo", f"contract {HEAT}", "budget: 0.75\n-section: Timeline\n")
    c = Document.read(HEAT).contract
    assert c.max_cost_usd == 0.75 and "Timeline" not in c.required_sections
    shell.run_cell_magic("oo", f"contract {HEAT}", '{"tone": "Plain and brief"}')
    assert Document.read(HEAT).contract.tone == "Plain and brief"
    with pytest.raises(UsageError, match=r"colour|unknown|valid"):
        shell.run_cell_magic("oo", f"contract {HEAT}", "colour: blue")
    with pytest.raises(UsageError):
        oo(shell, f"contract {HEAT} --set budget")  # --set needs KEY VALUE
    with pytest.raises(UsageError, match="not both"):
        shell.run_cell_magic("oo", f"contract {HEAT} --set budget 2", "tone: x")
    with pytest.raises(UsageError, match="no edits"):
        shell.run_cell_magic("oo", f"contract {HEAT}", "# only a comment\n")


def test_update_returns_the_proposal_shown_as_its_widget_and_leaves_the_file(
    shell: InteractiveShell, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import oo_nb
    from oo_nb.notebook.review_widget import ReviewWidget

    before = Path(HEAT).read_bytes()
    proposal = oo(shell, f"update {HEAT}")
    assert isinstance(proposal, oo_nb.Proposal) and proposal.status == "proposed"
    widget = proposal.review()
    assert proposal.review() is widget  # one widget per proposal, shown again
    assert "application/vnd.jupyter.widget-view+json" in proposal._repr_mimebundle_()
    out = capsys.readouterr().out
    assert out.startswith(
        "Researching heat-pumps-in-europe.o-o.html with the replay (recorded) agent…"
    )
    assert "proposal v2 from replay (recorded)" in out and "RECORDED run" in out
    # research steps are printed as they happen, before the result line
    assert (
        out.index("  searched: heat pump installer survey grants")
        < out.index("  proposal received")
        < out.index("proposal v2")
    )
    assert "  read: https://" in out
    assert isinstance(widget, ReviewWidget) and len(widget.hunk_views) >= 3
    assert Path(HEAT).read_bytes() == before
    widget.accept_all_button.click()
    widget.write_button.click()
    assert Document.read(HEAT).manifest.version == 2
    assert list(oo(shell, f"history {HEAT}")["version"]) == [1, 2]


def test_update_of_a_fresh_document_says_so_in_its_proposal(
    shell: InteractiveShell, demo: Path
) -> None:
    proposal = oo(shell, "update lib/perovskite-solar-cells.o-o.html")
    assert proposal.status == "fresh" and not proposal.reviewable
    assert "is fresh" in repr(proposal) and "is fresh" in proposal._repr_mimebundle_()["text/html"]


def test_update_yes_writes_and_says_so(shell: InteractiveShell, demo: Path) -> None:
    proposal = oo(shell, f"update {HEAT} --yes")
    assert proposal.status == "written" and Document.read(HEAT).manifest.version == 2


def test_update_misuse(shell: InteractiveShell, demo: Path) -> None:
    with pytest.raises(UsageError, match="leave out --review"):
        oo(shell, f"update {HEAT} --review")
    with pytest.raises(UsageError, match="invalid choice"):
        oo(shell, f"update {HEAT} --agent nobody")
    with pytest.raises(UsageError, match="not allowed with"):
        oo(shell, f"update {HEAT} --yes --review")
    with pytest.raises(UsageError, match="no recorded cassette"):
        oo(shell, "update lib/fusion-power-on-the-grid.o-o.html --force")


def test_review_returns_the_widget_for_a_saved_proposal(
    shell: InteractiveShell, demo: Path
) -> None:
    from oo_nb.notebook.review_widget import ReviewWidget

    oo(shell, f"update {HEAT}")
    widget = oo(shell, f"review {HEAT}")
    assert isinstance(widget, ReviewWidget)
    out = oo(shell, f"review {HEAT} --reject-all")
    assert isinstance(out, TextOutput) and Document.read(HEAT).manifest.version == 1
    with pytest.raises(UsageError, match="no saved proposal"):
        oo(shell, f"review {HEAT}")


def test_diff_between_versions_and_rollback(shell: InteractiveShell, demo: Path) -> None:
    import oo_nb

    oo(shell, f"update {HEAT} --yes")
    diff = oo(shell, f"diff {HEAT} --from 1 --to 2")
    bundle = diff._repr_mimebundle_()
    assert "v1 → v2" in bundle["text/plain"] and bundle["text/html"]
    assert isinstance(diff, oo_nb.Diff) and len(diff.changes.decidable) >= 3
    with pytest.raises(UsageError, match="no version 5"):
        oo(shell, f"diff {HEAT} --from 5")
    oo(shell, f"rollback {HEAT} --to 1")
    assert Document.read(HEAT).manifest.version == 1


def test_sync_with_and_without_folder(
    shell: InteractiveShell, demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = oo(shell, f"sync {demo} css --dry-run")
    assert isinstance(out, TextOutput) and out.exit_code == 0
    monkeypatch.chdir(demo)
    out = oo(shell, "sync css --dry-run")  # the section alone: this folder
    assert isinstance(out, TextOutput) and out.exit_code == 0
    with pytest.raises(UsageError, match="invalid choice"):
        oo(shell, "sync . fonts")


def test_every_verb_is_reachable_from_the_magic(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    for verb in VERBS:
        assert oo(shell, f"{verb} --help") is None
        assert capsys.readouterr().out.startswith(f"usage: %oo {verb}")


def test_update_all_runs_the_stale_documents(shell: InteractiveShell, demo: Path) -> None:
    out = oo(shell, f"update-all {demo} --no-progress")
    text = out.to_text()
    assert (
        "heat-pumps-in-europe" in text
        and "open-weight-language-models" in text
        and "2 proposed" in text
    )
    assert Document.read(HEAT).manifest.version == 1  # without --yes: proposals only
    with pytest.raises(UsageError, match="--concurrency"):
        oo(shell, f"update-all {demo} --concurrency many")


def test_new_with_first_update_returns_the_document_as_written(
    shell: InteractiveShell, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools.demo_script import ARTEMIS

    assert ARTEMIS.sentinel is not None
    doc = oo(
        shell, f'new "{ARTEMIS.title}" --dir {demo} --sentinel "{ARTEMIS.sentinel}" --every 7 --yes'
    )
    assert (
        doc.manifest.version == 1 and not doc.article.is_stub
    )  # the recorded first update, written
    assert "proposal v1 from replay" in capsys.readouterr().out
    pending = oo(
        shell, f'new "{ARTEMIS.title}" --dir {demo}/other --sentinel "{ARTEMIS.sentinel}" --every 7'
    )
    assert pending.manifest.version == 0
    out = capsys.readouterr().out
    assert "not researched yet" in out and "no recorded run" in out


def test_library_notes_unreadable_files(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.lost_samples import mixed_folder

    folder = mixed_folder(tmp_path)
    lib = oo(shell, f"library {folder}")
    assert len(lib) == 3
    err = capsys.readouterr().err
    assert (
        "note: 2 of 5 files could not be read (1 more only in part); "
        "see the Library's `.errors` frame (`lib.errors`)" in err
    )


def test_history_frame_flags_a_missing_snapshot(shell: InteractiveShell, tmp_path: Path) -> None:
    from tests.support.lost_samples import three_writes

    path = three_writes(tmp_path)
    snapshot = store.read_history(path)[0].snapshot
    assert snapshot is not None
    snapshot.unlink()
    frame = oo(shell, f"history {path}")
    assert list(frame["state"]) == [
        "replaced by edit 5 (snapshot missing)",
        "replaced by edit 6",
        "replaced by edit 7",
        "current",
    ]
