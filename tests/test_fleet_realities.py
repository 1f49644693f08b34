"""What made the old weekly evals noisy and wrong: disabled skills, mutes, flakes, lost history."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Instance

Cli = Callable[..., tuple[int, str, str]]
WORDS = " ".join(["word"] * 60)


def _json(cli: Cli, root: Path, now: str, *extra: str) -> dict:  # type: ignore[type-arg]
    code, out, err = cli(
        "run", "--root", str(root), "--now", now, "--json", "--no-site", "--no-notify", *extra
    )
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_muted_skill_is_shown_but_files_nothing_and_can_be_unmuted(
    instance: Instance, cli: Cli
) -> None:
    inst = instance
    inst.aeon_yml({"flappy": (True, "0 7 * * *"), "fine": (True, "0 7 * * *")})
    inst.evals(
        {
            "flappy": {
                "output_pattern": "articles/flappy-*.md",
                "min_words": 1000,
                "mute": {"until": "2026-06-30", "reason": "known: upstream API down"},
            },
            "fine": {
                "output_pattern": "articles/fine-*.md",
                "min_words": 10,
                "mute": {"until": "2026-05-01", "reason": "old"},
            },
        }
    )
    inst.write("articles/flappy-2026-05-30.md", WORDS)
    inst.write("articles/fine-2026-05-30.md", WORDS)
    data = _json(cli, inst.root, "2026-05-31T06:00:00Z")
    rows = {s["skill"]: s for s in data["skills"]}
    assert rows["flappy"]["status"] == "FAIL" and rows["flappy"]["muted_until"] == "2026-06-30"
    assert data["verdict"] == "SKILL_EVALS_OK" and data["issues"]["filed"] == []
    assert "mute expired on 2026-05-01" in rows["fine"]["notes"]
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert "muted until 2026-06-30: known: upstream API down" in article
    assert "Patch evals.json:fine — mute expired; remove it or extend it" in article
    # the muted skill recovers: flagged "can unmute"
    inst.write("articles/flappy-2026-06-06.md", " ".join(["word"] * 1200))
    _json(cli, inst.root, "2026-06-07T06:00:00Z")
    article = (inst.root / "articles/skill-evals-2026-06-07.md").read_text()
    assert (
        "can unmute" in article
        and "Patch evals.json:flappy — muted but passing: remove the mute" in article
    )


def test_flaky_skill_is_marked_and_its_issue_says_so(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"wobbly": (True, "0 7 * * *")})
    inst.evals(
        {
            "wobbly": {
                "output_pattern": "memory/logs/*.md",
                "section": "### wobbly",
                "min_words": 3,
                "required_patterns": ["WOBBLY_OK"],
            }
        }
    )
    days = ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05"]
    for i, day in enumerate(days):
        good = i % 2 == 0
        inst.write(
            f"memory/logs/{day}.md",
            f"# {day}\n### wobbly\n{'WOBBLY_OK' if good else 'nothing today'} and more words\n",
        )
        data = _json(cli, inst.root, f"{day}T23:00:00Z")
    row = data["skills"][0]
    assert row["status"] == "PASS" and row["flaky"] is True
    cli("site", "--root", str(inst.root), "--now", "2026-05-05T23:00:00Z")
    # the skill's name links its page (issue 18); the flaky tag follows it
    assert (
        '<th scope="row" class="name"><a href="skills/wobbly.html">wobbly</a> <span class="tag"'
        in (inst.root / "site/index.html").read_text()
    )
    inst.write("memory/logs/2026-05-06.md", "# 2026-05-06\n### wobbly\nnothing today and more\n")
    data = _json(cli, inst.root, "2026-05-06T23:00:00Z")
    issue = data["issues"]["filed"][0]
    text = (inst.root / issue["path"]).read_text()
    assert (
        "flaky: true" in text
        and "flaky" in (inst.root / "articles/skill-evals-2026-05-06.md").read_text()
    )


def test_disabled_skill_never_regresses_the_verdict(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"off": (False, "0 7 * * *"), "on": (True, "0 7 * * *")})
    inst.evals(
        {
            "off": {"output_pattern": "articles/off-*.md"},
            "on": {"output_pattern": "articles/on-*.md"},
        }
    )
    inst.write("articles/on-2026-05-30.md", WORDS)
    data = _json(cli, inst.root, "2026-05-31T06:00:00Z")
    rows = {s["skill"]: s for s in data["skills"]}
    assert rows["off"]["status"] == "NO_OUTPUT" and rows["off"]["enabled"] is False
    assert data["verdict"] == "SKILL_EVALS_OK" and data["issues"]["filed"] == []
    assert (
        "| off | NO_OUTPUT | NEW_FAIL | no_file_match | unknown | — | — | disabled |"
        in (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    )


def test_cron_state_disagreeing_with_the_outputs_is_said(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"ghost": (True, "0 7 * * *"), "broken": (True, "0 7 * * *")})
    inst.evals(
        {
            "ghost": {"output_pattern": "articles/ghost-*.md"},
            "broken": {"output_pattern": "articles/broken-*.md"},
        }
    )
    inst.write("articles/broken-2026-05-30.md", WORDS)
    inst.write(
        "memory/cron-state.json",
        json.dumps(
            {
                "ghost": {"last_status": "success", "last_success": "2026-05-30T07:02:00Z"},
                "broken": {
                    "last_status": "failed",
                    "last_failed": "2026-05-31T07:01:00Z",
                    "last_error": "ANTHROPIC_API_KEY invalid",
                },
            }
        ),
    )
    data = _json(cli, inst.root, "2026-05-31T08:00:00Z")
    rows = {s["skill"]: s for s in data["skills"]}
    assert rows["ghost"]["notes"] == [
        "cron-state says the last run succeeded (2026-05-30T07:02:00Z) but there is no output"
    ]
    assert rows["broken"]["notes"] == [
        "cron-state says the last run failed (2026-05-31T07:01:00Z) (ANTHROPIC_API_KEY invalid)"
    ]
    issue = (inst.root / data["issues"]["filed"][0]["path"]).read_text()
    assert (
        "no_file_match" in issue
        and "cron-state says the last run succeeded (2026-05-30T07:02:00Z) but there is no output"
        in issue
    )


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
    )


def test_vanished_articles_are_recovered_from_git_history(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"stable": (True, "0 7 * * 1"), "broken": (True, "0 7 * * 1")})
    inst.evals(
        {
            "stable": {"output_pattern": "articles/stable-*.md", "min_words": 5},
            "broken": {"output_pattern": "articles/broken-*.md"},
        }
    )
    inst.write("articles/stable-2026-05-18.md", WORDS)
    _git(inst.root, "init", "-q")
    _json(cli, inst.root, "2026-05-24T06:00:00Z")
    _git(inst.root, "add", "-A")
    _git(inst.root, "commit", "-qm", "week 1")
    # a mirror re-sync wipes articles/ (and the outputs with it, except one)
    for f in (inst.root / "articles").iterdir():
        f.unlink()
    inst.write("articles/stable-2026-05-30.md", WORDS)
    _git(inst.root, "add", "-A")
    _git(inst.root, "commit", "-qm", "re-sync")
    data = _json(cli, inst.root, "2026-05-31T06:00:00Z")
    rows = {s["skill"]: s for s in data["skills"]}
    assert rows["broken"]["diff"] == "STILL_FAIL" and rows["stable"]["diff"] == "STABLE"
    assert data["issues"]["filed"] == []  # ISS-001 from week 1 still open; nothing re-filed
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert (
        "prior-article=ok (articles/skill-evals-2026-05-24.md from git " in article
        and "no article on disk)" in article
    )


@pytest.mark.parametrize(
    ("notes_column", "verdict"), [(False, "SKILL_EVALS_OK"), (True, "SKILL_EVALS_COVERAGE_CLIFF")]
)
def test_coverage_cliff_only_against_articles_counted_the_same_way(
    instance: Instance, cli: Cli, notes_column: bool, verdict: str
) -> None:
    """The old LLM skill counted disabled skills with a spec as covered (anajuliabit: 28% where
    this tool counts 13.8%): its number is shown but never makes a cliff."""
    inst = instance
    inst.aeon_yml(
        {
            "a": (True, "0 7 * * 1"),
            "b": (True, "0 7 * * 1"),
            "c": (True, "0 7 * * 1"),
            "d": (True, "0 7 * * 1"),
        }
    )
    inst.evals({"a": {"output_pattern": "articles/a-*.md"}})
    inst.write("articles/a-2026-05-30.md", WORDS)
    notes = (" Notes |", "---|", " — |") if notes_column else ("", "", "")
    inst.write(
        "articles/skill-evals-2026-05-24.md",
        "# Skill Evals — 2026-05-24\n\n**Verdict:** SKILL_EVALS_OK\n**Coverage:** 4/4 (100%)\n\n## "
        "Full Results\n"
        f"| Skill | Status | Diff | Root cause |{notes[0]}\n|---|---|---|---|{notes[1]}\n| a | "
        f"PASS | STABLE | — |{notes[2]}\n",
    )
    data = _json(cli, inst.root, "2026-05-31T06:00:00Z")
    assert data["verdict"] == verdict
    line = next(
        x
        for x in (inst.root / "articles/skill-evals-2026-05-31.md").read_text().splitlines()
        if x.startswith("**Coverage:**")
    )
    if notes_column:
        assert line == (
            "**Coverage:** 1/4 (25%) by evals.json, +0 inferred; 3 without a contract"
            " ↓ vs prior 100% (-75.0 pp)"
        )
    else:
        assert (
            line == "**Coverage:** 1/4 (25%) by evals.json, +0 inferred; 3 without a contract"
            " (prior article counted coverage another way: 100%; not compared)"
        )
