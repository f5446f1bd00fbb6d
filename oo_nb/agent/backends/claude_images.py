"""Images and research figures from a Claude Code run.

Images: the prompt asks Claude Code to list the images it wants in ``oo-images.json`` in its
scratch folder (direct image URL, caption, credit page, optional alt, section and layout). That
file is untrusted input: it is read only when it is a small regular file, and every entry is
checked field by field. A bad file or entry is a warning naming the file and the field, never a
failed run; the good entries become the proposal's ``images`` and go through the same download
and Pillow checks as the API backend's (``agent.images``, ``agent.image_fetch``).

Research figures: Claude Code's result reports no ``server_tool_use`` counts, so its searches
and fetches are counted from the ``WebSearch`` / ``WebFetch`` tool uses in its stream-json output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.claude_stream import stream_events
from oo_nb.agent.proposal import LAYOUTS, LIMITS, SECTION_ID
from oo_nb.errors import AgentError
from oo_nb.format.vocab import strip_unsafe

__all__ = [
    "IMAGES_FILE",
    "MAX_IMAGES_FILE_BYTES",
    "images_prompt",
    "read_images_file",
    "web_tool_counts",
]

IMAGES_FILE = "oo-images.json"
MAX_IMAGES_FILE_BYTES = 256 * 1024
_FIELDS = ("url", "caption", "credit", "alt", "section", "layout")
_MAX_WARNINGS = 10


def images_prompt(allowed: bool, max_images: int) -> list[str]:
    """The prompt lines about images (none added when the contract does not allow them)."""
    if not allowed or max_images <= 0:
        return ["- Do not add images."]
    return [
        f"- Images (at most {max_images} in the article, counting those it has): do not put them in the file. "
        f"To add one, edit ./{IMAGES_FILE} (it holds an empty JSON list) into a list of objects: "
        '{"url": direct https URL of the image file, "caption": one sentence, '
        '"credit": https URL of the page the image comes from, "alt": short description, '
        '"section": the h2 id it belongs to}. The harness downloads, checks, resizes and embeds them '
        "with their caption and credit. Only images you saw on pages you fetched; none is fine."
    ]


def _text(entry: dict[str, Any], key: str, where: str, limit: int, warnings: list[str]) -> str:
    """The entry's string field (trimmed), or "" with a warning when it is not a string or too long."""
    value = entry.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        warnings.append(f"{where}.{key}: must be a string, found {type(value).__name__}")
        raise ValueError
    value = strip_unsafe(value).strip()
    if len(value) > limit:
        warnings.append(f"{where}.{key}: longer than {limit} characters")
        raise ValueError
    return value


def _entry(item: Any, where: str, warnings: list[str]) -> dict[str, str] | None:
    """One entry as a proposal image, or None (with a warning naming the field)."""
    if not isinstance(item, dict):
        warnings.append(f"{where}: must be an object, found {type(item).__name__}")
        return None
    try:
        url = _text(item, "url", where, LIMITS["url"], warnings)
        caption = _text(item, "caption", where, LIMITS["image.caption"], warnings)
        credit = _text(item, "credit", where, LIMITS["url"], warnings)
        alt = _text(item, "alt", where, LIMITS["image.alt"], warnings)
        section = _text(item, "section", where, 64, warnings)
        layout = _text(item, "layout", where, 20, warnings)
    except ValueError:
        return None
    if not url.lower().startswith("https://"):
        warnings.append(f"{where}.url: must be an https URL")
        return None
    if not caption:
        warnings.append(f"{where}.caption: missing (every image needs a caption)")
        return None
    if credit and not credit.lower().startswith(("https://", "http://")):
        warnings.append(f"{where}.credit: must be the URL of the image's page; credit left out")
        credit = ""
    if section and not SECTION_ID.match(section):
        warnings.append(f"{where}.section: not a section id; placed in the first section")
        section = ""
    if layout and layout not in LAYOUTS:
        warnings.append(f"{where}.layout: must be one of {', '.join(LAYOUTS)}; fig-right used")
        layout = ""
    out = {"url": url, "caption": caption, "page_url": credit or url, "alt": alt}
    if section:
        out["section"] = section
    if layout:
        out["layout"] = layout
    return out


def read_images_file(folder: Path, read: Any) -> tuple[list[dict[str, str]], list[str]]:
    """The images listed in ``folder/oo-images.json`` as proposal ``images`` entries, and the
    warnings about what was left out. ``read(path, limit)`` reads a regular file of at most
    ``limit`` bytes or raises ``AgentError`` (the scratch-copy reader). No file: no images."""
    path = folder / IMAGES_FILE
    name = IMAGES_FILE
    if not path.exists() and not path.is_symlink():
        return [], []
    try:
        data = read(path, MAX_IMAGES_FILE_BYTES)
    except AgentError as exc:
        return [], [f"{name}: {exc.message}; no image added"]
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return [], [f"{name}: not UTF-8 text; no image added"]
    except json.JSONDecodeError as exc:
        return [], [f"{name}: not valid JSON (line {exc.lineno}: {exc.msg}); no image added"]
    except RecursionError:  # small enough, yet deeper than the parser goes
        return [], [f"{name}: nested too deep to read; no image added"]
    if isinstance(raw, dict) and set(raw) == {"images"}:
        raw = raw["images"]
    if not isinstance(raw, list):
        return [], [f"{name}: must be a JSON list of image objects; no image added"]
    warnings: list[str] = []
    images: list[dict[str, str]] = []
    for i, item in enumerate(raw):
        if len(images) >= LIMITS["images"]:
            warnings.append(f"{name}[{i}:]: more than {LIMITS['images']} images; the rest left out")
            break
        unknown = sorted(k for k in item if k not in _FIELDS) if isinstance(item, dict) else []
        if unknown:
            warnings.append(f"{name}[{i}]: unknown field(s) {', '.join(unknown[:5])} ignored")
        entry = _entry(item, f"{name}[{i}]", warnings)
        if entry is not None:
            images.append(entry)
    if len(warnings) > _MAX_WARNINGS:  # a file of many bad entries: a few named, the rest counted
        more = len(warnings) - _MAX_WARNINGS
        warnings = [
            *warnings[:_MAX_WARNINGS],
            f"{name}: {more} more problem(s) with its entries, not listed",
        ]
    return images, warnings


def web_tool_counts(stdout: str) -> tuple[int, int]:
    """(searches, fetches): the distinct ``WebSearch`` and ``WebFetch`` tool uses in Claude
    Code's stream-json output (assistant turns only; a repeated tool-use id counts once)."""
    seen: dict[str, str] = {}
    for event in stream_events(stdout):
        if event.get("type") != "assistant":
            continue
        message = event.get("message")
        blocks = message.get("content") if isinstance(message, dict) else None
        for b in blocks if isinstance(blocks, list) else []:
            if (
                isinstance(b, dict)
                and b.get("type") == "tool_use"
                and b.get("name") in ("WebSearch", "WebFetch")
            ):
                key = b.get("id") if isinstance(b.get("id"), str) else f"#{len(seen)}"
                seen[str(key)] = str(b["name"])
    names = list(seen.values())
    return names.count("WebSearch"), names.count("WebFetch")
