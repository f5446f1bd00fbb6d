"""``oo library DIR [--frame NAME] [--format table|csv|json]``: the library's frames."""

from __future__ import annotations

import argparse
import shlex
import shutil
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import ValidationError
from oo_nb.format.display import no_typesetting
from oo_nb.format.vocab import terminal_safe, truncate

if TYPE_CHECKING:
    import pandas as pd

    from oo_nb.api.library import Library

HELP = "audit a folder of documents as tables: documents, sources, facts, changelog, citations, findings"

MAX_ROWS = 60  # pandas' display.max_rows: a table longer than this shows its head and tail
FRAME_CHOICES = ("documents", "sources", "facts", "changelog", "citations", "audit", "errors")


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def add_common(p: argparse.ArgumentParser) -> None:
    """Options shared by ``oo library`` and ``oo audit``."""
    p.add_argument(
        "dir", nargs="?", default=".", help="folder of NAME.o-o.html documents (default: .)"
    )
    p.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    p.add_argument(
        "--today",
        type=parse_day,
        default=None,
        metavar="YYYY-MM-DD",
        help="judge staleness as of this day (default: today)",
    )
    p.add_argument(
        "--stale-after",
        type=int,
        default=365,
        metavar="DAYS",
        help="a source accessed longer ago than this is old (default: 365)",
    )
    p.add_argument(
        "--no-recursive",
        dest="recursive",
        action="store_false",
        help="only the folder itself, not its sub-folders",
    )
    p.add_argument(
        "--workers", type=int, default=None, help="processes for parsing (default: auto)"
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_common(p)
    p.add_argument(
        "--frame",
        choices=FRAME_CHOICES,
        default="documents",
        help="which table (default: documents)",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=MAX_ROWS,
        metavar="N",
        help=f"a table's first and last rows, as pandas shows them (default: {MAX_ROWS}; "
        "0: every row; csv and json always have every row)",
    )


def render(
    frame: pd.DataFrame, fmt: str, *, max_rows: int | None = None, total: int | None = None
) -> str:
    """A frame as text: an aligned table fitted to the terminal, CSV, or JSON records. A table
    longer than ``max_rows`` shows its head and tail, as pandas does, and its size (``total``
    rows when ``frame`` is already ``head_and_tail`` of it)."""
    if fmt == "csv":
        return str(spreadsheet_safe(frame).to_csv(index=False)).rstrip("\n")
    if fmt == "json":
        return str(frame.to_json(orient="records", date_format="iso", force_ascii=False, indent=1))
    if frame.empty:
        return "(no rows)"
    total = len(frame) if total is None else total
    cut = max_rows is not None and total > max_rows
    table = _table(_clipped(head_and_tail(frame, max_rows) if cut else frame), max_rows)
    return f"{table}\n[{total} rows x {len(frame.columns)} columns]" if cut else table


# A cell a spreadsheet would read as a formula (OWASP's CSV injection list): titles and facts
# come from web pages through updates, so they are untrusted.
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell that starts like a formula led by ``'``, which spreadsheets
    show and do not evaluate; numbers, dates and other text stay as they are."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    texts = [c for c in frame.columns if is_object_dtype(frame[c]) or is_string_dtype(frame[c])]
    if not texts:
        return frame
    safe = frame.copy()
    for column in texts:
        safe[column] = safe[column].map(
            lambda v: "'" + v if isinstance(v, str) and v.startswith(FORMULA_LEADS) else v
        )
    return safe


def head_and_tail(frame: pd.DataFrame, max_rows: int | None) -> pd.DataFrame:
    """The rows a table of at most ``max_rows`` shows: the first and last, one more than it
    holds, so that ``to_string(max_rows=...)`` marks the cut in the middle. Only these are
    clipped and formatted, not the 10,000 rows of a large library."""
    if max_rows is None or len(frame) <= max_rows:
        return frame
    import pandas as pd

    half = max_rows // 2
    return pd.concat([frame.head(max_rows - half + 1), frame.tail(half)])


def _table(shown: pd.DataFrame, max_rows: int | None) -> str:
    width = shutil.get_terminal_size((120, 24)).columns
    if "message" not in shown.columns:  # one to_string: it is most of a warm `oo library`
        return str(
            shown.to_string(
                index=False, max_colwidth=None, line_width=width, na_rep="-", max_rows=max_rows
            )
        )
    cut_at = None  # where the "..." row goes
    if max_rows is not None and len(shown) > max_rows:
        cut_at = max_rows - max_rows // 2
        shown = shown.iloc[[*range(cut_at), *range(len(shown) - max_rows // 2, len(shown))]]
    lines = str(shown.to_string(index=False, max_colwidth=None, na_rep="-")).splitlines()
    rows = [[line] for line in lines[1:]]
    if max(map(len, lines)) > width:
        # Too wide with the message in the row: each message goes under its row, whole and on
        # one line (the terminal wraps it; grep still finds "(line 5)").
        from pandas import isna

        rest = shown.drop(columns="message")
        lines = str(rest.to_string(index=False, max_colwidth=None, na_rep="-")).splitlines()
        messages = ("-" if isna(m) else str(m) for m in shown["message"])
        rows = [[line, "    " + m] for line, m in zip(lines[1:], messages, strict=True)]
    if cut_at is not None:
        rows.insert(cut_at, ["..."])
    return "\n".join([lines[0], *(line for row in rows for line in row)])


FULL_COLUMNS = ("message", "where")  # what a finding says and where: never cut (e.g. "(line 5)")
CLIP_AT = 48


def _clipped(frame: pd.DataFrame) -> pd.DataFrame:
    """Long text in other columns (titles, URLs, summaries) cut to ``CLIP_AT`` characters so
    the table stays readable; ``FULL_COLUMNS`` are printed whole. In every column, control
    characters and bidi overrides from the documents are shown as ``\ufffd``: a title or a
    paragraph's first words must not move the cursor, clear the screen or reorder the line."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    out = frame.copy()
    for column in out.columns:
        dtype = out[column].dtype
        if is_string_dtype(dtype) or is_object_dtype(dtype) or dtype == "category":
            full = column in FULL_COLUMNS or dtype == "category"
            out[column] = _mapped(out[column], _visible if full else lambda v: _clip(_visible(v)))
    return out


def _mapped(col: pd.Series[Any], fn: Any) -> pd.Series[Any]:
    """``fn`` of each value (NA left as it is), as Python objects: ``Series.map`` would make
    Arrow text of the result, which cannot hold a file name that is not UTF-8."""
    import pandas as pd

    missing = col.isna().to_numpy()
    values = [v if gone else fn(v) for v, gone in zip(col, missing, strict=True)]
    return pd.Series(values, index=col.index, dtype=object)


def _visible(value: Any) -> Any:
    return terminal_safe(value) if isinstance(value, str) else value


def _clip(value: Any) -> Any:
    return truncate(value, CLIP_AT) if isinstance(value, str) else value


def open_library(ns: argparse.Namespace) -> Library:
    from oo_nb.api.library import Library

    if ns.workers is not None and ns.workers < 1:
        raise ValidationError("--workers must be at least 1")
    if ns.stale_after < 0:
        raise ValidationError("--stale-after must not be negative")
    return Library(ns.dir, recursive=ns.recursive, today=ns.today, workers=ns.workers)


class LibraryResult:
    """The Library (``value``) and the frame the command was asked for. In a notebook it shows
    as the Library (or the frame when one was named)."""

    def __init__(
        self,
        library: Library,
        frame_name: str,
        fmt: str,
        stale_after: int,
        named: bool,
        max_rows: int | None = MAX_ROWS,
    ) -> None:
        self.library = library
        self.max_rows = max_rows  # a table's head and tail (None: every row)
        self.frame_name = frame_name
        self.format = fmt
        self.stale_after = stale_after
        self.named = named
        self.exit_code = 0

    @property
    def stderr_notes(self) -> list[str]:
        """Lines for stderr: the files that could not be read, so a table that looks complete
        never hides them (the errors frame itself needs no such line)."""
        if self.frame_name == "errors":
            return []
        note = unreadable_note(self.library)
        return [note] if note else []

    @property
    def frame(self) -> pd.DataFrame:
        if self.frame_name == "audit":  # a frame: every finding
            return self.library.audit(self.stale_after, all=True)
        return self.library.frame(self.frame_name)

    @property
    def value(self) -> Any:
        return self.frame if self.named else self.library

    def to_text(self) -> str:
        frame = self.frame
        total = len(frame)
        if self.format == "table":
            frame = head_and_tail(frame, self.max_rows)
        if self.format == "table" and "path" in frame.columns:
            frame["path"] = _mapped(frame["path"], self._short)  # the name, not the folder
        return render(frame, self.format, max_rows=self.max_rows, total=total)

    def _short(self, path: str) -> str:
        base = self.library.root if self.library.root.is_dir() else self.library.root.parent
        try:
            return Path(path).relative_to(base).as_posix()
        except ValueError:
            return path

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        if self.named:
            frame = self.frame
            table = frame.to_html(max_rows=60, escape=True)
            return {"text/plain": repr(frame), "text/html": no_typesetting(table)}
        return self.library._repr_mimebundle_(include, exclude)


def unreadable_note(library: Library, see: str | None = None) -> str | None:
    """``2 of 32 files could not be read; see `oo library DIR --frame errors```, or None when
    every file was read (``see``: where else to look, e.g. ``lib.errors`` in a notebook). Documents read only in part (a damaged block, an unreadable article)
    are counted too: their rows hold NA where that part was needed."""
    failed, partial = library.unreadable  # warm: from the stored frames, no digest decoded
    if not failed and not partial:
        return None
    total = failed + len(library.documents)  # the stored frame: len(library) decodes digests
    if failed:
        what = f"{failed} of {total} files could not be read"
        if partial:
            what += f" ({partial} more only in part)"
    else:
        what = f"{partial} of {total} files could be read only in part"
    if see is None:
        see = f"`oo library {shlex.quote(str(library.root))} --frame errors`"
    return f"{what}; see {see}"


def run(ns: argparse.Namespace) -> LibraryResult:
    lib = open_library(ns)
    named = ns.frame != "documents" or ns.format != "table"
    max_rows = getattr(ns, "max_rows", MAX_ROWS)
    if max_rows is not None and max_rows < 0:
        raise ValidationError("--max-rows must not be negative")
    shown = max_rows or None  # 0: every row
    return LibraryResult(lib, ns.frame, ns.format, ns.stale_after, named, shown)
