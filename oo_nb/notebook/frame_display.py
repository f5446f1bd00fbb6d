"""How the library's frames show in a notebook: at most ``oo_nb.options.display_limit`` rows (like
pandas' ``display.max_rows`` or JupySQL's ``displaylimit``), and the audit as one line per code
with what the code means, as ``oo audit`` prints it. The frame itself always holds every row.

A frame is the library's when ``DataFrame.attrs`` names it (``Library.frame`` and
``Library.audit`` do); every other DataFrame shows as pandas shows it. ``lib.sources`` on the four
demo documents took 2,744 px and ``%oo audit`` 750 rows. Registered on ``%load_ext oo_nb`` by the
type's name, so pandas is not imported for it. Both an HTML and a text form: a saved notebook, a
terminal or GitHub reads the text.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DisplayOptions", "frame_html", "frame_text", "options", "register"]

_ATTR = "oo_nb_frame"  # set by oo_nb.library.library._named
# A frame's box scrolls past 24em (about 14 rows) and its cells stay on one line, cut at 28em:
# sixteen columns of titles and URLs had wrapped each row to several lines.
_CSS = (
    ".oo-frame-box{max-height:24em;overflow:auto}"
    ".oo-frame-box td,.oo-frame-box th{white-space:nowrap;max-width:28em;overflow:hidden;"
    "text-overflow:ellipsis}.oo-audit td,.oo-audit th{text-align:left}"
)


class DisplayOptions:
    """Display settings of oo_nb in a notebook, read as ``oo_nb.options``.

    Attributes
    ----------
    display_limit : int or None, default 20
        Rows of a library frame (``lib.sources``, the audit's findings …) shown in a notebook;
        ``None`` shows every row. The frame itself always holds all of them. Like pandas'
        ``display.max_rows`` or JupySQL's ``%config SqlMagic.displaylimit``.

    Examples
    --------
    >>> oo_nb.options
    oo_nb.options(display_limit=20)
    >>> oo_nb.options.display_limit = 5
    >>> oo_nb.options.display_limit = -1
    Traceback (most recent call last):
    ...
    ValueError: oo_nb.options.display_limit: a number of rows (0 or more) or None, got -1
    >>> oo_nb.options.reset()
    """

    __module__ = "oo_nb"
    __slots__ = ("_display_limit",)
    DEFAULT_DISPLAY_LIMIT = 20

    def __init__(self) -> None:
        self._display_limit: int | None = self.DEFAULT_DISPLAY_LIMIT

    @property
    def display_limit(self) -> int | None:
        """Rows of a library frame shown (None: all of them)."""
        return self._display_limit

    @display_limit.setter
    def display_limit(self, rows: int | None) -> None:
        # a bool is an int to Python, but `True` rows is a mistake, said now rather than as one row
        if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 0):
            raise ValueError(
                f"oo_nb.options.display_limit: a number of rows (0 or more) or None, got {rows!r}"
            )
        self._display_limit = rows

    def reset(self) -> None:
        """Every setting back to its default.

        Returns
        -------
        None
        """
        self._display_limit = self.DEFAULT_DISPLAY_LIMIT

    def __repr__(self) -> str:
        return f"oo_nb.options(display_limit={self._display_limit!r})"


options = DisplayOptions()


def _kind(frame: Any) -> str | None:
    kind = getattr(frame, "attrs", {}).get(_ATTR)
    return kind if isinstance(kind, str) else None


def _limit_note(shown: int, total: int, kind: str) -> str:
    return (
        f"{shown:,} of {total:,} rows shown; the frame holds all of them "
        f"(oo_nb.options.display_limit = None shows every row; "
        f"{kind}.to_html() or .to_csv() gives them all)"
    )


def _by_code(findings: pd.DataFrame) -> pd.DataFrame:
    """One row per severity and code: findings, documents, and what the code means."""
    import pandas as pd

    from oo_nb.format.findings import CHECKS

    counts = findings["count"] if "count" in findings else pd.Series(1, index=findings.index)
    table = (
        findings.assign(_n=counts)
        .groupby(["severity", "code"], observed=True, sort=False)
        .agg(findings=("_n", "sum"), documents=("doc", "nunique"))
        .reset_index()
    )
    table["means"] = [CHECKS.get(str(c), ("", ""))[1] for c in table["code"]]
    return table


def _audit_line(frame: pd.DataFrame, overview: pd.DataFrame) -> str:
    return (
        f"{int(overview['findings'].sum()):,} finding(s) of {len(overview)} kind(s) in "
        f"{frame['doc'].nunique():,} document(s), one row each per document and kind"
    )


def frame_html(frame: pd.DataFrame) -> str | None:
    """The HTML a library frame shows as (None: not a library frame; pandas shows it)."""
    kind = _kind(frame)
    if kind is None:
        return None
    if kind == "audit":
        if frame.empty:
            return "<p>No findings: nothing to fix.</p>"
        overview = _by_code(frame)
        return (
            f"<p>{html.escape(_audit_line(frame, overview))}; <code>findings[findings.code == "
            f"'{html.escape(str(overview['code'].iloc[0]))}']</code> lists one kind:</p>"
            + f"<style>{_CSS}</style>"
            + overview.to_html(index=False, escape=True, classes="oo-audit")
            + "<p>The rows, most serious first:</p>"
            + _rows_html(frame, kind)
        )
    return _rows_html(frame, kind)


def _readable(frame: pd.DataFrame) -> pd.DataFrame:
    """A finding's ``where`` names a block by what it holds, not by its id (the display only)."""
    from oo_nb.format.names import BLOCK_WORDS

    if "where" not in frame or frame.empty:
        return frame
    pattern = "|".join(sorted(BLOCK_WORDS, key=len, reverse=True))
    where = (
        frame["where"]
        .astype("string")
        .str.replace(pattern, lambda m: BLOCK_WORDS[m.group(0)], regex=True)
    )
    return frame.assign(where=where)


def _rows_html(frame: pd.DataFrame, kind: str) -> str:
    limit = options.display_limit
    shown = _readable(frame if limit is None else frame.head(limit))
    table = shown.to_html(escape=True, max_cols=30, classes="oo-frame")
    note = "" if len(shown) == len(frame) else _limit_note(len(shown), len(frame), kind)
    return f'<style>{_CSS}</style><div class="oo-frame-box">{table}</div>' + (
        f"<p><em>{html.escape(note)}</em></p>" if note else ""
    )


def frame_text(frame: pd.DataFrame) -> str | None:
    """The text form of ``frame_html`` (None: not a library frame)."""
    kind = _kind(frame)
    if kind is None:
        return None
    if kind == "audit":
        if frame.empty:
            return "No findings: nothing to fix."
        overview = _by_code(frame)
        return (
            f"{_audit_line(frame, overview)}:\n{overview.to_string(index=False)}\n\n"
            f"The rows, most serious first:\n{_rows_text(frame, kind)}"
        )
    return _rows_text(frame, kind)


def _rows_text(frame: pd.DataFrame, kind: str) -> str:
    limit = options.display_limit
    if limit is None or len(frame) <= limit:
        return str(_readable(frame).to_string(max_rows=60, max_colwidth=40))
    return (
        _readable(frame.head(limit)).to_string(max_colwidth=40)
        + "\n"
        + _limit_note(limit, len(frame), kind)
    )


def register(shell: Any) -> None:
    """Show library frames this way in ``shell`` (an IPython shell; others are left alone)."""
    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", None)
    if not formatters:
        return

    def as_html(frame: Any) -> str | None:
        out = frame_html(frame)
        return out if out is not None else frame._repr_html_()

    def as_text(frame: Any, printer: Any, cycle: bool) -> None:
        out = frame_text(frame)
        printer.text(out if out is not None else repr(frame))

    # pandas 3 names the class's module "pandas", pandas 2 "pandas.core.frame"
    for module in ("pandas", "pandas.core.frame"):
        formatters["text/html"].for_type_by_name(module, "DataFrame", as_html)
        formatters["text/plain"].for_type_by_name(module, "DataFrame", as_text)
