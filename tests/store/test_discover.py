"""The one library walk (store.discover): what is searched, what is left out, and index pages
told from documents by content."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from oo_nb.errors import NotFound
from oo_nb.store.discover import SKIP_DIRS, documents, is_index_page, walk


@pytest.fixture
def folder(tmp_path: Path, corpus_dir: Path) -> Path:
    doc = corpus_dir / "agi-declared.o-o.html"
    for rel in [
        "a.o-o.html",
        "sub/deeper/b.o-o.html",
        ".oo-history/a.o-o.html/snapshots/v1.o-o.html",
        ".oo-cassettes/a.o-o.html",
        ".git/c.o-o.html",
        ".ipynb_checkpoints/a-checkpoint.o-o.html",
        "node_modules/pkg/d.o-o.html",
        ".hidden.o-o.html",
        "index-funds.o-o.html",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(doc, tmp_path / rel)
    shutil.copy(corpus_dir / "index.o-o.html", tmp_path / "index.o-o.html")
    shutil.copy(corpus_dir / "index.o-o.html", tmp_path / "sub" / "INDEX-old.o-o.html")
    (tmp_path / "folder.o-o.html").mkdir()  # not a file
    (tmp_path / "notes.html").write_text("<p>not a document</p>")
    return tmp_path


def names(paths: list[Path], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_walk_lists_every_page_sorted_and_skips_hidden_history_and_node_modules(
    folder: Path,
) -> None:
    assert names(walk(folder), folder) == [
        "a.o-o.html",
        "index-funds.o-o.html",
        "index.o-o.html",
        "sub/INDEX-old.o-o.html",
        "sub/deeper/b.o-o.html",
    ]
    assert names(walk(folder, recursive=False), folder) == [
        "a.o-o.html",
        "index-funds.o-o.html",
        "index.o-o.html",
    ]


def test_documents_leave_index_pages_out_by_content(folder: Path) -> None:
    assert names(documents(folder), folder) == [
        "a.o-o.html",
        "index-funds.o-o.html",
        "sub/deeper/b.o-o.html",
    ]
    assert is_index_page(folder / "index.o-o.html")
    assert is_index_page(folder / "sub" / "INDEX-old.o-o.html")
    assert not is_index_page(folder / "index-funds.o-o.html")
    assert not is_index_page(folder / "missing.o-o.html")


def test_a_missing_folder_or_a_file_is_an_error(folder: Path) -> None:
    with pytest.raises(NotFound, match="no such folder") as missing:
        walk(folder / "nope")
    assert missing.value.file == str(folder / "nope")
    with pytest.raises(NotFound, match="is a file, not a folder"):
        walk(folder / "a.o-o.html")


def test_a_dangling_link_is_listed_so_its_read_fails_loudly(folder: Path) -> None:
    (folder / "gone.o-o.html").symlink_to(folder / "nowhere.o-o.html")
    assert "gone.o-o.html" in names(walk(folder), folder)
    assert "gone.o-o.html" in names(documents(folder), folder)


def _os_walk_reference(root: Path, recursive: bool) -> list[Path]:
    """The walk as it was written on ``os.walk`` and ``Path`` sorting (the scandir walk must
    list the same paths in the same order)."""
    found: list[Path] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = (
            [d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS] if recursive else []
        )
        for name in files:
            if name.endswith(".o-o.html") and not name.startswith("."):
                path = Path(here) / name
                if path.is_file() or path.is_symlink():
                    found.append(path)
    # a link to a file listed by its own name is the same file: listed once, by that name
    plain = {p.resolve() for p in found if not p.is_symlink()}
    return sorted(p for p in found if not (p.is_symlink() and p.resolve() in plain))


def test_the_walk_lists_what_os_walk_and_path_sorting_list(folder: Path) -> None:
    doc = folder / "a.o-o.html"
    for rel in [
        "a-b/x.o-o.html", "a/b.o-o.html", "a.b/c.o-o.html", "A/z.o-o.html", "é/ü.o-o.html",
        "a b/c.o-o.html", "a/b/c/d/e.o-o.html", "a/b-c.o-o.html", "a0/x.o-o.html",
        "sub/node_modules/x.o-o.html", "sub/.cache/x.o-o.html",
    ]:  # fmt: skip
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(doc, folder / rel)
    (folder / "linked-dir").symlink_to(folder / "sub", target_is_directory=True)
    (folder / "linked.o-o.html").symlink_to(doc)
    (folder / "dangling.o-o.html").symlink_to(folder / "nowhere")
    os.mkfifo(folder / "pipe.o-o.html")
    for recursive in (True, False):
        expected = _os_walk_reference(folder, recursive)
        assert walk(folder, recursive=recursive) == expected
        assert [str(p) for p in walk(folder, recursive=recursive)] == [str(p) for p in expected]
    assert "linked-dir/deeper/b.o-o.html" not in names(walk(folder), folder)  # not followed
    assert "pipe.o-o.html" not in names(walk(folder), folder)
