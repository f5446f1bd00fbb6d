"""A folder of living documents: its frames, its audit, its index page, its links, and the
calls that update every document that is due."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import NotFound, ValidationError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from oo_nb.agent.types import LibraryUpdate
    from oo_nb.api.document import Document
    from oo_nb.library.index_page import IndexResult
    from oo_nb.library.library import Library as _Scan

__all__ = ["CHANGE_KINDS", "Library"]

CHANGE_KINDS = ("fact", "source", "section", "sentinel")


class Library:
    """The living documents under a folder, as pandas frames.

    Frames are computed on first use and kept until ``refresh()``; each access returns a copy.
    The scan keeps one row set per document in ``DIR/.oo-cache`` so a later scan reads only
    the files that changed.

    Parameters
    ----------
    path : str or pathlib.Path, default "."
        A folder (its sub-folders too, unless ``recursive=False``) or one document.
    recursive : bool, default True
        Look in sub-folders.
    today : datetime.date, optional
        Judge staleness as of this day (default: today, or ``OO_TODAY``).
    workers : int, optional
        Processes for reading (default: 1, or 2 from 300 documents on).
    cache : bool, default True
        Read and write the library's cache (``False``: memory only).
    executor : concurrent.futures.Executor, optional
        Read documents on this executor (a Dask cluster's, say) instead of our own pool.

    Examples
    --------
    >>> lib = oo_nb.Library(demo)
    >>> len(lib), lib.slugs[:2]
    (4, ['fusion-power-on-the-grid', 'heat-pumps-in-europe'])
    >>> lib.documents.loc[lib.documents.is_stale, "slug"].tolist()
    ['heat-pumps-in-europe', 'open-weight-language-models']
    """

    __module__ = "oo_nb"

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
        if workers is not None and workers < 1:
            raise ValidationError("workers must be at least 1", file=str(path))
        # absolute at open: after a %cd, refresh(), index() and update_all() still read this folder
        self._root = Path(path).absolute()
        if not self._root.exists():  # said now, as the scan would, not on first use
            raise NotFound("no such folder", file=str(path))
        self._today = today
        # the scan runs on first use: index() and update_all() read the folder their own way

        def open_scan() -> _Scan:
            # its modules (~30 ms with its process pool's) only when it runs: an update-all
            # with --force never scans, and its first request would wait for them
            from oo_nb.library.library import Library as Scan

            return Scan(
                path, recursive, today=today, workers=workers, cache=cache, executor=executor
            )

        self._open: Callable[[], _Scan] = open_scan
        self._scanned: _Scan | None = None

    @property
    def _scan(self) -> _Scan:
        if self._scanned is None:
            self._scanned = self._open()
        return self._scanned

    @property
    def root(self) -> Path:
        """The folder (or document) this library reads."""
        return self._root

    @property
    def today(self) -> date:
        """The day staleness is judged on (``OO_TODAY`` pins it for demos and tests)."""
        from oo_nb.store import clock

        return self._today or clock.today()

    @property
    def slugs(self) -> list[str]:
        """Each document's name without ``.o-o.html`` (with its sub-folder), sorted."""
        return self._scan.slugs

    @property
    def paths(self) -> list[Path]:
        """Each document's file."""
        return self._scan.paths

    def refresh(self) -> Library:
        """Scan the folder again (only files added, changed or removed are read). Returns self."""
        self._scan.refresh()
        return self

    def __len__(self) -> int:
        return len(self._scan)

    def __iter__(self) -> Iterator[str]:
        return iter(self._scan)

    def __contains__(self, slug: object) -> bool:
        return slug in self._scan

    def __getitem__(self, slug: str) -> Document:
        """The document named ``slug``, read from disk now.

        Examples
        --------
        >>> oo_nb.Library(demo)["heat-pumps-in-europe"].version
        1
        """
        from oo_nb.api.document import Document

        return Document(self._scan[slug])

    def frame(self, name: str) -> pd.DataFrame:
        """One frame by name.

        Parameters
        ----------
        name : {"documents", "sources", "facts", "changelog", "citations", "errors", "audit"}
            The frame (``audit``: every finding).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> oo_nb.Library(demo).frame("citations").columns.tolist()
        ['doc', 'section', 'pid', 'source_id', 'resolves']
        """
        return self._scan.frame(name)

    @property
    def left_out(self) -> list[tuple[str, str]]:
        """(path, why) of each file named like a document that is not read: a second name for a
        file already listed (a link beside it), a name ending ``.O-O.HTML`` in another case, a
        fifo or device. Hidden files and folders are not searched, nor listed here."""
        return [(str(x.path), x.reason) for x in self._scan.left_out]

    @property
    def unreadable(self) -> tuple[int, int]:
        """How many files could not be read at all, and how many only in part."""
        failed, partial, _ = self._scan.reading_counts()
        return failed, partial

    # the frames
    @property
    def documents(self) -> pd.DataFrame:
        """One row per document.

        Columns: slug (string), title (string), version (Int64), as_of (datetime64), cadence_days
        (Int64), due (datetime64), overdue_days (Int64), is_stale (boolean), is_sentinel
        (boolean), sentinel_status (string), n_sources (Int64), n_facts (Int64), n_citations
        (Int64), n_figures (Int64), bytes (Int64), budget_usd (Float64), spent_usd (Float64),
        layout (category), path (string).
        """
        return self._scan.documents

    @property
    def sources(self) -> pd.DataFrame:
        """One row per source in a document's source cache.

        Columns: doc (string), source_id (string), url (string), domain (string), title
        (string), description (string), tier (category), tier_group (category), accessed
        (datetime64), age_days (Int64), cited (bool), n_citations (Int64), denied (bool),
        preferred (bool), verified (boolean), link_status (string: from ``links()``).
        """
        return self._scan.sources

    @property
    def facts(self) -> pd.DataFrame:
        """One row per fact a document relies on.

        Columns: doc (string), fact_id (string), text (string), key (string), value (string),
        source_ids (object: a list of source ids), has_source (bool: one of them is cached),
        quote (string), quote_found (boolean).
        """
        return self._scan.facts

    @property
    def changelog(self) -> pd.DataFrame:
        """One row per changelog entry (an update written, or a note of the original layout).

        Columns: doc (string), version (Int64), timestamp (datetime64), summary (string),
        cost_usd (Float64), origin (category), model (string), agent (string), tokens_input
        (Int64), tokens_output (Int64), tokens_cache_write (Int64), tokens_cache_read (Int64),
        searches (Int64), fetches (Int64), sections (object: a list), sources_added (object: a
        list), sentinel_status (string), sentinel_evidence (string).
        """
        return self._scan.changelog

    @property
    def citations(self) -> pd.DataFrame:
        """One row per ``[sN]`` citation in an article.

        Columns: doc (string), section (string), pid (string), source_id (string), resolves
        (boolean: the id names a source of the document).
        """
        return self._scan.citations

    @property
    def errors(self) -> pd.DataFrame:
        """One row per reading problem (a file that is no document, a damaged block).

        Columns: path (string), error_type (category), message (string), line (Int64), column
        (Int64), block (string).
        """
        return self._scan.errors

    def audit(
        self,
        stale_after_days: int = 365,
        today: date | None = None,
        *,
        all: bool = False,
        min_severity: str | None = None,
    ) -> pd.DataFrame:
        """What deserves attention, most severe first.

        Parameters
        ----------
        stale_after_days : int, default 365
            A source accessed longer ago than this is old.
        today : datetime.date, optional
            Judge as of this day.
        all : bool, default False
            Every finding (doc, severity, code, where, message) instead of one row per
            document and code (doc, severity, code, count, where, message of the first).
        min_severity : {"error", "warning", "info"}, optional
            Leave out the findings below this.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> found = oo_nb.Library(demo).audit(min_severity="error")
        >>> sorted(set(found.columns) - {"doc"})
        ['code', 'count', 'message', 'severity', 'where']
        """
        if stale_after_days < 0:
            raise ValidationError("stale_after_days must not be negative", file=str(self.root))
        return self._scan.audit(stale_after_days, today, all=all, min_severity=min_severity)

    def finding_counts(self) -> str:
        """The findings per code in one line.

        Returns
        -------
        str
            ``error: CODE N, …; warning: …``, most severe first, or ``no findings``.
        """
        return self._scan.finding_counts()

    def summary(self) -> dict[str, int]:
        """The library in counts.

        Returns
        -------
        dict of str to int
            documents, stale, sentinels, unreadable, sources, errors, warnings, info.
        """
        return self._scan.summary()

    def changes(
        self, since: date | str | None = None, *, kind: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """What changed in the documents, read from the history kept.

        Parameters
        ----------
        since : datetime.date or str, optional
            Only changes dated on or after this day (``YYYY-MM-DD``).
        kind : sequence of {"fact", "source", "section", "sentinel"}, optional
            Only these kinds.

        Returns
        -------
        pandas.DataFrame
            One row per change. Columns: document (string), path (string), seq (Int64),
            version (Int64), date (datetime64), saved_at (datetime64), kind (string), change
            (string), item (string), before (string), after (string), sources (string),
            evidence (string).

        Examples
        --------
        >>> oo_nb.Library(demo).changes(since="2026-12-01").empty
        True
        """
        unknown = sorted(set(kind or ()) - set(CHANGE_KINDS))
        if unknown:
            raise ValidationError(
                f"unknown kind {', '.join(unknown)}; choose from {', '.join(CHANGE_KINDS)}"
            )
        frame = self._scan.changes(since=since)
        if kind:
            frame = frame[frame["kind"].isin(list(kind))].reset_index(drop=True)
        return frame

    # what it writes or checks
    def index(self, *, title: str | None = None) -> IndexResult:
        """Write or refresh the library page ``DIR/index.o-o.html``.

        Parameters
        ----------
        title : str, optional
            The heading of a new page (an existing page keeps its own).

        Returns
        -------
        oo_nb.library.index_page.IndexResult
            Its ``path``, whether it was ``created`` or ``changed``, and the scan.

        Examples
        --------
        >>> oo_nb.Library(demo).index().path.name
        'index.o-o.html'
        """
        from oo_nb.library.index_page import write_index

        return write_index(self.root, title=title)

    def links(
        self,
        *,
        max_age_days: float = 7.0,
        refresh: bool = False,
        timeout: float = 10.0,
        per_host: int = 2,
        concurrency: int = 32,
        allow_private: bool = False,
        progress: bool = True,
    ) -> pd.DataFrame:
        """Check every source URL (HEAD, then GET); results are kept ``max_age_days``.

        Parameters
        ----------
        max_age_days : float, default 7
            Reuse results younger than this.
        refresh : bool, default False
            Check every link again now.
        timeout : float, default 10
            Seconds per request.
        per_host, concurrency : int
            Requests in flight to one host, and in all.
        allow_private : bool, default False
            Also check private, loopback and link-local addresses.
        progress : bool, default True
            Show a progress bar.

        Returns
        -------
        pandas.DataFrame
            One row per source: doc, source_id, url, link_status (ok, moved, dead, unknown,
            skipped), and what the check found.
        """
        from tqdm.auto import tqdm

        from oo_nb.library.link_frames import links_frame, source_urls
        from oo_nb.library.links import LinkOptions, check_links

        sources = source_urls(self._scan.digests)
        opts = LinkOptions(
            max_age=timedelta(days=max_age_days),
            timeout_s=timeout,
            per_host=per_host,
            concurrency=concurrency,
            allow_private=allow_private,
            refresh=refresh,
        )
        urls = list(dict.fromkeys(url for _, _, url in sources))
        with tqdm(
            total=len(urls),
            desc="links",
            unit="url",
            disable=not progress or not urls,
            file=sys.stderr,
        ) as bar:

            def step(n: int) -> None:
                bar.update(n)

            rows = check_links(str(self.root), urls, opts, step)
        return links_frame(sources, rows)

    def update_all(
        self,
        *,
        force: bool = False,
        yes: bool = False,
        auto: bool = False,
        concurrency: int = 4,
        batch: bool = False,
        progress: bool = True,
        poll_interval: float = 10.0,
        **options: Any,
    ) -> LibraryUpdate:
        """Update every document that is due.

        Parameters
        ----------
        force : bool, default False
            Every document, due or not.
        yes : bool, default False
            Write every proposal without review.
        auto : bool, default False
            Write the clean proposals, keep the rest for review.
        concurrency : int, default 4
            Documents researched at once.
        batch : bool, default False
            Send the requests as one Message Batch (half price, slower).
        progress : bool, default True
            Show a progress bar.
        poll_interval : float, default 10
            Seconds between looks at a batch's progress.
        **options
            ``model``, ``budget``, ``agent``, ``timeout``, ``base_url`` as for
            ``Document.update``.

        Returns
        -------
        oo_nb.agent.types.LibraryUpdate
            ``results`` (one per document read), ``failures`` (path → why), ``cost_usd``.

        Examples
        --------
        >>> done = oo_nb.Library(demo).update_all(agent="replay", progress=False)
        >>> sorted(r.status for r in done.results)
        ['proposed', 'proposed', 'skipped', 'skipped']
        >>> sorted(r.outcome for r in done.results)  # in the report's words
        ['fresh', 'fresh', 'proposed', 'proposed']
        """
        import time

        from oo_nb.agent.many import update_library
        from oo_nb.api.update import update_options

        started = time.perf_counter()
        known = None if force else _known_freshness(self.root)
        scanned_s = time.perf_counter() - started
        outcome = update_library(
            self.root,
            update_options(force=force, **options),
            concurrency=concurrency,
            yes=yes,
            auto=True if auto else None,
            batch=batch,
            progress=progress,
            poll_interval=poll_interval,
            known_fresh=known,
        )
        outcome.elapsed_s += scanned_s
        if self._scanned is not None and any(r.written for r in outcome.results):
            self._scanned.refresh()  # its frames show the versions it just wrote
        return outcome

    # plots and display
    def plot_staleness(
        self, today: date | None = None, *, limit: int = 40, ax: Any = None
    ) -> Figure:
        """Each document's as-of and due dates, overdue ones marked.

        Parameters
        ----------
        today : datetime.date, optional
            Judge as of this day.
        limit : int, default 40
            Documents shown at most (the most overdue).
        ax : matplotlib.axes.Axes, optional
            Draw here instead of a new figure.

        Returns
        -------
        matplotlib.figure.Figure
        """
        return self._scan.plot_staleness(today, limit=limit, ax=ax)

    def plot_tiers(self, *, limit: int = 40, top_tiers: int = 8, ax: Any = None) -> Figure:
        """Each document's sources by tier.

        Parameters
        ----------
        limit : int, default 40
            Documents shown at most.
        top_tiers : int, default 8
            Tiers named; the others are counted together.
        ax : matplotlib.axes.Axes, optional
            Draw here instead of a new figure.

        Returns
        -------
        matplotlib.figure.Figure
        """
        return self._scan.plot_tiers(limit=limit, top_tiers=top_tiers, ax=ax)

    def __repr__(self) -> str:
        return repr(self._scan)

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, str]:
        return self._scan._repr_mimebundle_(include, exclude)


def _known_freshness(folder: Path) -> dict[Path, Any]:
    """The freshness of each document the library's cache knows, so a fresh one is reported
    without being read; a document the scan could not read is left out (the update says why)."""
    if not folder.is_dir():
        return {}
    from oo_nb.agent.freshness import freshness_of
    from oo_nb.library import index_data
    from oo_nb.store import clock

    today = clock.today()
    return {
        e.path: freshness_of(e.as_of, e.cadence_days, today)
        for e in index_data.scan(folder).entries
    }
