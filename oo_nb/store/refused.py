"""A paid run's proposal that was refused (its shape did not pass the validator), kept in the
document's history folder as ``refused-<ns>.json``: the research was paid for, so it is never
thrown away. It is not a proposal to review (it did not pass); the error names the file so the
user can read what the run found."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from oo_nb.format.scrub import scrub_value
from oo_nb.store.atomic import atomic_write_bytes
from oo_nb.store.history import utc_now
from oo_nb.store.history_place import history_folder

__all__ = ["keep_refused"]


def keep_refused(path: Path, proposal: Any, *, reason: str, cost_usd: float) -> Path:
    """Write ``proposal`` (cleaned of secrets), why it was refused and what it cost into the
    history of the document ``path``; returns the file. Never replaces another file."""
    record = {
        "created": utc_now(),
        "reason": reason,
        "cost_usd": cost_usd,
        "proposal": scrub_value(proposal)[0],
    }
    data = json.dumps(record, ensure_ascii=False, default=str).encode("utf-8")
    target = history_folder(path) / f"refused-{time.time_ns()}.json"
    atomic_write_bytes(target, data, mode=0o644, exclusive=True)
    return target
