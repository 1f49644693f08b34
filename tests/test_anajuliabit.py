"""The real anajuliabit instance evaluated for 2026-05-31, against its own 2026-05-24 article.

Where this tool and the LLM-written 2026-05-31 article disagree, the test says which is right.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from realdata import anajuliabit_instance

Cli = Callable[..., tuple[int, str, str]]


def _run(tmp_path: Path, cli: Cli, *extra: str) -> dict[str, dict[str, object]]:
    root = anajuliabit_instance(tmp_path / "ana")
    code, out, err = cli("run", "--root", str(root), "--now", "2026-05-31T06:57:14Z", "--json", "--no-notify", "--no-site", *extra)
    assert code == 0, err
    data = json.loads(out)
    return {"_": data, **{s["skill"]: s for s in data["skills"]}}


def test_enabled_skills_match_the_real_article(tmp_path: Path, cli: Cli) -> None:
    rows = _run(tmp_path, cli)
    # The real article: cost-report, token-alert, skill-health FIXED (from NO_OUTPUT); heartbeat PASS.
    assert (rows["cost-report"]["status"], rows["cost-report"]["diff"]) == ("PASS", "FIXED")
    assert (rows["token-alert"]["status"], rows["token-alert"]["diff"]) == ("PASS", "FIXED")
    assert (rows["skill-health"]["status"], rows["skill-health"]["diff"]) == ("PASS", "FIXED")
    assert (rows["heartbeat"]["status"], rows["heartbeat"]["diff"]) == ("PASS", "STABLE")
    data = rows["_"]
    assert data["verdict"] == "SKILL_EVALS_RECOVERED"  # as the real article
    # token-alert runs at 12:00: at 06:57 the newest log has no entry, so the 05-30 log is used
    assert rows["token-alert"]["output"]["path"] == "memory/logs/2026-05-30.md"  # type: ignore[index]
    assert any("newest log has no entry yet" in n for n in rows["token-alert"]["notes"])  # type: ignore[union-attr]


def test_where_the_real_article_was_wrong(tmp_path: Path, cli: Cli) -> None:
    rows = _run(tmp_path, cli)
    # The real article labelled the new hacker-news-digest / monitor-polymarket specs NEW_PASS while
    # they FAILed: absent before and failing now is NEW_FAIL. Both are disabled, so they file no
    # issue and do not make the verdict REGRESSED.
    for skill in ("hacker-news-digest", "monitor-polymarket"):
        assert (rows[skill]["status"], rows[skill]["diff"], rows[skill]["enabled"]) == ("FAIL", "NEW_FAIL", False)
    assert rows["_"]["issues"] == {"filed": [], "closed": []}
    # The real article counted the 14 spec keys, disabled ones included, as coverage (14/29);
    # coverage is enabled skills with a spec over enabled skills: heartbeat, token-alert,
    # skill-health and cost-report of the 29 enabled.
    assert rows["_"]["coverage"]["covered"] == 4 and rows["_"]["coverage"]["enabled"] == 29  # type: ignore[index]
    # The removed hn-digest / polymarket keys are reported, as the real article's "2 spec-removed".
    assert rows["_"]["diff"]["new_no_coverage"] == 2  # type: ignore[index]


def test_sections_make_log_checks_honest(tmp_path: Path, cli: Cli) -> None:
    root = anajuliabit_instance(tmp_path / "ana")
    evals = json.loads((root / "skills/skill-evals/evals.json").read_text())
    for skill in ("heartbeat", "token-alert", "skill-health", "hacker-news-digest", "monitor-polymarket"):
        evals["skills"][skill]["section"] = f"### {skill}"
    (root / "skills/skill-evals/evals.json").write_text(json.dumps(evals))
    code, out, err = cli("run", "--root", str(root), "--now", "2026-05-31T06:57:14Z", "--json", "--no-notify", "--no-site")
    assert code == 0, err
    rows = {s["skill"]: s for s in json.loads(out)["skills"]}
    # word counts now measure the skill's own section, not the whole 9,013-word log
    assert rows["token-alert"]["status"] == "PASS" and rows["token-alert"]["words"] < 400
    assert rows["heartbeat"]["status"] == "PASS" and rows["heartbeat"]["words"] < 1000
    # the disabled skills write no section of their own: missing_section, not a pattern miss
    assert rows["monitor-polymarket"]["root_causes"][0]["code"] == "missing_section"
