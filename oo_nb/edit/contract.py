"""Edit a document's contract: set a field, add to or remove from a list.

Unlike the original's sed edits (every matching line in the file, templates after the
terminator included, and invalid JSON after ``--add`` on an empty array), an edit here changes
the operative ``oo-contract`` block only, through the JSON it holds, and is validated before the
store writes it (history kept). The cadence lives in the manifest, in the field the document
already uses: ``freshness`` (daily, weekly, monthly: what an early document's own shell reads)
stays a word when the new cadence has one, and becomes ``update_every_days`` only when it has
none (with a warning). On a page that still runs the original o-o page script, a value its
contract panel shows as HTML (identity, intents, required sections) may not hold markup: such an
edit is refused (``format/legacy_script.py``), the file is left as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from oo_nb.edit.new import parse_days
from oo_nb.errors import OOError, ValidationError
from oo_nb.format.blocks import FRESHNESS_DAYS, REVIEW_MODES, Contract
from oo_nb.format.budget_rule import parse_budget
from oo_nb.format.display import as_named
from oo_nb.format.document import Document
from oo_nb.format.findings import unsafe_text
from oo_nb.format.legacy_script import contract_risks, runs_original_script
from oo_nb.format.names import CONTRACT_BLOCK, MANIFEST_BLOCK
from oo_nb.format.unsafe_text import unsafe_fields
from oo_nb.format.vocab import domain_pattern, truncate
from oo_nb.skin import history_advice, new_advice, sync_advice, trust_advice
from oo_nb.store import store

__all__ = [
    "LIST_KEYS",
    "SENTINEL_STATUSES",
    "SET_KEYS",
    "ContractEditResult",
    "Edit",
    "apply_edits",
    "canonical_key",
    "plan_edits",
    "summary",
]

# key -> path of the value inside the contract ("update_every_days" is in the manifest)
SET_KEYS: dict[str, tuple[str, ...]] = {
    "subject": ("identity", "subject"),
    "scope": ("identity", "scope"),
    "audience": ("identity", "audience"),
    "tone": ("identity", "tone"),
    "budget": ("budget", "max_cost_usd"),
    "update_every_days": ("update_every_days",),
    "model": ("model",),
    "review": ("review",),
    "sentinel.event": ("sentinel", "event"),
    "sentinel.status": ("sentinel", "status"),
}
LIST_KEYS: dict[str, tuple[str, ...]] = {
    "intent": ("research", "intents"),
    "section": ("research", "required_sections"),
    "prefer": ("research", "source_policy", "prefer_domains"),
    "deny": ("research", "source_policy", "deny_domains"),
    "criteria": ("sentinel", "criteria"),
}
SENTINEL_STATUSES = ("not_occurred", "occurred", "unknown")
_ALIASES = {
    "intents": "intent",
    "sections": "section",
    "required_sections": "section",
    "prefer_domains": "prefer",
    "deny_domains": "deny",
    "max_cost_usd": "budget",
    "every": "update_every_days",
    "cadence": "update_every_days",
    "criterion": "criteria",
    "sentinel.criteria": "criteria",
    "sentinel_criteria": "criteria",
    "event": "sentinel.event",
    "sentinel_event": "sentinel.event",
    "status": "sentinel.status",
    "sentinel_status": "sentinel.status",
}
_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")

Op = Literal["set", "add", "remove", "replace"]
# a contract's review: "auto" from elsewhere must not write unattended (``store.library_trust``)
_REVIEW_AUTO_NOTE = 'review: "auto" is used once you confirm it on this machine: `{}`'


@dataclass(frozen=True)
class Edit:
    op: Op
    key: str
    value: str | tuple[str, ...]


@dataclass
class ContractEditResult:
    path: Path
    changes: list[str]
    notes: list[str] = field(default_factory=list)
    written: bool = False
    document: Document | None = None
    exit_code: int = 0

    @property
    def value(self) -> Document | None:
        return self.document

    def to_text(self) -> str:
        if not self.changes:
            head = f"{as_named(self.path)}: contract unchanged"
        elif self.written:
            head = (
                f"{as_named(self.path)}: contract updated; the previous version is kept "
                f"({history_advice(as_named(self.path))})"
            )
        else:
            head = f"{as_named(self.path)}: would change (nothing written)"
        return "\n".join(
            [
                head,
                *(f"  {c}" for c in self.changes),
                *(f"  {n}" if n.startswith("warning:") else f"  note: {n}" for n in self.notes),
            ]
        )

    def __repr__(self) -> str:
        return self.to_text()


def valid_keys_text() -> str:
    return f"fields: {', '.join(SET_KEYS)}; lists: {', '.join(LIST_KEYS)}"


def canonical_key(key: str, *, lists: bool | None = None) -> str:
    """The key's canonical name; ``lists`` True/False restricts to list or field keys."""
    name = key.strip().lower().replace("-", "_").replace(" ", "_")
    name = _ALIASES.get(name, name)
    allowed = LIST_KEYS if lists else SET_KEYS if lists is False else {**SET_KEYS, **LIST_KEYS}
    if name not in allowed:
        what = "list" if lists else "field" if lists is False else "key"
        raise ValidationError(f"unknown {what} {key!r}; valid {valid_keys_text()}", key=key)
    return name


# --------------------------------------------------------------------------- value checks
def _text(key: str, value: str) -> str:
    text = value.strip()
    if not text:
        raise ValidationError("must not be empty", key=key)
    return text


def _list_item(key: str, value: str) -> str:
    item = _text(key, value)
    if key in ("prefer", "deny"):
        item = domain_pattern(item)
        if not _DOMAIN.match(item):
            raise ValidationError(f"{value!r} is not a domain name like example.com", key=key)
    return item


def _same(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


# --------------------------------------------------------------------------- planning
def _container(root: dict[str, Any], path: tuple[str, ...], key: str) -> dict[str, Any]:
    node = root
    for part in path:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ValidationError(
                f"cannot edit: {'.'.join(path)} is not an object in this contract", key=key
            )
        node = child
    return node


def _sentinel_object(contract: dict[str, Any], key: str, changes: list[str]) -> None:
    """Make sure a sentinel document has the structured ``sentinel`` object before one of its
    fields is edited. An original sentinel (marked only by ``instructions.sentinel`` and a
    SENTINEL CHECK step) gets one seeded with what it already says; a document that watches
    for nothing is refused rather than silently turned into a sentinel."""
    if isinstance(contract.get("sentinel"), dict):
        return
    if "sentinel" in contract:
        raise ValidationError("cannot edit: sentinel is not an object in this contract", key=key)
    found = Contract.from_json(contract).sentinel
    if found is None:
        raise ValidationError(
            "this document is not a sentinel document (it watches for no event); create one with "
            + new_advice("Title", sentinel=True),
            key=key,
        )
    contract["sentinel"] = {
        "event": found.event,
        "criteria": list(found.criteria),
        "status": found.status,
        "last_checked": None,
        "evidence": "",
    }
    changes.append(
        "sentinel: structured fields added (event, criteria, status); the original's marks are kept"
    )


def _get_list(contract: dict[str, Any], key: str, changes: list[str]) -> list[Any]:
    if key == "criteria":
        _sentinel_object(contract, key, changes)
    *parents, leaf = LIST_KEYS[key]
    holder = _container(contract, tuple(parents), key)
    items = holder.setdefault(leaf, [])
    if not isinstance(items, list):
        raise ValidationError(f"cannot edit: {'.'.join(LIST_KEYS[key])} is not a list", key=key)
    return items


def _set_field(contract: dict[str, Any], edit: Edit, changes: list[str], notes: list[str]) -> None:
    key, raw = edit.key, str(edit.value)
    if key.startswith("sentinel."):
        _sentinel_object(contract, key, changes)
    *parents, leaf = SET_KEYS[key]
    holder = _container(contract, tuple(parents), key)
    old = holder.get(leaf)
    new: Any
    if key == "budget":
        new = parse_budget(raw)
        if isinstance(old, (int, float)) and not isinstance(old, bool) and float(old) == new:
            return
        changes.append(
            f"budget: {old if old is not None else '(default)'} -> {new:.2f} USD per update"
        )
    elif key == "sentinel.status":
        new = raw.strip().lower().replace(" ", "_").replace("-", "_")
        if new not in SENTINEL_STATUSES:
            raise ValidationError(
                f"must be one of {', '.join(SENTINEL_STATUSES)}; got {raw!r}", key=key
            )
        if old == new:
            return
        changes.append(f"{key}: {_short(old)} -> {new!r}")
    elif key == "review":
        new = raw.strip().lower()
        if new not in REVIEW_MODES:
            raise ValidationError(
                f'must be "always" (every proposal waits for review) or "auto" (a clean one is '
                f"written); got {raw!r}",
                key=key,
            )
        if (old or "always") == new:
            return
        changes.append(f"review: {old or 'always (default)'} -> {new}")
    elif key == "model":
        new = raw.strip()
        if new and re.search(r"\s", new):
            raise ValidationError(f"a model name has no spaces: {raw!r}", key=key)
        if not new:
            if leaf in holder:
                del holder[leaf]
                changes.append("model: removed (the default model is used)")
            return
        if old == new:
            return
        changes.append(f"model: {old or '(default)'} -> {new}")
    else:
        new = _text(key, raw)
        if old == new:
            return
        changes.append(f"{key}: {_short(old)} -> {_short(new)}")
        if key == "sentinel.event" and isinstance(old, str) and old.strip():
            _restate_event(contract, old, new, changes, notes)
    holder[leaf] = new


# The sentences ``oo new`` writes naming a sentinel's event (newdoc.build_blocks), as
# (before, after) around the event. Only these are restated when the event changes: a plain
# substring replace would also rewrite the user's own words ("GPT-6 benchmarks").
_GENERATED_EVENT_SENTENCES: dict[tuple[str, str], tuple[str, str]] = {
    ("identity", "scope"): (
        "This is a sentinel document watching for one event: ",
        ". Until it happens",
    ),
    ("instructions", "sentinel"): (
        "This is a SENTINEL document. The event it watches for (",
        ") had not happened when",
    ),
}


def _restate_event(
    contract: dict[str, Any], old: str, new: str, changes: list[str], notes: list[str]
) -> None:
    """``oo new`` also names the event in the sentinel instructions and the scope (what the
    original's sentinels read): name the new one in those generated sentences too, so the
    contract never disagrees with itself. Text the user wrote is never rewritten; if it still
    names the old event, a note says so."""
    for (parent, leaf), (before, after) in _GENERATED_EVENT_SENTENCES.items():
        holder = contract.get(parent)
        text = holder.get(leaf) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or not isinstance(text, str):
            continue
        sentence = before + old + after
        if sentence in text:
            holder[leaf] = text.replace(sentence, before + new + after)
            changes.append(f"{parent}.{leaf}: names the new event")
        elif old in text:  # an original sentinel, or a sentence the user rewrote
            notes.append(
                f"{parent}.{leaf} names the old event in words oo new did not write; left as written"
            )
    # oo new's first search intent is "EVENT YEAR": it follows the event; other intents are the user's
    research = contract.get("research")
    intents = research.get("intents") if isinstance(research, dict) else None
    generated = re.compile(re.escape(old) + r" (\d{4})")
    for i, intent in enumerate(intents if isinstance(intents, list) else []):
        m = generated.fullmatch(intent) if isinstance(intent, str) else None
        if m is not None and isinstance(intents, list):
            intents[i] = f"{new} {m.group(1)}"
            changes.append(f"research.intents[{i}]: {intent!r} -> {intents[i]!r}")


def _short(value: Any, width: int = 60) -> str:
    text = "(none)" if value is None else str(value)
    return repr(truncate(text, width))


def _edit_list(contract: dict[str, Any], edit: Edit, changes: list[str], notes: list[str]) -> None:
    key = edit.key
    items = _get_list(contract, key, changes)
    if edit.op == "replace":
        assert isinstance(edit.value, tuple)
        new = list(dict.fromkeys(_list_item(key, v) for v in edit.value))
        had_refs = any(isinstance(v, str) and _same(v, "References") for v in items)
        if key == "section" and had_refs and not any(_same(v, "References") for v in new):
            new.append("References")  # every article ends with References: a replace keeps it
            notes.append("section: References kept as the last section")
        if new != items:
            changes.append(f"{key}: list set to {new}")
            items[:] = new
        return
    value = _list_item(key, str(edit.value))
    match = next((i for i, v in enumerate(items) if isinstance(v, str) and _same(v, value)), None)
    if edit.op == "add":
        if match is not None:
            notes.append(f"{key}: {value!r} is already there")
            return
        at = len(items)
        if (
            key == "section"
            and items
            and isinstance(items[-1], str)
            and _same(items[-1], "References")
        ):
            at = len(items) - 1  # References stays the last section
        items.insert(at, value)
        where = " (before References)" if at < len(items) - 1 else ""
        changes.append(f"{key}: added {value!r}{where}")
    else:
        if match is None:
            present = ", ".join(repr(v) for v in items) or "(the list is empty)"
            raise ValidationError(f"{value!r} is not in the list; it holds: {present}", key=key)
        removed = items.pop(match)
        changes.append(f"{key}: removed {removed!r}")


_FRESHNESS_WORD = {
    days: word for word, days in FRESHNESS_DAYS.items()
}  # 1 daily, 7 weekly, 30 monthly


def _set_cadence(
    manifest: dict[str, Any], raw: str, changes: list[str], notes: list[str]
) -> dict[str, Any]:
    """Set the cadence in the shape the document already uses. Early documents hold
    ``freshness`` (daily/weekly/monthly) and their own shell tail reads only that field, so it
    stays a word whenever the cadence has one; other day counts need ``update_every_days``."""
    days = parse_days(raw)
    word = _FRESHNESS_WORD.get(days)
    if "freshness" in manifest and "update_every_days" not in manifest:
        old = manifest["freshness"]
        if word is not None:
            if old != word:
                changes.append(
                    f"freshness: {_short(old)} -> {word!r} (manifest, every {days} day{'s' if days != 1 else ''})"
                )
                manifest["freshness"] = word
            return manifest
        # keep the key order: the new field takes the freshness field's place
        converted = {
            ("update_every_days" if k == "freshness" else k): (days if k == "freshness" else v)
            for k, v in manifest.items()
        }
        changes.append(f"update_every_days: {days} (manifest; replaces freshness={old!r})")
        notes.append(
            f"warning: {days} days has no freshness word (daily=1, weekly=7, monthly=30), so the manifest's "
            f"freshness={old!r} became update_every_days={days}; this document's original shell tail "
            f"(bash FILE) reads only freshness and will not see the new cadence"
        )
        return converted
    if manifest.get("update_every_days") != days:
        changes.append(
            f"update_every_days: {manifest.get('update_every_days', '(default 7)')} -> {days} (manifest)"
        )
        manifest["update_every_days"] = days
    if "freshness" in manifest and manifest["freshness"] != word:
        # both fields: update_every_days rules; keep freshness from contradicting it where it can
        if word is not None:
            changes.append(
                f"freshness: {_short(manifest['freshness'])} -> {word!r} (manifest, kept in step)"
            )
            manifest["freshness"] = word
        else:
            notes.append(
                f"warning: freshness={manifest['freshness']!r} is left as it was; update_every_days={days} rules"
            )
    return manifest


def plan_edits(doc: Document, edits: list[Edit]) -> tuple[Document, list[str], list[str]]:
    """Apply ``edits`` to ``doc`` in memory: (new document, changes, notes). Pure; raises
    ``ValidationError`` for bad keys or values, before anything is written."""
    if doc.kind == "index":
        raise ValidationError(
            "is a library index page: it has no contract. Edit a document's contract instead (oo contract DOC ...)",
            file=doc.file,
        )
    changes: list[str] = []
    notes: list[str] = []
    contract_edits = [e for e in edits if e.key != "update_every_days"]
    cadence = [e for e in edits if e.key == "update_every_days"]
    result = doc
    try:
        if contract_edits:
            contract = doc.block_json(CONTRACT_BLOCK)
            if not isinstance(contract, dict):
                raise ValidationError("the contract is not a JSON object", block=CONTRACT_BLOCK)
            was = contract.get("review")
            unsafe_before = unsafe_fields(contract)
            for edit in contract_edits:
                if edit.op == "set":
                    _set_field(contract, edit, changes, notes)
                else:
                    _edit_list(contract, edit, changes, notes)
            _refuse_unsafe_text(unsafe_before, contract)
            asked = Contract.from_json(contract, file=doc.file)  # still a valid contract
            if changes:
                result = result.with_block(CONTRACT_BLOCK, contract)
            if asked.review == "auto" and was != "auto":
                notes.append(_REVIEW_AUTO_NOTE.format(trust_advice(Path(doc.file or ".").parent)))
        if cadence:
            manifest = doc.block_json(MANIFEST_BLOCK)
            if not isinstance(manifest, dict):
                raise ValidationError("the manifest is not a JSON object", block=MANIFEST_BLOCK)
            before = len(changes)
            for edit in cadence:
                manifest = _set_cadence(manifest, str(edit.value), changes, notes)
            if len(changes) > before:
                result = result.with_block(MANIFEST_BLOCK, manifest)
    except ValidationError as exc:
        if doc.file:
            exc.with_file(doc.file)
        raise
    if result is not doc and runs_original_script(result):
        _refuse_markup(doc, result)
    return result, changes, notes


def _refuse_unsafe_text(before: list[tuple[str, list[str]]], contract: dict[str, Any]) -> None:
    """A value holding a control, bidi or zero-width character is refused by the rule ``oo
    check`` reports them with (``unsafe-text``), so the editor never writes what check then
    flags. Values already in the contract do not block other edits (the audit reports them)."""
    for where, names in unsafe_fields(contract):
        if (where, names) not in before:
            raise ValidationError(
                "refused, nothing written: " + unsafe_text(f"contract {where}", names),
                key=where,
            )


def _refuse_markup(doc: Document, result: Document) -> None:
    """The original page script shows the contract's identity, intents and sections as HTML
    (legacy_script): a new value there holding markup would run in the reader's browser. Values
    already in the contract do not block other edits (the audit reports them)."""
    known = {(r.field, r.text) for r in contract_risks(_raw_contract(doc))}
    for risk in contract_risks(_raw_contract(result)):
        if (risk.field, risk.text) in known:
            continue
        raise ValidationError(
            f"refused: {risk.where} would be {risk.shown}, which {risk.cause}; "
            "this document still runs the original o-o page script, which shows that value as HTML, "
            "so it would run as markup in the reader's browser. Write it without '<', '>' or a "
            "character reference for them (look-alikes such as \u2039 \u203a read the same), or "
            "first give the document oo_nb's page code, which shows it as text: "
            f"`{sync_advice(_folder(doc), 'migrate')}`",
            file=doc.file,
            key=risk.where.removeprefix("contract "),
        )


def _raw_contract(doc: Document) -> dict[str, Any]:
    """The contract's JSON as the page script reads it (an edit may be fixing an invalid one)."""
    try:
        raw = doc.block_json(CONTRACT_BLOCK)
    except OOError:
        return {}
    return raw if isinstance(raw, dict) else {}


def _folder(doc: Document) -> str:
    return str(doc.path.parent) if doc.path is not None else "DIR"


def apply_edits(
    path: str | Path, edits: list[Edit], *, dry_run: bool = False
) -> ContractEditResult:
    """Read, edit, validate and write through the store (history kept, no lost update)."""
    p = Path(path)
    doc = Document.read(p)
    new, changes, notes = plan_edits(doc, edits)
    result = ContractEditResult(p, changes, notes, document=new)
    if changes and not dry_run:
        store.write_document(new, expected=doc.to_bytes(), action="contract edit")
        result.written = True
    return result


# --------------------------------------------------------------------------- --show
def summary(doc: Document) -> str:
    """Manifest and contract, readable (``oo contract DOC --show``)."""
    if doc.kind == "index":
        raise ValidationError(
            "is a library index page: it has no manifest or contract", file=doc.file
        )
    m, c = doc.manifest, doc.contract
    cadence = f"every {m.cadence_days} day{'s' if m.cadence_days != 1 else ''}"
    if m.cadence_field == "freshness":
        cadence += f" (legacy freshness={m.raw.get('freshness')!r})"
    rows: list[tuple[str, str]] = [
        ("title", m.title),
        (
            "version",
            f"{m.version}, as of {m.as_of.isoformat() if m.as_of else 'never (not researched yet)'}",
        ),
        ("updates", cadence),
        ("subject", c.subject),
        ("scope", c.scope),
        ("audience", c.audience),
        ("tone", c.tone),
        ("budget", f"{c.max_cost_usd:.2f} USD per update"),
        ("model", c.model or "(default)"),
    ]
    lists = [
        ("intent", c.intents),
        ("section", c.required_sections),
        ("prefer", c.prefer_domains),
        ("deny", c.deny_domains),
    ]
    lines = [str(doc.path or "(unsaved)")]
    lines += [f"  {k:<9} {v}" for k, v in rows]
    for key, items in lists:
        lines.append(f"  {key:<9} {items[0] if items else '(none)'}")
        lines += [f"  {'':<9} {item}" for item in items[1:]]
    if c.sentinel is not None:
        s = c.sentinel
        event = truncate(s.event, 120)
        lines.append(f"  sentinel  {event or '(no event named)'}")
        lines.append(
            f"  {'':<9} status {s.status.replace('_', ' ')}"
            + (f", checked {s.last_checked.isoformat()}" if s.last_checked else "")
        )
        lines.append(f"  {'criteria':<9} {s.criteria[0] if s.criteria else '(none)'}")
        lines += [f"  {'':<9} {item}" for item in s.criteria[1:]]
    return "\n".join(lines)
