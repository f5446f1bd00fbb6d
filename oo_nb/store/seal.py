"""This machine's seal on what it wrote into a library: an HMAC-SHA256 over a record, keyed by a
secret that lives outside every library (the user's data folder), so a file that came with a
cloned library or was edited by hand cannot vouch for itself. What only a seal can vouch for (a
proposal's sources seen, quotes found, cost; a link check's verdict) counts as unverified when
the seal is missing or wrong.

The key is made once, 0600 in a 0700 folder: ``$OO_DATA_DIR`` when set (tests point it at a
temporary folder), else ``$XDG_DATA_HOME/oo-nb``, else ``~/.local/share/oo-nb``. When it cannot
be made or read, nothing is sealed, and nothing is vouched for: safe, only less convenient."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

__all__ = ["DATA_DIR_ENV", "KEY_FILE", "is_sealed", "key_path", "seal"]

DATA_DIR_ENV = "OO_DATA_DIR"
KEY_FILE = "seal.key"
SEAL_FIELD = "seal"  # the record's field that holds the seal (left out of what is sealed)
_KEY_BYTES = 32


def key_path() -> Path:
    folder = os.environ.get(DATA_DIR_ENV, "").strip()
    if folder:
        return Path(folder) / KEY_FILE
    data = os.environ.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local" / "share")
    return Path(data) / "oo-nb" / KEY_FILE


def _read_key(path: Path) -> bytes | None:
    try:
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None


def _key(create: bool) -> bytes | None:
    """The key; made first when ``create`` (never replaced: a damaged one seals nothing)."""
    path = key_path()
    if not create or path.exists():
        return _read_key(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return _read_key(path)
    except OSError:
        return None
    with os.fdopen(fd, "wb") as out:
        out.write(secrets.token_bytes(_KEY_BYTES))
    return _read_key(path)


def _digest(key: bytes, record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != SEAL_FIELD}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # (surrogatepass: a file name that is not UTF-8 is sealed as it is; other text is unchanged)
    return hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def seal(record: dict[str, Any]) -> str | None:
    """The seal of ``record`` (a JSON-able dict), or None when no key can be had."""
    key = _key(create=True)
    return None if key is None else _digest(key, record)


def is_sealed(record: dict[str, Any]) -> bool:
    """True only when ``record`` carries this machine's seal over exactly what it holds."""
    mark = record.get(SEAL_FIELD)
    key = _key(create=False)
    if not isinstance(mark, str) or key is None:
        return False
    try:
        return hmac.compare_digest(mark, _digest(key, record))
    except (TypeError, ValueError):  # a value json cannot write (never in a parsed file)
        return False
