"""`aeon-evals run` as a user meets it: real files, a real ./notify, pinned clocks."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Instance
from golden import assert_golden

from aeon_evals.fs.lock import instance_lock

Cli = Callable[..., tuple[int, str, str]]
WEEK1, WEEK2, WEEK3 = "2026-05-17T06:00:00Z", "2026-05-24T06:00:00Z", "2026-05-31T06:00:00Z"
WORDS = " ".join(["word"] * 120)


def fleet(inst: Instance) -> Instance:
    """Five weekly skills and a daily one writing to the shared log."""
    inst.aeon_yml(
        {
            "cost-report": (True, "0 7 * * 1"),
            "changelog": (True, "0 16 * * 0"),
            "repo-pulse": (True, "0 15 * * 6"),
            "digest": (True, "0 9 * * 5"),
            "token-alert": (True, "0 12 * * *"),
            "old-skill": (False, "0 7 * * 1"),
            "no-spec": (True, "0 7 * * *"),
        }
    )
    inst.evals(
        {
            "cost-report": {
                "output_pattern": "articles/cost-report-*.md",
                "min_words": 100,
                "required_patterns": ["cost"],
                "forbidden_patterns": [r"\$\{var\}"],
                "numeric_checks": [
                    {"label": "dollars", "pattern": r"\$([\d,.]+)", "min": 0, "max": 10000}
                ],
            },
            "changelog": {
                "output_pattern": "articles/changelog-*.md",
                "min_words": 100,
                "required_patterns": ["commit|feat|fix"],
            },
            "repo-pulse": {
                "output_pattern": "articles/repo-pulse-*.md",
                "min_words": 50,
                "required_patterns": ["star"],
            },
            "digest": {"output_pattern": "articles/digest-*.md", "min_words": 50},
            "token-alert": {
                "output_pattern": "memory/logs/*.md",
                "section": "### token-alert",
                "min_words": 5,
                "required_patterns": ["TOKEN_ALERT"],
            },
            "old-skill": {"output_pattern": "articles/old-skill-*.md", "min_words": 10},
        }
    )
    inst.write("skills/no-spec/SKILL.md", "Writes `articles/no-spec-${today}.md`.\n")
    inst.write(
        "memory/cron-state.json",
        json.dumps(
            {"repo-pulse": {"last_status": "success", "last_success": "2026-05-23T15:02:00Z"}}
        ),
    )
    inst.write("articles/cost-report-2026-05-11.md", f"# cost\nTotal cost $12.50\n{WORDS}\n")
    inst.write(
        "articles/changelog-2026-05-10.md", f"# changelog\nfeat: one | two `x` *y*\n{WORDS}\n"
    )
    inst.write("articles/digest-2026-05-15.md", f"# digest\n{WORDS}\n")
    inst.write(
        "memory/logs/2026-05-16.md",
        "# 2026-05-16\n### token-alert\nTOKEN_ALERT AEON up 3% on the day\n",
    )
    inst.notifier()
    return inst


def test_help_documents_exit_codes(cli: Cli) -> None:
    code, out, _ = cli("run", "--help")
    assert code == 0
    for line in (
        "0   the run completed",
        "2   SKILL_EVALS_ERROR",
        "3   SKILL_EVALS_BOOTSTRAP",
        "4   another aeon-evals run",
        "70  internal error",
    ):
        assert line in out


def test_python_dash_m_works(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("aeon-evals ")


def test_three_weekly_runs_file_then_close_an_issue(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    root = str(inst.root)
    code, out, err = cli("run", "--root", root, "--now", WEEK1, "--no-site")
    assert code == 0, err
    first = (inst.root / "articles/skill-evals-2026-05-17.md").read_text()
    assert (
        "**Verdict:** SKILL_EVALS_REGRESSED" in first
    )  # bootstrap: repo-pulse has no output → NEW_FAIL
    assert "(first run)" in first
    assert (inst.root / "memory/issues/ISS-001.md").exists()
    index = (inst.root / "memory/issues/INDEX.md").read_text()
    assert "ISS-001" in index.split("## Resolved")[0]
    assert "old-skill" not in index  # disabled: evaluated and listed, never filed
    assert "| old-skill | NO_OUTPUT | NEW_FAIL |" in first and "disabled" in first

    # week 2: repo-pulse writes its article; cost-report's shrinks below its floor
    inst.write("articles/repo-pulse-2026-05-23.md", f"# pulse\n1,204 stars\n{WORDS}\n")
    inst.write("articles/cost-report-2026-05-18.md", "# cost\nTotal cost $14\nshort\n")
    inst.write(
        "memory/logs/2026-05-23.md",
        "# 2026-05-23\n### token-alert\nTOKEN_ALERT AEON flat today again\n",
    )
    code, out, err = cli("run", "--root", root, "--now", WEEK2, "--no-site")
    assert code == 0, err
    second = (inst.root / "articles/skill-evals-2026-05-24.md").read_text()
    assert_golden("article-week2.md", second)
    assert "**Verdict:** SKILL_EVALS_REGRESSED" in second
    assert "| repo-pulse | PASS | FIXED |" in second
    assert "| cost-report | NEW_FAIL | word_count — 6 words, minimum 100 | ISS-002 |" in second
    closed = (inst.root / "memory/issues/ISS-001.md").read_text()
    assert "status: resolved" in closed and 'resolved_at: "2026-05-24T06:00:00Z"' in closed
    index = (inst.root / "memory/issues/INDEX.md").read_text()
    open_part, resolved_part = index.split("## Resolved")
    assert "ISS-002" in open_part and "ISS-001" in resolved_part and "ISS-001" not in open_part
    log = (inst.root / "memory/logs/2026-05-24.md").read_text()
    assert (
        "### skill-evals\n- Verdict: SKILL_EVALS_REGRESSED" in log
        and "- Issues filed: ISS-002" in log
    )
    bodies = inst.notifications()
    assert len(bodies) == 2 and all(len(b) == 1 for b in bodies)  # one argument each, no shell
    assert bodies[1][0].splitlines()[:2] == [
        "*Skill Evals — SKILL_EVALS_REGRESSED*",
        "1 new fail · 1 fixed · coverage 83.3%",
    ]
    assert "• cost-report — 6 words, minimum 100 (ISS-002)" in bodies[1][0].splitlines()
    assert (
        "issues filed: ISS-002 (cost-report)" in out
        and "issues closed: ISS-001 (repo-pulse)" in out
    )

    # the same day again: nothing new filed, nothing closed twice, no second ping, same article
    before = inst.snapshot()
    code, out, _ = cli("run", "--root", root, "--now", WEEK2, "--no-site")
    assert code == 0
    after = inst.snapshot()
    assert after == before
    assert "already sent for 2026-05-24" in out and len(inst.notifications()) == 2

    # week 3: nothing changed but time → the Still Failing row carries ISS-002 and its date
    code, _, _ = cli("run", "--root", root, "--now", WEEK3, "--no-site")
    third = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert (
        "| cost-report | FAIL | word_count — 6 words, minimum 100 | ISS-002 | 2026-05-24 |" in third
    )
    # cost-report is not filed again; the daily token-alert, silent for 7 days (more than 3
    # cadences), now counts as failing and gets its own issue (issue 15)
    third_issue = (inst.root / "memory/issues/ISS-003.md").read_text()
    assert "affected_skills: [token-alert]" in third_issue
    assert "category: missing-secret-or-cron" in third_issue
    assert not (inst.root / "memory/issues/ISS-004.md").exists()


def test_unchanged_outputs_a_week_later_are_all_stable(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"weekly": (True, "0 7 * * 1")})
    inst.evals(
        {
            "weekly": {
                "output_pattern": "articles/weekly-*.md",
                "min_words": 3,
                "required_patterns": ["report"],
            }
        }
    )
    inst.write("articles/weekly-2026-05-11.md", "the weekly report text")
    cli(
        "run", "--root", str(inst.root), "--now", "2026-05-12T06:00:00Z", "--no-site", "--no-notify"
    )
    _code, _out, _ = cli(
        "run", "--root", str(inst.root), "--now", "2026-05-19T06:00:00Z", "--no-site", "--no-notify"
    )
    article = (inst.root / "articles/skill-evals-2026-05-19.md").read_text()
    assert "**Verdict:** SKILL_EVALS_OK" in article and "| weekly | PASS | STABLE |" in article
    assert "0 new fail · 0 fixed · 0 still failing · 1 stable" in article


def test_same_inputs_give_byte_identical_articles(tmp_path: Path, cli: Cli) -> None:
    texts = []
    for name in ("a", "b"):
        inst = fleet(Instance(tmp_path / name))
        cli("run", "--root", str(inst.root), "--now", WEEK1, "--no-site", "--no-notify")
        texts.append((inst.root / "articles/skill-evals-2026-05-17.md").read_bytes())
    assert texts[0] == texts[1]


def test_dry_run_writes_nothing_and_prints_the_article(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    before = inst.snapshot()
    code, out, _ = cli("run", "--root", str(inst.root), "--now", WEEK1, "--dry-run")
    assert code == 0 and inst.snapshot() == before
    assert (
        out.startswith("# Skill Evals — 2026-05-17") and "article: not written (--dry-run)" in out
    )


def test_dry_run_ledger_said_issues_filed_though_none_was_written(
    instance: Instance, cli: Cli
) -> None:
    """`run --dry-run` printed "issues filed: ISS-001 (…)" though it wrote no issue: it says
    which it would file; the real run then files exactly those."""
    inst = fleet(instance)
    code, out, _ = cli("run", "--root", str(inst.root), "--now", WEEK1, "--dry-run")
    assert code == 0 and not (inst.root / "memory/issues/ISS-001.md").exists()
    ledger = [line for line in out.splitlines() if line.startswith("issues ")]
    assert ledger[0].startswith("issues filed: none (--dry-run; would file ISS-001 (")
    assert ledger[1] == "issues closed: none (--dry-run)"
    code, out, _ = cli("run", "--root", str(inst.root), "--now", WEEK1, "--no-notify")
    would = ledger[0].removeprefix("issues filed: none (--dry-run; would file ").removesuffix(")")
    assert code == 0 and f"issues filed: {would}" in out.splitlines()
    assert (inst.root / "memory/issues/ISS-001.md").exists()


def test_ledger_issues_closed_were_in_another_order_than_sources() -> None:
    """The ledger listed the issues in the stage's order, the article's Sources in another:
    both list them by id (ISS-9 before ISS-10)."""
    from datetime import date

    from aeon_evals.issues import IssueOutcome, IssueRef
    from aeon_evals.model import Verdict
    from aeon_evals.run.data import RunOutcome

    refs = tuple(IssueRef(i, s, "") for i, s in (("ISS-10", "a"), ("ISS-9", "z"), ("ISS-2", "m")))
    outcome = RunOutcome(Verdict.OK, date(2026, 6, 1), issues=IssueOutcome(refs, refs))
    assert "issues closed: ISS-2 (m), ISS-9 (z), ISS-10 (a)" in outcome.ledger()
    assert "issues filed: ISS-2 (m), ISS-9 (z), ISS-10 (a)" in outcome.ledger()


def test_json_is_the_only_thing_on_stdout_and_holds_the_evidence(
    instance: Instance, cli: Cli
) -> None:
    inst = fleet(instance)
    _code, out, err = cli(
        "run", "--root", str(inst.root), "--now", WEEK1, "--json", "--no-site", "--no-notify"
    )
    data = json.loads(out)
    assert data["verdict"] == "SKILL_EVALS_REGRESSED" and data["coverage"] == {
        "covered": 5,
        "enabled": 6,
        "pct": 83.33,
        "previous_pct": None,
        "delta_pts": None,
        "legacy_pct": None,
    }
    cost = next(s for s in data["skills"] if s["skill"] == "cost-report")
    path = inst.root / cost["output"]["path"]
    assert cost["output"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert cost["output"]["size"] == path.stat().st_size and cost["words"] == 125
    assert "verdict: SKILL_EVALS_REGRESSED" in err


def test_scoped_run_keeps_the_other_rows_of_the_day(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    root = str(inst.root)
    cli("run", "--root", root, "--now", WEEK1, "--no-site", "--no-notify")
    inst.write("articles/repo-pulse-2026-05-17.md", f"# pulse\n10 stars\n{WORDS}\n")
    code, _out, _ = cli(
        "run",
        "--root",
        root,
        "--now",
        "2026-05-17T09:00:00Z",
        "--skill",
        "repo-pulse",
        "--no-site",
        "--no-notify",
    )
    article = (inst.root / "articles/skill-evals-2026-05-17.md").read_text()
    assert code == 0
    assert "| repo-pulse | PASS | NEW_PASS |" in article
    for skill in ("cost-report", "changelog", "digest", "token-alert", "old-skill"):
        assert f"| {skill} |" in article


def test_skill_without_a_spec_is_skipped_and_reported(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    # no evals.json entry and SKILL.md contracts off: nothing to evaluate it on
    code, _out, err = cli(
        "run", "--root", str(inst.root), "--skill", "no-spec", "--now", WEEK1, "--contracts", "off"
    )
    assert code == 5
    assert (
        err.strip() == "aeon-evals: skill-evals: no-spec has no spec — add an entry to evals.json"
    )
    assert inst.notifications() == [
        ["skill-evals: no-spec has no spec — add an entry to evals.json"]
    ]


@pytest.mark.parametrize(
    ("exit_code", "sleep", "expected"), [(1, 0, "failed (exit 1)"), (0, 5, "timed out after 1s")]
)
def test_a_failing_or_hanging_notifier_loses_nothing(
    instance: Instance, cli: Cli, exit_code: int, sleep: float, expected: str
) -> None:
    inst = fleet(instance)
    inst.notifier(exit_code=exit_code, sleep=sleep)
    code, out, err = cli(
        "run", "--root", str(inst.root), "--now", WEEK1, "--no-site", "--notify-timeout", "1"
    )
    assert code == 0
    assert (inst.root / "articles/skill-evals-2026-05-17.md").exists()
    assert expected in out and expected in err


def test_unreadable_evals_json_is_retried_then_an_error(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    inst.write("skills/skill-evals/evals.json", '{"skills": {"a": ')
    before = inst.snapshot()
    code, _, err = cli("run", "--root", str(inst.root), "--now", WEEK1, "--retry-delay", "0")
    assert code == 2
    assert err.splitlines() == [  # the retry is announced before the wait
        "aeon-evals: skills/skill-evals/evals.json: invalid JSON at line 1 column 18: Expecting "
        "value; reading it again in 0s (it may be half-written by a commit)",
        "aeon-evals: skills/skill-evals/evals.json: invalid JSON at line 1 column 18: Expecting "
        "value (also after a retry 0s later)",
    ]
    assert inst.snapshot() == before


def test_audit_and_contracts_said_also_after_a_retry_though_they_do_not_retry(
    instance: Instance, cli: Cli
) -> None:
    """audit and contracts read evals.json once (no run to protect from a half-written file)
    but said "(also after a retry 0s later)"; `run` does retry and still says so."""
    inst = fleet(instance)
    inst.write("skills/skill-evals/evals.json", '{"skills": {"a": ')
    for command in ("audit", "contracts"):
        code, _, err = cli(command, "--root", str(inst.root))
        assert code == 2
        assert err == (
            "aeon-evals: skills/skill-evals/evals.json: invalid JSON at line 1 column 18: "
            "Expecting value\n"
        )


def test_half_written_evals_json_is_read_again(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    good = (inst.root / "skills/skill-evals/evals.json").read_text()
    inst.write("skills/skill-evals/evals.json", good[: len(good) // 2])
    timer = threading.Timer(0.2, lambda: inst.write("skills/skill-evals/evals.json", good))
    timer.start()
    code, _, err = cli(
        "run",
        "--root",
        str(inst.root),
        "--now",
        WEEK1,
        "--retry-delay",
        "1",
        "--no-site",
        "--no-notify",
    )
    timer.join()
    assert code == 0, err


def test_a_second_run_waits_then_refuses(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    with instance_lock(inst.root, timeout=1):
        start = time.monotonic()
        code, _, err = cli("run", "--root", str(inst.root), "--now", WEEK1, "--lock-timeout", "0.3")
        assert time.monotonic() - start < 10
    assert code == 4 and "another aeon-evals run is writing this instance" in err
    assert not (inst.root / "articles/skill-evals-2026-05-17.md").exists()


def test_missing_root_is_one_line(cli: Cli, tmp_path: Path) -> None:
    code, _, err = cli("run", "--root", str(tmp_path / "nope"))
    assert code == 2 and err.count("\n") == 1 and "instance root does not exist" in err


def test_a_folder_that_is_no_aeon_instance_is_refused_and_left_alone(
    tmp_path: Path, cli: Cli
) -> None:
    """A wrong --root (or cron in the wrong folder) must not bootstrap an evals.json there."""
    (tmp_path / "notes.txt").write_text("unrelated")
    code, _out, err = cli("run", "--root", str(tmp_path), "--now", WEEK1)
    assert code == 2 and err == (
        "aeon-evals: aeon.yml: not found (looked for aeon.yml, then a *.yml or *.yaml with a "
        f"top-level skills: block, in {tmp_path}): not an Aeon instance (check --root, or pass "
        "--config FILE)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
