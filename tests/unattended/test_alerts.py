"""Alerts sent through real channels on loopback: a webhook receiver (http.server), an SMTP
server with STARTTLS and a login (aiosmtpd), and a stand-in notify-send."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from oo_nb.alerts.config import load_config
from oo_nb.alerts.deliver import alert_after_update, read_sent
from oo_nb.alerts.trust import record_trust
from oo_nb.cli.main import main
from oo_nb.errors import ValidationError
from oo_nb.store import clock
from oo_nb.store.link_store import LinkRow, write_links
from tests.support.alert_receivers import smtp_server, webhook_receiver
from tests.support.alert_settings import fake_notify_send, write_alerts
from tests.support.watched import watched_library


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    watched_library(tmp_path / "lib")
    return tmp_path / "lib"


def test_sentinel_flip_sent_once_with_evidence_and_sources(lib: Path) -> None:
    with webhook_receiver() as hook:
        write_alerts(lib, {"type": "webhook", "name": "team", "format": "json", "url": hook.url})
        first = alert_after_update(lib)
        assert not first.errors and first.delivered == {"team": 1}
        assert len(hook.bodies) == 1
        event = hook.bodies[0]["events"][0]
        assert event["kind"] == "sentinel" and event["document"] == "lighthouse"
        assert "Relit on 1 December [s2]" in hook.bodies[0]["text"]
        assert event["sources"] == ["https://example.org/2"]
        # a rerun finds the same event and sends nothing
        again = alert_after_update(lib)
        assert again.already_sent == 1 and not again.new and len(hook.bodies) == 1
    sent = (lib / ".oo" / "alerts-sent.jsonl").read_text()
    assert "sentinel:lighthouse:v2" in sent
    assert stat.S_IMODE((lib / ".oo" / "alerts-sent.jsonl").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("fmt", "field"), [("slack", "text"), ("discord", "content"), ("ntfy", "message")]
)
def test_service_bodies(lib: Path, fmt: str, field: str) -> None:
    with webhook_receiver() as hook:
        write_alerts(lib, {"type": "webhook", "format": fmt, "url": hook.url, "topic": "lib-watch"})
        assert not alert_after_update(lib).errors
    body = hook.bodies[0]
    assert "has occurred" in body[field] or "has occurred" in body.get("title", "")
    if fmt == "ntfy":
        assert body["topic"] == "lib-watch" and body["priority"] == 4
    allowed = {"text", "content", "allowed_mentions", "topic", "title", "message", "tags"}
    assert set(body) <= allowed | {"priority"}


def test_many_events_at_once_make_one_digest(lib: Path) -> None:
    for n in range(2, 6):  # four more sentinels that flipped, and a dead link
        watched_library(lib, f"beacon-{n}.o-o.html")
    write_links(
        lib,
        [
            LinkRow(
                "https://example.org/1",
                404,
                None,
                True,
                "dead",
                True,
                None,
                clock.now().isoformat(),  # within the reuse age
            )
        ],
    )
    with webhook_receiver() as hook:
        write_alerts(lib, {"type": "webhook", "format": "json", "url": hook.url}, digest_after=3)
        report = alert_after_update(lib)
    assert len(report.new) == 6 and len(hook.bodies) == 1
    body = hook.bodies[0]
    assert body["subject"].startswith("[oo lib] 6 events")
    assert {e["kind"] for e in body["events"]} == {"sentinel", "links"}
    link = next(e for e in body["events"] if e["kind"] == "links")
    assert "is dead (404)" in link["title"] and "lighthouse" in link["document"]


def test_failing_channel_is_named_secret_redacted_and_retried(
    lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with webhook_receiver(status=500) as broken, webhook_receiver() as good:
        monkeypatch.setenv("OO_TEST_HOOK", broken.url)
        write_alerts(
            lib,
            {"type": "webhook", "name": "pager", "url_env": "OO_TEST_HOOK"},
            {"type": "webhook", "name": "backup", "url": good.url},
        )
        report = alert_after_update(lib)
        assert report.delivered == {"backup": 1}
        assert len(report.errors) == 1 and "'pager'" in report.errors[0]
        assert "HTTP 500" in report.errors[0] and "T0K3N" not in report.errors[0]
        assert len(broken.bodies) == 1  # it was tried
    # a channel that took nothing: the event stays unsent for it to be tried again
    with webhook_receiver(status=500) as broken:
        monkeypatch.setenv("OO_TEST_HOOK", broken.url)
        write_alerts(lib, {"type": "webhook", "name": "pager", "url_env": "OO_TEST_HOOK"})
        watched_library(lib, "beacon.o-o.html")
        first = alert_after_update(lib)
        assert first.errors and not first.delivered
        assert not any(k.startswith("sentinel:beacon") for k in read_sent(lib))


def test_unreachable_channel_never_raises(lib: Path) -> None:
    write_alerts(lib, {"type": "webhook", "name": "gone", "url": "http://127.0.0.1:9/hook"})
    report = alert_after_update(lib)
    assert report.errors and "'gone'" in report.errors[0] and "cannot connect" in report.errors[0]


def test_email_over_starttls_with_login_from_a_private_file(lib: Path, tmp_path: Path) -> None:
    with smtp_server(tmp_path, "oo-bot", "s3cret-Passw0rd") as box:
        settings = lib / ".oo"
        settings.mkdir(mode=0o700)
        (settings / "ca.pem").write_bytes(box.cert.read_bytes())
        secret = settings / "smtp-password"
        secret.write_text("s3cret-Passw0rd\n")
        secret.chmod(0o600)
        channel = {
            "type": "email",
            "name": "me",
            "host": "127.0.0.1",
            "port": box.port,
            "from": "oo@example.org",
            "to": "me@example.org",
            "username": "oo-bot",
            "password_file": "smtp-password",
            "ca_file": "ca.pem",
        }
        write_alerts(lib, channel)
        report = alert_after_update(lib)
        assert not report.errors, report.errors
        assert box.tls_at_login == [True]  # the password only went over STARTTLS
        (mail,) = box.messages
        assert "has occurred" in mail["Subject"] and mail["To"] == "me@example.org"
        assert "Relit on 1 December" in mail.get_payload()
        # a wrong password: the channel is named, the password is not shown
        secret.write_text("wrong-password-1")
        record_trust(lib / ".oo" / "alerts.json")  # the user's own new password: confirmed again
        watched_library(lib, "beacon.o-o.html")
        bad = alert_after_update(lib)
        assert bad.errors and "'me' (email)" in bad.errors[0] and "login refused" in bad.errors[0]
        assert "wrong-password-1" not in " ".join(bad.errors)


def test_email_refused_without_starttls(lib: Path, tmp_path: Path) -> None:
    from aiosmtpd.controller import Controller

    class Sink:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            return "250 OK"

    from tests.support.alert_receivers import _free_port

    port = _free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        write_alerts(
            lib,
            {"type": "email", "host": "127.0.0.1", "port": port, "from": "a@b.c", "to": "d@e.f"},
        )
        report = alert_after_update(lib)
    finally:
        controller.stop()
    assert report.errors and "does not offer STARTTLS" in report.errors[0]


def test_desktop_through_notify_send(
    lib: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = fake_notify_send(tmp_path, monkeypatch)
    write_alerts(lib, {"type": "desktop"})
    assert not alert_after_update(lib).errors
    args = record.read_text().splitlines()
    assert args[0] == "--app-name=oo" and "has occurred" in args[1]
    monkeypatch.setenv("OO_NOTIFY_SEND", str(tmp_path / "missing"))
    watched_library(lib, "beacon.o-o.html")
    report = alert_after_update(lib)
    assert report.errors and "'desktop' (desktop)" in report.errors[0]


def test_bad_settings_name_the_file_and_field(lib: Path) -> None:
    path = write_alerts(
        lib, {"type": "email", "host": "h", "from": "f", "to": "t", "password": "x"}
    )
    with pytest.raises(ValidationError, match=r"alerts\.json: key 'channels\[0\]\.password'"):
        load_config(lib)
    write_alerts(lib, {"type": "webhook", "url_env": "OO_NOT_SET_ANYWHERE"})
    with pytest.raises(ValidationError, match="OO_NOT_SET_ANYWHERE is not set"):
        load_config(lib)
    secret = lib / ".oo" / "hook-url"
    secret.write_text("https://example.org/hook/abc")
    secret.chmod(0o644)
    write_alerts(lib, {"type": "webhook", "url_file": "hook-url"})
    with pytest.raises(ValidationError, match="chmod 600"):
        load_config(lib)
    path.write_text("{not json")
    report = alert_after_update(lib)  # the update's hook reports it, never raises
    assert report.errors and "alerts.json" in report.errors[0]


def test_cli_init_show_test(
    lib: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["alerts", str(lib), "--init"]) == 0
    path = lib / ".oo" / "alerts.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    capsys.readouterr()
    with webhook_receiver() as hook:
        write_alerts(lib, {"type": "webhook", "name": "team", "url": hook.url})
        assert main(["alerts", str(lib), "--show"]) == 0
        out = capsys.readouterr().out
        assert (
            "team: webhook (json) to http://127.0.0.1:" in out and "1 event(s) not sent yet" in out
        )
        assert "T0K3N" not in out  # the path of a webhook URL may be its token
        assert not hook.bodies  # --show sends nothing
        assert main(["alerts", str(lib), "--test"]) == 0
        assert "test alert" in hook.bodies[0]["text"]
        assert main(["alerts", str(lib)]) == 0
        assert "1 new event(s)" in capsys.readouterr().out and len(hook.bodies) == 2
        assert main(["alerts", str(lib), "--show"]) == 0
        assert "0 event(s) not sent yet" in capsys.readouterr().out
    monkeypatch.setenv("OO_TEST_HOOK", "http://127.0.0.1:9/x")
    write_alerts(lib, {"type": "webhook", "name": "gone", "url_env": "OO_TEST_HOOK"})
    assert main(["alerts", str(lib), "--test"]) == 1
    assert "'gone'" in capsys.readouterr().out
    assert os.environ["OO_TEST_HOOK"]


def test_a_proposal_that_reports_the_event_says_so(lib: Path) -> None:
    from oo_nb.alerts.events import proposal_events
    from oo_nb.store.history import history_dir
    from oo_nb.store.seal import seal

    path = lib / "lighthouse.o-o.html"
    record = {
        "created": "2026-12-03T08:00:00+00:00",
        "base_sha256": "",
        "run": {"version": 3, "cost_usd": 0.12},
        "proposal": {
            "proposal": {"sentinel": {"status": "occurred", "evidence": "Seen lit [s1]."}}
        },
    }
    record["seal"] = seal(record)  # as oo saves it: its cost counts (issue 28 item 8)
    (history_dir(path) / "pending.json").write_text(json.dumps(record))
    (event,) = proposal_events([(path, "lighthouse")])
    assert event.kind == "sentinel"
    assert "reports the event occurred" in event.title and "v3 awaits review" in event.title
    assert "cost $0.1200" in event.title and event.details[0] == "evidence: Seen lit [s1]."
    record["proposal"] = {"proposal": {"sentinel": {"status": "not_occurred"}}}
    (history_dir(path) / "pending.json").write_text(json.dumps(record))
    (event,) = proposal_events([(path, "lighthouse")])
    assert event.kind == "proposal" and "reports" not in event.title


def test_an_error_that_quotes_the_url_hides_its_token(
    lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OO_TEST_HOOK", "http://127.0.0.1:9/hook/SECRET-TOKEN-123 x")
    write_alerts(lib, {"type": "webhook", "name": "pager", "url_env": "OO_TEST_HOOK"})
    report = alert_after_update(lib)
    assert report.errors and "'pager'" in report.errors[0]
    assert "SECRET-TOKEN" not in report.errors[0] and "[redacted]" in report.errors[0]
    # nothing was registered process-wide: other text keeps its URLs
    from oo_nb.redaction import redact

    assert redact("see http://127.0.0.1:9/hook/ for") == "see http://127.0.0.1:9/hook/ for"


def test_failed_and_budget_events_from_a_run(lib: Path) -> None:
    from oo_nb.agent.types import LibraryUpdate
    from oo_nb.alerts.events import run_events

    path = lib / "lighthouse.o-o.html"
    outcome = LibraryUpdate(failures={path: "the budget of $0.50 is spent (cost so far $0.4900)"})
    (event,) = run_events(lib, outcome)
    assert event.kind == "budget" and event.title == "lighthouse: ran out of budget"
    again = LibraryUpdate(failures={path: "the budget of $0.50 is spent (cost so far $0.5100)"})
    assert run_events(lib, again)[0].key == event.key  # the same failure, other amounts: once
    other = LibraryUpdate(failures={path: "the model declined to continue"})
    (failed,) = run_events(lib, other)
    assert failed.kind == "failed" and failed.key != event.key
    path.write_bytes(path.read_bytes() + b"\n")  # the document changed: a new failure
    assert run_events(lib, other)[0].key != failed.key


def test_every_document_that_spent_past_its_budget_is_a_budget_event(lib: Path) -> None:
    """Three Claude Code runs spent $7.50 of a $0.50 budget, then failed ("changed no article
    section"): the alert said "3 update failed", none "out of budget"."""
    from oo_nb.agent.run import UpdateResult
    from oo_nb.agent.types import LibraryUpdate, RunInfo
    from oo_nb.alerts.events import run_events

    path = lib / "lighthouse.o-o.html"
    why = "Claude Code changed no article section (cost $7.5000)"
    over = LibraryUpdate(
        failures={path: why}, failure_costs={path: 7.5}, failure_budgets={path: 0.5}
    )
    (event,) = run_events(lib, over)
    assert event.kind == "budget" and "$7.5000 of its $0.50 budget" in event.title
    assert event.details == (why,)
    within = LibraryUpdate(
        failures={path: why}, failure_costs={path: 0.2}, failure_budgets={path: 0.5}
    )
    assert run_events(lib, within)[0].kind == "failed"
    # a result past its budget the backend did not flag (its cost says so) is one too
    run = RunInfo("claude-code", "m", cost_usd=0.9)
    done = UpdateResult(path, "written", "", b"x", "claude-code", "m", 0.5, run=run, written=path)
    (spent,) = run_events(lib, LibraryUpdate(results=[done]))
    assert spent.kind == "budget" and "($0.9000 of $0.50)" in spent.title
    assert spent.details == ("outcome: written",)
    run.cost_usd = 0.4
    assert run_events(lib, LibraryUpdate(results=[done])) == []


# ----------------------------------------------------------- settings that came with a library
def test_a_secret_file_that_is_a_link_is_not_read(lib: Path, tmp_path: Path) -> None:
    """A library from elsewhere shipped `.oo/pw` as a link to the user's private key (theirs and
    0600 too) and an SMTP host of its own: the key was read as the password and sent."""
    key = tmp_path / "id_ed25519"
    key.write_text("PRIVATE-KEY-MATERIAL")
    key.chmod(0o600)
    (lib / ".oo").mkdir(mode=0o700)
    (lib / ".oo" / "pw").symlink_to(key)  # there when confirmed: the read refuses it still
    write_alerts(
        lib,
        {"type": "email", "name": "mail", "host": "127.0.0.1", "from": "a@x", "to": "b@x",
         "username": "me", "password_file": "pw"},
    )  # fmt: skip
    with pytest.raises(ValidationError, match="plain file") as caught:
        load_config(lib)
    assert "PRIVATE-KEY" not in str(caught.value)


def test_a_secret_variable_must_be_one_made_for_oo(
    lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings from a clone named ANTHROPIC_API_KEY as a webhook's URL variable."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "https://attacker.example/sk-ant-secret")
    write_alerts(lib, {"type": "webhook", "name": "hook", "url_env": "ANTHROPIC_API_KEY"})
    with pytest.raises(ValidationError, match="starting with OO_") as caught:
        load_config(lib)
    assert "sk-ant-secret" not in str(caught.value)


@pytest.mark.parametrize("ca_file", ["/home/me/ca.pem", "../ca.pem", "sub/ca.pem", ".."])
def test_the_certificates_to_trust_are_a_file_in_oo(lib: Path, ca_file: str) -> None:
    write_alerts(
        lib,
        {"type": "email", "name": "mail", "host": "127.0.0.1", "from": "a@x", "to": "b@x",
         "ca_file": ca_file},
    )  # fmt: skip
    with pytest.raises(ValidationError, match=r"ca_file.*|must name a file in \.oo/"):
        load_config(lib)


def test_settings_that_came_with_a_library_never_send_the_users_secret(
    lib: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cloned library's alerts.json named the user's OO_SLACK_WEBHOOK as the SMTP password of
    its author's host, trusted through its own ca.pem: a plain update-all sent it there."""
    monkeypatch.setenv("OO_SLACK_WEBHOOK", "https://hooks.example/T000/USER-SECRET")
    secret = "https://hooks.example/T000/USER-SECRET"
    with smtp_server(tmp_path, "oo", secret) as box, webhook_receiver() as hook:
        (lib / ".oo").mkdir(mode=0o700)
        (lib / ".oo" / "ca.pem").write_bytes(box.cert.read_bytes())
        path = write_alerts(
            lib,
            {"type": "email", "name": "maintainers", "host": "127.0.0.1", "port": box.port,
             "from": "a@lib.example", "to": "b@lib.example", "username": "oo",
             "password_env": "OO_SLACK_WEBHOOK", "ca_file": "ca.pem"},
            {"type": "webhook", "name": "theirs", "url": hook.url},
            trusted=False,
        )  # fmt: skip
        report = alert_after_update(lib)
        assert not box.logins and not box.messages and not hook.bodies
        assert not report.delivered and len(report.errors) == 1
        assert "alerts.json" in report.errors[0] and "not confirmed" in report.errors[0]
        assert "--trust" in report.errors[0] and "USER-SECRET" not in report.errors[0]
        assert report.errors[0].startswith("alerts were not sent: /")  # no class name
        with pytest.raises(ValidationError, match="not confirmed"):
            load_config(lib)
        # a trust record that came with the library is not this machine's seal
        (lib / ".oo" / "alerts.trusted").write_text(
            json.dumps({"alerts_sha256": "0" * 64, "ca_sha256": {}, "seal": "f" * 64})
        )
        assert "not sealed" in alert_after_update(lib).errors[0]
        assert not box.logins and not hook.bodies
        # the user reads it and confirms: from then on it is theirs
        assert main(["alerts", str(lib), "--trust"]) == 0
        assert load_config(lib) is not None
        assert not alert_after_update(lib).errors
        assert box.logins == [("oo", secret)] and hook.bodies
        # an edit of the settings or of the CA they trust needs a new confirmation
        path.write_text(path.read_text().replace("b@lib.example", "c@lib.example"))
        assert "changed since you confirmed" in alert_after_update(lib).errors[0]
        main(["alerts", str(lib), "--trust"])
        (lib / ".oo" / "ca.pem").write_bytes(b"-----BEGIN CERTIFICATE-----\n")
        assert "ca_file it names changed" in alert_after_update(lib).errors[0]


def test_show_names_unconfirmed_settings_and_init_confirms_its_own(
    lib: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = {"type": "webhook", "name": "theirs", "url": "https://lib.example/hook"}
    write_alerts(lib, theirs, trusted=False)
    assert main(["alerts", str(lib), "--show"]) == 1
    out = capsys.readouterr().out
    assert "NOT USED: not confirmed as yours" in out and "theirs: webhook" in out
    (lib / ".oo" / "alerts.json").unlink()
    assert main(["alerts", str(lib), "--init"]) == 0
    monkeypatch.setenv("OO_ALERT_WEBHOOK", "https://hooks.example/mine")
    assert load_config(lib) is not None  # written by the user's own command: confirmed


HOSTILE_TEXT = "<!here> see <https://evil.example/login|the review page> @everyone [x](https://evil.example) & co"


def test_chat_bodies_never_form_markup_from_event_text(lib: Path) -> None:
    """A file name `<!channel> urgent.o-o.html` and an error text with `<!here>`, a disguised
    link and `@everyone` arrived in Slack and Discord as live mentions and links."""
    from oo_nb.alerts.events import Event
    from oo_nb.alerts.message import compose, webhook_body

    event = Event(
        "k", "failed", "<!channel> urgent", "<!channel> urgent: update failed", (HOSTILE_TEXT,)
    )
    message = compose("lib", [event])
    slack = webhook_body(message, "slack", {})["text"]
    assert "<" not in slack and ">" not in slack
    assert "&lt;!channel&gt; urgent" in slack and "&lt;!here&gt;" in slack and "&amp; co" in slack
    discord = webhook_body(message, "discord", {})
    assert discord["allowed_mentions"] == {"parse": []}
    assert "\\[x\\]\\(https://evil.example\\)" in discord["content"]
    assert "\\<\\!channel\\>" not in discord["content"] and "\\<!channel\\>" in discord["content"]
    long = compose("lib", [Event("k", "failed", "d", "t", ("*" * 3000,))])
    content = webhook_body(long, "discord", {})["content"]
    assert len(content) <= 2000 and content.endswith("\\*…")


def test_desktop_body_markup_is_escaped(
    lib: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from oo_nb.alerts.channels import send
    from oo_nb.alerts.config import Channel
    from oo_nb.alerts.events import Event
    from oo_nb.alerts.message import compose

    record = fake_notify_send(tmp_path, monkeypatch)
    body = '<a href="https://evil.example">review</a> & more'
    send(
        Channel("desktop", "desktop"),
        compose("lib", [Event("k", "failed", "d", "t", (body,))]),
        lib,
    )
    text = record.read_text()
    assert '&lt;a href="https://evil.example"&gt;review&lt;/a&gt; &amp; more' in text
    assert "<a " not in text


@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling link", "not json"])
def test_a_damaged_proposal_is_one_failed_event(lib: Path, kind: str) -> None:
    """A folder, FIFO or dangling link named pending.json blocks the document from every
    scheduled run ("awaiting review … damaged") and no alert said so."""
    from oo_nb.store.history import history_dir

    path = lib / "lighthouse.o-o.html"
    pending = history_dir(path) / "pending.json"
    if kind == "folder":
        pending.mkdir()
    elif kind == "fifo":
        os.mkfifo(pending)
    elif kind == "dangling link":
        pending.symlink_to(lib / "gone.json")
    else:
        pending.write_text("{not json")
    with webhook_receiver() as hook:
        write_alerts(lib, {"type": "webhook", "name": "team", "url": hook.url}, events=["failed"])
        report = alert_after_update(lib)
        assert not report.errors and len(report.new) == 1
        (event,) = hook.bodies[0]["events"]
        assert event["kind"] == "failed" and event["document"] == "lighthouse"
        assert "proposal awaiting review is damaged" in event["title"]
        assert f"oo review {path} --discard pending.json" in event["details"][0]
        assert alert_after_update(lib).already_sent == 1 and len(hook.bodies) == 1  # once
    # set aside (not the one that blocks runs): no event
    if kind == "not json":
        pending.rename(pending.with_name("pending-1-1.json"))
        from oo_nb.alerts.events import collect_events

        assert collect_events(lib, kinds=["failed", "proposal"]) == []


def test_an_event_is_owed_to_each_channel_until_it_takes_it(
    lib: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With one channel down and one working, the event was recorded as sent and never tried
    again on the channel that was down, which got nothing once it answered."""
    with webhook_receiver() as team:
        down = {"type": "webhook", "name": "phone", "url": "http://127.0.0.1:9/down"}
        write_alerts(lib, {"type": "webhook", "name": "team", "url": team.url}, down)
        first = alert_after_update(lib)
        assert first.delivered == {"team": 1} and "'phone'" in first.errors[0]
        assert main(["alerts", str(lib), "--show"]) == 0
        out = capsys.readouterr().out
        assert "1 event(s) not sent yet" in out and "(not yet to phone)" in out
        with webhook_receiver() as phone:
            up = {"type": "webhook", "name": "phone", "url": phone.url}
            write_alerts(lib, {"type": "webhook", "name": "team", "url": team.url}, up)
            again = alert_after_update(lib)
            assert again.delivered == {"phone": 1} and not again.errors
            assert "has occurred" in phone.bodies[0]["text"] and len(team.bodies) == 1
            assert alert_after_update(lib).already_sent == 1 and len(phone.bodies) == 1
        # a channel added later is not sent the backlog: only what happens from now on
        with webhook_receiver() as late:
            write_alerts(
                lib,
                {"type": "webhook", "name": "team", "url": team.url},
                {"type": "webhook", "name": "late", "url": late.url},
            )
            assert not alert_after_update(lib).new and not late.bodies


def test_a_channel_that_never_answers_holds_the_run_a_bounded_time(
    lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket
    import time

    from oo_nb.alerts import deliver as deliver_module

    monkeypatch.setattr(deliver_module, "CHANNEL_DEADLINE_S", 1.0)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)  # accepts connections (the kernel does), never answers
    try:
        with webhook_receiver() as team:
            url = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
            write_alerts(
                lib,
                {"type": "webhook", "name": "hang", "url": url},
                {"type": "webhook", "name": "team", "url": team.url},
            )
            started = time.monotonic()
            report = alert_after_update(lib)
            assert time.monotonic() - started < 3.0
            assert report.delivered == {"team": 1}
            assert report.errors == [
                "channel 'hang' (webhook): no answer within 1 s; given up for this run, "
                "tried again next time"
            ]
            assert len(team.bodies) == 1
    finally:
        silent.close()
    assert "hang" not in read_sent(lib) and read_sent(lib)


def test_a_swapped_url_file_needs_a_new_confirmation(lib: Path) -> None:
    """The seal covers what a channel sends to: its url_file's text (attack finding 8). A library
    update that swaps .oo/hook (0600, as tar keeps it) for another host's URL is not confirmed."""
    import hashlib

    hook = lib / ".oo" / "hook"
    lib.joinpath(".oo").mkdir(mode=0o700)
    hook.write_text("https://hooks.example/mine-token\n")
    hook.chmod(0o600)
    write_alerts(lib, {"type": "webhook", "name": "team", "url_file": "hook"})
    assert load_config(lib) is not None
    record = (lib / ".oo" / "alerts.trusted").read_text()
    assert hashlib.sha256(hook.read_bytes()).hexdigest() not in record  # keyed, not guessable
    hook.write_text("https://collect.example/theirs\n")
    hook.chmod(0o600)
    with pytest.raises(ValidationError, match=r"\.oo/hook .*changed since you confirmed.*--trust"):
        load_config(lib)
    assert "collect.example" not in alert_after_update(lib).errors[0]
    assert main(["alerts", str(lib), "--trust"]) == 0
    assert load_config(lib) is not None
    hook.unlink()  # a file gone since the confirmation is a change too
    with pytest.raises(ValidationError, match="changed since you confirmed"):
        load_config(lib)


def test_trust_names_each_secrets_origin_and_refuses_a_ca_file_without_a_certificate(
    lib: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What --show/--trust confirm hid the password's origin (the user's $OO_SLACK_WEBHOOK) and
    the library's own ca.pem, and a junk ca.pem was confirmed without a word (attack2 finding 7)."""
    from tests.support.alert_receivers import make_certificate

    monkeypatch.setenv("OO_SLACK_WEBHOOK", "https://hooks.example/T/B/USER-SECRET")
    (lib / ".oo").mkdir(mode=0o700)
    (lib / ".oo" / "ca.pem").write_text("junk\n")
    write_alerts(
        lib,
        {"type": "email", "name": "me", "host": "mail.lib.example", "from": "oo@lib.example",
         "to": "me@example.org", "username": "oo", "password_env": "OO_SLACK_WEBHOOK",
         "ca_file": "ca.pem"},
        trusted=False,
    )  # fmt: skip
    assert main(["alerts", str(lib), "--trust"]) == 2
    err = capsys.readouterr().err
    assert "channels[0].ca_file" in err and ".oo/ca.pem holds no certificate" in err
    assert not (lib / ".oo" / "alerts.trusted").exists()  # nothing was confirmed
    (lib / ".oo" / "ca.pem").unlink()
    os.mkfifo(lib / ".oo" / "ca.pem")
    assert main(["alerts", str(lib), "--trust"]) == 2  # a FIFO is refused, not waited on
    assert "not a plain file" in capsys.readouterr().err
    (lib / ".oo" / "ca.pem").unlink()
    cert, _ = make_certificate(tmp_path)
    (lib / ".oo" / "ca.pem").write_bytes(cert.read_bytes())
    for verb in ("--show", "--trust"):
        main(["alerts", str(lib), verb])
        out = capsys.readouterr().out
        assert "logs in as oo with the password from $OO_SLACK_WEBHOOK" in out, verb
        assert "trusts the certificates in .oo/ca.pem" in out and "USER-SECRET" not in out
    # the password from a file is named as such
    path = lib / ".oo" / "alerts.json"
    path.write_text(
        path.read_text().replace('"password_env": "OO_SLACK_WEBHOOK"', '"password_file": "pw"')
    )
    (lib / ".oo" / "pw").write_text("s3cret\n")
    (lib / ".oo" / "pw").chmod(0o600)
    main(["alerts", str(lib), "--show"])
    assert "with the password from .oo/pw" in capsys.readouterr().out


def test_a_run_failure_a_channel_did_not_take_is_sent_by_the_next_run(
    lib: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failure of an update-all run is an event of that run only: a channel that was down
    was "owed" it, yet the next run (the document updated fine by then) no longer showed it,
    and it was never sent. The record keeps the text of what a channel is owed."""
    from oo_nb.agent.types import LibraryUpdate

    path = lib / "lighthouse.o-o.html"
    outcome = LibraryUpdate(failures={path: "the model declined to continue"})
    write_alerts(
        lib,
        {"type": "webhook", "name": "team", "url": "http://127.0.0.1:9/down"},
        events=["failed"],
    )
    first = alert_after_update(lib, outcome)
    assert first.errors and not first.delivered and len(first.new) == 1
    assert main(["alerts", str(lib), "--show"]) == 0
    out = capsys.readouterr().out
    assert "1 event(s) not sent yet" in out and "lighthouse: update failed (not yet to team)" in out
    with webhook_receiver() as team:
        write_alerts(lib, {"type": "webhook", "name": "team", "url": team.url}, events=["failed"])
        again = alert_after_update(lib)  # this run failed nothing
        assert again.delivered == {"team": 1} and not again.errors
        assert "lighthouse: update failed" in team.bodies[0]["text"]
        assert "the model declined to continue" in team.bodies[0]["text"]
        assert not alert_after_update(lib).new and len(team.bodies) == 1  # once
