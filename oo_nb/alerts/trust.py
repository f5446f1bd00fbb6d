"""Which alert settings are the user's own: ``DIR/.oo/alerts.json`` is used only once the user has
confirmed it (``oo alerts DIR --trust``, or ``--init`` that wrote it).

A library from elsewhere (a clone, a tarball) brings its ``.oo/`` folder. Its alerts.json could
name a host of its author's and one of the user's ``OO_`` variables as the password or URL, and a
``ca_file`` that makes that host trusted; owner and mode prove nothing (tar keeps modes, a clone
makes the user the owner). So the confirmation is this machine's seal (``store.seal``, keyed
outside every library) over the digests of alerts.json and of each ``ca_file`` it names, kept in
``.oo/alerts.trusted``: a file that came with the library cannot vouch for itself, and an edit of
either file after the confirmation needs a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from oo_nb.store.seal import is_sealed, seal

__all__ = ["TRUST_FILE", "record_trust", "trust_problem"]

TRUST_FILE = "alerts.trusted"
_MAX_TRUST_FILE = 64 * 1024


def _ca_names(raw: Any) -> list[str]:
    """The ``ca_file`` names the settings give (only plain names: others are refused later)."""
    channels = raw.get("channels") if isinstance(raw, dict) else None
    names = set()
    for channel in channels if isinstance(channels, list) else []:
        name = channel.get("ca_file") if isinstance(channel, dict) else None
        if isinstance(name, str) and name and Path(name).name == name and name != "..":
            names.add(name)
    return sorted(names)


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def _record(settings: Path, data: bytes, raw: Any) -> dict[str, Any]:
    return {
        "alerts_sha256": hashlib.sha256(data).hexdigest(),
        "ca_sha256": {n: _digest(settings.parent / n) for n in _ca_names(raw)},
    }


def record_trust(settings: Path) -> dict[str, Any]:
    """Confirm the settings at ``settings`` (alerts.json) as they are now; returns the record.

    Raises
    ------
    OSError
        No seal key could be made (``store.seal``): nothing can be confirmed.
    """
    data = settings.read_bytes()
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raw = None
    record = _record(settings, data, raw)
    mark = seal(record)
    if mark is None:
        raise OSError("no seal key could be made in this user's data folder (OO_DATA_DIR)")
    path = settings.parent / TRUST_FILE
    temp = path.with_name(f".{TRUST_FILE}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({**record, "seal": mark}, out, indent=1, sort_keys=True)
        out.write("\n")
    os.replace(temp, path)
    return record


def trust_problem(settings: Path, data: bytes, raw: Any) -> str | None:
    """None when ``data`` (the bytes of alerts.json, parsed as ``raw``) and its CA files are
    what the user confirmed; otherwise why not, in words for the user."""
    path = settings.parent / TRUST_FILE
    try:
        with path.open("rb") as handle:
            stored = json.loads(handle.read(_MAX_TRUST_FILE).decode("utf-8"))
    except FileNotFoundError:
        stored = None
    except (OSError, ValueError, UnicodeDecodeError):
        stored = {}
    if stored is None:
        return "not confirmed as yours"
    if not isinstance(stored, dict) or not is_sealed(stored):
        return f"not confirmed on this machine ({TRUST_FILE} is not sealed by it)"
    record = _record(settings, data, raw)
    if stored.get("alerts_sha256") != record["alerts_sha256"]:
        return "changed since you confirmed it"
    if stored.get("ca_sha256") != record["ca_sha256"]:
        return "a ca_file it names changed since you confirmed it"
    return None
