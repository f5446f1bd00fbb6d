"""A library's alert settings for the alert tests: ``.oo/alerts.json`` holding the channels
given, confirmed as the user's own (``oo alerts --trust``) or as a library from elsewhere brings
it (never confirmed here); and a stand-in ``notify-send``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oo_nb.alerts.trust import record_trust

__all__ = ["fake_notify_send", "write_alerts"]


def write_alerts(
    folder: Path, *channels: dict[str, Any], trusted: bool = True, **extra: Any
) -> Path:
    """``folder/.oo/alerts.json`` with ``channels`` and the ``extra`` settings (``digest_after``
    …). ``trusted``: confirmed as the user's own; else as a tarball unpacks it (mode 0600,
    owned by the user, never confirmed: the tests of the refusal, and of ``--trust`` itself)."""
    settings = folder / ".oo"
    settings.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = settings / "alerts.json"
    path.write_text(json.dumps({"channels": list(channels), **extra}))
    if trusted:
        record_trust(path)
    else:
        path.chmod(0o600)  # tar keeps modes; the user owns what they unpack
    return path


def fake_notify_send(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``notify-send`` in ``folder`` ($OO_NOTIFY_SEND) that writes its arguments, one a line,
    to the file returned."""
    record = folder / "notified.txt"
    fake = folder / "notify-send"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("OO_NOTIFY_SEND", str(fake))
    return record
