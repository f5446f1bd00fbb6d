"""Which alert settings are the user's own: ``DIR/.oo/alerts.json`` is used only once the user has
confirmed it (``oo alerts DIR --trust``, or ``--init`` that wrote it).

A library from elsewhere (a clone, a tarball) brings its ``.oo/`` folder. Its alerts.json could
name a host of its author's and one of the user's ``OO_`` variables as the password or URL, and a
``ca_file`` that makes that host trusted; owner and mode prove nothing (tar keeps modes, a clone
makes the user the owner). So the confirmation is this machine's seal (``store.seal``, keyed
outside every library) over the digests of alerts.json, of each ``ca_file`` it names and of each
``url_file`` / ``password_file`` a channel reads (what it sends to and with), kept in
``.oo/alerts.trusted``: a file that came with the library cannot vouch for itself, and an edit of
any of them after the confirmation needs a new one. The secret files' digests are keyed (the
seal's HMAC, not a plain sha256): a short password cannot be guessed back from the record.

The same record confirms ``.oo/env`` (``schedule.env_file``): a scheduled run reads it only when
its keyed digest is the one sealed, since a library's own ``.oo/env`` could set the variable a
confirmed channel reads (``url_env``) to its author's URL, or its own API key and model. And it
names the documents whose contract's ``review: "auto"`` an update obeys (``store.library_trust``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from oo_nb.schedule.env_file import ENV_FILE
from oo_nb.store.library_trust import (
    CONTRACTS_FIELD,
    LIBRARY_FIELD,
    REVIEW_AUTO_FIELD,
    TRUST_FILE,
    library_identity,
    review_auto_contracts,
    settings_dir_fd,
    stored_trust,
)
from oo_nb.store.seal import seal

__all__ = ["TRUST_FILE", "env_problem", "record_trust", "trust_problem"]


# the fields naming a file of .oo/ whose text a channel sends to or with (config's ``_secret``)
SECRET_FILE_FIELDS = ("url_file", "password_file")


def _file_names(raw: Any, fields: tuple[str, ...]) -> list[str]:
    """The file names the settings give in ``fields`` (only plain names: others are refused
    later)."""
    channels = raw.get("channels") if isinstance(raw, dict) else None
    names = set()
    for channel in channels if isinstance(channels, list) else []:
        for field in fields:
            name = channel.get(field) if isinstance(channel, dict) else None
            if isinstance(name, str) and name and Path(name).name == name and name != "..":
                names.add(name)
    return sorted(names)


def _digest(path: Path, *, follow: bool = True) -> str:
    """The file's sha256; "missing" when it cannot be opened (or is a link and not ``follow``),
    "not a plain file" for a FIFO or a folder (never waited on)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError:
        return "missing"
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a plain file"
        return hashlib.sha256(handle.read()).hexdigest()


def _keyed_digest(path: Path) -> str:
    """The file's digest under this machine's seal key (a link is not followed: it could point
    at any of the user's files, and reading a secret file refuses it anyway)."""
    plain = _digest(path, follow=False)
    if plain in ("missing", "not a plain file"):
        return plain
    return seal({"secret_file": path.name, "sha256": plain}) or "no key"


def _record(settings: Path, data: bytes, raw: Any) -> dict[str, Any]:
    folder = settings.parent
    secret_files = _file_names(raw, SECRET_FILE_FIELDS)
    return {
        "alerts_sha256": hashlib.sha256(data).hexdigest(),
        "ca_sha256": {n: _digest(folder / n) for n in _file_names(raw, ("ca_file",))},
        "secret_files": {n: _keyed_digest(folder / n) for n in secret_files},
        "env": _keyed_digest(folder / ENV_FILE),
    }


def record_trust(settings: Path, *, review_auto: bool = True) -> dict[str, Any]:
    """Confirm the settings at ``settings`` (alerts.json) as they are now, for the library that
    holds them, and (``review_auto``) the documents of the library whose contract asks
    ``review: "auto"``, else keep those the record named; returns the record.

    Raises
    ------
    OSError
        No seal key could be made (``store.seal``): nothing can be confirmed.
    OOError
        ``.oo`` is a link, or not a folder: it is never written through (it may be another
        library's record).
    """
    root = settings.parent.parent
    with settings_dir_fd(root) as dir_fd:  # refused before anything is read through it
        try:
            data = settings.read_bytes()
        except FileNotFoundError:  # .oo/env confirmed alone: alerts.json made later is not
            data = b""
        try:
            raw = json.loads(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raw = None
        record = {**_record(settings, data, raw), LIBRARY_FIELD: library_identity(root)}
        if review_auto:
            contracts = review_auto_contracts(root)
        else:  # (``--init``: it shows alerts only, so it confirms nothing else)
            stored = stored_trust(settings.parent)
            kept = stored.get(CONTRACTS_FIELD) if isinstance(stored, dict) else None
            contracts = kept if isinstance(kept, dict) else {}
        record[REVIEW_AUTO_FIELD] = sorted(contracts)
        record[CONTRACTS_FIELD] = contracts
        mark = seal(record)
        if mark is None:
            raise OSError("no seal key could be made in this user's data folder (OO_DATA_DIR)")
        _write_record(dir_fd, {**record, "seal": mark})
    return record


def _write_record(dir_fd: int, record: dict[str, Any]) -> None:
    """``alerts.trusted`` in the folder open as ``dir_fd``, replaced whole, never through a
    link (a link at its name is replaced, not followed)."""
    temp = f".{TRUST_FILE}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o600, dir_fd=dir_fd)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(record, out, indent=1, sort_keys=True)
        out.write("\n")
    os.replace(temp, TRUST_FILE, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def trust_problem(settings: Path, data: bytes, raw: Any) -> str | None:
    """None when ``data`` (the bytes of alerts.json, parsed as ``raw``) and its CA files are
    what the user confirmed; otherwise why not, in words for the user."""
    stored = stored_trust(settings.parent)
    if isinstance(stored, str):
        return stored
    record = _record(settings, data, raw)
    if stored.get("alerts_sha256") != record["alerts_sha256"]:
        return "changed since you confirmed it"
    if stored.get("ca_sha256") != record["ca_sha256"]:
        return "a ca_file it names changed since you confirmed it"
    stored_files = stored.get("secret_files", {})  # none in a record from before they were sealed
    for name, digest in record["secret_files"].items():
        if not isinstance(stored_files, dict) or stored_files.get(name) != digest:
            return f"the file .oo/{name} it reads a URL or password from changed since you confirmed it"
    return None


def env_problem(folder: Path) -> str | None:
    """None when ``folder/env`` (``folder`` is ``.oo/``) is absent or is the one the user
    confirmed with ``oo alerts DIR --trust``; otherwise why not, in words for the user."""
    digest = _keyed_digest(folder / ENV_FILE)
    if digest == "missing":
        return None
    stored = stored_trust(folder)
    if isinstance(stored, str):
        return stored
    if stored.get("env") != digest:
        return "changed since you confirmed it" if "env" in stored else "not confirmed as yours"
    return None
