"""A folder of o-o documents as tidy pandas frames: documents, sources, facts, changelog,
citations, errors, and the audit's findings.

    lib = Library("docs/", today=date(2026, 3, 1))      # today: default clock.today()
    lib.documents[lib.documents.is_stale]               # one row per document
    lib.sources.groupby("tier_group", observed=True).size()  # one row per cached source
    lib.audit(stale_after_days=180)                     # per document and code; all=True: each
    lib["agi-declared"]                                 # the full Document, read on demand
    lib.plot_staleness(); lib.refresh()

Discovery (``store.discover``) skips index pages (by content, not by name), history folders and
hidden folders; one unreadable file never stops the scan (it lands in ``errors``). Each document
is reduced to a ``Digest`` (rows, not text), in two worker processes for large libraries (or on
any ``concurrent.futures.Executor`` passed as ``executor``, a Dask cluster's say), and kept in
the library's cache (``DIR/.oo-cache/library.sqlite``, ``library.scan``): a later scan, in
this process or another, parses only the files that changed (``cache=False``: memory only);
``lib["slug"]`` re-reads the full Document on demand. Everything that depends on the date takes
``today`` so notebooks and tests get stable output."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from oo_nb import skin
from oo_nb.collector import paused as _gc_paused
from oo_nb.format.names import DOC_SUFFIX
from oo_nb.library.digest import Digest, Failure, relative_slug
from oo_nb.library.scan import Known, fetch_later, read_digests
from oo_nb.store.discover import LeftOut, documents, is_index_page

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from oo_nb.format.document import Document

__all__ = ["FRAMES", "Library", "discover", "is_index_page"]

FRAMES = ("documents", "sources", "facts", "changelog", "citations", "errors")
STORED = ("documents", "sources", "facts", "changelog")  # kept columnar: frame_store
_POOL_MIN_DOCS = 300  # below this a worker pool costs more than it saves


def discover(
    path: str | Path, recursive: bool = True, left_out: list[LeftOut] | None = None
) -> list[Path]:
    """Every document under ``path`` (``store.discover.documents``: sorted, index pages, hidden
    and history folders left out, each file once); a file is a library of one. ``left_out``
    gets the files named like documents that are not read, and why."""
    root = Path(path)
    if root.is_file():
        return [root]
    return documents(root, recursive=recursive, left_out=left_out)


FRAME_ATTR = "oo_nb_frame"  # DataFrame.attrs key: which library frame it is (for its display)


def _named(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    frame.attrs[FRAME_ATTR] = name
    return frame


class Library:
    """The documents under ``path``. Frames are computed on first use and cached until
    ``refresh()``; each access returns a copy, so callers may change it freely."""

    def __init__(
        self,
        path: str | Path = ".",
        recursive: bool = True,
        *,
        today: date | None = None,
        workers: int | None = None,
        cache: bool = True,
        executor: Executor | None = None,
    ) -> None:
        # absolute at open: a later chdir (a notebook's %cd) must not turn it to another folder
        self.root = Path(path).absolute()
        self.shown_as = Path(path)  # the folder as the caller named it, for the headline
        self.executor = executor  # the caller's, used and left running; None: our own pool
        self.use_cache = cache  # False: never read or write DIR/.oo-cache (memory only)
        self.recursive = recursive
        self._today = today
        self.workers = workers
        self._known: dict[str, Known] = {}
        self._decoded: list[Digest] | None = []
        self._failures: list[Failure] = []
        self.left_out: list[LeftOut] = []  # named like documents, not read: and why
        self._slugs: dict[str, str] = {}
        self._by_slug: dict[str, Digest] = {}
        self._cache: dict[tuple[Any, ...], pd.DataFrame] = {}
        self._stamps: str | None = None  # what stored frames are keyed on (frame_store)
        self.refresh()

    # ----------------------------------------------------------------- discovery
    def refresh(self) -> Library:
        """Re-scan the folder: documents added, changed or removed since. Only those are read
        again: the others keep their rows, from memory or from the library's cache on disk
        (``DIR/.oo-cache/library.sqlite``, see ``library.scan``)."""
        left_out: list[LeftOut] = []
        paths = discover(self.root, self.recursive, left_out)
        self.left_out = left_out
        is_dir = self.root.is_dir()
        base = self.root if is_dir else self.root.parent
        folder = self.root if is_dir and self.use_cache else None
        items = [(p, relative_slug(p, base)) for p in paths]
        workers = self.workers
        if workers is None:
            missing = sum(1 for p in paths if str(p) not in self._known)
            workers = min(2, os.cpu_count() or 1) if missing >= _POOL_MIN_DOCS else 1
        with _gc_paused():
            self._known = read_digests(
                items,
                folder,
                self._known,
                workers,
                recursive=self.recursive,
                executor=self.executor,
            )
        self._failures = []
        self._slugs = {}  # slug -> path, documents only
        for p, slug in items:
            found = self._known[str(p)]
            if found.is_digest:
                self._slugs[slug] = str(p)
            elif isinstance(found.result, Failure):
                self._failures.append(found.result)
        # a recent file's bytes may change under the same stamp: its hash is in the key too
        found_now = [self._known[str(p)] for p, _ in items]
        # by slug (the path relative to the library): the stored frames hold no other path
        trusted = folder is not None and all(k.stamp is not None for k in found_now)
        self._stamps = None
        if trusted:
            h = hashlib.blake2b(digest_size=16)
            for (_, slug), k in zip(items, found_now, strict=True):
                h.update(f"{slug}\0{(k.stamp, k.hash)!r}\n".encode("utf-8", "surrogatepass"))
            self._stamps = h.hexdigest()
        self._decoded = None
        self._cache.clear()
        return self

    @property
    def _digests(self) -> list[Digest]:
        """The documents' digests, decoded from the cache on first use (a rescan where nothing
        changed decodes nothing). A cached digest that turns out not to be one is read again
        from its file, which may then be a failure."""
        if self._decoded is None:
            decoded: list[Digest] = []
            with _gc_paused():
                fetch_later(self._known[path] for path in self._slugs.values())  # one query
                for slug, path in self._slugs.items():
                    result = self._known[path].resolve(path, slug)
                    if isinstance(result, Digest):
                        decoded.append(result)
                    elif isinstance(result, Failure):
                        self._failures.append(result)
            self._decoded = decoded
            self._by_slug = {d.slug: d for d in decoded}
        return self._decoded

    @property
    def today(self) -> date:
        from oo_nb.store import clock  # OO_TODAY pins the date for demos and nbval

        return self._today or clock.today()

    @property
    def digests(self) -> list[Digest]:
        return list(self._digests)

    @property
    def failures(self) -> list[Failure]:
        self._digests  # noqa: B018  (decoding may find more)
        return list(self._failures)

    @property
    def paths(self) -> list[Path]:
        return [Path(d.path) for d in self._digests]

    @property
    def slugs(self) -> list[str]:
        return [d.slug for d in self._digests]

    def __len__(self) -> int:
        return len(self._digests)

    def __iter__(self) -> Iterator[str]:
        return iter(self.slugs)

    def __contains__(self, slug: object) -> bool:
        self._digests  # noqa: B018  (decoded on first use)
        return slug in self._by_slug

    def __getitem__(self, slug: str) -> Document:
        """The full Document, read from disk now (the library keeps only its rows)."""
        from oo_nb.format.document import Document

        key = str(slug).removesuffix(DOC_SUFFIX)
        self._digests  # noqa: B018  (decoded on first use)
        digest = self._by_slug.get(key)
        failed = next((f for f in self.failures if f.slug == key), None)
        if digest is None and failed is not None:
            return Document.read(failed.path)  # raises the reading error, with file and line
        if digest is None:
            import difflib

            close = difflib.get_close_matches(str(slug), self._by_slug, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"no document {slug!r} in {self.root}{hint}")
        return Document.read(digest.path)

    # ----------------------------------------------------------------- frames
    def _cached(self, key: tuple[Any, ...], build: Any) -> pd.DataFrame:
        if key not in self._cache:
            with _gc_paused():
                self._cache[key] = build()
        return self._cache[key].copy()

    def frame(self, name: str, *, today: date | None = None) -> pd.DataFrame:
        """One frame by name: documents, sources, facts, changelog, citations, errors, audit."""
        if name == "audit":  # the tidy frame: one row per finding
            return self.audit(today=today, all=True)
        if name not in FRAMES:
            raise ValueError(f"unknown frame {name!r}; choose from {', '.join((*FRAMES, 'audit'))}")
        from oo_nb.library import frames

        day = today or self.today
        dated = name in ("documents", "sources")
        key = (name, day) if dated else (name,)
        build = getattr(frames, f"{name}_frame")
        if name == "errors":
            make = lambda: build(self._digests, self._failures)  # noqa: E731
        elif dated:
            make = lambda: build(self._digests, day)  # noqa: E731
        else:
            make = lambda: build(self._digests)  # noqa: E731
        if (name in STORED or name == "errors") and self._stamps is not None:
            # the errors frame holds each file's path as the library was opened with it
            variant = day if dated else (str(self.root) if name == "errors" else None)
            make = self._stored(name, variant, make)
        if name == "sources":  # link statuses change with every `oo links`: never cached
            from oo_nb.library.link_frames import add_link_status

            return _named(add_link_status(self._cached(key, make), self.root), name)
        return _named(self._cached(key, make), name)

    def _stored(self, name: str, day: date | str | None, build: Any) -> Any:
        """``build``, or the frame stored by a library whose documents had the same stamps
        (``frame_store``: loading it decodes no digest); what is built is stored."""
        from oo_nb.library.frame_store import frame_key, load_frame, save_frame

        assert self._stamps is not None
        key = frame_key(self._stamps, day)

        def load_or_build() -> pd.DataFrame:
            found = load_frame(self.root, name, key)
            if found is None:
                found = build()
                save_frame(self.root, name, key, found)
                if name != "errors" and ("errors",) not in self._cache:
                    self.frame("errors")  # the digests are decoded now: a few rows more
            return found

        return load_or_build

    def reading_counts(self) -> tuple[int, int, int]:
        """(files that could not be read, documents read only in part, documents), from the
        documents and errors frames: a warm library loads them stored and decodes no digest."""
        errors = self.frame("errors")
        documents = len(self.frame("documents"))
        unreadable = {f.path for f in self._failures}
        partial = set(errors["path"].dropna()) - unreadable
        return len(unreadable), len(partial), documents

    @property
    def documents(self) -> pd.DataFrame:
        return self.frame("documents")

    @property
    def sources(self) -> pd.DataFrame:
        return self.frame("sources")

    @property
    def facts(self) -> pd.DataFrame:
        return self.frame("facts")

    @property
    def changelog(self) -> pd.DataFrame:
        return self.frame("changelog")

    @property
    def citations(self) -> pd.DataFrame:
        return self.frame("citations")

    @property
    def errors(self) -> pd.DataFrame:
        """Every reading problem (path, error_type, message, line, block): files that are not
        readable documents (no other rows), and blocks or articles that could not be read (the
        document keeps its rows, with NA where that part was needed)."""
        return self.frame("errors")

    def changes(self, since: date | str | None = None) -> pd.DataFrame:
        """What changed in the library's documents, read from their history.

        Parameters
        ----------
        since : date or str, optional
            Keep only the changes dated on or after this day (``YYYY-MM-DD``).

        Returns
        -------
        pandas.DataFrame
            One row per change to a fact, a source, a section or a sentinel's status; the
            columns and dtypes are ``library.changes.COLUMNS``.
        """
        from oo_nb.library.changes import changes_frame

        base = self.root if self.root.is_dir() else self.root.parent
        return changes_frame(
            ((p, relative_slug(p, base)) for p in discover(self.root, self.recursive)),
            since=since,
        )

    def audit(
        self,
        stale_after_days: int = 365,
        today: date | None = None,
        *,
        all: bool = False,  # the CLI's --all
        min_severity: str | None = None,
    ) -> pd.DataFrame:
        """The findings (see ``oo_nb.library.audit.CHECKS``), most severe first: one row per
        document and code (doc, severity, code, count, and the first finding's where and
        message); ``all=True``: every finding (doc, severity, code, where, message).
        ``min_severity="warning"`` leaves out info, ``"error"`` keeps errors only."""
        from oo_nb.library.audit import (
            at_least,
            code_version_of_audit,
            document_findings,
            summarize,
            with_link_findings,
        )

        day = today or self.today

        def make() -> pd.DataFrame:
            return document_findings(self, stale_after_days, day)

        if self._stamps is not None:  # stored as the frames are: a warm audit decodes no digest
            # (its `crlf-shell` messages name each file's folder as the library was opened, and
            # their fixes in the caller's words: the skin)
            variant = (
                f"{day}|{stale_after_days}|{self.root}|{code_version_of_audit()}|{skin.current()}"
            )
            stored: Callable[[], pd.DataFrame] = self._stored("audit", variant, make)
        else:
            stored = make
        found = self._cached(
            ("audit", stale_after_days, day),
            lambda: with_link_findings(stored(), self.root, self._source_urls),
        )
        found = at_least(found, min_severity)
        return _named(found if all else summarize(found), "audit")

    def _source_urls(self) -> list[tuple[str, str, str]]:
        """(doc, source id, url) of every cached http(s) source, from the sources frame (stored
        on a warm library: no digest decoded)."""
        frame = self.frame("sources")
        urls = frame["url"].fillna("")
        web = urls.str.startswith("http://") | urls.str.startswith("https://")
        picked = frame.loc[web, ["doc", "source_id", "url"]].astype(object)
        return list(picked.itertuples(index=False, name=None))

    # ----------------------------------------------------------------- plots
    def plot_staleness(
        self, today: date | None = None, *, limit: int = 40, ax: Any = None
    ) -> Figure:
        from oo_nb.library.plots import plot_staleness

        return plot_staleness(
            self.frame("documents", today=today), today or self.today, limit=limit, ax=ax
        )

    def plot_tiers(self, *, limit: int = 40, top_tiers: int = 8, ax: Any = None) -> Figure:
        from oo_nb.library.plots import plot_tiers

        return plot_tiers(self.sources, limit=limit, top_tiers=top_tiers, ax=ax)

    # ----------------------------------------------------------------- display
    def summary(self) -> dict[str, int]:
        docs = self.documents
        counts = self.audit(all=True)["severity"].value_counts()
        return {
            "documents": len(docs),
            "stale": int(docs["is_stale"].sum()),
            "sentinels": int(docs["is_sentinel"].fillna(False).sum()),
            "unreadable": len(self._failures),
            "sources": int(docs["n_sources"].sum()),
            "errors": int(counts.get("error", 0)),
            "warnings": int(counts.get("warning", 0)),
            "info": int(counts.get("info", 0)),
        }

    def _headline(self) -> str:
        s = self.summary()
        return (
            f"Library {self.shown_as}: {s['documents']} documents ({s['stale']} stale, "
            f"{s['sentinels']} sentinel), {s['unreadable']} unreadable, {s['sources']} sources; "
            f"findings: {s['errors']} errors, {s['warnings']} warnings, {s['info']} info "
            f"(as of {self.today.isoformat()})"
        )

    def finding_counts(self) -> str:
        """Findings per code, most severe first: ``error: empty-cache 1, ...``."""
        found = self.audit(all=True)
        if found.empty:
            return "no findings"
        counts = found.groupby(["severity", "code"], observed=True).size()
        by_severity: dict[str, list[str]] = {}
        for key, n in counts.items():
            severity, code = cast(tuple[str, str], key)
            by_severity.setdefault(str(severity), []).append(f"{code} {n}")
        return "; ".join(f"{sev}: {', '.join(items)}" for sev, items in by_severity.items())

    _SHOWN: ClassVar[list[str]] = [
        "slug",
        "title",
        "version",
        "as_of",
        "due",
        "is_stale",
        "n_sources",
        "n_citations",
    ]

    def __repr__(self) -> str:
        shown = self.documents[self._SHOWN]
        table = shown.to_string(max_rows=30, max_colwidth=40, index=False)
        return f"{self._headline()}\n{self.finding_counts()}\n{table}"

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, str]:
        import html

        from oo_nb.format.display import no_typesetting

        shown = self.documents[self._SHOWN]
        table = shown.to_html(max_rows=30, index=False, na_rep="—", border=0, escape=True)
        markup = (
            f"<div class='oo-library'><p><strong>{html.escape(self._headline())}</strong></p>"
            f"<p>{html.escape(self.finding_counts())}</p>{table}</div>"
        )
        return {"text/plain": repr(self), "text/html": no_typesetting(markup)}
