"""A warm library's four frames come from DIR/.oo-cache/frame-NAME.npz, built from no digest,
and are never wrong: a changed file, another day, a damaged, planted or linked file each give
the frames a library without the cache gives."""

from __future__ import annotations

import io
import json
import shutil
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from oo_nb.library import frames as frames_module
from oo_nb.library.library import STORED, Library
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
    assert {p.name for p in (folder / ".oo-cache").glob("frame-*.npz")} == {
        f"frame-{name}.npz" for name in STORED
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


def test_a_damaged_or_planted_frame_is_ignored_and_replaced(folder: Path) -> None:
    assert_as_built(folder)
    stored = folder / ".oo-cache" / "frame-documents.npz"
    stored.write_bytes(b"PK\x03\x04 not a zip at all")
    assert_as_built(folder)
    assert stored.read_bytes()[:2] == b"PK" and len(stored.read_bytes()) > 100  # replaced
    # a pickle in the file (np.load would run it with allow_pickle): refused
    buf = io.BytesIO()
    np.savez(buf, meta=np.array([{"key": "x"}], dtype=object))
    stored.write_bytes(buf.getvalue())
    assert_as_built(folder)
    # the right key and lengths that do not add up: refused
    with np.load(stored) as arrays:
        meta = json.loads(arrays["meta"].tobytes())
        planted = {k: arrays[k] for k in arrays.files}
    planted["c1lengths"] = planted["c1lengths"] + 1
    buf = io.BytesIO()
    np.savez(buf, **planted)
    stored.write_bytes(buf.getvalue())
    assert meta["key"] and assert_as_built(folder).documents is not None


def test_a_linked_frame_file_is_never_read_or_written(folder: Path, tmp_path: Path) -> None:
    assert_as_built(folder)
    outside = tmp_path / "outside.npz"
    stored = folder / ".oo-cache" / "frame-sources.npz"
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
