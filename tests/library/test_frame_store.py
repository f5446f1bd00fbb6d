"""A warm library's four frames come from DIR/.oo-cache/frame-NAME.arrow, built from no digest,
and are never wrong: a changed file, another day, a damaged, planted or linked file each give
the frames a library without the cache gives."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

import oo_nb
from oo_nb.cli.library import unreadable_note
from oo_nb.library import frames as frames_module
from oo_nb.library.library import STORED, Library
from oo_nb.library.scan import Known
from tests.conftest import CORPUS
from tests.library.test_library import FIXTURES

TODAY = date(2026, 3, 1)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for path in [*CORPUS.glob("*.o-o.html"), *FIXTURES.glob("*.o-o.html")]:
        shutil.copy(path, root / path.name)
    return root


def assert_as_built(folder: Path, day: date = TODAY) -> Library:
    """A library on the cache whose four frames equal those of one without it."""
    lib = Library(folder, today=day, workers=1)
    plain = Library(folder, today=day, workers=1, cache=False)
    for name in STORED:
        pd.testing.assert_frame_equal(plain.frame(name), lib.frame(name))
    return lib


def no_building(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("built, not loaded")

    for name in STORED:
        monkeypatch.setattr(frames_module, f"{name}_frame", refuse)


def test_a_warm_library_loads_its_frames_without_building_them(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = assert_as_built(folder)
    expected = {name: built.frame(name) for name in STORED}
    assert {p.name for p in (folder / ".oo-cache").glob("frame-*.arrow")} == {
        f"frame-{name}.arrow" for name in (*STORED, "errors")
    }
    no_building(monkeypatch)
    warm = Library(folder, today=TODAY, workers=1)
    for name in STORED:
        pd.testing.assert_frame_equal(expected[name], warm.frame(name))
    assert warm.audit(all=True) is not None  # the rest still decodes the digests


def test_a_changed_document_or_another_day_builds_them_again(folder: Path) -> None:
    assert_as_built(folder)
    doc = next(folder.glob("*.o-o.html"))
    doc.write_bytes(doc.read_bytes().replace(b'"title": "', b'"title": "Renamed ', 1))
    lib = assert_as_built(folder)
    assert lib.documents["title"].str.startswith("Renamed ").sum() == 1
    assert_as_built(folder, date(2027, 6, 1))  # staleness judged on the new day
    (folder / "extra.o-o.html").write_bytes(doc.read_bytes())
    assert len(assert_as_built(folder).documents) == len(lib.documents) + 1


def _planted(stored: Path, change: Any) -> None:
    """Rewrite the stored frame with ``change`` applied to its table, keeping its key."""
    table = pa.ipc.open_file(pa.BufferReader(stored.read_bytes())).read_all()
    table = change(table).replace_schema_metadata(table.schema.metadata)
    with pa.OSFile(str(stored), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _replaced(stored: Path, planted: bytes) -> bool:
    """The stored frame is one written again (its key may differ: a file that was recent at
    the first scan is keyed on its bytes, later on its stamp alone)."""
    data = stored.read_bytes()
    return data != planted and pa.ipc.open_file(pa.BufferReader(data)).read_all().num_rows > 0


def test_a_damaged_or_planted_frame_is_ignored_and_replaced(folder: Path) -> None:
    assert_as_built(folder)
    stored = folder / ".oo-cache" / "frame-documents.arrow"
    good = stored.read_bytes()
    for planted in (b"ARROW1\x00\x00 not an Arrow file at all", good[: len(good) // 2]):
        stored.write_bytes(planted)  # damaged, cut short
        assert_as_built(folder)
        assert _replaced(stored, planted)
    # the right key, a column of another type, or a row left out: refused
    _planted(stored, lambda t: t.set_column(1, "title", pa.array(range(len(t)))))
    planted = stored.read_bytes()
    assert_as_built(folder)
    assert _replaced(stored, planted)
    _planted(stored, lambda t: t.slice(1))
    planted = stored.read_bytes()
    assert_as_built(folder)
    assert _replaced(stored, planted)
    # the right key and text that is not UTF-8: refused (validated before a value is read)
    good = stored.read_bytes()
    assert b"AGI Declared" in good
    planted = good.replace(b"AGI Declared", b"\xff" * 12)
    stored.write_bytes(planted)
    assert_as_built(folder)
    assert _replaced(stored, planted)


def test_lists_come_back_as_lists(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = assert_as_built(folder)
    no_building(monkeypatch)
    facts = Library(folder, today=TODAY, workers=1).facts
    assert facts["source_ids"].map(type).isin([list, type(None)]).all()
    assert facts["source_ids"].tolist() == built.facts["source_ids"].tolist()


def test_a_linked_frame_file_is_never_read_or_written(folder: Path, tmp_path: Path) -> None:
    assert_as_built(folder)
    outside = tmp_path / "outside.arrow"
    stored = folder / ".oo-cache" / "frame-sources.arrow"
    outside.write_bytes(stored.read_bytes())
    stored.unlink()
    stored.symlink_to(outside)
    before = outside.read_bytes()
    (folder / "extra.o-o.html").write_bytes(next(folder.glob("*.o-o.html")).read_bytes())
    assert_as_built(folder)
    assert outside.read_bytes() == before and stored.is_symlink()


def test_a_library_without_its_cache_stores_no_frame(folder: Path) -> None:
    lib = Library(folder, today=TODAY, workers=1, cache=False)
    for name in STORED:
        lib.frame(name)
    assert not (folder / ".oo-cache").exists()


def test_the_unreadable_note_of_a_warm_library_decodes_no_digest(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "not-a-document.o-o.html").write_text("<html>no blocks</html>")
    expected = unreadable_note(oo_nb.Library(folder, today=TODAY, workers=1, cache=False))
    assert expected is not None and "only in part" in expected  # both kinds in the fixtures
    unreadable_note(oo_nb.Library(folder, today=TODAY, workers=1))  # stores the frames

    def refuse(*_args: object) -> None:
        raise AssertionError("a digest decoded")

    monkeypatch.setattr(Known, "resolve", refuse)
    assert unreadable_note(oo_nb.Library(folder, today=TODAY, workers=1)) == expected


def test_building_a_frame_stores_the_errors_frame_too(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Library(folder, today=TODAY, workers=1).facts  # noqa: B018  (built: the digests decoded)
    assert (folder / ".oo-cache" / "frame-errors.arrow").is_file()
    monkeypatch.setattr(Known, "resolve", lambda *_a: pytest.fail("a digest decoded"))
    assert len(Library(folder, today=TODAY, workers=1).errors)


def test_a_warm_audit_is_loaded_stored_and_decodes_no_digest(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = Library(folder, today=TODAY, workers=1, cache=False)
    every, summary = plain.audit(all=True), plain.audit()
    built = Library(folder, today=TODAY, workers=1).audit(all=True)
    pd.testing.assert_frame_equal(every, built)
    assert (folder / ".oo-cache" / "frame-audit.arrow").is_file()
    monkeypatch.setattr(Known, "resolve", lambda *_a: pytest.fail("a digest decoded"))
    warm = Library(folder, today=TODAY, workers=1)
    pd.testing.assert_frame_equal(every, warm.audit(all=True))
    pd.testing.assert_frame_equal(summary, warm.audit())


def test_a_stored_audit_is_not_served_for_another_limit_or_day(folder: Path) -> None:
    Library(folder, today=TODAY, workers=1).audit(all=True)  # stored for 365 days, TODAY
    for day, limit in ((TODAY, 30), (date(2031, 1, 1), 365)):
        plain = Library(folder, today=day, workers=1, cache=False).audit(limit, all=True)
        warm = Library(folder, today=day, workers=1).audit(limit, all=True)
        pd.testing.assert_frame_equal(plain, warm)
    old = Library(folder, today=TODAY, workers=1).audit(30, all=True)
    assert (old["code"] == "old-source").sum() > 0  # the limit really changes the findings


def test_a_stored_audit_gains_the_links_checked_after_it(folder: Path) -> None:
    from oo_nb.store.link_store import LinkRow, write_links

    Library(folder, today=TODAY, workers=1).audit(all=True)  # stored without link findings
    sources = Library(folder, today=TODAY, workers=1).sources
    url = sources["url"].dropna().iloc[0]
    from oo_nb.store import clock

    when = clock.now().isoformat()  # as `oo links` dates a check
    write_links(folder, [LinkRow(url, 404, None, True, "dead", False, None, when)])
    warm = Library(folder, today=TODAY, workers=1).audit(all=True)
    plain = Library(folder, today=TODAY, workers=1, cache=False).audit(all=True)
    pd.testing.assert_frame_equal(plain, warm)
    dead = warm[warm["code"] == "dead-link"]
    assert len(dead) == (sources["url"] == url).sum() > 0
