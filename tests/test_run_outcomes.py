"""Did the run do its job (issue #32), as a user meets it: a run on copies of the real fleets and
on small temporary ones, its rows, issues, Action Queue, --json, notification and fleet findings.
The pure parts (vocabulary, reader, streaks) are pinned in tests/test_outcomes_*.py."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from realdata import (
    AEONFUN,
    DA6HKIN,
    MIROSHARK,
    MIROSHARK_NOW,
    SKOPOS,
    whole_instance,
)

from aeon_evals.metrics.file import parse_tsv

Cli = Callable[..., tuple[int, str, str]]


def _run(cli: Cli, root: Path, now: str, *extra: str) -> dict[str, Any]:
    code, out, err = cli(
        "run", "--root", str(root), "--now", now, "--no-notify", "--no-site", "--json", *extra
    )
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _skill(data: dict[str, Any], skill: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in data["skills"] if s["skill"] == skill)
    return found


def _codes(row: dict[str, Any]) -> list[str]:
    return [c["code"] for c in row["root_causes"]]


def test_a_digest_whose_runs_report_an_error_was_judged_pass(tmp_path: Path, cli: Cli) -> None:
    """Regression: Da6hkin's vibecoding-digest logs `VIBECODING_DIGEST_ERROR` on its runs while
    cron-state counts it a success, and its row said PASS beside the open ISS-003 naming it. It
    fails with the token, since the streak's first day, the status line and the SKILL.md
    sentence as evidence, the issue ISS-003 linked (no second one), and an Action Queue item."""
    root = whole_instance(DA6HKIN, tmp_path / "da6")
    data = _run(cli, root, "2026-07-11T23:00:00Z", "--contracts", "enforce")
    row = _skill(data, "vibecoding-digest")
    assert row["status"] == "FAIL" and row["diff"] == "NEW_FAIL"
    assert "run_error:VIBECODING_DIGEST_ERROR" in _codes(row)
    assert row["issue"] == "ISS-003"
    assert row["failing_since"] == "2026-07-09"
    run = row["run"]
    assert run["outcome"] == "error" and run["token"] == "VIBECODING_DIGEST_ERROR"
    assert run["source"].startswith("memory/logs/2026-07-11.md:")
    assert run["evidence"].startswith('SKILL.md:43: "')
    assert run["runs"] == "3 of 3 runs"
    assert any("cron-state says the last run succeeded" in n for n in row["notes"])
    assert (
        not (root / "memory/issues/ISS-005.md").exists()
        or "vibecoding" not in (root / "memory/issues/ISS-005.md").read_text()
    )
    article = (root / "articles/skill-evals-2026-07-11.md").read_text()
    assert "Fix vibecoding-digest — its runs report VIBECODING_DIGEST_ERROR:" in article


def test_a_skill_that_never_does_its_job_fails_with_its_token(tmp_path: Path, cli: Cli) -> None:
    """aeonfun's fleet-control logs `FLEET_EMPTY: no managed instances` on every run: it never
    does its job (13 runs over 8 days), a failure with an issue in missing-secret-or-cron; a
    noop streak shorter than 7 runs (skill-update-check's one `…_NO_LOCK`) is only a note."""
    root = whole_instance(AEONFUN, tmp_path / "fun")
    data = _run(cli, root, "2026-05-03T23:00:00Z", "--contracts", "enforce")
    row = _skill(data, "fleet-control")
    assert row["status"] == "FAIL"
    assert "never_does_its_job:FLEET_EMPTY" in _codes(row)
    assert row["run"]["streak"].startswith("never does its job: FLEET_EMPTY on 13 of 13 runs")
    issue = next(
        p.read_text()
        for p in (root / "memory/issues").glob("ISS-*.md")
        if "fleet-control" in p.read_text() and "never_does_its_job" in p.read_text()
    )
    assert "category: missing-secret-or-cron" in issue
    short = _skill(data, "skill-update-check")
    assert short["status"] == "PASS"
    assert any(
        n.startswith("did not do its job: SKILL_UPDATE_CHECK_NO_LOCK") for n in short["notes"]
    )


def test_a_healthy_fleet_stays_green(tmp_path: Path, cli: Cli) -> None:
    """miroshark's runs all report what they did: no outcome cause, verdict OK, nothing filed."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    data = _run(cli, root, MIROSHARK_NOW)
    assert data["verdict"] == "SKILL_EVALS_OK"
    assert data["issues"]["filed"] == []
    for row in data["skills"]:
        assert not [c for c in _codes(row) if c.startswith(("run_", "never_", "ran_"))], row
        if row["run"] is not None:
            assert row["run"]["outcome"] in {"ok", "quiet"}, row


def test_a_stopped_scheduler_was_one_issue_per_skill(tmp_path: Path, cli: Cli) -> None:
    """Regression: skopos's fleet went silent on 2026-07-20 (its harness failing), and every
    daily skill went stale at once with an issue of its own. The article leads with one fleet
    finding, one issue names the skills, none is filed per skill for that cause, and the
    verdict still says REGRESSED."""
    root = whole_instance(SKOPOS, tmp_path / "skopos")
    data = _run(cli, root, "2026-07-24T23:00:00Z")
    assert data["verdict"] == "SKILL_EVALS_REGRESSED"
    (finding,) = data["fleet"]
    assert finding.startswith("every scheduled skill silent since 2026-07-2")
    filed = data["issues"]["filed"]
    fleet = [i for i in filed if i["skill"].startswith("fleet:fleet_silent:")]
    assert len(fleet) == 1
    text = (root / fleet[0]["path"]).read_text()
    assert "category: missing-secret-or-cron" in text
    for skill in ("digest", "heartbeat", "token-pick", "github-trending"):
        assert skill in text
        assert skill not in [i["skill"] for i in filed]
        assert _skill(data, skill)["issue"] == fleet[0]["id"]
    article = (root / "output/articles/skill-evals-2026-07-24.md").read_text()
    assert article.index("## Fleet findings") < article.index("## Action Queue")
    # x402-monitor (weekly) went quiet on 07-08, before the fleet: its own failure. cron-state's
    # last error there is a fragment of the harness's JSON, quoted as code, not run into the row
    weekly = " ".join(c["detail"] for c in _skill(data, "x402-monitor")["root_causes"])
    assert 'cron-state shows 49 failed runs in a row: `153fcc8","total_cost_usd' in weekly
    assert "cache_creation_input_tokens" not in weekly


def _shared_key_fleet(inst: Instance, day: str, status: str) -> None:
    """Four daily skills writing `### <skill>` sections; the first three report `status`."""
    inst.aeon_yml({s: (True, "0 6 * * *") for s in ("alpha", "beta", "gamma", "delta")})
    for skill in ("alpha", "beta", "gamma", "delta"):
        inst.write(
            f"skills/{skill}/SKILL.md",
            f"# {skill}\n\nAppend to `memory/logs/${{today}}.md`:\n\n```markdown\n### {skill}\n"
            "- Status: ...\n```\n",
        )
    body = "\n".join(
        f"### {s}\n- Status: {status if s != 'delta' else 'ok, 4 items'}\n- Items: 4\n"
        for s in ("alpha", "beta", "gamma", "delta")
    )
    inst.write(f"memory/logs/{day}.md", f"# {day}\n\n{body}")


def test_one_expired_key_in_three_skills_is_one_fleet_issue(instance: Instance, cli: Cli) -> None:
    """The same error signature on three skills' status lines (`HTTP 401`: one expired key) is
    one fleet finding with one issue; when it is gone the next day, that issue is resolved."""
    _shared_key_fleet(instance, "2026-06-01", "failed to fetch: HTTP 401 Unauthorized")
    data = _run(cli, instance.root, "2026-06-01T12:00:00Z")
    assert data["fleet"] and data["fleet"][0].startswith("HTTP 401 in 3 skills")
    filed = data["issues"]["filed"]
    assert [i["skill"] for i in filed] == ["fleet:shared_signature:HTTP 401"]
    issue = (instance.root / filed[0]["path"]).read_text()
    assert "category: api-failure" in issue
    assert "affected_skills: [alpha, beta, gamma]" in issue
    for skill in ("alpha", "beta", "gamma"):
        row = _skill(data, skill)
        assert row["status"] == "FAIL" and "run_error:HTTP 401" in _codes(row)
        assert row["issue"] == filed[0]["id"]
    assert _skill(data, "delta")["status"] == "PASS"

    _shared_key_fleet(instance, "2026-06-02", "ok, 4 items")
    data = _run(cli, instance.root, "2026-06-02T12:00:00Z")
    assert data["fleet"] == []
    assert [i["id"] for i in data["issues"]["closed"]] == [filed[0]["id"]]
    assert "status: resolved" in (instance.root / filed[0]["path"]).read_text()


def test_cron_success_without_any_output_warns(instance: Instance, cli: Cli) -> None:
    """cron-state records a success on a later day than anything the skill left (no section, no
    file): WARN `ran_without_output`."""
    instance.aeon_yml({"alpha": (True, "0 6 * * *")})
    instance.write(
        "skills/alpha/SKILL.md", "# alpha\n\nAppend `### alpha` to `memory/logs/${today}.md`.\n"
    )
    instance.write("memory/logs/2026-06-01.md", "# 2026-06-01\n\n### alpha\n- Status: ok, 3 new\n")
    instance.write("memory/logs/2026-06-03.md", "# 2026-06-03\n\n### other\n- ok\n")
    instance.write(
        "memory/cron-state.json",
        json.dumps({"alpha": {"last_status": "success", "last_success": "2026-06-03T06:10:00Z"}}),
    )
    data = _run(cli, instance.root, "2026-06-03T12:00:00Z", "--contracts", "enforce")
    row = _skill(data, "alpha")
    assert "ran_without_output" in _codes(row)
    detail = next(c["detail"] for c in row["root_causes"] if c["code"] == "ran_without_output")
    assert "2026-06-03 06:10 UTC" in detail and "2026-06-01" in detail


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a security digest that discusses failures is content, not a failed run
        ("- Summary: 3 exploits discussed; rate limits were raised; HTTP 403 pages analysed", "ok"),
        ("- Status: ok\n\n> Error: quoted from the upstream changelog", "ok"),
        ("- Status: ok\n\n```\nError: failed to connect (example output)\n```", "ok"),
        ("- Status: FAILED — all sources returned HTTP 503", "error"),
    ],
)
def test_what_a_run_writes_about_errors_is_not_its_error(
    instance: Instance, cli: Cli, text: str, expected: str
) -> None:
    instance.aeon_yml({"alpha": (True, "0 6 * * *")})
    instance.write(
        "skills/alpha/SKILL.md", "# alpha\n\nAppend `### alpha` to `memory/logs/${today}.md`.\n"
    )
    instance.write("memory/logs/2026-06-01.md", f"# 2026-06-01\n\n### alpha\n{text}\n")
    data = _run(cli, instance.root, "2026-06-01T12:00:00Z", "--contracts", "enforce")
    assert _skill(data, "alpha")["run"]["outcome"] == expected


def test_a_leftover_template_spec_filed_an_issue_for_a_healthy_skill(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression (#32.7): aeonfun's evals.json still holds upstream's April template entry
    `articles/repo-pulse-*.md`, which matches nothing, while repo-pulse's SKILL.md writes
    `## Repo Pulse` into the daily log, fresh. The row was NO_OUTPUT with an issue. It is ERROR
    `spec_disagrees`, quoting both, with a Patch item and no issue for the skill."""
    root = whole_instance(AEONFUN, tmp_path / "fun")
    data = _run(cli, root, "2026-05-03T23:00:00Z")
    row = _skill(data, "repo-pulse")
    assert row["status"] == "ERROR" and _codes(row) == ["spec_disagrees"]
    detail = row["root_causes"][0]["detail"]
    assert "`articles/repo-pulse-*.md` matches nothing" in detail
    assert "SKILL.md:136 says the skill writes `memory/logs/*.md` (## Repo Pulse)" in detail
    assert "repo-pulse" not in [i["skill"] for i in data["issues"]["filed"]]
    assert row["issue"] in (None, "ISS-003")  # the old LLM skill's issue about it, not a new one
    article = (root / "articles/skill-evals-2026-05-03.md").read_text()
    # four such specs on aeonfun: one Patch item names them all (the queue keeps room for the
    # skills that really fail)
    assert (
        "Patch evals.json — 4 specs match nothing while their skills' SKILL.md contracts find "
        "fresh outputs (repo-pulse, rss-digest, skill-health, token-alert)" in article
    )
    # a spec that finds nothing while the contract finds nothing fresh either stands
    assert _skill(data, "hn-digest")["status"] == "NO_OUTPUT"


def test_the_skill_page_strip_shows_what_each_run_reported(tmp_path: Path, cli: Cli) -> None:
    """Issue #32.8: the metrics file records what each skill's newest run reported (`run`), and
    the skill page's strip marks it: Da6hkin's vibecoding-digest tick carries an error band and
    says `run: error VIBECODING_DIGEST_ERROR`; a healthy skill's tick says `run: ok`, unbanded.
    A metrics file of the ten columns before `run` still reads (run not known)."""
    root = whole_instance(DA6HKIN, tmp_path / "da6")
    code, _, err = cli(
        "run", "--root", str(root), "--now", "2026-07-11T23:00:00Z", "--no-notify",
        "--contracts", "enforce",
    )  # fmt: skip
    assert code in (0, 1), err
    tsv = (root / "articles/skill-evals-metrics-2026-07-11.tsv").read_text().splitlines()
    assert tsv[1].split("\t")[-1] == "run"
    cells = next(line.split("\t") for line in tsv if line.startswith("vibecoding-digest\t"))
    assert cells[-1] == "error:VIBECODING_DIGEST_ERROR"
    page = (root / "site/skills/vibecoding-digest.html").read_text()
    tick = re.findall(r'<a class="tick [^"]*"[^>]*title="2026-07-11[^"]*"', page)
    assert len(tick) == 1 and "r-error" in tick[0], tick
    assert "run: error VIBECODING_DIGEST_ERROR" in tick[0]
    healthy = next(
        s for s, c in ((line.split("\t")[0], line.split("\t")) for line in tsv[2:]) if c[-1] == "ok"
    )
    page = (root / f"site/skills/{healthy}.html").read_text()
    tick = re.findall(r'<a class="tick [^"]*"[^>]*title="2026-07-11[^"]*"', page)
    assert len(tick) == 1 and " r-" not in tick[0] and "run: ok" in tick[0], tick
    # the same file without its `run` column, as written before it existed
    old = "\n".join("\t".join(line.split("\t")[:10]) for line in tsv) + "\n"
    samples = parse_tsv(old, day=date(2026, 7, 11), path="old.tsv")
    assert samples["vibecoding-digest"].run == "" and samples["vibecoding-digest"].cause
