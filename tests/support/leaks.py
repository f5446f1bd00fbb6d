"""Secrets: updates run with a marker API key (from the environment, as a user sets it), then
every place the key could leak to is searched: documents, history snapshots and log, pending
proposals, recorded cassettes, what the CLI and the notebook magic show, log records (the SDK's
debug logging on) and exception messages with their tracebacks."""

from __future__ import annotations

import io
import json
import logging
import secrets
import shutil
import traceback
import unittest.mock
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError
from tests.support.apifaults import DOC, fault_cases, run_update
from tests.support.corpus import corpus_dir
from tests.support.figures import Figure

__all__ = ["marker_key", "secret_leaks"]


def marker_key() -> str:
    """Shaped like a real key, unique per run (so a hit can only come from this run)."""
    return f"sk-ant-api03-MARKER{secrets.token_hex(24)}-{secrets.token_hex(4)}AA"


def _needles(key: str) -> list[bytes]:
    # The whole key, and the random middle (a truncated or partly masked key still leaks it).
    middle = key[len("sk-ant-api03-MARKER") :][:16]
    return [key.encode(), middle.encode()]


def _count(data: bytes | str, needles: list[bytes]) -> int:
    """Occurrences of the needles in any letter case (a case-changed key is still the key)."""
    raw = (data.encode("utf-8", "replace") if isinstance(data, str) else data).lower()
    return sum(raw.count(n.lower()) for n in needles)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(record.getMessage() + repr(record.args))
        except Exception:  # a broken record must not hide the others
            self.lines.append(str(record.msg))


@contextmanager
def _debug_logging() -> Iterator[_Capture]:
    handler = _Capture()
    root = logging.getLogger()
    loggers = [
        root,
        *(logging.getLogger(n) for n in ("anthropic", "httpx2", "httpx", "httpcore", "oo_nb")),
    ]
    old = [(lg, lg.level) for lg in loggers]
    root.addHandler(handler)
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        for lg, level in old:
            lg.setLevel(level)


def _exception_text(exc: BaseException | None) -> str:
    if exc is None:
        return ""
    parts = ["".join(traceback.format_exception(exc)), repr(exc), str(vars(exc))]
    return "\n".join(parts)


def _magic_run(line: str) -> tuple[str, str]:
    """``%oo LINE`` in an IPython shell: (everything displayed or printed, the error shown)."""
    from IPython.core.error import UsageError
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    if shell.extension_manager is not None:
        shell.extension_manager.load_extension("oo_nb")
    error = ""
    with capture_output() as cap:
        try:
            value = shell.run_line_magic("oo", line)
            if value is not None:
                bundle = getattr(value, "_repr_mimebundle_", None)
                shown = bundle() if callable(bundle) else {"text/plain": repr(value)}
                print(shown)
        except UsageError as exc:
            error = _exception_text(exc)
    return cap.stdout + cap.stderr + str(cap.outputs) + _widget_states(), error


def _widget_states() -> str:
    """The state of every live widget: what a notebook would send to the browser and save."""
    try:
        from ipywidgets.widgets import widget
    except ImportError:
        return ""
    instances = getattr(widget, "_instances", {})
    return "".join(json.dumps(w.get_state(), default=str) for w in list(instances.values()))


def secret_leaks(workdir: Path) -> list[Figure]:
    from tests.support.mock_api import MockAPI

    key = marker_key()
    needles = _needles(key)
    shown: list[str] = []  # CLI output and messages
    errors: list[str] = []
    notebook: list[str] = []
    cases = [
        c
        for c in fault_cases()
        if c.name
        in (
            "401 bad key",
            "500 server error",
            "malformed submit_proposal",
            "error event mid-stream",
        )
    ]
    runs = 0
    with (
        _debug_logging() as logs,
        unittest.mock.patch.dict(
            "os.environ", {"ANTHROPIC_API_KEY": key, "ANTHROPIC_LOG": "debug"}
        ),
    ):
        mock = MockAPI(api_key=key).start()
        try:
            # good runs: written with --yes, pending without it, and a recorded cassette
            from tests.support.mock_scenarios import research_scenario

            mock.responder = research_scenario(base_url=lambda: mock.base_url, with_image=False)
            for args in ((), ("--no-yes",)):
                path = _copy(workdir / f"good{runs}")
                out = _cli(path, mock.base_url, args, key)
                shown.append(out["text"])
                errors.append(_exception_text(out["exc"]))
                runs += 1
            from tools.record_cassette import record_live_cassette

            record_live_cassette(
                _copy(workdir / "cassette"),
                workdir / "cassette" / "doc.cassette.json",
                api_key=key,
                base_url=mock.base_url,
            )
            out_text, err_text = _magic_run(
                f"update {_copy(workdir / 'magic')} --force --base-url {mock.base_url} --agent anthropic"
            )
            notebook += [out_text, err_text]
            # failing runs
            for case in cases:
                mock.responder = case.responder(mock)
                path = _copy(workdir / f"fail{runs}")
                out = _cli(path, mock.base_url, case.args, key)
                shown.append(out["text"])
                errors.append(_exception_text(out["exc"]))
                runs += 1
            mock.responder = cases[0].responder(mock)
            out_text, err_text = _magic_run(
                f"update {_copy(workdir / 'magic-fail')} --force --yes --base-url {mock.base_url}"
            )
            notebook += [out_text, err_text]
            reached = sum(
                key in (r.headers.get("x-api-key", "") + r.headers.get("authorization", ""))
                for r in mock.requests
            )
        finally:
            mock.stop()
    found = _scan_files(workdir, needles)
    places = {
        "documents (*.o-o.html)": found["documents"],
        "history (snapshots, log.jsonl)": found["history"],
        "proposals (pending.json)": found["pending"],
        "recorded cassettes": found["cassettes"],
        "CLI output": sum(_count(t, needles) for t in shown),
        "notebook outputs (%oo)": sum(_count(t, needles) for t in notebook),
        "log records (SDK debug on)": sum(_count(t, needles) for t in logs.lines),
        "exception messages + tracebacks": sum(_count(t, needles) for t in errors),
    }
    rows = [
        Figure(
            "6 secret",
            "requests that carried the marker key",
            runs + 2,
            reached,
            "> 0",
            reached > 0,
        )
    ]
    rows += [
        Figure("6 secret", f"key found in {where}", runs + 2, n, "0", n == 0)
        for where, n in places.items()
    ]
    rows.append(
        Figure(
            "6 secret",
            "files scanned / log records",
            found["files"],
            f"{found['files']} files, {len(logs.lines)} log records",
            "info",
            None,
        )
    )
    return rows


def _copy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / DOC
    shutil.copy(corpus_dir() / DOC, target)
    return target


def _cli(path: Path, base_url: str, args: tuple[str, ...], key: str) -> dict[str, Any]:
    """``run_update`` with stdout/stderr captured too (the key comes from the environment)."""
    yes = "--no-yes" not in args
    args = tuple(a for a in args if a != "--no-yes")
    buf = io.StringIO()
    with redirect_stdout(buf), redirect_stderr(buf):
        try:
            out = run_update(path, base_url, args, key=key, yes=yes, patch_backend=False)
        except OOError as exc:  # not expected: run_update turns these into text
            out = {"text": str(exc), "exc": exc}
    out["text"] = out["text"] + buf.getvalue()
    return out


def _scan_files(folder: Path, needles: list[bytes]) -> dict[str, int]:
    found = {"documents": 0, "history": 0, "pending": 0, "cassettes": 0, "files": 0}
    for p in folder.rglob("*"):
        if not p.is_file():
            continue
        found["files"] += 1
        n = _count(p.read_bytes(), needles)
        if p.name == "pending.json":
            found["pending"] += n
        elif ".oo-history" in p.parts:
            found["history"] += n
        elif p.name.endswith(".cassette.json"):
            found["cassettes"] += n
        else:
            found["documents"] += n
    return found
