"""Review in a terminal: the summary, then each change as a coloured diff with word highlights
and a prompt (y/n/e/a/d/q), like ``git add -p``. Also the plain rendering ``oo diff`` prints.

Every piece of document or agent text goes through ``vocab.terminal_safe`` before it is printed
(``_Paint`` does it for what it colours, ``_Prompt.say`` for the rest): the only escape
sequences that reach the terminal are this module's own colours."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.format.vocab import terminal_safe, truncate
from oo_nb.review.diff import DocumentDiff
from oo_nb.review.hunks import Hunk
from oo_nb.review.session import ReviewSession
from oo_nb.review.summary import run_notices

__all__ = ["render_diff", "render_hunk", "review_in_terminal"]

_RED, _GREEN, _CYAN, _DIM, _BOLD, _RESET = (
    "\x1b[31m",
    "\x1b[32m",
    "\x1b[36m",
    "\x1b[2m",
    "\x1b[1m",
    "\x1b[0m",
)
_DEL_HL, _INS_HL = "\x1b[1;37;41m", "\x1b[1;30;42m"
_HELP = """y - accept this change
n - reject this change
e - edit it (opens $EDITOR, or type the replacement and end with a line holding '.';
    plain text is fine: [s3] cites source 3, HTML is optional)
a - accept this and every remaining change
d - reject this and every remaining change
q - quit without writing anything
? - this help"""


class _Paint:
    """``text`` made terminal-safe, then coloured (when colour is on)."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, code: str, text: str) -> str:
        text = terminal_safe(text)
        return f"{code}{text}{_RESET}" if self.on and text else text


def render_hunk(hunk: Hunk, *, color: bool = False) -> str:
    """One change as a unified diff: a header, ``-``/``+`` lines with changed words marked
    (colour, or ``[-old-]``/``{+new+}`` without), images as labels, never base64."""
    paint = _Paint(color)
    head = f"@@ {hunk.id} {hunk.kind}: {hunk.title} @@"
    lines = [paint(_CYAN, head)]
    if hunk.fields and hunk.area != "article":
        for f in hunk.fields:
            if f.kind == "added":
                lines.append(paint(_GREEN, f"+ {f.name}: {_short(f.after)}"))
            elif f.kind == "removed":
                lines.append(paint(_RED, f"- {f.name}: {_short(f.before)}"))
            else:
                lines.append(paint(_RED, f"- {f.name}: {_short(f.before)}"))
                lines.append(paint(_GREEN, f"+ {f.name}: {_short(f.after)}"))
    elif (
        hunk.kind == "changed"
        and not hunk.lines
        and ((hunk.before_text and hunk.after_text) or hunk.markup_only)
    ):
        if hunk.markup_only:
            lines.append(paint(_DIM, "  (same text; the HTML changed)"))
        old = "".join(
            _mark(w.text, "-", paint) if w.op == "-" else terminal_safe(w.text)
            for w in hunk.words
            if w.op != "+"
        )
        new = "".join(
            _mark(w.text, "+", paint) if w.op == "+" else terminal_safe(w.text)
            for w in hunk.words
            if w.op != "-"
        )
        lines.append(paint(_RED, "- ") + old if color else "- " + old)
        lines.append(paint(_GREEN, "+ ") + new if color else "+ " + new)
    else:
        for text in hunk.before_text.splitlines():
            lines.append(paint(_RED, f"- {text}"))
        for text in hunk.after_text.splitlines():
            lines.append(paint(_GREEN, f"+ {text}"))
    for image in hunk.images:
        lines.append(paint(_DIM, f"  [{image.ref}: {image.label}]"))
    if hunk.unverified:
        lines.append(
            paint(
                _BOLD, "  ! unverified: this URL was not seen in the run's search or fetch results"
            )
        )
    for badge in hunk.badges:
        lines.append(
            paint(_DIM, f"  = {badge}") if badge == "quote found" else paint(_BOLD, f"  ! {badge}")
        )
    for passage in hunk.cited:
        lines.append(paint(_DIM, f"  > cited {passage}"))
    return "\n".join(lines)


def _mark(text: str, op: str, paint: _Paint) -> str:
    text = terminal_safe(text)  # (str.strip would take C0 controls as the spaces around it)
    core = text.strip()
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :] if core else ""
    if not core:
        return text
    if paint.on:
        return lead + paint(_DEL_HL if op == "-" else _INS_HL, core) + trail
    return lead + (f"[-{core}-]" if op == "-" else f"{{+{core}+}}") + trail


def _short(value: Any, limit: int = 300) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return truncate(text, limit)


def render_diff(diff: DocumentDiff, *, color: bool = False) -> str:
    """Every change, decidable ones first, then those that follow them."""
    parts = [terminal_safe(diff.summary.text())]  # a cloned document's section ids are in it
    if diff.is_empty:
        return parts[0] + "\nno changes"
    parts.extend(render_hunk(h, color=color) for h in diff.hunks if h.decidable)
    derived = [h for h in diff.hunks if h.derived]
    if derived:
        parts.append("updated to match the decisions above:")
        parts.extend(render_hunk(h, color=color) for h in derived)
    return "\n\n".join(parts)


def review_in_terminal(
    original: Document,
    candidate: Document,
    run: dict[str, Any] | None = None,
    *,
    input: TextIO | None = None,  # the stream answers are read from (named as the brief asks)
    output: TextIO | None = None,
    accept_all: bool = False,
    reject_all: bool = False,
    editor: str | None = None,
    color: bool | None = None,
    session: ReviewSession | None = None,
) -> Document | None:
    """Ask about each change (deciding on ``session`` when given, a review of ``original`` and
    ``candidate``); return the final document (the original itself when nothing was
    accepted), or None when the user quits. ``accept_all`` / ``reject_all`` ask nothing.
    ``editor`` (else ``$VISUAL``/``$EDITOR`` when ``input`` is a terminal) edits a change in a
    file; without one the replacement is read from ``input``. Writes no file."""
    # stdin closed (`<&-`): Python has none; that is the end of input, as for /dev/null
    inp = input if input is not None else (sys.stdin or io.StringIO(""))
    out = output if output is not None else sys.stdout
    if color is None:
        color = bool(getattr(out, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ
    if accept_all and reject_all:
        raise OOError("choose accept-all or reject-all, not both")
    if session is None:
        session = ReviewSession(original, candidate, run)
    prompt = _Prompt(session, inp, out, color, _editor(editor, inp))
    prompt.summary()
    if accept_all:
        session.accept_all()
    elif reject_all:
        session.reject_all()
    elif not prompt.run() or not prompt.settle_conflicts():
        print("quit: nothing written", file=out)
        return None
    return _finish(session, out)


def _editor(explicit: str | None, inp: TextIO) -> str | None:
    if explicit:
        return explicit
    if getattr(inp, "isatty", lambda: False)():
        return os.environ.get("VISUAL") or os.environ.get("EDITOR") or None
    return None


def _finish(session: ReviewSession, out: TextIO) -> Document:
    result = session.result()
    for note in result.notes:
        print(terminal_safe(f"note: {note}"), file=out)
    final = result.document
    if result.changed:
        print(
            f"accepted {result.accepted}, edited {result.edited}, rejected {result.rejected}: "
            f"version {session.original.manifest.version} → {final.manifest.version}",
            file=out,
        )
    else:
        print("nothing accepted: the document stays as it was", file=out)
    return final


class _Prompt:
    def __init__(
        self, session: ReviewSession, inp: TextIO, out: TextIO, color: bool, editor: str | None
    ) -> None:
        self.session, self.inp, self.out, self.color, self.editor = session, inp, out, color, editor

    def say(self, text: str = "") -> None:
        """Print text that may hold document or agent words: made terminal-safe here."""
        self.painted(terminal_safe(text))

    def painted(self, text: str) -> None:
        """Print what ``_Paint`` or ``render_hunk`` made (already terminal-safe, coloured)."""
        print(text, file=self.out)

    def summary(self) -> None:
        paint = _Paint(self.color)
        self.painted(paint(_BOLD, self.session.diff.summary.text()))
        notices = run_notices(self.session.run)
        if notices:  # the run's warnings, saved with the proposal: read them before deciding
            self.say("warnings from the run that made this proposal:")
            for notice in notices:
                self.painted(paint(_BOLD, f"  ! {notice}"))

    def ask(self, question: str) -> str | None:
        self.out.write(question)
        self.out.flush()
        line = self.inp.readline()
        return None if line == "" else line.strip().lower()

    def run(self) -> bool:
        """False when the user quits (or input ends)."""
        hunks = self.session.diff.decidable
        for n, hunk in enumerate(hunks, 1):
            self.say()
            self.painted(render_hunk(hunk, color=self.color))
            while True:
                answer = self.ask(f"({n}/{len(hunks)}) accept this change [y,n,e,a,d,q,?]? ")
                if answer is None or answer == "q":
                    return False
                if answer in ("y", "n"):
                    (self.session.accept if answer == "y" else self.session.reject)(hunk.id)
                elif answer in ("a", "d"):
                    # this and the remaining changes; an edit is never overwritten (as accept_all)
                    for rest in hunks[n - 1 :]:
                        if self.session.decision(rest.id) != "edit":
                            (self.session.accept if answer == "a" else self.session.reject)(rest.id)
                    return True
                elif answer == "e":
                    if not hunk.editable:
                        self.say("only article text can be edited; answer y or n")
                        continue
                    if not self.edit(hunk):
                        continue
                else:
                    self.say(_HELP)
                    continue
                break
        derived = [h.title for h in self.session.diff.hunks if h.derived]
        if derived:
            self.say("updated to match your decisions: " + "; ".join(derived))
        return True

    def settle_conflicts(self) -> bool:
        """Ask about each pair of decisions that disagree (a rejected source that accepted
        text cites) before anything is written; False when the user quits."""
        for conflict in self.session.conflicts():
            self.say()
            self.painted(_Paint(self.color)(_BOLD, f"! {conflict.question}"))
            keys = "k,c,q" if conflict.drop_label else "k,q"
            while True:
                self.say(f"  k - {conflict.keep_label.lower()}")
                if conflict.drop_label:
                    self.say(f"  c - {conflict.drop_label.lower()}")
                self.say("  q - quit without writing anything")
                answer = self.ask(f"keep the source or change the text [{keys}]? ")
                if answer is None or answer == "q":
                    return False
                if answer == "k" or (answer == "c" and conflict.drop_label):
                    self.session.resolve(conflict, keep=answer == "k")
                    break
        return True

    def edit(self, hunk: Hunk) -> bool:
        start = self.session.editor_text(hunk.id)
        text = self.from_editor(start) if self.editor else self.from_input(start)
        if text is None or not text.strip():
            self.say("edit cancelled")
            return False
        try:
            check = self.session.check_edit(hunk.id, text)
            if check.removed:
                self.say("these are never written into a document and will be removed:")
                self.say("  " + "; ".join(check.removed))
                if self.ask("use the edit without them [y,n]? ") != "y":
                    self.say("edit cancelled")
                    return False
            clean = self.session.edit(hunk.id, text)
        except OOError as exc:
            self.say(f"edit refused: {exc}")
            return False
        self.painted(_Paint(self.color)(_GREEN, f"+ {clean}"))
        return True

    def from_input(self, start: str) -> str | None:
        self.say("current text:")
        self.say(start)
        self.say(
            "type the replacement (plain text, [s3] cites source 3; HTML optional); end with a "
            "line holding a single '.' (empty: cancel)"
        )
        lines: list[str] = []
        while True:
            line = self.inp.readline()
            if line == "":
                return None
            if line.rstrip("\r\n") == ".":
                return "\n".join(lines)
            lines.append(line.rstrip("\r\n"))

    def from_editor(self, start: str) -> str | None:
        assert self.editor is not None
        fd, name = tempfile.mkstemp(suffix=".html", prefix="oo-review-")
        path = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(start + "\n")
            done = subprocess.run([*shlex.split(self.editor), str(path)], check=False)
            if done.returncode != 0:
                self.say(f"editor exited with status {done.returncode}")
                return None
            return path.read_text("utf-8")
        finally:
            path.unlink(missing_ok=True)
