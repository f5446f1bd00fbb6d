"""The shipped demo library: install/reset, refusal of foreign folders, valid documents, and
cassettes that replay through the real update path without a key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.demo import CASSETTE_DIR, DATA_DIR, MARKER, demo_today, install_demo
from oo_nb.errors import ConflictError, OOError
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from tools.demo_build import proposal_for_round
from tools.demo_script import ARTEMIS, DEMO_TODAY, DOCS, HEAT_PUMPS

SHIPPED = json.loads((DATA_DIR / "demo.json").read_text())


@pytest.fixture
def today(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OO_TODAY", DEMO_TODAY.isoformat())
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return DEMO_TODAY.isoformat()


def test_manifest_matches_the_script() -> None:
    assert SHIPPED["today"] == demo_today() == DEMO_TODAY.isoformat()
    assert len(SHIPPED["documents"]) == sum(d.shipped for d in DOCS) >= 4
    assert len(SHIPPED["cassettes"]) == sum(d.next_round is not None for d in DOCS)


def test_install_copies_documents_cassettes_marker_and_index(tmp_path: Path, today: str) -> None:
    result = install_demo(tmp_path / "lib")
    lib = tmp_path / "lib"
    assert [p.name for p in result.documents] == SHIPPED["documents"]
    for p in result.documents:
        assert p.read_bytes() == (DATA_DIR / "documents" / p.name).read_bytes()
        assert p.stat().st_mode & 0o111  # a document is also a bash script
    assert sorted(p.name for p in (lib / CASSETTE_DIR).iterdir()) == sorted(SHIPPED["cassettes"])
    assert json.loads((lib / MARKER).read_text())["today"] == today
    assert result.index == lib / "index.o-o.html" and Document.read(result.index).kind == "index"
    assert (
        not result.reset
        and "4 documents" in result.to_text()
        and "OO_TODAY=2026-12-01" in result.to_text()
    )


def test_reinstall_resets_what_the_demo_owns_and_keeps_other_files(
    tmp_path: Path, today: str
) -> None:
    lib = tmp_path / "lib"
    install_demo(lib)
    first = lib / SHIPPED["documents"][0]
    first.write_bytes(first.read_bytes().replace(b"Overview", b"Overview (edited)", 1))
    (lib / "made-by-a-notebook.o-o.html").write_bytes(first.read_bytes())
    (lib / ".oo-history" / "x").mkdir(parents=True)
    (lib / "notes.txt").write_text("mine")
    result = install_demo(lib, index=False, reset=True)
    assert result.reset and result.to_text().startswith("demo library ready")
    assert first.read_bytes() == (DATA_DIR / "documents" / first.name).read_bytes()
    assert not (lib / "made-by-a-notebook.o-o.html").exists()
    assert not (lib / ".oo-history").exists() and not (lib / "index.o-o.html").exists()
    assert (lib / "notes.txt").read_text() == "mine"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _edit(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"Overview", b"Overview (edited)", 1))


@pytest.mark.parametrize("change", ["edited", "history", "pending", "other document"])
def test_reinstall_refuses_to_delete_the_users_work(
    tmp_path: Path, today: str, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from oo_nb.cli.main import main
    from oo_nb.store import store

    lib = tmp_path / "lib"
    install_demo(lib)
    first = lib / SHIPPED["documents"][0]
    if change == "edited":
        _edit(first)
        words = f"1 edited demo document(s) ({first.name})"
    elif change == "history":  # an edit through the store: the demo bytes are now history
        doc = Document.read(first).edit_block("oo-manifest", lambda m: m.update(version=9))
        store.write_document(doc, expected=Document.read(first).to_bytes(), action="edit")
        words = f"the kept history of 1 document(s) ({first.name})"
    elif change == "pending":
        store.save_pending(first, Document.read(first), {}, first.read_bytes())
        words = f"1 proposal(s) waiting for review ({first.name})"
    else:
        (lib / "mine.o-o.html").write_bytes(first.read_bytes())
        words = "1 other document(s) (mine.o-o.html)"
    before = _snapshot(lib)
    with pytest.raises(ConflictError, match="--reset") as caught:
        install_demo(lib)
    assert words in str(caught.value) and "Nothing touched" in str(caught.value)
    assert _snapshot(lib) == before
    assert main(["demo", str(lib), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err and "--reset" in err
    assert _snapshot(lib) == before
    assert main(["demo", str(lib), "--quiet", "--reset"]) == 0  # on purpose: the work is lost
    assert first.read_bytes() == (DATA_DIR / "documents" / first.name).read_bytes()
    assert install_demo(lib).reset  # and the folder is a clean demo again


def test_an_unchanged_demo_folder_is_reinstalled_silently(tmp_path: Path, today: str) -> None:
    from oo_nb.library.index_page import write_index
    from oo_nb.store import store

    lib = tmp_path / "lib"
    install_demo(lib, index=False)
    write_index(lib, title="rebuilt")  # index pages are rebuilt from the documents: not work
    first = lib / SHIPPED["documents"][0]
    with store.document_lock(first, "test"):  # a lock file alone is no history
        pass
    assert install_demo(lib).reset
    # a marker from before the checksums were recorded: the shipped bytes are the reference
    marker = json.loads((lib / MARKER).read_text())
    del marker["sha256"]
    (lib / MARKER).write_text(json.dumps(marker))
    assert install_demo(lib).reset
    (lib / MARKER).write_text(json.dumps(marker))
    _edit(first)
    with pytest.raises(ConflictError, match="edited demo document"):
        install_demo(lib)


def test_foreign_folders_are_refused_untouched(tmp_path: Path) -> None:
    (tmp_path / "mine.o-o.html").write_text("precious")
    with pytest.raises(OOError, match="not a demo library"):
        install_demo(tmp_path)
    assert (tmp_path / "mine.o-o.html").read_text() == "precious"
    with pytest.raises(OOError, match="not a folder"):
        install_demo(tmp_path / "mine.o-o.html")


def test_shipped_documents_are_valid_populated_and_labelled_demo(tmp_path: Path) -> None:
    for name in SHIPPED["documents"]:
        path = DATA_DIR / "documents" / name
        assert [f for f in check_path(path) if f.severity == "error"] == []
        doc = Document.read(path)
        assert doc.manifest.version == 1 and not doc.article.is_stub
        assert "demo document" in doc.article_html
        assert doc.changelog.latest is not None and "recorded" in json.dumps(
            doc.block_json("oo-changelog")
        )


def test_demo_cli_is_quiet_and_idempotent(tmp_path: Path) -> None:
    for _ in range(2):
        r = subprocess.run(
            [sys.executable, "-m", "oo_nb", "demo", str(tmp_path / "d"), "--quiet"],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_quickstart_cassette_replays_into_a_proposal_with_several_hunks(
    tmp_path: Path, today: str
) -> None:
    from oo_nb.agent.run import UpdateOptions, prepare_update
    from oo_nb.review.diff import diff_documents

    install_demo(tmp_path, index=False)
    path = tmp_path / "heat-pumps-in-europe.o-o.html"
    result = prepare_update(path, UpdateOptions())  # no key: the replay agent, found by file name
    assert result.status == "proposed" and result.agent == "replay"
    assert result.candidate is not None and not result.candidate.unverified
    new = result.candidate.document
    assert (
        new.manifest.version == 2
        and new.manifest.as_of is not None
        and new.manifest.as_of.isoformat() == today
    )
    kinds = [(h.kind, h.section) for h in diff_documents(Document.read(path), new).decidable]
    assert ("changed", "overview") in kinds and ("added", "tariffs") in kinds
    assert len(kinds) >= 3


def test_notebook_sentinel_cassette_fits_a_document_made_with_oo_new(
    tmp_path: Path, today: str
) -> None:
    from oo_nb.agent.run import UpdateOptions, prepare_update
    from oo_nb.edit.new import NewSpec, create_document

    install_demo(tmp_path, index=False)
    doc = create_document(
        NewSpec.from_text(ARTEMIS.title, every_days=ARTEMIS.every, sentinel=ARTEMIS.sentinel),
        tmp_path,
    )
    assert doc.path is not None and (tmp_path / CASSETTE_DIR / f"{doc.path.name}.json").exists()
    result = prepare_update(doc.path, UpdateOptions())
    assert result.candidate is not None
    new = result.candidate.document
    assert new.contract.sentinel is not None and new.contract.sentinel.status == "not_occurred"
    assert [s.id for s in new.article.sections][:3] == [
        "status",
        "latest-signals",
        "what-would-count",
    ]


def test_round_proposals_carry_pids_by_position() -> None:
    doc = Document.read(DATA_DIR / "documents" / "heat-pumps-in-europe.o-o.html")
    assert HEAT_PUMPS.next_round is not None
    proposal = proposal_for_round(doc, HEAT_PUMPS.next_round)
    overview = next(s for s in proposal["sections"] if s["id"] == "overview")["html"]
    old = [p.pid for p in doc.article.paragraphs if p.section == "overview"]
    assert all(f"<!-- {pid} -->" in overview for pid in old)
    tariffs = next(s for s in proposal["sections"] if s["id"] == "tariffs")["html"]
    assert "<!--" not in tariffs  # a new section: new paragraphs, new pids


def test_oo_agent_picks_the_default_backend_even_with_a_key(
    tmp_path: Path, today: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from oo_nb.agent.run import UpdateOptions, prepare_update

    install_demo(tmp_path, index=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-real")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # would fail loudly if used
    monkeypatch.setenv("OO_AGENT", "replay")
    result = prepare_update(tmp_path / "heat-pumps-in-europe.o-o.html", UpdateOptions())
    assert result.agent == "replay" and result.status == "proposed"


def test_a_fresh_demo_is_in_sync_with_its_own_version(tmp_path: Path, today: str) -> None:
    """`oo demo` then `oo sync --dry-run`: nothing to update (the shipped pages carry this
    version's page code; a template change re-syncs them: `oo sync oo_nb/demo/data/documents`
    through a scratch folder)."""
    from oo_nb.edit.sync import sync_dir

    install_demo(tmp_path / "demo")
    reports = sync_dir(tmp_path / "demo", dry_run=True).reports
    assert {r.rel: r.status for r in reports if r.status != "unchanged"} == {}
    assert len(reports) == len(SHIPPED["documents"]) + 1  # and the index
