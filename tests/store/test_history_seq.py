"""History entries that share a version number (contract edits and `oo sync` keep it) are
reachable by their seq, and `--to VERSION` no longer claims a rollback that wrote nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.errors import NotFound
from oo_nb.format.document import Document
from oo_nb.store import store

DOC = "agi-declared.o-o.html"


@pytest.fixture
def edited(corpus_copy: Path) -> tuple[Path, bytes, bytes]:
    """A document after one contract edit: (path, bytes before the edit, bytes after it)."""
    p = corpus_copy / DOC
    before = p.read_bytes()
    assert main(["contract", str(p), "--set", "tone", "dry"]) == 0
    after = p.read_bytes()
    assert (
        after != before
        and Document.parse(after).manifest.version == Document.parse(before).manifest.version
    )
    return p, before, after


def _out(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_contract_edit_then_rollback_by_seq_restores_the_pre_edit_bytes(
    edited: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, before, after = edited
    version = Document.parse(before).manifest.version
    assert [(e.seq, e.version) for e in store.read_history(p)] == [(1, version), (2, version)]
    _out(capsys)
    assert main(["rollback", str(p), "--seq", "1"]) == 0
    assert p.read_bytes() == before
    assert (
        f"restored seq 1 (version {version}; the previous file is kept in history as seq 2)"
        in _out(capsys)
    )
    hist = store.read_history(p)
    # the rollback is recorded: the edited file is kept as seq 2, named by the rollback that replaced it
    assert [(e.seq, e.action) for e in hist] == [
        (1, "contract edit"),
        (2, f"rollback to v{version} (seq 1)"),
        (3, "current"),
    ]
    assert store.seq_bytes(p, 2) == after and store.seq_bytes(p, 3) == before
    store.rollback(p, seq=2)  # and it can be undone by seq as well
    assert p.read_bytes() == after


def test_to_an_ambiguous_version_restores_the_older_differing_snapshot(
    edited: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, before, _ = edited
    version = Document.parse(before).manifest.version
    _out(capsys)
    assert main(["rollback", str(p), "--to", str(version)]) == 0
    assert p.read_bytes() == before
    out = _out(capsys)
    assert f"restored version {version} from seq 1" in out
    assert f"seq 1, 2 all carry version {version}" in out and "--seq N" in out
    done = store.restore(
        p, version
    )  # again: now the newest differing state is the edited one (seq 2)
    assert done.written and done.pick.entry.seq == 2 and done.pick.same_version == (1, 2, 3)


def test_rollback_to_the_current_state_writes_nothing_and_says_so(
    edited: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, _, after = edited
    log = store.history_dir(p) / "log.jsonl"
    log_before, mtime = log.read_bytes(), p.stat().st_mtime_ns
    _out(capsys)
    assert main(["rollback", str(p), "--seq", "2"]) == 0
    out = _out(capsys)
    version = Document.parse(after).manifest.version
    assert f"already at version {version} (seq 2); nothing written" in out and "restored" not in out
    assert (
        p.read_bytes() == after and p.stat().st_mtime_ns == mtime and log.read_bytes() == log_before
    )
    # a version whose every state is the current file: the same answer, not a false "restored"
    q = p.parent / "yc-w26-batch.o-o.html"
    v = Document.read(q).manifest.version
    assert main(["rollback", str(q), "--to", str(v)]) == 0
    assert f"already at version {v} (seq 1); nothing written" in _out(capsys)
    assert (
        store.read_history(q)[-1].seq == 1
        and not store.history_dir(q).joinpath("log.jsonl").exists()
    )


def test_diff_by_seq_shows_the_contract_change(
    edited: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, before, _ = edited
    version = Document.parse(before).manifest.version
    _out(capsys)
    assert main(["diff", str(p), "--from-seq", "1", "--to-seq", "2"]) == 0
    out = _out(capsys)
    assert f"v{version} → v{version} (seq 1 → seq 2)" in out
    assert '+ identity.tone: "dry"' in out and "no changes" not in out
    # --from VERSION alone also finds the pre-edit state instead of comparing the file with itself
    assert main(["diff", str(p), "--from", str(version)]) == 0
    out = _out(capsys)
    assert '+ identity.tone: "dry"' in out and "compared seq 1" in out


def test_a_bad_seq_is_a_clear_error_naming_the_file(
    edited: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, _, after = edited
    with pytest.raises(NotFound, match=r"no seq 9 in history \(seqs 1-2") as info:
        store.rollback(p, seq=9)
    assert info.value.file == str(p)
    with pytest.raises(NotFound, match="no seq 0"):
        store.seq_bytes(p, 0)
    capsys.readouterr()
    assert main(["rollback", str(p), "--seq", "9"]) == 2
    assert main(["diff", str(p), "--from-seq", "7"]) == 2
    err = capsys.readouterr().err
    assert f"{p}: no seq 9 in history" in err and f"{p}: no seq 7 in history" in err
    assert p.read_bytes() == after
    with pytest.raises(SystemExit):  # --to and --seq name the target twice
        main(["rollback", str(p), "--to", "1", "--seq", "1"])


def test_history_text_makes_seq_obvious_and_hints_at_it(
    edited: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, before, _ = edited
    capsys.readouterr()
    assert main(["history", str(p)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["seq", "version", "sha256"]
    assert lines[1].split()[0] == "1" and lines[2].split()[0] == "2"
    assert store.read_history(p)[0].sha256[:8] in lines[1]
    assert f"oo rollback {p} --seq N" in out and f"oo diff {p} --from-seq N" in out
    version = Document.parse(before).manifest.version
    assert f"version {version} is carried by seq 1, 2, not all with the same contents" in out
