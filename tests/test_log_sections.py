"""A skill that writes a section of the shared daily log is judged on its newest entry, at any age:
one that missed its runs is STALE (then FAIL stale_file) as an article skill is, not FAIL
missing_section on a log it had no reason to be in."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conftest import Instance

Cli = Callable[..., tuple[int, str, str]]

LOG_SPEC = {"output_pattern": "memory/logs/*.md", "section": "### digest", "min_words": 3}
ARTICLE_SPEC = {"output_pattern": "articles/report-*.md", "min_words": 3}


def _fleet(instance: Instance, *, digest_days: list[str], log_days: list[str]) -> None:
    """`digest` (daily at 05:00) writes `### digest` into the logs of `digest_days`; `other` writes
    its own section into every log of `log_days`; `report` (daily at 05:00) writes an article."""
    instance.aeon_yml({"digest": (True, "0 5 * * *"), "report": (True, "0 5 * * *")})
    instance.evals({"digest": LOG_SPEC, "report": ARTICLE_SPEC})
    for day in sorted({*digest_days, *log_days}):
        text = f"# {day}\n\n### other\nother skill wrote its lines here today\n"
        if day in digest_days:
            text += "\n### digest\nfive fresh words for today\n"
        instance.write(f"memory/logs/{day}.md", text)


def _rows(cli: Cli, instance: Instance, now: str) -> dict[str, dict[str, Any]]:
    code, out, err = cli(
        "run", "--root", str(instance.root), "--now", now, "--json", "--no-notify", "--no-site"
    )
    assert code == 0, err
    return {s["skill"]: s for s in json.loads(out)["skills"]}


def test_log_section_skill_that_missed_its_runs_is_stale_not_missing_section(
    instance: Instance, cli: Cli
) -> None:
    """The acceptance finding: last entry three days old, the logs since then written by others.
    Before, the newest log was read (FAIL missing_section); now the row is STALE exactly as the
    article skill whose last article is as old."""
    _fleet(
        instance,
        digest_days=["2026-05-28"],
        log_days=["2026-05-28", "2026-05-29", "2026-05-30", "2026-05-31"],
    )
    instance.write("articles/report-2026-05-28.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    for skill in ("digest", "report"):
        assert rows[skill]["status"] == "STALE", rows[skill]
        assert [c["code"] for c in rows[skill]["root_causes"]] == ["stale_file"]
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-28.md"
    assert rows["digest"]["notes"] == [
        "used memory/logs/2026-05-28.md: the newest log with an entry; none since its last "
        "expected run (2026-05-31 05:00 UTC)"
    ]
    assert rows["digest"]["root_causes"][0]["detail"].startswith(
        "output 2.3 days old, expected daily (cron `0 5 * * *`); stale after 2 days"
    )


def test_log_section_skill_silent_past_three_cadences_fails_stale_file(
    instance: Instance, cli: Cli
) -> None:
    """Older still: FAIL stale_file (a skill gone quiet alerts), as for an article."""
    _fleet(instance, digest_days=["2026-05-25"], log_days=["2026-05-25", "2026-05-30"])
    instance.write("articles/report-2026-05-25.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    for skill in ("digest", "report"):
        assert rows[skill]["status"] == "FAIL", rows[skill]
        assert [c["code"] for c in rows[skill]["root_causes"]] == ["stale_file"]


def test_log_section_skill_that_missed_todays_run_is_judged_on_yesterdays_entry(
    instance: Instance, cli: Cli
) -> None:
    """Today's log exists (others wrote) without the section although the skill was due at
    05:00: one missed run is not an alarm for an article skill either; yesterday's entry is
    judged, and the row says which log was read."""
    _fleet(instance, digest_days=["2026-05-30"], log_days=["2026-05-30", "2026-05-31"])
    instance.write("articles/report-2026-05-30.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    assert rows["report"]["status"] == "PASS"
    assert rows["digest"]["status"] == "PASS", rows["digest"]
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-30.md"
    assert rows["digest"]["notes"] == [
        "used memory/logs/2026-05-30.md: the newest log with an entry; none since its last "
        "expected run (2026-05-31 05:00 UTC)"
    ]


def test_a_section_found_in_no_log_is_still_missing_section(instance: Instance, cli: Cli) -> None:
    """No log holds the section at all (a wrong heading, or a skill that never ran): the newest
    log is judged and the row says the section is missing, as before."""
    _fleet(instance, digest_days=[], log_days=["2026-05-29", "2026-05-30", "2026-05-31"])
    instance.write("articles/report-2026-05-30.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    assert rows["digest"]["status"] == "FAIL"
    assert rows["digest"]["root_causes"][0]["code"] == "missing_section"
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-31.md"
    assert rows["digest"]["notes"] == []


def test_todays_entry_is_used_when_there_is_one(instance: Instance, cli: Cli) -> None:
    """The skill ran today: its entry in today's log is judged, no note."""
    _fleet(instance, digest_days=["2026-05-30", "2026-05-31"], log_days=["2026-05-30"])
    instance.write("articles/report-2026-05-31.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    assert rows["digest"]["status"] == "PASS"
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-31.md"
    assert rows["digest"]["notes"] == []
