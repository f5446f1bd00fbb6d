"""A fake ``claude`` command for the scratch-copy attacks: it records its folder and PID, then
leaves something other than a document in place of the copy (a FIFO, a device, a socket, a
link to a device, a folder), sleeps (to be killed), removes the section ``FAKE_CLAUDE_DROP``
(mode ``drop-section``), adds a paragraph ``FAKE_CLAUDE_TEXT`` to it (``edit-section``) or
changes nothing, and makes the text replacements ``FAKE_CLAUDE_ALSO`` (a JSON list of
[old, new]) as well; then it reports a paid result."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

__all__ = [
    "FAKE_MODES",
    "RESEARCH_URL",
    "fake_claude_env",
    "read_log",
    "research_claude_env",
    "wait_for_log",
    "wait_for_runs",
]

FAKE_MODES = ("fifo", "device", "socket", "link", "folder")

_SCRIPT = r"""
import json, os, socket, stat, sys, time
from pathlib import Path

mode = os.environ.get("FAKE_CLAUDE_MODE", "nochange")
doc = next(Path.cwd().glob("*.o-o.html"))
log = Path(os.environ["FAKE_CLAUDE_LOG"])
log.write_text(json.dumps({"cwd": os.getcwd(), "pid": os.getpid()}))
with open(str(log) + ".all", "a") as every:  # one line per run, for runs side by side
    every.write(json.dumps({"cwd": os.getcwd(), "pid": os.getpid()}) + "\n")
if mode == "sleep":
    time.sleep(float(os.environ.get("FAKE_CLAUDE_SLEEP", "120")))
if mode == "drop-section":  # the copy loses one section (heading and text), as an edit would
    import re
    sid = os.environ["FAKE_CLAUDE_DROP"]
    text = doc.read_text()
    pid = r"(?:<!--\s*pid:[^>]*-->\s*)?"
    cut = re.sub(pid + '<h2 id="' + re.escape(sid) + '">.*?(?=' + pid + r"<h2\b)", "", text, 1, re.S)
    assert cut != text, sid
    doc.write_text(cut)
elif mode == "edit-section":  # a paragraph added under the h2 FAKE_CLAUDE_DROP, as written
    sid = os.environ["FAKE_CLAUDE_DROP"]
    text = doc.read_text()
    head = '<h2 id="' + sid + '">'
    start = text.index(head)
    end = text.index("</h2>", start) + len("</h2>")
    doc.write_text(text[:end] + "\n<p>" + os.environ.get("FAKE_CLAUDE_TEXT", "Added.") + "</p>" + text[end:])
elif mode != "nochange":
    doc.unlink()
for old, new in json.loads(os.environ.get("FAKE_CLAUDE_ALSO", "[]")):  # edits beside the mode's
    text = doc.read_text()
    assert text.count(old) == 1, old
    doc.write_text(text.replace(old, new))
if mode == "fifo":
    os.mkfifo(doc)
elif mode == "device":  # a character device node (the numbers of /dev/null: harmless to open)
    os.mknod(doc, stat.S_IFCHR | 0o644, os.makedev(1, 3))
elif mode == "socket":
    server = socket.socket(socket.AF_UNIX)
    server.bind(doc.name)  # relative: socket paths are short
elif mode == "link":
    os.symlink("/dev/null", doc)
elif mode == "folder":
    doc.mkdir()
print(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                  "total_cost_usd": 0.05, "num_turns": 1, "result": "Done."}))
"""


def fake_claude_env(folder: Path) -> dict[str, str]:
    """Environment variables that put the fake first on PATH (installed in ``folder/bin``)
    and send its log to ``folder/claude-log.json``."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "claude"
    script.write_text(f"#!{sys.executable}\n{_SCRIPT}")
    script.chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_CLAUDE_LOG": str(folder / "claude-log.json"),
    }


def read_log(env: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(env["FAKE_CLAUDE_LOG"]).read_text())
    return data


def wait_for_runs(env: dict[str, str], n: int, timeout: float = 60.0) -> list[dict[str, Any]]:
    """The first ``n`` runs started (their folder and PID), once they have."""
    log = Path(env["FAKE_CLAUDE_LOG"] + ".all")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= n:
            return [json.loads(line) for line in lines]
        time.sleep(0.05)
    raise TimeoutError(f"fewer than {n} fake claude runs started")


def wait_for_log(env: dict[str, str], timeout: float = 30.0) -> dict[str, Any]:
    log = Path(env["FAKE_CLAUDE_LOG"])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and log.stat().st_size:
            return read_log(env)
        time.sleep(0.05)
    raise TimeoutError("the fake claude never started")


# The Claude Code backend run by itself in a child process (no `oo update`: its imports cost
# seconds), for the SIGTERM attack: ``python -c BACKEND_CHILD DOC``.
BACKEND_CHILD = r"""
import sys
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from oo_nb.agent.backends.claude_code import ClaudeCodeBackend
from oo_nb.agent.budget import Budget
from oo_nb.agent.pricing import price_for

backend = ClaudeCodeBackend(model="claude-sonnet-5-5", doc_path=Path(sys.argv[1]))
ctx = SimpleNamespace(as_of=None, today=date(2026, 11, 29), next_source_id="s1",
                      blocked_domains=(), sentinel=None, image_refs={})
budget = Budget(limit_usd=1.0, price=price_for("claude-sonnet-5-5"))
backend.run(ctx, budget=budget, run=backend.new_run(1.0), validate=lambda p: p)
"""


# A researching fake (the default-agent and images tests): it adds a section citing a source it
# "found", writes FAKE_CLAUDE_IMAGES (raw text, so a broken file can be tested) as oo-images.json,
# and prints stream-json with FAKE_CLAUDE_SEARCHES WebSearch and FAKE_CLAUDE_FETCHES WebFetch
# tool uses, and a result whose usage holds no search counts (as Claude Code's does not).
RESEARCH_URL = "https://news.example.com/fresh-find"

_RESEARCH_SCRIPT = r"""
import json, os, sys
from pathlib import Path
from oo_nb.format.document import Document

Path(os.environ["FAKE_CLAUDE_LOG"]).write_text(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(),
    "images_file": Path("oo-images.json").read_text() if Path("oo-images.json").exists() else None}))
url = os.environ["FAKE_CLAUDE_URL"]
doc_path = next(Path.cwd().glob("*.o-o.html"))
doc = Document.read(doc_path)
html = doc.article_html.replace('<h2 id="references">',
    '<h2 id="fresh-news">Fresh News</h2>\n<p>Fresh news [s90].</p>\n\n<h2 id="references">', 1)
doc = doc.with_article(html)
doc = doc.edit_block("oo-source-cache", lambda c: c["sources"].append(
    {"id": "s90", "url": url, "title": "Found", "tier": "news", "accessed": "2026-11-29"}))
doc_path.write_bytes(doc.to_bytes())
images = os.environ.get("FAKE_CLAUDE_IMAGES")
if images is not None:
    Path("oo-images.json").write_text(images)
events = [{"type": "system", "subtype": "init"}]
n = 0
for kind, count in (("WebSearch", int(os.environ.get("FAKE_CLAUDE_SEARCHES", "2"))),
                    ("WebFetch", int(os.environ.get("FAKE_CLAUDE_FETCHES", "1")))):
    for _ in range(count):
        n += 1
        tid = f"toolu_{n}"
        args = {"query": "q"} if kind == "WebSearch" else {"url": url, "prompt": "read"}
        events.append({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": tid, "name": kind, "input": args}]}})
        events.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": tid, "content": "Results: " + url}]}})
events.append({"type": "result", "subtype": "success", "is_error": False, "total_cost_usd": 0.2,
               "num_turns": n + 1, "result": "Done.",
               "usage": {"input_tokens": 4000, "output_tokens": 600}})
for e in events:
    print(json.dumps(e))
"""


def research_claude_env(folder: Path, url: str = RESEARCH_URL) -> dict[str, str]:
    """Environment variables that put the researching fake first on PATH (``folder/bin``);
    its log (argv, cwd, the images file it was given) goes to ``folder/claude-log.json``."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "claude"
    script.write_text(f"#!{sys.executable}\n{_RESEARCH_SCRIPT}")
    script.chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_CLAUDE_LOG": str(folder / "claude-log.json"),
        "FAKE_CLAUDE_URL": url,
    }


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` has ended, waiting up to ``within`` seconds for it."""
    deadline = time.monotonic() + within
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)
