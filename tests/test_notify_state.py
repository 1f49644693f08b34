"""Notify state (issue 15, point 6): a notification is sent once per day and body, whatever the
article file says: a rerun after --no-notify or a failed notifier sends; a rerun after a send
does not."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from conftest import Instance

from aeon_evals.report.notify import STATE_PATH

Cli = Callable[..., tuple[int, str, str]]
NOW = "2026-05-17T06:00:00Z"


def _instance(inst: Instance) -> Instance:
    """One weekly skill with no output: every run is SKILL_EVALS_REGRESSED (bootstrap NEW_FAIL)."""
    inst.aeon_yml({"cost-report": (True, "0 7 * * 1")})
    inst.evals({"cost-report": {"output_pattern": "articles/cost-report-*.md"}})
    inst.write("skills/cost-report/SKILL.md", "Writes `articles/cost-report-${today}.md`.\n")
    return inst


def _run(cli: Cli, inst: Instance, *extra: str) -> str:
    code, out, err = cli("run", "--root", str(inst.root), "--now", NOW, "--no-site", *extra)
    assert code == 0, err
    return out


def test_rerun_after_no_notify_said_already_notified_and_never_sent(
    instance: Instance, cli: Cli
) -> None:
    inst = _instance(instance)
    inst.notifier()
    assert "notification: not sent (--no-notify)" in _run(cli, inst, "--no-notify")
    assert not (inst.root / STATE_PATH).exists()
    out = _run(cli, inst)  # same inputs, same article: it was never sent, so it is sent now
    assert "notification: sent via" in out
    assert len(inst.notifications()) == 1
    out = _run(cli, inst)  # sent already: not again
    assert "notification: not sent (already sent for 2026-05-17 at 2026-05-17T06:00:00Z)" in out
    assert len(inst.notifications()) == 1


@pytest.mark.parametrize(
    ("broken", "extra", "said"),
    [
        ({"exit_code": 1}, (), "failed (exit 1)"),
        ({"sleep": 30}, ("--notify-timeout", "0.3"), "timed out after 0.3s"),
    ],
)
def test_rerun_after_a_failed_notifier_sends_once(
    instance: Instance, cli: Cli, broken: dict[str, float], extra: tuple[str, ...], said: str
) -> None:
    inst = _instance(instance)
    inst.notifier(**broken)  # type: ignore[arg-type]
    out = _run(cli, inst, *extra)
    assert said in out
    assert not (inst.root / STATE_PATH).exists()
    (inst.root / "notify.log").unlink(missing_ok=True)
    inst.notifier()  # fixed
    assert "notification: sent via" in _run(cli, inst)
    assert "already sent" in _run(cli, inst)
    assert len(inst.notifications()) == 1


def test_a_changed_body_the_same_day_is_sent(instance: Instance, cli: Cli) -> None:
    inst = _instance(instance)
    inst.notifier()
    _run(cli, inst)
    inst.aeon_yml({"cost-report": (True, "0 7 * * 1"), "changelog": (True, "0 7 * * 1")})
    inst.write("skills/changelog/SKILL.md", "Writes `articles/changelog-${today}.md`.\n")
    _run(cli, inst)  # coverage moved from 100% to 50%: a different body
    assert len(inst.notifications()) == 2
    state = json.loads((inst.root / STATE_PATH).read_text())
    assert state["version"] == 1 and list(state["sent"]) == ["2026-05-17"]


def test_an_unreadable_state_file_is_a_warning_and_the_notification_is_sent(
    instance: Instance, cli: Cli
) -> None:
    inst = _instance(instance)
    inst.notifier()
    inst.write(STATE_PATH, "{not json")
    code, out, err = cli("run", "--root", str(inst.root), "--now", NOW, "--no-site")
    assert code == 0 and "notification: sent via" in out
    assert f"warning: {STATE_PATH}: unreadable" in err
    assert json.loads((inst.root / STATE_PATH).read_text())["version"] == 1
