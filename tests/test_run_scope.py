"""Which skills a run evaluates and how their outputs are found, on whole real instances."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import Instance
from realdata import AEONFUN, AEONFUN_NOW, whole_instance

from aeon_evals.articles import parse as history

Cli = Callable[..., tuple[int, str, str]]

# aeonfun@2026-05-03's evals.json skills as this tool judged them before SKILL.md contracts,
# on-demand skills and date-ordered outputs: (status, causes, output evaluated).
AEONFUN_EVALS_STATUSES = {
    "changelog": ("PASS", [], "articles/changelog-2026-05-02.md"),
    "cost-report": ("PASS", [], "articles/cost-report-2026-04-27.md"),
    "deep-research": ("PASS", [], "articles/deep-research-2026-04-25.md"),
    "fork-fleet": ("NO_OUTPUT", ["no_file_match"], None),
    "heartbeat": ("FAIL", ["forbidden_pattern:\\$\\{var\\}"], "memory/logs/2026-05-02.md"),
    "hn-digest": ("NO_OUTPUT", ["no_file_match"], None),
    "polymarket": ("NO_OUTPUT", ["no_file_match"], None),
    "push-recap": ("PASS", [], "articles/push-recap-2026-05-02.md"),
    "repo-actions": ("PASS", [], "articles/repo-actions-2026-05-02.md"),
    "repo-article": ("FAIL", ["missing_pattern:Aeon|aeon"], "articles/repo-article-2026-05-02.md"),
    # upstream's April template entries (`articles/<skill>-*.md`): the skills write their log
    # sections, fresh, as their SKILL.md says: the spec disagrees, not a failure (issue #32.7)
    "repo-pulse": ("ERROR", ["spec_disagrees"], "memory/logs/2026-05-02.md"),
    "rss-digest": ("ERROR", ["spec_disagrees"], "memory/logs/2026-05-02.md"),
    "skill-health": ("ERROR", ["spec_disagrees"], "memory/logs/2026-05-02.md"),
    "token-alert": ("ERROR", ["spec_disagrees"], "memory/logs/2026-05-02.md"),
}


def _run_json(cli: Cli, root: Path, now: str, *extra: str) -> dict[str, Any]:
    """`run --json` without the dashboard and the notifier; add "--dry-run" to write nothing."""
    code, out, err = cli(
        "run", "--root", str(root), "--now", now, "--json", "--no-site", "--no-notify", *extra
    )
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_aeonfun_evals_json_skills_keep_their_statuses(tmp_path: Path, cli: Cli) -> None:
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    data = _run_json(cli, root, AEONFUN_NOW, "--dry-run")
    got = {
        s["skill"]: (
            s["status"],
            [c["code"] for c in s["root_causes"]],
            s["output"]["path"] if s["output"] else None,
        )
        for s in data["skills"]
        if s["skill"] in AEONFUN_EVALS_STATUSES
    }
    assert got == AEONFUN_EVALS_STATUSES
    assert sum(1 for s in data["skills"] if s["skill"] in got and s["enabled"]) == 12


WORDS = " ".join(["word"] * 60)


def _rows(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["skill"]: s for s in data["skills"]}


def test_an_on_demand_skill_is_judged_only_on_a_run_that_happened(
    instance: Instance, cli: Cli
) -> None:
    inst = instance
    inst.write(
        "aeon.yml",
        "skills:\n"
        '  idle: { enabled: true, schedule: "workflow_dispatch" }\n'
        '  asked: { enabled: true, schedule: "workflow_dispatch" }\n'
        '  wrote: { enabled: true, schedule: "reactive" }\n'
        '  logged: { enabled: true, schedule: "workflow_dispatch" }\n'
        '  daily: { enabled: true, schedule: "0 7 * * *" }\n',
    )
    inst.evals(
        {
            name: {"output_pattern": f"articles/{name}-*.md", "min_words": 10}
            for name in ("idle", "asked", "wrote", "daily")
        }
        | {"logged": {"output_pattern": "memory/logs/*.md", "section": "### logged"}}
    )
    inst.write(
        "memory/cron-state.json",
        json.dumps(
            {
                "asked": {"last_dispatch": "2026-05-28T10:00:00Z", "last_status": "failed"},
                # dispatched: a scheduled skill cron-state never dispatched has not had its
                # first run yet (NOT_RUN, test_not_run_yet.py)
                "daily": {"last_dispatch": "2026-05-30T07:00:00Z", "last_status": "success"},
            }
        ),
    )
    inst.write("articles/idle-2026-03-01.md", WORDS)  # outside the 28-day lookback
    inst.write("articles/wrote-2026-05-20.md", WORDS)
    inst.write("memory/logs/2026-05-25.md", "# 2026-05-25\n## Logged\nran once, " + WORDS + "\n")
    inst.write("memory/logs/2026-05-30.md", "# 2026-05-30\n### daily\nnothing of logged\n")
    data = _run_json(cli, inst.root, "2026-05-31T06:00:00Z")
    rows = _rows(data)
    idle = rows["idle"]
    assert idle["status"] == "NOT_RUN" and "on demand, not run" in idle["notes"]
    assert idle["root_causes"][0]["code"] == "not_run"
    assert (
        "no dispatch in cron-state and no dated output since 2026-05-03"
        in (idle["root_causes"][0]["detail"])
    )
    assert rows["asked"]["status"] == "NO_OUTPUT"  # dispatched, wrote nothing: that is failing
    assert rows["wrote"]["status"] == "PASS"  # a dated output inside the lookback
    logged = rows["logged"]  # the newest log holding its entry, not the newest log
    assert logged["status"] == "PASS" and logged["output"]["path"] == "memory/logs/2026-05-25.md"
    assert rows["daily"]["status"] == "NO_OUTPUT"  # scheduled skills are judged as before
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert "on demand, not run" in article
    # not failing: no issue, no investigation; the verdict counts only asked and daily
    assert "Investigate idle" not in article
    assert {i["skill"] for i in data["issues"]["filed"]} <= {"asked", "daily"}


def _contract_fleet(inst: Instance, **top: Any) -> Instance:
    """An evals.json skill, two skills whose SKILL.md states their output, one that states none."""
    inst.write(
        "aeon.yml",
        "skills:\n"
        '  listed: { enabled: true, schedule: "0 7 * * *" }\n'
        '  digest: { enabled: true, schedule: "0 7 * * *" }\n'
        '  brief: { enabled: true, schedule: "0 7 * * *" }\n'
        '  vague: { enabled: true, schedule: "0 7 * * *" }\n',
    )
    inst.evals({"listed": {"output_pattern": "articles/listed-*.md", "min_words": 5}}, **top)
    inst.write("skills/listed/SKILL.md", "---\nname: listed\n---\nWrite things.\n")
    for name in ("digest", "brief"):
        inst.write(
            f"skills/{name}/SKILL.md",
            f"---\nname: {name}\ndescription: a {name}\n---\n# {name}\n\n"
            f"Save to `articles/{name}-${{today}}.md`:\n\n"
            "```markdown\n# Title\n\n## Summary\n[item]\n\n## Sources\n- [LABEL](url)\n```\n",
        )
    inst.write("skills/vague/SKILL.md", "---\nname: vague\n---\nThink about the weather.\n")
    inst.write("articles/listed-2026-05-30.md", WORDS)
    inst.write("articles/digest-2026-05-30.md", "# D\n## Summary\n" + WORDS + "\n## Sources\n- x\n")
    inst.write("articles/brief-2026-05-30.md", "# B\n" + WORDS + "\n")  # no ## Summary
    return inst


def test_report_mode_shows_inferred_contracts_apart_and_files_nothing(
    instance: Instance, cli: Cli
) -> None:
    inst = _contract_fleet(instance)
    data = _run_json(cli, inst.root, "2026-05-31T06:00:00Z")
    rows = _rows(data)
    assert rows["listed"]["spec_source"] == "evals.json" and rows["listed"]["counts"]
    assert rows["digest"]["status"] == "PASS" and rows["digest"]["spec_source"] == "SKILL.md:7"
    brief = rows["brief"]
    assert brief["status"] == "FAIL" and brief["contracts_mode"] == "report"
    assert [c["code"] for c in brief["root_causes"]] == [
        "missing_heading:## Summary",
        "missing_heading:## Sources",
    ]
    assert not brief["counts"]
    assert data["verdict"] == "SKILL_EVALS_OK" and data["issues"]["filed"] == []
    assert data["contracts"] == {
        "mode": "report",
        "inferred": ["brief", "digest"],
        "without": [{"skill": "vague", "reason": "SKILL.md names no output it writes"}],
        "not_scorable": [],
    }
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert (
        "**Coverage:** 1/4 (25%) by evals.json, +2 inferred; 1 without a contract (first run)"
        in article
    )
    full, inferred = article.split("## Full Results")[1].split("## Inferred contracts")
    assert "| brief |" not in full and "| listed |" in full
    assert "| brief | FAIL | NEW_FAIL | missing_heading:## Summary; missing_heading:## Sources" in (
        inferred
    )
    assert "spec SKILL.md:7" in inferred
    assert "- vague — SKILL.md names no output it writes" in article
    # the next run diffs inferred rows against the ones it wrote
    data = _run_json(cli, inst.root, "2026-06-01T06:00:00Z")
    assert _rows(data)["brief"]["diff"] == "STILL_FAIL" and data["issues"]["filed"] == []
    parsed = history.read_article(inst.root / "articles/skill-evals-2026-05-31.md", root=inst.root)
    assert set(parsed.inferred_rows) == {"brief", "digest"} and "brief" not in parsed.rows


def test_enforce_mode_makes_inferred_contracts_full_citizens(instance: Instance, cli: Cli) -> None:
    inst = _contract_fleet(instance, contracts="enforce")
    data = _run_json(cli, inst.root, "2026-05-31T06:00:00Z")
    assert data["verdict"] == "SKILL_EVALS_REGRESSED"
    assert [i["skill"] for i in data["issues"]["filed"]] == ["brief"]
    issue = (inst.root / data["issues"]["filed"][0]["path"]).read_text()
    assert 'the spec is inferred from skills/brief/SKILL.md:12 ("## Summary")' in issue
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert "## Inferred contracts" not in article
    assert "| brief | FAIL | NEW_FAIL |" in article.split("## Full Results")[1]
    # --contracts overrides evals.json: report files nothing, off is the old behaviour
    data = _run_json(cli, inst.root, "2026-05-31T06:00:00Z", "--dry-run", "--contracts", "off")
    assert sorted(_rows(data)) == ["listed"] and data["contracts"]["inferred"] == []


def test_an_unknown_contracts_mode_is_a_config_error(instance: Instance, cli: Cli) -> None:
    inst = _contract_fleet(instance, contracts="enforced")
    code, _out, err = cli("run", "--root", str(inst.root), "--now", "2026-05-31T06:00:00Z")
    assert code == 2
    assert err.strip() == (
        'aeon-evals: skills/skill-evals/evals.json: contracts: expected "report", "enforce" or '
        '"off", got a string "enforced"'
    )
    assert not (inst.root / "articles/skill-evals-2026-05-31.md").exists()
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 2 and "contracts: expected" in out


def test_a_scoped_run_evaluates_an_inferred_skill_and_keeps_the_other_rows(
    instance: Instance, cli: Cli
) -> None:
    inst = _contract_fleet(instance)
    _run_json(cli, inst.root, "2026-05-31T06:00:00Z")
    data = _run_json(cli, inst.root, "2026-05-31T07:00:00Z", "--skill", "brief")
    assert [s["skill"] for s in data["skills"]] == ["brief"]
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    inferred = article.split("## Inferred contracts")[1]
    assert "| brief |" in inferred and "| digest |" in inferred


def test_the_dashboard_shows_inferred_contracts_apart(instance: Instance, cli: Cli) -> None:
    inst = _contract_fleet(instance)
    for now in ("2026-05-31T06:00:00Z", "2026-06-01T06:00:00Z"):
        code, _out, err = cli("run", "--root", str(inst.root), "--now", now, "--no-notify")
        assert code == 0, err
    page = (inst.root / "site/index.html").read_text()
    grid, inferred = page.split('<section class="card" id="inferred">')
    assert 'data-skill="listed"' in grid and 'data-skill="brief"' not in grid.split("</table>")[0]
    inferred = inferred.split("</section>")[0]
    assert 'data-skill="brief" class="failing"' in inferred and 'data-skill="digest"' in inferred
    assert inferred.count('class="cell s-fail"') == 2  # brief failed on both runs


def test_skill_evals_own_contract_is_never_graded_so_a_same_day_rerun_is_identical(
    tmp_path: Path, cli: Cli
) -> None:
    # aeonfun's aeon.yml still enables the LLM-run skill-evals, whose SKILL.md says it writes
    # articles/skill-evals-${today}.md: that is this tool's own article. Graded on its contract,
    # the second run of the day read the first run's article as the skill's output.
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    first = _run_json(cli, root, AEONFUN_NOW)
    article = root / first["artifacts"]["article"]
    text = article.read_bytes()
    second = _run_json(cli, root, AEONFUN_NOW)
    assert "skill-evals" not in _rows(first) and "skill-evals" not in _rows(second)
    assert article.read_bytes() == text


def test_a_skill_run_said_0_inferred_skill_health_empty_and_lost_causes_and_was(
    tmp_path: Path, cli: Cli
) -> None:
    """A `--skill heartbeat` run on the demo's day rewrote today's article with "+0 inferred" on
    the Coverage line, `skill-health=empty` in Sources, the kept Regressions and Still Failing
    rows without their cause's detail and the Recovered row's Was as "—". Rerunning one skill
    whose result is unchanged leaves the article byte-identical."""
    root = tmp_path / "demo"
    pinned = ("--today", "2026-06-01", "--now", "2026-06-01T06:00:00Z")
    assert cli("demo", str(root), *pinned)[0] == 0
    path = root / "articles/skill-evals-2026-06-01.md"
    full = path.read_text()
    assert "+2 inferred" in full and "skill-health=ok" in full
    assert "| changelog | FAIL (missing_pattern:commit\\|feat\\|fix) | PASS |" in full
    assert "| cost-report | NEW_FAIL | word_count — 107 words, minimum 200 |" in full
    code, _, err = cli(
        "run", "--root", str(root), *pinned, "--skill", "heartbeat", "--no-notify", "--no-site"
    )
    assert code == 0, err
    assert path.read_text() == full
