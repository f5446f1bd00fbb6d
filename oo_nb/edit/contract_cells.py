"""``%%oo contract DOC`` cell bodies: ``key: value`` lines or one JSON object, turned into the
same edits ``oo contract --set/--add/--remove`` makes (``contract_edit``), applied in one write."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from oo_nb.edit.contract import (
    LIST_KEYS,
    SET_KEYS,
    ContractEditResult,
    Edit,
    apply_edits,
    canonical_key,
)
from oo_nb.errors import ValidationError

__all__ = ["apply_contract_body", "parse_body"]

_LINE = re.compile(r"^\s*([+-]?)\s*([A-Za-z][A-Za-z _.-]*?)\s*:\s*(.*?)\s*$")


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def parse_body(body: str) -> list[Edit]:
    """A ``%%oo contract`` body: ``key: value`` lines or one JSON object.

    Lines: ``budget: 2``, ``scope: ...`` set fields; list lines (``intent: ...``, repeated)
    replace that list with the lines given, in order; ``+section: Timeline`` adds and
    ``-deny: example.com`` removes one item. ``#`` starts a comment line.
    JSON: ``{"budget": 2, "intents": ["a", "b"], "section": "Timeline"}``: a list value
    replaces the list, a string adds one item.
    """
    text = body.strip()
    if not text:
        raise ValidationError("the cell is empty: give `key: value` lines or a JSON object")
    if text.startswith("{"):
        return _parse_json_body(text)
    edits: list[Edit] = []
    replaced: dict[str, list[str]] = {}
    set_at: dict[str, tuple[int, str]] = {}  # a field's line and text: a field is set once
    for n, line in enumerate(body.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            raise ValidationError(f"expected `key: value`, found {line.strip()!r}", line=n)
        sign, raw_key, value = m.group(1), m.group(2), _unquote(m.group(3))
        try:
            key = canonical_key(raw_key)
        except ValidationError as exc:
            exc.line = n
            exc.args = (exc._compose(),)
            raise
        if key in SET_KEYS:
            if sign:
                raise ValidationError(
                    f"+/- apply to lists only ({', '.join(LIST_KEYS)})", line=n, key=raw_key
                )
            if key in set_at:
                first, said = set_at[key]
                raise ValidationError(
                    f"given twice, on line {first} ({said!r}) and line {n} ({line.strip()!r}); "
                    "nothing written: keep the line with the value you mean",
                    line=n,
                    key=raw_key,
                )
            set_at[key] = (n, line.strip())
            edits.append(Edit("set", key, value))
        elif sign:
            edits.append(Edit("add" if sign == "+" else "remove", key, value))
        else:
            replaced.setdefault(key, []).append(value)
    edits.extend(Edit("replace", key, tuple(values)) for key, values in replaced.items())
    return edits


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once (``json`` keeps the last of two silently)."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValidationError(
                f"given twice in the JSON object ({seen[key]!r} and {value!r}); nothing "
                "written: keep the value you mean",
                key=key,
            )
        seen[key] = value
    return seen


def _parse_json_body(text: str) -> list[Edit]:
    try:
        data = json.loads(text, object_pairs_hook=_once_each)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from None
    if not isinstance(data, dict):
        raise ValidationError("the JSON must be an object of keys and values")
    edits: list[Edit] = []
    for raw_key, value in data.items():
        key = canonical_key(str(raw_key))
        if key in SET_KEYS:
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise ValidationError("must be text or a number", key=raw_key)
            edits.append(Edit("set", key, str(value)))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            edits.append(Edit("replace", key, tuple(value)))
        elif isinstance(value, str):
            edits.append(Edit("add", key, value))
        else:
            raise ValidationError(
                "must be a list of strings (replaces the list) or a string (adds one)", key=raw_key
            )
    return edits


def apply_contract_body(doc_path: str | Path, body: str) -> ContractEditResult:
    """What ``%%oo contract DOC`` runs: parse the cell, apply every edit in one write."""
    edits = parse_body(body)
    if not edits:
        raise ValidationError("the cell holds no edits (only comments or blank lines)")
    return apply_edits(doc_path, edits)
