"""A library's defaults for new documents: what `bash index.o-o.html --show/--set/--add/--remove`
shows and edits (o-o edits the template in its index there), and what ``oo new`` / ``%oo new``
start every new document of the folder with.

They are kept in ``DIR/.oo-new-defaults.json`` as the values that differ from oo_nb's own
defaults. An edit is made, and checked, by the contract editor on a sample new document
(``edit.contract.plan_edits``): one set of rules for a document's contract and for the
defaults. Only what holds for any document can be a default; a subject, scope, intents or a
sentinel are each document's own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oo_nb.edit.contract import LIST_KEYS, SET_KEYS, ContractEditResult, Edit, plan_edits
from oo_nb.edit.new import NewSpec, render_new
from oo_nb.errors import OOError, ValidationError
from oo_nb.format.document import Document
from oo_nb.format.names import CONTRACT_BLOCK, MANIFEST_BLOCK, NEW_DEFAULTS_FILE
from oo_nb.store.atomic import atomic_write_bytes

__all__ = [
    "DEFAULT_FIELDS",
    "DEFAULT_LISTS",
    "DefaultsEditResult",
    "LibraryDefaults",
    "defaults_path",
    "edit_defaults",
    "read_defaults",
    "show_defaults",
]

DEFAULT_FIELDS = ("audience", "tone", "budget", "update_every_days", "model", "review")
DEFAULT_LISTS = ("section", "prefer", "deny")
_FORMAT = "oo-nb-new-defaults"
_SAMPLE = "new-document.o-o.html"


@dataclass(frozen=True)
class LibraryDefaults:
    """The defaults that differ from oo_nb's: field -> value as typed, list -> its items."""

    fields: dict[str, str] = field(default_factory=dict)
    lists: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def edits(self, *, sentinel: bool = False) -> list[Edit]:
        """The edits that give a new document these defaults (a sentinel keeps its own
        sections: they are what a sentinel reports)."""
        out = [Edit("set", key, value) for key, value in self.fields.items()]
        out += [
            Edit("replace", key, items)
            for key, items in self.lists.items()
            if not (sentinel and key == "section")
        ]
        return out


class DefaultsEditResult(ContractEditResult):
    """What an edit of the defaults changed (said as such: no document was touched)."""

    def to_text(self) -> str:
        if not self.changes:
            head = f"{self.path}: defaults for new documents unchanged"
        elif self.written:
            head = f"{self.path}: defaults for new documents updated (documents already made keep theirs)"
        else:
            head = f"{self.path}: the defaults would change (nothing written)"
        return "\n".join(
            [
                head,
                *(f"  {c}" for c in self.changes),
                *(f"  {n}" if n.startswith("warning:") else f"  note: {n}" for n in self.notes),
            ]
        )


def defaults_path(folder: str | Path) -> Path:
    return Path(folder) / NEW_DEFAULTS_FILE


def read_defaults(folder: str | Path) -> LibraryDefaults:
    """The folder's defaults (none when it has no file). A damaged file is an error naming it
    and the entry: new documents must not quietly lose the library's settings."""
    path = defaults_path(folder)
    if not path.is_file():
        if path.exists() or path.is_symlink():
            raise OOError(
                "is not a regular file: the library's defaults cannot be read", file=str(path)
            )
        return LibraryDefaults()
    try:
        raw = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValidationError(
            f"the library's defaults are unreadable: {exc}", file=str(path)
        ) from exc
    if not isinstance(raw, dict) or raw.get("format") != _FORMAT:
        raise ValidationError(f'not a defaults file (no "format": "{_FORMAT}")', file=str(path))
    fields, lists = raw.get("fields", {}), raw.get("lists", {})
    if not isinstance(fields, dict) or not isinstance(lists, dict):
        raise ValidationError('"fields" and "lists" must be JSON objects', file=str(path))
    for key, value in fields.items():
        if key not in DEFAULT_FIELDS or not isinstance(value, str):
            raise ValidationError("not a default field with a text value", file=str(path), key=key)
    for key, items in lists.items():
        if key not in DEFAULT_LISTS or not (
            isinstance(items, list) and all(isinstance(i, str) for i in items)
        ):
            raise ValidationError("not a default list of texts", file=str(path), key=key)
    defaults = LibraryDefaults(dict(fields), {k: tuple(v) for k, v in lists.items()})
    try:
        _sample(defaults)  # the values obey the contract's rules (a hand edit may not)
    except ValidationError as exc:
        raise exc.with_file(str(path)) from None
    return defaults


def _sample(defaults: LibraryDefaults) -> Document:
    """A new document of the library, as ``oo new`` would start it (no title of its own)."""
    text = render_new(NewSpec(title="New document"), _SAMPLE)
    doc = Document(text)
    return plan_edits(doc, defaults.edits())[0]


def _values(doc: Document) -> LibraryDefaults:
    """The defaults a sample document holds that differ from a plain new document's."""
    plain = _sample(LibraryDefaults())
    fields: dict[str, str] = {}
    for key in DEFAULT_FIELDS:
        value, before = _at(doc, SET_KEYS[key]), _at(plain, SET_KEYS[key])
        if value != before and value is not None:
            fields[key] = str(value)
    lists: dict[str, tuple[str, ...]] = {}
    for key in DEFAULT_LISTS:
        items, before = _at(doc, LIST_KEYS[key]), _at(plain, LIST_KEYS[key])
        if items != before and isinstance(items, list):
            lists[key] = tuple(str(i) for i in items)
    return LibraryDefaults(fields, lists)


def _at(doc: Document, path: tuple[str, ...]) -> Any:
    block = MANIFEST_BLOCK if path == ("update_every_days",) else CONTRACT_BLOCK
    value: Any = doc.block_json(block)
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def edit_defaults(
    folder: str | Path, edits: list[Edit], *, dry_run: bool = False
) -> ContractEditResult:
    """Apply ``edits`` to the library's defaults, checked as a contract edit, and keep them."""
    path = defaults_path(folder)
    for edit in edits:
        if edit.key not in (*DEFAULT_FIELDS, *DEFAULT_LISTS):
            raise ValidationError(
                f"is each document's own, not a library default; defaults: "
                f"{', '.join(DEFAULT_FIELDS)}; lists: {', '.join(DEFAULT_LISTS)} "
                "(edit one document with: bash DOC.o-o.html --set KEY VALUE)",
                file=str(path),
                key=edit.key,
            )
    current = read_defaults(folder)
    try:
        new, changes, notes = plan_edits(_sample(current), edits)
    except ValidationError as exc:
        raise exc.with_file(str(path)) from None
    result = DefaultsEditResult(path, changes, notes, document=new)
    if changes and not dry_run:
        values = _values(new)
        data = {
            "format": _FORMAT,
            "version": 1,
            "fields": values.fields,
            "lists": {k: list(v) for k, v in values.lists.items()},
        }
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        atomic_write_bytes(path, text.encode("utf-8"), mode=0o644)
        result.written = True
    return result


def show_defaults(folder: str | Path) -> str:
    """What every new document of the folder starts with."""
    defaults = read_defaults(folder)
    doc = _sample(defaults)
    c, m = doc.contract, doc.manifest
    rows = [
        ("audience", c.audience),
        ("tone", c.tone),
        ("budget", f"{c.max_cost_usd:.2f} USD per update"),
        ("updates", f"every {m.cadence_days} day{'s' if m.cadence_days != 1 else ''}"),
        ("model", c.model or "(default)"),
        ("review", str(_at(doc, SET_KEYS["review"]) or "always (default)")),
    ]
    lists = [
        ("section", c.required_sections),
        ("prefer", c.prefer_domains),
        ("deny", c.deny_domains),
    ]
    where = defaults_path(folder)
    lines = [
        f"Defaults for new documents in {Path(folder)} "
        f"({'kept in ' + where.name if where.exists() else 'oo_nb defaults'}; "
        "edit with --set KEY VALUE, --add/--remove LIST VALUE):"
    ]
    lines += [f"  {k:<9} {v}" for k, v in rows]
    for key, items in lists:
        lines.append(f"  {key:<9} {items[0] if items else '(none)'}")
        lines += [f"  {'':<9} {item}" for item in items[1:]]
    return "\n".join(lines)
