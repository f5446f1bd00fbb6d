"""``oo alerts DIR``: send the library's new alerts now; ``--show`` the settings and what is
waiting without sending; ``--test`` one test message through every channel; ``--init`` a
starting ``DIR/.oo/alerts.json`` (see ``oo_nb.alerts.config`` for its fields); ``--trust``
confirms the settings as the user's (``oo_nb.alerts.trust``: none are used before), and the
documents whose contract asks ``review: "auto"`` (``oo_nb.store.library_trust``)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from oo_nb.alerts.config import (
    AlertConfig,
    UntrustedSettings,
    config_path,
    load_config,
    private_dir,
    url_host,
)
from oo_nb.alerts.deliver import (
    AlertReport,
    deliver,
    ignored_line,
    ignored_owed,
    read_record,
    test_alert,
    with_owed,
)
from oo_nb.alerts.events import Event, collect_events
from oo_nb.alerts.trust import env_problem, record_trust
from oo_nb.cli.schedule import seal_key_mismatch
from oo_nb.cli.verbs import TextResult
from oo_nb.errors import OOError, ValidationError
from oo_nb.schedule.env_file import ENV_FILE, env_file_defaults, read_env_file
from oo_nb.store.library_trust import (
    REVIEW_AUTO_FIELD,
    review_auto_documents,
    review_auto_problem,
    settings_dir_fd,
)

__all__ = ["HELP", "add_arguments", "run"]

ENV_FILE_SHOWN = f".oo/{ENV_FILE}"
_NAMED = 10  # documents named in a line

HELP = "send a library's alerts (sentinel occurred, review waiting, failures, dead links); --show, --test, --init, --trust"

TEMPLATE = {
    "channels": [
        {"type": "webhook", "name": "webhook", "format": "slack", "url_env": "OO_ALERT_WEBHOOK"},
        {"type": "desktop", "name": "desktop"},
    ],
    "events": ["sentinel", "proposal", "failed", "links", "budget"],
    "digest_after": 3,
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the library folder (its settings: DIR/.oo/alerts.json)")
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--show", action="store_true", help="the channels and the unsent events; sends nothing"
    )
    what.add_argument(
        "--test", action="store_true", help="send one test message through every channel"
    )
    what.add_argument(
        "--init", action="store_true", help="write a starting DIR/.oo/alerts.json (0600)"
    )
    what.add_argument(
        "--trust",
        action="store_true",
        help="confirm DIR/.oo/alerts.json (and its ca_file), .oo/env and the contracts asking "
        'review: "auto" as yours: none is used before',
    )


def _init(folder: Path) -> TextResult:
    path = config_path(folder)
    if path.exists():
        raise ValidationError("already exists; edit it instead", file=str(path))
    private_dir(folder)
    with settings_dir_fd(folder) as settings:  # never through a linked .oo: another library's
        fd = os.open(path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=settings)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(TEMPLATE, out, indent=2)
        out.write("\n")
    record_trust(path, review_auto=False)  # written by the user's own command: theirs
    return TextResult(
        f"wrote {path}: set OO_ALERT_WEBHOOK to your webhook URL (or edit the channels), "
        f"then `oo alerts {folder} --test`"
    )


def _env_lines(folder: Path, config: AlertConfig | None) -> list[str]:
    """What ``.oo/env`` sets for a scheduled run: names, and the host of a URL a webhook channel
    reads from it (where alerts would go); never a value, which may be a secret."""
    settings = read_env_file(folder)
    if not settings:
        return []
    urls = {c.options.get("url_env") for c in config.channels} if config else set()
    names = [
        f"{name} (a URL to {url_host(value)})" if name in urls else name
        for name, value in sorted(settings.items())
    ]
    return [
        f"  {ENV_FILE_SHOWN} sets {', '.join(names)} for `oo schedule --run` "
        "(never over a variable your environment already sets)"
    ]


def _trust(folder: Path) -> TextResult:
    config = load_config(folder, require_trust=False)  # a bad field is named before confirming
    env = _env_lines(folder, config)  # a bad line too
    auto = review_auto_documents(folder)
    path = config_path(folder)
    if config is None and not env and not auto:
        raise ValidationError(
            f"does not exist (nor {ENV_FILE_SHOWN}, nor a contract asking review: auto): "
            "nothing to trust",
            file=str(path),
        )
    private_dir(folder)
    try:
        record = record_trust(path)
    except OSError as exc:
        raise ValidationError(f"cannot be confirmed: {exc}", file=str(path)) from None
    except OOError as exc:  # .oo a link: it may be another library's record
        raise ValidationError(f"cannot be confirmed: {exc.message}", file=str(path)) from None
    if config is None:
        lines = [f"confirmed as yours, in {folder} (no alerts.json):"]
    else:
        lines = [f"confirmed {config.path} as yours (sha256 {record['alerts_sha256'][:12]}…):"]
        lines += [f"  channel {c.describe()}" for c in config.channels] or ["  (no channels)"]
    lines += env
    lines += _review_auto_lines(record.get(REVIEW_AUTO_FIELD, []))
    lines.append(
        "an edit of the file (or of a ca_file, url_file or password_file it names, or of "
        f"{ENV_FILE_SHOWN}), or a contract asking review: auto after this, needs --trust again"
    )
    return TextResult("\n".join(lines))


def _review_auto_lines(names: list[str]) -> list[str]:
    """The documents whose contract's ``review: "auto"`` is confirmed: a clean update of each is
    written without review (``store.library_trust``)."""
    if not names:
        return []
    return [
        f'  review: "auto" in {len(names)} document(s) (a clean update written without review): '
        + _first_names(names)
    ]


def _unconfirmed_review_auto(folder: Path) -> list[str]:
    """A line naming the documents whose contract asks ``review: "auto"`` that an update does
    not obey (not confirmed with --trust), if any."""
    names = [n for n in review_auto_documents(folder) if review_auto_problem(folder / n)]
    if not names:
        return []
    return [
        f'  review: "auto" NOT USED in {len(names)} document(s), not confirmed (--trust): '
        + _first_names(names)
    ]


def _first_names(names: list[str]) -> str:
    more = len(names) - _NAMED
    return ", ".join(names[:_NAMED]) + (f" and {more} more" if more > 0 else "")


def _show(folder: Path) -> TextResult:
    config = load_config(folder, require_trust=False)
    unconfirmed = _unconfirmed_review_auto(folder)
    if config is None:
        return TextResult(
            "\n".join(
                [
                    f"no alerts configured: `oo alerts {folder} --init` writes {config_path(folder)}",
                    *unconfirmed,
                ]
            ),
            1,
        )
    lines = [f"settings {config.path}", *unconfirmed]
    code = 1 if unconfirmed else 0
    try:
        load_config(folder)
    except UntrustedSettings as exc:
        lines.append(f"  NOT USED: {exc.message}")
        code = 1
    lines += [f"  channel {c.describe()}" for c in config.channels] or ["  (no channels)"]
    lines += _env_lines(folder, config)
    if stale := seal_key_mismatch(folder):
        lines.append(f"  WARNING: {stale}")
        code = 1
    if env := env_problem(folder / ".oo"):
        lines.append(f"  {ENV_FILE_SHOWN} NOT READ by a scheduled run: {env} (--trust)")
        code = 1
    lines.append(
        f"  events  {', '.join(sorted(config.events))}; a digest above {config.digest_after} at once"
    )
    record = read_record(folder)
    shown = collect_events(folder, kinds=config.events)
    waiting: list[tuple[Event, str]] = []
    # (with those a channel is owed that the library no longer shows)
    for e in with_owed(shown, record, config):
        if e.key not in record or not record[e.key].vouched:
            waiting.append((e, ""))
        elif owing := [c.name for c in config.channels if record[e.key].owed_to(c.name)]:
            waiting.append((e, f" (not yet to {', '.join(owing)})"))  # that channel failed
    lines.append(f"{len(waiting)} event(s) not sent yet" + (":" if waiting else ""))
    lines += [f"  [{e.kind}] {e.title}{to}" for e, to in waiting]
    if ignored := ignored_owed(shown, record, config):
        lines.append(ignored_line(ignored))
    return TextResult("\n".join(lines), code, value=[e for e, _ in waiting])


def _report(report: AlertReport) -> TextResult:
    return TextResult(
        "\n".join(report.lines()), 1 if report.errors or not report.configured else 0, report
    )


def run(ns: argparse.Namespace) -> TextResult:
    folder = Path(ns.dir)
    if not folder.is_dir():
        raise ValidationError("is not a folder", file=str(folder))
    if ns.init:
        return _init(folder)
    if ns.show or ns.trust:
        with env_file_defaults(folder):  # a variable the scheduled run takes from .oo/env
            return _show(folder) if ns.show else _trust(folder)
    if ns.test:
        return _report(test_alert(folder))
    config = load_config(folder)
    if config is None:
        return _report(AlertReport(configured=False))
    return _send(folder, config)


def _send(folder: Path, config: AlertConfig) -> TextResult:
    """Send what is new, as update-all does (``cli.update_all._send_alerts``): a signal
    (Ctrl-C, SIGTERM from cron) ends the sending at once, what went is recorded and said, the
    rest go next time, and the exit status is the signal's."""
    from oo_nb.agent.interrupt import Stop, catches_signals, held

    stop = Stop(catches_signals())
    with held(stop):
        report = deliver(folder, collect_events(folder, kinds=config.events), config, stop)
    if stop.signum is None:
        return _report(report)
    report.interrupted = report.interrupted or stop.name  # (or after the last message went)
    return TextResult("\n".join(report.lines()), stop.exit_code, report)
