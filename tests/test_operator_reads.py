"""What the operator reads (issue 34): every failing cause says expected vs actual, with its
evidence, the same on every surface (article, issue, `--json`, job summary, notification); the
article renders on GitHub as intended; a quiet skill fails since its last output; the issue
carries the fix the tool knows; the notification leads with what changed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from golden import assert_golden
from markdown_it import MarkdownIt

from aeon_evals.articles.parse import parse_article
from aeon_evals.report import message
from aeon_evals.run import pipeline
from aeon_evals.run.data import RunOptions
from aeon_evals.text.mdtable import escape_cell

Cli = Callable[..., tuple[int, str, str]]
NOW = "2026-05-31T07:12:00Z"
DAILY = "0 8 * * *"
WORDS = " ".join(["word"] * 240)
BRIEF_SKILL = """---
name: brief
description: Writes the morning brief from the day's notes.
---
# Brief

Read the notes, then write the brief.

Save to `articles/brief-${today}.md`:

```markdown
# Brief — ${today}

## Summary
One paragraph.

## Sources
- links
```
"""
# the shared daily log: heartbeat's own entry is clean, another skill's lines hold `${var}`
LOG = """# 2026-05-30

### heartbeat
- all skills ran; nothing to report

### digest-helper
- Repo(s): a/b, c/d
- note: `${var}` empty
- fell back: ${var} unset
- again ${var}

### heartbeat-2
- unrelated
"""


@pytest.fixture(autouse=True)
def _no_links(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "GITHUB_ACTIONS",
        "GITHUB_SERVER_URL",
        "GITHUB_REPOSITORY",
        "GITHUB_SHA",
        "GITHUB_RUN_ID",
        "AEON_EVALS_ARTICLE_REF",
        message.SITE_URL_ENV,
    ):
        monkeypatch.delenv(name, raising=False)


def causes_fleet(inst: Instance) -> Instance:
    """One skill failing for each kind of cause, the day before NOW."""
    inst.aeon_yml(
        {
            name: (True, DAILY)
            for name in ("heartbeat", "cost-report", "digest", "repo-article", "news", "brief")
        }
    )
    inst.evals(
        {
            "heartbeat": {
                "output_pattern": "memory/logs/*.md",
                "forbidden_patterns": ["\\$\\{var\\}"],
            },
            "cost-report": {"output_pattern": "articles/cost-report-*.md", "min_words": 200},
            "digest": {"output_pattern": "articles/digest-*.md"},
            "repo-article": {
                "output_pattern": "articles/repo-article-*.md",
                "required_patterns": ["Aeon|aeon"],
            },
            "news": {"output_pattern": "articles/news-*.md"},
        },
        contracts="enforce",
    )
    inst.write("memory/logs/2026-05-30.md", LOG)
    inst.write("articles/cost-report-2026-05-30.md", " ".join(["word"] * 107) + "\n")
    inst.write("articles/digest-2026-05-21.md", WORDS)  # 9.3 days old at NOW, expected daily
    inst.write("articles/repo-article-2026-05-30.md", "# Repo\n\n" + WORDS)
    inst.write("articles/news-2026-05-30.md", WORDS)
    inst.write("memory/skill-health/news.json", json.dumps({"avg_score": 1.5}))
    inst.write("skills/brief/SKILL.md", BRIEF_SKILL)
    inst.write(
        "articles/brief-2026-05-30.md", "# Brief — 2026-05-30\n\n## Sources\n- ${today}: a\n"
    )
    inst.notifier()
    return inst


# skill -> (the cause code, its expected vs actual as every surface shows it)
EXPECTED = {
    "heartbeat": (
        "forbidden_pattern:\\$\\{var\\}",
        "forbidden `${var}` at memory/logs/2026-05-30.md:8 (3 hits, outside `### heartbeat`)",
    ),
    "cost-report": ("word_count", "107 words, minimum 200"),
    "digest": (
        "stale_file",
        "output 9.3 days old, expected daily (cron `0 8 * * *`); stale after 2 days, "
        "failing after 3 days (3 cadences)",
    ),
    "repo-article": (
        "missing_pattern:Aeon|aeon",
        "required pattern `Aeon|aeon` not found in articles/repo-article-2026-05-30.md",
    ),
    "news": ("quality_score:1.5", "quality 1.5 (skill-health avg_score), minimum 2.5"),
    "brief": ("missing_heading:## Summary", "`## Summary` missing (SKILL.md:14 asks for it)"),
}


def _run(cli: Cli, inst: Instance, now: str, tmp_path: Path, monkeypatch: Any) -> dict[str, Any]:
    summary = tmp_path / f"summary-{now[:10]}.md"
    summary.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = cli("run", "--root", str(inst.root), "--now", now, "--json", "--no-site")
    assert code == 0, err
    return {"json": json.loads(out), "summary": summary.read_text()}


def test_each_failing_cause_says_expected_vs_actual_on_every_surface(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inst = causes_fleet(instance)
    s = _run(cli, inst, NOW, tmp_path, monkeypatch)
    data = s["json"]
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    parsed = parse_article(article, path="a", day=date(2026, 5, 31))
    by_skill = {row["skill"]: row for row in data["skills"]}
    issues = {i["skill"]: (inst.root / i["path"]).read_text() for i in data["issues"]["filed"]}
    body = inst.notifications()[-1][0]
    for skill, (code, detail) in EXPECTED.items():
        # --json: the head cause, its words and its evidence
        head = by_skill[skill]["root_causes"][0]
        assert (head["code"], head["detail"]) == (code, detail), skill
        # the article's Regressions table, as written and as the next run reads it back
        assert parsed.causes[skill] == f"{code} — {detail}", skill
        # the issue file, the job summary's Regressions table, the notification
        assert re.search(
            rf"Expected vs actual: {re.escape(detail)}[.;]", " ".join(issues[skill].split())
        ), skill
        assert escape_cell(f"{code} — {detail}") in s["summary"], skill
        assert f"• {skill} — {detail.split('; ')[0]}" in body, skill

    # the evidence, as data
    assert by_skill["heartbeat"]["root_causes"][0]["evidence"] == {
        "path": "memory/logs/2026-05-30.md",
        "line": 8,
        "hits": 3,
        "section": "### heartbeat",
        "inside": 0,
    }
    assert by_skill["digest"]["root_causes"][0]["evidence"] == {
        "path": "articles/digest-2026-05-21.md",
        "last_output": "2026-05-21",
    }
    assert by_skill["brief"]["root_causes"][0]["evidence"]["asked_at"] == "SKILL.md:14"
    # a placeholder the SKILL.md's template holds, left in the output
    assert by_skill["brief"]["root_causes"][1]["detail"] == (
        "forbidden `${today}` at articles/brief-2026-05-30.md:4 (1 hit, SKILL.md:12 forbids it)"
    )
    # the issue carries the fix the tool knows, worded as the Action Queue words it
    heartbeat = " ".join(issues["heartbeat"].split())
    assert (
        "Known fix: every hit is in other skills' lines of the shared log: Patch "
        'evals.json:heartbeat — add a section ("section": "### heartbeat"): its checks read '
        "the whole shared daily log." in heartbeat
    )
    assert any(
        a.startswith("Patch evals.json:heartbeat — add a section") for a in data["action_queue"]
    )
    digest = " ".join(issues["digest"].split())
    dispatch = next(a for a in data["action_queue"] if a.startswith("Dispatch digest"))
    assert dispatch == f"Dispatch digest — no output in 9 days ({by_skill['digest']['issue']})"
    assert "Known fix: Dispatch digest — no output in 9 days." in digest


def test_a_forbidden_pattern_inside_the_skills_own_section_says_so(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the spec's section, only that section is checked: its hits are inside it, and no
    section patch is offered."""
    inst = causes_fleet(instance)
    inst.write("memory/logs/2026-05-30.md", LOG.replace("nothing to report", "${var} and ${var}"))
    specs = json.loads((inst.root / "skills/skill-evals/evals.json").read_text())
    specs["skills"]["heartbeat"]["section"] = "### heartbeat"
    inst.write("skills/skill-evals/evals.json", json.dumps(specs))
    s = _run(cli, inst, NOW, tmp_path, monkeypatch)
    head = next(r for r in s["json"]["skills"] if r["skill"] == "heartbeat")["root_causes"][0]
    assert head["detail"] == (
        "forbidden `${var}` at memory/logs/2026-05-30.md:4 (2 hits, inside `### heartbeat`)"
    )
    filed = next(i for i in s["json"]["issues"]["filed"] if i["skill"] == "heartbeat")
    assert "Known fix" not in (inst.root / filed["path"]).read_text()


def _rendered(text: str) -> str:
    """The article as GitHub renders it: CommonMark with GFM tables (markdown-it-py)."""
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def test_the_article_renders_on_github_as_intended(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the header lines ran together into one paragraph (no hard breaks) and
    patterns in code spans showed doubled backslashes (`\\\\$\\\\{var\\\\}`)."""
    inst = causes_fleet(instance)
    _run(cli, inst, NOW, tmp_path, monkeypatch)
    text = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    html = _rendered(text)
    assert_golden("article-rendered.html", html)
    # the header lines, each a paragraph of its own
    for name in ("Verdict", "Coverage", "Diff"):
        assert re.search(rf"(?m)^<p><strong>{name}:</strong> [^\n]*</p>$", html), name
    # tables are tables: one row per result, five cells in each Regressions row
    regressions = html.split("<h2>Regressions")[1].split("</table>")[0]
    assert regressions.count("<tr>") == 1 + len(EXPECTED)
    assert all(row.count("<td>") == 5 for row in regressions.split("<tr>")[2:])
    # a pattern in a code span shows once escaped, its `|` too; in plain text the same
    assert "<code>forbidden_pattern:\\$\\{var\\}</code>" in html  # the Action Queue
    assert "<code>${var}</code>" in html and "<code>Aeon|aeon</code>" in html
    assert "\\\\$" not in html and "\\\\{" not in html  # nowhere a doubled backslash
    # a code holding backticks (a contract's placeholder pattern) is shown as text, as it is
    assert "forbidden_pattern:(?:^|[^`\\\\])(\\$\\{today\\})(?:[^`]|$)</td>" in html
    assert "forbidden_pattern:\\$\\{var\\} — forbidden" in html  # the cell's code, as text
    # and the article still parses back exactly
    parsed = parse_article(text, path="a", day=date(2026, 5, 31))
    assert parsed.verdict == "SKILL_EVALS_REGRESSED"
    assert parsed.diff_summary.startswith("6 new fail · 0 fixed")
    assert parsed.rows["heartbeat"].root_cause == "forbidden_pattern:\\$\\{var\\}"


def test_weekly_digest_silent_22_days_was_failing_since_today(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a weekly skill whose output was last written 22 days ago showed "Failing
    since <today> (0 d)". It fails since its last output's day, in the article (Regressions,
    then Still Failing), `--json`, the job summary and the dashboard's index."""
    inst = instance
    inst.aeon_yml({"weekly-digest": (True, "0 9 * * 5")})
    inst.evals({"weekly-digest": {"output_pattern": "articles/weekly-digest-*.md"}})
    inst.write("articles/weekly-digest-2026-11-10.md", WORDS)
    for now, label in (
        ("2026-12-03T23:00:00Z", "NEW_FAIL"),
        ("2026-12-10T23:00:00Z", "STILL_FAIL"),
    ):
        summary = tmp_path / "summary.md"
        summary.write_text("")
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        code, out, err = cli("run", "--root", str(inst.root), "--now", now, "--json")
        assert code == 0, err
        row = json.loads(out)["skills"][0]
        assert (row["status"], row["diff"], row["failing_since"]) == ("FAIL", label, "2026-11-10")
        article = (inst.root / f"articles/skill-evals-{now[:10]}.md").read_text()
        parsed = parse_article(article, path="a", day=date.fromisoformat(now[:10]))
        assert parsed.failing_since["weekly-digest"].since == date(2026, 11, 10)
        assert "| 2026-11-10 |" in summary.read_text()
        days = (date.fromisoformat(now[:10]) - date(2026, 11, 10)).days
        index = (inst.root / "site/index.html").read_text()
        assert f"2026-11-10 ({days} d)" in index and "(0 d)" not in index


# --- the notification --------------------------------------------------------------------------


def _outcome(root: Path, now: str) -> Any:
    moment = datetime.fromisoformat(now.replace("Z", "+00:00")).astimezone(UTC)
    return pipeline.run(
        RunOptions(root=root, today=moment.date(), now=moment, notify=False, site=False)
    )


def test_the_notification_leads_with_what_changed(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a REGRESSED notification's first line after the verdict was "Top action:
    Patch evals.json:…", not the regression, and "Article: articles/…" was a repository path
    posing as a link. Goldens of a regressed, a recovered and a quiet run."""
    inst = causes_fleet(instance)
    _run(cli, inst, NOW, tmp_path, monkeypatch)
    regressed = inst.notifications()[-1][0]
    assert_golden("notify-regressed.txt", regressed + "\n")
    lines = regressed.splitlines()
    assert lines[2] == "New failures:" and lines[3].startswith("• ")
    assert lines.index("New failures:") < next(
        i for i, line in enumerate(lines) if line.startswith("Top action:")
    )
    assert "Article in the repository: articles/skill-evals-2026-05-31.md" in lines

    # the next day every skill is fixed: recovered
    inst.write("memory/logs/2026-05-31.md", "# 2026-05-31\n\n### heartbeat\n- fine\n")
    inst.write("articles/cost-report-2026-05-31.md", WORDS)
    inst.write("articles/digest-2026-05-31.md", WORDS)
    inst.write("articles/repo-article-2026-05-31.md", "Aeon " + WORDS)
    inst.write("articles/news-2026-05-31.md", WORDS)
    inst.write("memory/skill-health/news.json", json.dumps({"avg_score": 4.5}))
    inst.write(
        "articles/brief-2026-05-31.md", "# Brief — 2026-05-31\n\n## Summary\nok\n\n## Sources\n"
    )
    _run(cli, inst, "2026-06-01T07:12:00Z", tmp_path, monkeypatch)
    recovered = inst.notifications()[-1][0]
    assert recovered.startswith("*Skill Evals — SKILL_EVALS_RECOVERED*\n")
    assert_golden("notify-recovered.txt", recovered + "\n")

    # a quiet day: nothing changed, so nothing is sent; what the body would say
    for skill in ("cost-report", "digest", "repo-article", "news", "brief"):
        text = (inst.root / f"articles/{skill}-2026-05-31.md").read_text()
        inst.write(f"articles/{skill}-2026-06-01.md", text)
    inst.write("memory/logs/2026-06-01.md", "# 2026-06-01\n\n### heartbeat\n- fine\n")
    sent = len(inst.notifications())
    quiet = _outcome(inst.root, "2026-06-02T07:12:00Z")
    assert quiet.verdict.value == "SKILL_EVALS_OK" and len(inst.notifications()) == sent
    body = message.notify_body(quiet.article, article=quiet.article_path)
    assert_golden("notify-quiet.txt", body + "\n")


def test_the_notification_links_the_article_and_the_dashboard() -> None:
    article, day = "articles/skill-evals-2026-05-31.md", "2026-05-31"
    assert message.links({}, article=article, day=day) == message.Links()
    site = {message.SITE_URL_ENV: "https://owner.github.io/aeon"}
    assert message.links(site, article=article, day=day) == message.Links(
        "https://owner.github.io/aeon/runs/skill-evals-2026-05-31.html",
        "https://owner.github.io/aeon/",
    )
    actions = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "owner/aeon",
        "GITHUB_SHA": "abc123",
        "AEON_EVALS_ARTICLE_REF": "main",
        "GITHUB_RUN_ID": "42",
    }
    blob = "https://github.com/owner/aeon/blob/main/articles/skill-evals-2026-05-31.md"
    assert message.links(actions, article=article, day=day) == message.Links(
        blob, "https://github.com/owner/aeon/actions/runs/42", "Run"
    )
    assert message.links(actions | site, article=article, day=day) == message.Links(
        blob, "https://owner.github.io/aeon/"
    )
    # not a URL: ignored, never shown as a link
    assert message.links({message.SITE_URL_ENV: "site/"}, article=article, day=day) == (
        message.Links()
    )


def test_a_notification_of_many_failures_fits_a_chat_message(
    instance: Instance, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within Discord's 2,000 characters (the smaller of Discord's and Telegram's limits): the
    lists are cut with "… and N more", the top action and the link are kept."""
    names = [f"skill-{i:03d}-with-a-long-name" for i in range(120)]
    instance.aeon_yml({name: (True, DAILY) for name in names})
    instance.evals({name: {"output_pattern": f"articles/{name}-*.md"} for name in names})
    instance.notifier()
    monkeypatch.setenv(message.SITE_URL_ENV, "https://example.org/evals/")
    code, _, err = cli("run", "--root", str(instance.root), "--now", NOW, "--no-site")
    assert code == 0, err
    body = instance.notifications()[-1][0]
    assert len(body.encode("utf-16-le")) // 2 <= message.MAX_CHARS
    lines = body.splitlines()
    shown = [line for line in lines if line.startswith("• ")]
    more = next(line for line in lines if line.startswith("… and "))
    assert more == f"… and {len(names) - len(shown)} more"
    assert lines[-3].startswith("Top action: Investigate skill-000-with-a-long-name")
    assert lines[-2:] == [
        "Article: https://example.org/evals/runs/skill-evals-2026-05-31.html",
        "Dashboard: https://example.org/evals/",
    ]


def test_aeonfun_heartbeat_issue_had_no_line_count_or_fix(tmp_path: Path, cli: Cli) -> None:
    """Regression: aeonfun's heartbeat issue (`forbidden_pattern ${var}`) gave no line and no
    count, and the hits were other skills' lines in the shared log, outside `### heartbeat`;
    the issue left out the fix the tool itself knows (give the spec its section)."""
    from realdata import whole_instance

    root = whole_instance("aeonfun__aeon@2026-05-03", tmp_path / "aeonfun")
    code, out, err = cli(
        "run",
        "--root",
        str(root),
        "--now",
        "2026-05-03T23:00:00Z",
        "--json",
        "--no-site",
        "--no-notify",
    )
    assert code == 0, err
    data = json.loads(out)
    filed = next(i for i in data["issues"]["filed"] if i["skill"] == "heartbeat")
    text = " ".join((root / filed["path"]).read_text().split())
    assert (
        "Expected vs actual: forbidden `${var}` at memory/logs/2026-05-02.md:652 (3 hits, "
        "outside `### heartbeat`)." in text
    )
    assert "Known fix: every hit is in other skills' lines of the shared log: Patch " in text
    # line 652 is another skill's line
    log = (root / "memory/logs/2026-05-02.md").read_text().splitlines()
    assert "${var}" in log[651]
    heading = next(line for line in reversed(log[:651]) if line.startswith("#"))
    assert heading != "### heartbeat"


def test_a_disabled_skills_failing_row_said_only_its_code(tmp_path: Path, cli: Cli) -> None:
    """Regression: Da6hkin's evals.json names disabled skills whose outputs are gone (cost-report,
    repo-pulse …). Counted apart, they were in no Regressions or Still Failing table, so the
    article and the skill page said only `no_file_match`. The article lists them under "Counted
    apart" with the expected-vs-actual detail, reads it back, and the skill page leads with it;
    the verdict is unchanged."""
    from realdata import DA6HKIN, whole_instance

    root = whole_instance(DA6HKIN, tmp_path / "da6")
    code, out, err = cli(
        "run", "--root", str(root), "--now", "2026-07-11T23:00:00Z", "--no-notify", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["verdict"] == "SKILL_EVALS_OK"
    text = (root / "articles/skill-evals-2026-07-11.md").read_text()
    apart = text.split("## Counted apart", 1)[1].split("\n## ", 1)[0]
    assert "| cost-report | NO_OUTPUT | no_file_match — no file matches " in apart
    parsed = parse_article(text, path="a.md", day=date(2026, 7, 11))
    assert parsed.causes["cost-report"].startswith("no_file_match — no file matches ")
    page = (root / "site/skills/cost-report.html").read_text()
    lead = page.split('id="finding"', 1)[1].split("</section>", 1)[0]
    assert "no file matches" in lead and "disabled" in lead
