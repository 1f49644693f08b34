"""Alerts that mean something (issue 15): quiet skills escalate, runs in progress and just due
are not failures."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from conftest import Instance

Cli = Callable[..., tuple[int, str, str]]
WORDS = " ".join(["word"] * 30)


def _run(cli: Cli, inst: Instance, now: str, *extra: str) -> dict[str, Any]:
    code, out, err = cli(
        "run", "--root", str(inst.root), "--now", now, "--no-site", "--json", *extra
    )
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    data["by_skill"] = {s["skill"]: s for s in data["skills"]}
    return data


def _quiet_fleet(inst: Instance) -> Instance:
    """Daily skills whose last outputs are dated 2026-06-01 (pulse, patient, keyed) and
    2026-06-02 (other); keyed's cron-state shows its last two runs failing."""
    daily = "0 8 * * *"
    # (`fresh` writes every day: the rest of the fleet runs, this is no stopped scheduler)
    names = ("pulse", "patient", "keyed", "other", "fresh")
    inst.aeon_yml({name: (True, daily) for name in names})
    inst.evals(
        {
            "pulse": {"output_pattern": "articles/pulse-*.md", "min_words": 5},
            "patient": {
                "output_pattern": "articles/patient-*.md",
                "min_words": 5,
                "stale_fail_after": 5,
            },
            "keyed": {"output_pattern": "articles/keyed-*.md", "min_words": 5},
            "other": {"output_pattern": "articles/other-*.md", "min_words": 5},
            "fresh": {"output_pattern": "articles/fresh-*.md", "min_words": 5},
        }
    )
    for day in ("2026-06-02", "2026-06-03", "2026-06-04", "2026-06-05"):
        inst.write(f"articles/fresh-{day}.md", WORDS)
    for name in ("pulse", "patient", "keyed"):
        inst.write(f"articles/{name}-2026-06-01.md", WORDS)
    inst.write("articles/other-2026-06-02.md", WORDS)
    inst.write(
        "memory/cron-state.json",
        json.dumps(
            {
                "keyed": {
                    "last_status": "failed",
                    "last_failed": "2026-06-03T08:01:00Z",
                    "last_error": "API key expired",
                    "consecutive_failures": 2,
                }
            }
        ),
    )
    inst.notifier()
    return inst


def test_a_skill_stale_for_1_2_3_cadences_passes_then_is_stale_then_fails(
    instance: Instance, cli: Cli
) -> None:
    inst = _quiet_fleet(instance)
    # 1.25 cadences old: PASS
    first = _run(cli, inst, "2026-06-03T06:00:00Z")
    assert first["by_skill"]["pulse"]["status"] == "PASS"

    # 2.25 cadences: STALE, a WORSE move; verdict OK, no issue, no notification (silence on OK)
    second = _run(cli, inst, "2026-06-04T06:00:00Z")
    pulse = second["by_skill"]["pulse"]
    assert (pulse["status"], pulse["diff"]) == ("STALE", "WORSE")
    assert second["verdict"] == "SKILL_EVALS_REGRESSED"  # keyed, see below
    assert [i["skill"] for i in second["issues"]["filed"]] == ["keyed"]

    # 3.25 cadences: failing, on the run it crosses the line
    third = _run(cli, inst, "2026-06-05T06:00:00Z")
    pulse = third["by_skill"]["pulse"]
    assert (pulse["status"], pulse["diff"]) == ("FAIL", "NEW_FAIL")
    assert pulse["root_causes"][0]["code"] == "stale_file"
    assert "failing after 3 days (3 cadences)" in pulse["root_causes"][0]["detail"]
    assert third["verdict"] == "SKILL_EVALS_REGRESSED"
    (filed,) = third["issues"]["filed"]
    assert filed["skill"] == "pulse"
    issue = (inst.root / filed["path"]).read_text()
    assert "category: missing-secret-or-cron" in issue and "severity: high" in issue
    assert f"Dispatch pulse — no output in 3 days ({filed['id']})" in third["action_queue"]
    # stale_fail_after 5 in its spec: still only STALE
    assert third["by_skill"]["patient"]["status"] == "STALE"

    bodies = [b[0] for b in inst.notifications()]
    assert len(bodies) == 2  # 06-03 (first run, all NEW_PASS) was OK: silent; 06-04 and 06-05
    last = bodies[-1].splitlines()
    assert last[0] == "*Skill Evals — SKILL_EVALS_REGRESSED*"
    # each new failure with its cause in a few words: how old, how often expected
    assert any(line.startswith("• pulse — output 3.2 days old, expected daily") for line in last)
    # other moved PASS→STALE today: named in the body
    assert last[last.index("Worse:") + 1] == "• other PASS→STALE"


def test_a_stale_skill_whose_runs_fail_in_cron_state_is_failing(
    instance: Instance, cli: Cli
) -> None:
    inst = _quiet_fleet(instance)
    _run(cli, inst, "2026-06-03T06:00:00Z")
    data = _run(cli, inst, "2026-06-04T06:00:00Z")  # 2.25 cadences: STALE, and 2 failed runs
    keyed = data["by_skill"]["keyed"]
    assert (keyed["status"], keyed["diff"]) == ("FAIL", "NEW_FAIL")
    detail = keyed["root_causes"][0]["detail"]
    assert "cron-state shows 2 failed runs in a row: API key expired" in detail
    body = inst.notifications()[-1][0]
    assert "• keyed — output 2.2 days old, expected daily" in body


def test_a_skill_long_quiet_whose_runs_all_fail_says_so_and_is_not_told_to_be_dispatched(
    instance: Instance, cli: Cli
) -> None:
    """Past the failing bound, the age alone made the cause and the Action Queue said "Dispatch
    keyed": wrong when the scheduler runs it and every run fails (noesis-aeon's heartbeat: 198
    failed runs in a row, output a month old, told to be dispatched)."""
    inst = _quiet_fleet(instance)
    _run(cli, inst, "2026-06-03T06:00:00Z")
    data = _run(cli, inst, "2026-06-05T06:00:00Z")  # past 3 cadences
    keyed, pulse = data["by_skill"]["keyed"], data["by_skill"]["pulse"]
    cause = keyed["root_causes"][0]
    assert cause["detail"].endswith(
        "failing after 3 days (3 cadences); "
        "cron-state shows 2 failed runs in a row: API key expired"
    )
    assert (
        cause["evidence"]["failed_runs"] == 2
        and "failed_runs" not in pulse["root_causes"][0]["evidence"]
    )
    queue = data["action_queue"]
    assert any(
        a.startswith("Fix keyed — its runs fail (2 in a row, cron-state); no output in 3 days")
        for a in queue
    ), queue
    assert any(a.startswith("Dispatch pulse — no output in 3 days") for a in queue), queue
    assert not any(a.startswith("Dispatch keyed") for a in queue)
    # a --skill run of another skill keeps that item where it was; one of keyed replaces it
    code, _, err = cli(
        "run",
        "--root",
        str(inst.root),
        "--now",
        "2026-06-05T07:00:00Z",
        "--no-site",
        "--skill",
        "keyed",
    )
    assert code == 0, err
    article = (inst.root / "articles/skill-evals-2026-06-05.md").read_text()
    assert article.count("Fix keyed — its runs fail") == 1


def test_a_skill_judged_on_nothing_that_went_silent_or_fails_is_said_so_beside_it(
    instance: Instance, cli: Cli
) -> None:
    """aeon-nur: heartbeat enabled daily, no SKILL.md, last dispatched 48 days before the run.
    A skill with no contract (or `scorable: false`) has no row: what cron-state says of it is
    its only sign of life, said beside it in the article (no verdict, no issue)."""
    daily = "0 8 * * *"
    inst = instance
    inst.aeon_yml(
        {
            "digest": (True, daily),
            "ghost": (True, daily),  # no SKILL.md, last dispatched 48 days ago
            "calm": (True, daily),  # no SKILL.md, dispatched yesterday
            "beat": (True, "0 */6 * * *"),  # `scorable: false`, its runs failing
            "asked": (True, "workflow_dispatch"),  # no schedule: never late
        }
    )
    inst.evals({"digest": {"output_pattern": "articles/digest-*.md", "min_words": 5}})
    inst.write("articles/digest-2026-08-19.md", WORDS)
    inst.write("skills/beat/SKILL.md", "---\nscorable: false\nname: beat\n---\nCheck things.\n")
    inst.write(
        "memory/cron-state.json",
        json.dumps(
            {
                "digest": {"last_status": "success", "last_success": "2026-08-19T15:43:00Z"},
                "ghost": {"last_status": "dispatched", "last_dispatch": "2026-07-02T21:23:42Z"},
                "calm": {"last_status": "success", "last_success": "2026-08-18T08:01:00Z"},
                "beat": {
                    "last_status": "failed",
                    "last_failed": "2026-08-19T12:00:00Z",
                    "consecutive_failures": 9,
                },
                "asked": {"last_status": "success", "last_success": "2026-03-01T08:00:00Z"},
            }
        ),
    )
    data = _run(cli, inst, "2026-08-19T16:00:00Z")
    assert data["verdict"] == "SKILL_EVALS_OK"
    article = (inst.root / "articles/skill-evals-2026-08-19.md").read_text()
    assert (
        "- ghost — no skills/ghost/SKILL.md; cron-state: last run dispatched 2026-07-02 "
        "(48 days ago), expected daily\n" in article
    )
    assert "- calm — no skills/calm/SKILL.md\n" in article
    assert "- asked — no skills/asked/SKILL.md\n" in article
    assert "- beat — cron-state: 9 failed runs in a row\n" in article


def test_the_aeonfun_week_after_05_03_escalates_three_quiet_skills(tmp_path: Any, cli: Cli) -> None:
    """aeonfun as it stood before its 05-03 run, run on 05-03 and again on 05-10: changelog,
    push-recap and repo-actions (daily) have had no output since 05-02."""
    import shutil

    from realdata import realdata

    root = tmp_path / "aeonfun"
    shutil.copytree(realdata() / "instances/aeonfun__aeon@2026-05-03", root)
    inst = Instance(root)
    inst.notifier()
    for day in ("2026-05-03", "2026-05-10"):
        code, _out, err = cli(
            "run", "--root", str(root), "--today", day, "--now", f"{day}T06:30:00Z", "--no-site"
        )
        assert code == 0, err
    article = (root / "articles/skill-evals-2026-05-10.md").read_text()
    assert "**Verdict:** SKILL_EVALS_REGRESSED" in article
    for skill in ("changelog", "push-recap", "repo-actions"):
        assert f"| {skill} | FAIL | NEW_FAIL | stale_file |" in article
    # (whether each gets its own issue or is absorbed by skill-health's broad ISS-013 is
    # issue 15 point 2, the issue dedup)
    body = inst.notifications()[-1][0]
    assert body.startswith("*Skill Evals — SKILL_EVALS_REGRESSED*")


@pytest.mark.parametrize("value", ["3", 1, 0, True, None])
def test_stale_fail_after_is_validated(instance: Instance, cli: Cli, value: object) -> None:
    inst = _quiet_fleet(instance)
    spec = {"output_pattern": "articles/pulse-*.md", "stale_fail_after": value}
    inst.evals({"pulse": spec})
    code, out, _ = cli("validate", "--root", str(inst.root))
    if value is None:
        assert code == 0, out
        return
    assert code == 2
    assert "skills.pulse.stale_fail_after: expected a number of expected cadences, 2 or more" in out


# --- runs in progress and just due (point 3) ---------------------------------------------------


def _ana_06_02(tmp_path: Any, cli: Cli, cron_state: dict[str, Any]) -> Instance:
    """anajuliabit after its 05-31 run: the 06-01 log holds token-alert's entry (cron 12:00);
    the 06-02 log only the early skills so far."""
    from realdata import anajuliabit_instance

    root = anajuliabit_instance(tmp_path / "ana")
    code, _, err = cli(
        "run", "--root", str(root), "--now", "2026-05-31T06:57:14Z", "--no-site", "--no-notify"
    )
    assert code == 0, err
    inst = Instance(root)
    inst.write(
        "memory/logs/2026-06-01.md",
        (root / "memory/logs/2026-05-30.md").read_text().replace("2026-05-30", "2026-06-01"),
    )
    inst.write(
        "memory/logs/2026-06-02.md",
        "# 2026-06-02\n\n### morning-brief\n- 07:00Z brief sent\n\n### heartbeat\n- 08:00Z ok\n",
    )
    state = json.loads((root / "memory/cron-state.json").read_text())
    state["token-alert"].update(cron_state)
    inst.write("memory/cron-state.json", json.dumps(state))
    return inst


@pytest.mark.parametrize(
    "cron_state",
    [
        {"last_success": "2026-06-01T12:13:32Z"},  # no dispatch recorded: the grace decides
        {"last_success": "2026-06-01T12:13:32Z", "last_dispatch": "2026-06-02T12:00:41Z"},
    ],
    ids=["due", "dispatched"],
)
def test_a_run_at_12_20_with_a_12_00_cron_judged_the_log_without_its_entry(
    tmp_path: Any, cli: Cli, cron_state: dict[str, Any]
) -> None:
    inst = _ana_06_02(tmp_path, cli, cron_state)
    data = _run(cli, inst, "2026-06-02T12:20:00Z", "--no-notify")
    token = data["by_skill"]["token-alert"]
    assert token["status"] == "PASS", token
    assert token["output"]["path"] == "memory/logs/2026-06-01.md"
    assert token["notes"][0].startswith("run due/in progress: ")
    assert not [i for i in data["issues"]["filed"] if i["skill"] == "token-alert"]
    article = (inst.root / "articles/skill-evals-2026-06-02.md").read_text()
    assert "| token-alert | PASS |" in article and "run due/in progress" in article


def test_a_dispatch_in_progress_outlasts_the_grace_but_not_a_finished_run(
    tmp_path: Any, cli: Cli
) -> None:
    inst = _ana_06_02(
        tmp_path,
        cli,
        {"last_success": "2026-06-01T12:13:32Z", "last_dispatch": "2026-06-02T12:00:41Z"},
    )
    # 15:30: past the 2 h grace, the dispatch still has no result: still in progress
    token = _run(cli, inst, "2026-06-02T15:30:00Z", "--no-notify")["by_skill"]["token-alert"]
    assert token["status"] == "PASS" and "dispatched 2026-06-02 12:00 UTC" in token["notes"][0]
    # the run finished without writing its entry: a later run judges the new output
    state = json.loads((inst.root / "memory/cron-state.json").read_text())
    state["token-alert"]["last_success"] = "2026-06-02T12:14:02Z"
    inst.write("memory/cron-state.json", json.dumps(state))
    data = _run(cli, inst, "2026-06-02T16:00:00Z", "--no-notify")
    token = data["by_skill"]["token-alert"]
    assert (token["status"], token["diff"]) == ("FAIL", "NEW_FAIL")
    assert token["output"]["path"] == "memory/logs/2026-06-02.md"
    assert not any(n.startswith("run due/in progress") for n in token["notes"])


def test_grace_0_turns_the_grace_off(tmp_path: Any, cli: Cli) -> None:
    inst = _ana_06_02(tmp_path, cli, {"last_success": "2026-06-01T12:13:32Z"})
    data = _run(cli, inst, "2026-06-02T12:20:00Z", "--no-notify", "--grace", "0")
    assert data["by_skill"]["token-alert"]["diff"] == "NEW_FAIL"  # what every run did before


@pytest.mark.parametrize("value", ["x", "-1h", "nan", "h"])
def test_grace_rejects_what_is_not_a_duration(cli: Cli, value: str) -> None:
    code, _, err = cli("run", f"--grace={value}")
    assert code == 2 and "--grace: expected a duration such as 2h or 90m" in err


# --- validate's findings in the Action Queue (point 5) -----------------------------------------


def test_validate_warnings_become_patch_items_and_adds_are_ranked_by_frequency(
    instance: Instance, cli: Cli
) -> None:
    inst = instance
    inst.aeon_yml(
        {
            "heartbeat": (True, "0 8,14,20 * * *"),
            "digest": (True, "0 9 * * 1"),
            "aaa-weekly": (True, "0 9 * * 1"),
            "mmm-daily": (True, "0 9 * * *"),
            "zzz-hourly": (True, "5 * * * *"),
        }
    )
    inst.evals(
        {
            # the whole shared log: another skill's `${var}` fails it
            "heartbeat": {
                "output_pattern": "memory/logs/*.md",
                "forbidden_patterns": [r"\$\{var\}"],
            },
            "digest": {"output_pattern": "articles/digest-*.md", "colour": "blue"},
        }
    )
    inst.write("articles/digest-2026-06-01.md", WORDS)
    inst.write(
        "memory/logs/2026-06-01.md",
        "# 2026-06-01\n### heartbeat\nall good\n### token-alert\nprice ${var}\n",
    )
    for name, body in (
        ("aaa-weekly", "Write `articles/aaa-weekly-${today}.md`.\n"),
        ("mmm-daily", "Write `articles/mmm-daily-${today}.md`.\n"),
        (
            "zzz-hourly",
            "Append to `memory/logs/${today}.md`:\n\n```\n### zzz-hourly\n- price\n```\n",
        ),
    ):
        front = f"---\nname: {name}\ndescription: Writes the {name} report for the operator.\n---\n"
        inst.write(f"skills/{name}/SKILL.md", front + body)
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 0, out  # warnings only
    assert "skills.heartbeat.output_pattern: checks apply to the whole shared daily log" in out
    assert "skills.digest.colour: unknown key (ignored)" in out
    queue = _run(cli, inst, "2026-06-02T06:00:00Z", "--no-notify")["action_queue"]
    assert queue[:2] == [
        "Patch evals.json:digest — remove or rename the unknown key colour",
        'Patch evals.json:heartbeat — add a section ("section": "### heartbeat"): its checks read '
        "the whole shared daily log",
    ]
    adds = [item for item in queue if item.startswith("Add ")]
    assert adds == [
        "Add evals.json entry for zzz-hourly — pattern: memory/logs/*.md, section: ### zzz-hourly",
        "Add evals.json entry for mmm-daily — pattern: articles/mmm-daily-*.md",
        "Add evals.json entry for aaa-weekly — pattern: articles/aaa-weekly-*.md",
    ]
