"""The static dashboard (issue #5): golden pages, escaping, real articles, cheap rebuilds, CLI."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from datetime import UTC, date, datetime
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from golden import assert_golden
from realdata import realdata

from aeon_evals import clock, site
from aeon_evals.articles.parse import read_article
from aeon_evals.cache.folder import CACHE_DIR
from aeon_evals.errors import ConfigError, ExitCode
from aeon_evals.model import ArticleRow, ParsedArticle, Status
from aeon_evals.site import charts, jinja_env, views

Cli = Callable[..., tuple[int, str, str]]

NOW = datetime(2026, 8, 17, 6, 0, tzinfo=UTC)

# A small history in this tool's article layout (SPEC §7 plus its Notes column, which marks an
# article as this tool's own: coverage is compared): first run, a quality drop,
# a recovery with a still-failing skill and a PASS→STALE move.
HISTORY = {
    "2026-08-02": """\
# Skill Evals — 2026-08-02

**Verdict:** SKILL_EVALS_REGRESSED
**Coverage:** 3/5 (60%) (first run)
**Diff:** 2 new fail · 0 fixed · 0 still failing · 0 stable

## Action Queue
1. Investigate digest — word_count (ISS-001)
2. Dispatch polymarket — no output in 9 days

## Regressions (NEW_FAIL + NEW_QUALITY_DEGRADED)
| Skill | Status | Root cause | Issue |
|-------|--------|------------|-------|
| digest | FAIL | word_count | ISS-001 |
| polymarket | NO_OUTPUT | no_file_match | ISS-002 |

## Full Results
| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |
|-------|--------|------|------------|---------|-------|-------------|-------|
| polymarket | NO_OUTPUT | NEW_FAIL | no_file_match | unknown | — | — | — |
| digest | FAIL | NEW_FAIL | word_count | avg=3.9 | 88 | articles/digest-2026-08-01.md | — |
| heartbeat | PASS | NEW_PASS | — | unknown | 1,204 | memory/logs/2026-08-02.md | — |

## Sources
- evals.json=ok · cron-state=ok · skill-health=ok · eval-audit=ok · prior-article=none
""",
    "2026-08-09": """\
# Skill Evals — 2026-08-09

**Verdict:** SKILL_EVALS_QUALITY_DROP
**Coverage:** 4/5 (80%) ↑ vs prior 60% (+20.0 pp)
**Diff:** 1 new fail · 1 fixed · 1 still failing · 1 stable

## Action Queue
1. Investigate news — quality_score:2.1 (ISS-003)
2. Investigate polymarket — no_file_match (ISS-002)

## Regressions (NEW_FAIL + NEW_QUALITY_DEGRADED)
| Skill | Status | Root cause | Issue |
|-------|--------|------------|-------|
| news | QUALITY_DEGRADED | quality_score:2.1 | ISS-003 |

## Recovered (FIXED)
| Skill | Was | Now |
|-------|-----|-----|
| digest | FAIL | PASS |

## Still Failing
| Skill | Status | Root cause | Issue | Failing since |
|-------|--------|------------|-------|---------------|
| polymarket | NO_OUTPUT | no_file_match | ISS-002 | 2026-08-02 |

## Full Results
| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |
|-------|--------|------|------------|---------|-------|-------------|-------|
| polymarket | NO_OUTPUT | STILL_FAIL | no_file_match | unknown | — | — | — |
| news | QUALITY_DEGRADED | NEW_QUALITY_DEGRADED | quality_score:2.1 | avg=2.1 | 640 | articles/news-2026-08-08.md | — |
| digest | PASS | FIXED | — | avg=3.9 | 512 | articles/digest-2026-08-08.md | — |
| heartbeat | PASS | STABLE | — | unknown | 1,310 | memory/logs/2026-08-09.md | — |

## Sources
- evals.json=ok · cron-state=ok · skill-health=ok · eval-audit=ok · prior-article=ok
""",  # noqa: E501
    "2026-08-16": """\
# Skill Evals — 2026-08-16

**Verdict:** SKILL_EVALS_RECOVERED
**Coverage:** 4/6 (66.7%) ↓ vs prior 80% (-13.3 pp)
**Diff:** 0 new fail · 1 fixed · 1 still failing · 1 stable

## Action Queue
1. Investigate polymarket — no_file_match (ISS-002)
2. Add evals.json entry for token-alert — pattern: `memory/logs/*.md`

## Recovered (FIXED)
| Skill | Was | Now |
|-------|-----|-----|
| news | QUALITY_DEGRADED | PASS |

## Still Failing
| Skill | Status | Root cause | Issue | Failing since |
|-------|--------|------------|-------|---------------|
| polymarket | NO_OUTPUT | no_file_match | ISS-002 | 2026-08-02 |

## Full Results
| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |
|-------|--------|------|------------|---------|-------|-------------|-------|
| polymarket | NO_OUTPUT | STILL_FAIL | no_file_match | unknown | — | — | — |
| digest | STALE | WORSE | stale_file | avg=3.8 | 530 | articles/digest-2026-08-08.md | — |
| news | PASS | FIXED | — | avg=3.0 | 702 | articles/news-2026-08-15.md | — |
| heartbeat | PASS | STABLE | — | unknown | 1,288 | memory/logs/2026-08-16.md | — |

## Coverage Gaps (enabled in aeon.yml, missing from evals.json)
- token-alert — inferred pattern: `memory/logs/*.md`

## Sources
- evals.json=ok · cron-state=ok · skill-health=ok · eval-audit=ok · prior-article=ok
""",
}

ISSUES = {
    "ISS-001": """\
---
id: ISS-001
title: "digest: word_count below minimum"
status: resolved
severity: high
category: quality-regression
detected_by: skill-evals
detected_at: 2026-08-02
resolved_at: 2026-08-09
affected_skills: [digest]
root_cause: word_count
---

`articles/digest-2026-08-01.md` had 88 words, minimum 300. Article: articles/skill-evals-2026-08-02.md
""",  # noqa: E501
    "ISS-002": """\
---
id: ISS-002
title: "polymarket: no_file_match"
status: open
severity: high
category: missing-secret-or-cron
detected_by: skill-evals
detected_at: 2026-08-02
affected_skills: [polymarket]
root_cause: no_file_match
---

No file matches `articles/polymarket-*.md`. Article: articles/skill-evals-2026-08-02.md
""",
    "ISS-004": """\
---
id: ISS-004
title: "news: tone drifts"
status: open
severity: medium
category: quality-regression
detected_by: skill-health
detected_at: 2026-08-12T09:30:00Z
affected_skills: [news]
root_cause: tone
---

Reported by skill-health.
""",
}


def write_history(
    root: Path, articles: dict[str, str] = HISTORY, issues: dict[str, str] = ISSUES
) -> Path:
    """A small instance: dated articles and issue files under `root`; returns root."""
    (root / "articles").mkdir(parents=True, exist_ok=True)
    for day, text in articles.items():
        (root / "articles" / f"skill-evals-{day}.md").write_text(text, encoding="utf-8")
    if issues:
        (root / "memory" / "issues").mkdir(parents=True, exist_ok=True)
        for issue_id, text in issues.items():
            (root / "memory" / "issues" / f"{issue_id}.md").write_text(text, encoding="utf-8")
    return root


def snapshot(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


@pytest.fixture
def instance(tmp_path: Path) -> Path:
    return write_history(tmp_path / "inst")


# --------------------------------------------------------------------------------------------
# golden pages


def test_golden_index_and_run_page(instance: Path) -> None:
    outcome = site.build_site(instance, instance / "site", now=NOW)
    assert outcome.warnings == ()
    assert outcome.written == (
        "index.html",
        "runs/skill-evals-2026-08-02.html",
        "runs/skill-evals-2026-08-09.html",
        "runs/skill-evals-2026-08-16.html",
    )
    assert_golden("site/index.html", (instance / "site" / "index.html").read_text(encoding="utf-8"))
    page = instance / "site" / "runs" / "skill-evals-2026-08-16.html"
    assert_golden("site/skill-evals-2026-08-16.html", page.read_text(encoding="utf-8"))


def test_dashboard_content(instance: Path) -> None:
    site.build_site(instance, instance / "site", now=NOW)
    html = (instance / "site" / "index.html").read_text(encoding="utf-8")
    assert '<span class="prefix">SKILL_EVALS_</span><wbr>RECOVERED</span>' in html
    assert "4/6 (66.7%)" in html and "↓13.3 pts vs prior" in html
    assert "<li>0 new fail</li>" in html and "<li>1 still failing</li>" in html
    assert "Add evals.json entry for token-alert — pattern: <code>memory/logs/*.md</code>" in html
    # grid: failing skill first, then by status; one cell per run, newest first
    order = re.findall(r'<tr data-skill="([^"]+)"', html.split('id="skills"')[0])
    assert order == ["polymarket", "digest", "heartbeat", "news"]
    # each cell's link and hover text come from the grid data (site.js; test_site_browser)
    data = grid_data(html)
    assert [iso for iso, _ in data["runs"]] == ["2026-08-16", "2026-08-09", "2026-08-02"]
    assert data["runs"][0][1] == "runs/skill-evals-2026-08-16.html"
    assert grid_cell(data, "digest", 0) == ("STALE", "WORSE", "stale_file")
    assert grid_cell(data, "news", 2) == (None, None, None)  # not evaluated in this run
    # trend charts, with each run's verdict as the marker's shape and title
    assert html.count('<figure class="chart"') == 2
    assert "<title>2026-08-09 · SKILL_EVALS_QUALITY_DROP · coverage: 80%</title>" in html
    # open issues only, most severe first, linked relative to the site folder, aged at `now`
    issues = html.split('id="issues"')[1].split("</section>")[0]
    assert re.findall(r'href="([^"]+)">(ISS-\d+)<', issues) == [
        ("../memory/issues/ISS-002.md", "ISS-002"),
        ("../memory/issues/ISS-004.md", "ISS-004"),
    ]
    assert ">15 d<" in issues and ">5 d<" in issues
    # per-skill details from the newest article and its Still Failing table
    assert "2026-08-02 (15 d)" in html
    assert "articles/news-2026-08-15.md" in html and ">1,288<" in html


def test_run_page_links_and_navigation(instance: Path) -> None:
    site.build_site(instance, instance / "site", now=NOW)
    middle = (instance / "site" / "runs" / "skill-evals-2026-08-09.html").read_text(
        encoding="utf-8"
    )
    assert 'href="skill-evals-2026-08-02.html" rel="prev"' in middle
    assert 'href="skill-evals-2026-08-16.html" rel="next"' in middle
    assert 'href="../../articles/skill-evals-2026-08-09.md"' in middle
    assert "<table>" in middle and '<td data-label="Skill">news</td>' in middle
    assert NOW.strftime("%Y-%m-%d %H:%M") not in middle  # run pages do not change with `now`


# --------------------------------------------------------------------------------------------
# escaping


HOSTILE_SCRIPT = "<script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=alert(1)>"


def test_hostile_strings_are_escaped_everywhere(tmp_path: Path) -> None:
    article = f"""\
# Skill Evals — 2026-08-16

**Verdict:** SKILL_EVALS_REGRESSED
**Coverage:** 1/2 (50%) (first run)
**Diff:** 1 new fail {HOSTILE_IMG} · 0 fixed

## Action Queue
1. Investigate evil — {HOSTILE_SCRIPT} [x](javascript:alert(1))

<div onclick="alert(1)">raw block</div>

![tracker](https://example.invalid/pixel.png)

## Full Results
| Skill | Status | Diff | Root cause | Quality | Words | Last output |
|-------|--------|------|------------|---------|-------|-------------|
| {HOSTILE_IMG} | FAIL | NEW_FAIL | {HOSTILE_SCRIPT} | "quoted' | 1 | x"><b>bold</b> |
| ok | FAIL | NEW_FAIL | {HOSTILE_IMG} | unknown | 1 | — |
"""
    issue = f"""\
---
id: ISS-007
title: '{HOSTILE_SCRIPT} and {HOSTILE_IMG}'
status: open
severity: '<b>high</b>'
category: prompt-bug
detected_by: skill-evals
detected_at: 2026-08-16
affected_skills: ['{HOSTILE_IMG}']
root_cause: '{HOSTILE_SCRIPT}'
---

body
"""
    root = write_history(tmp_path, {"2026-08-16": article}, {"ISS-007": issue})
    outcome = site.build_site(root, root / "site", now=NOW)
    assert outcome.warnings == ()
    for rel in ("index.html", "runs/skill-evals-2026-08-16.html"):
        html = (root / "site" / rel).read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<img" not in html and "<b>" not in html, rel
        assert "javascript:" not in html.replace("javascript:alert(1))", ""), rel
        assert "<div onclick" not in html, rel
        assert html.count("<script") == 1, rel  # only the page's own filter script
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, rel
        assert "&lt;img src=x onerror=alert(1)&gt;" in html, rel
        assert not re.search(r'<[a-z]+(\s+[a-z-]+="[^"]*")*\s+src=', html), rel  # images are off
    index = (root / "site" / "index.html").read_text(encoding="utf-8")
    assert 'data-skill="&lt;img src=x onerror=alert(1)&gt;"' in index
    assert "&lt;b&gt;high&lt;/b&gt;" in index  # issue severity
    assert "x&#34;&gt;&lt;b&gt;bold&lt;/b&gt;" in index  # attribute-breaking output path


def test_autoescape_matches_the_template_names() -> None:
    env = jinja_env.make_env([jinja_env.templates_dir()])
    assert callable(env.autoescape)
    for name in ("index.html", "run.html", "base.html", "macros.html", "chart.svg", "unknown.txt"):
        assert env.autoescape(name) is True, name
    for name in ("style.css", "site.js"):
        assert env.autoescape(name) is False, name
    # the site's packaged templates: escaped HTML, plus the two static assets inlined verbatim
    for name in ("base.html", "index.html", "run.html", "macros.html", "style.css", "site.js"):
        assert (jinja_env.templates_dir() / name).is_file(), name


# --------------------------------------------------------------------------------------------
# real articles


def test_builds_over_every_real_article(tmp_path: Path) -> None:
    sources = sorted((realdata() / "anajuliabit__aeon" / "articles").glob("skill-evals-*.md"))
    sources += sorted((realdata() / "aeonfun__aeon" / "articles").glob("skill-evals-*.md"))
    assert len(sources) == 14, "expected anajuliabit's 12 and aeonfun's 2 real articles"
    (tmp_path / "articles").mkdir()
    for path in sources:
        shutil.copy(path, tmp_path / "articles" / path.name)
    outcome = site.build_site(tmp_path, tmp_path / "site", now=NOW)
    assert outcome.warnings == ()
    assert len(outcome.written) == 15

    paths = sorted((tmp_path / "articles").glob("skill-evals-*.md"))  # oldest first
    parsed = [read_article(p, root=tmp_path) for p in paths]
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    grid = html.split('id="grid"')[1].split("</section>")[0]
    skills = re.findall(r'<tr data-skill="([^"]+)"', grid)
    assert sorted(skills) == sorted({s for a in parsed for s in a.rows})
    assert {"heartbeat", "token-alert", "hn-digest", "hacker-news-digest"} <= set(skills)
    runs = re.findall(
        r'<th scope="col" class="run"><a href="runs/skill-evals-([\d-]+)\.html"', grid
    )
    assert runs == sorted((a.day.isoformat() for a in parsed), reverse=True)
    data = grid_data(html)
    column = [iso for iso, _ in data["runs"]].index("2026-06-28")
    assert grid_cell(data, "heartbeat", column)[0] == "FAIL"
    # failing in the newest run first
    newest = parsed[-1]
    failing = [s for s in skills if s in newest.rows and newest.rows[s].status.failing]
    assert skills[: len(failing)] == failing
    for path in paths:
        assert (tmp_path / "site" / "runs" / path.with_suffix(".html").name).is_file()


def test_unparseable_article_is_a_warning(instance: Path) -> None:
    # dated before NOW: an article dated after it is left out for that reason (issue 16)
    (instance / "articles" / "skill-evals-2026-08-12.md").write_text(
        "# nothing here\n", encoding="utf-8"
    )
    outcome = site.build_site(instance, instance / "site", now=NOW)
    assert len(outcome.warnings) == 1 and "skill-evals-2026-08-12.md" in outcome.warnings[0]
    assert "no Full Results table" in outcome.warnings[0]
    assert not (instance / "site" / "runs" / "skill-evals-2026-08-12.html").exists()
    html = (instance / "site" / "index.html").read_text(encoding="utf-8")
    assert "Skipped while building" in html and "SKILL_EVALS_RECOVERED" in html


def test_empty_instance_still_writes_a_dashboard(tmp_path: Path) -> None:
    outcome = site.build_site(tmp_path, tmp_path / "site", now=NOW)
    assert outcome.written == ("index.html",)
    assert "No runs yet" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# cheap, deterministic rebuilds


def test_rebuild_writes_only_changed_pages(instance: Path) -> None:
    out = instance / "site"
    first = site.build_site(instance, out, now=NOW)
    assert len(first.written) == 4 and first.unchanged == ()
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.html")}

    second = site.build_site(instance, out, now=NOW)
    assert second.written == () and len(second.unchanged) == 4
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.html")} == stamps

    later = HISTORY["2026-08-16"].replace("2026-08-16", "2026-08-23")
    (instance / "articles" / "skill-evals-2026-08-23.md").write_text(later, encoding="utf-8")
    week_later = datetime(2026, 8, 24, 6, 0, tzinfo=UTC)  # an article dated after `now` is left out
    third = site.build_site(instance, out, now=week_later)
    # the dashboard, the new page and the old newest page (it gains a "next" link)
    assert third.written == (
        "index.html",
        "runs/skill-evals-2026-08-16.html",
        "runs/skill-evals-2026-08-23.html",
    )
    assert third.unchanged == (
        "runs/skill-evals-2026-08-02.html",
        "runs/skill-evals-2026-08-09.html",
    )

    (instance / "articles" / "skill-evals-2026-08-23.md").unlink()
    fourth = site.build_site(instance, out, now=week_later)
    assert fourth.removed == ("runs/skill-evals-2026-08-23.html",)
    assert fourth.written == ("index.html", "runs/skill-evals-2026-08-16.html")

    fifth = site.build_site(instance, out, now=datetime(2026, 8, 18, 6, 0, tzinfo=UTC))
    assert fifth.written == ("index.html",)  # only the dashboard shows `now`


def test_cached_and_cold_builds_are_byte_identical(instance: Path) -> None:
    warm = instance / "site"
    site.build_site(instance, warm, now=NOW)
    (instance / "articles" / "skill-evals-2026-08-09.md").write_text(
        HISTORY["2026-08-09"].replace("news-2026-08-08", "news-2026-08-07"), encoding="utf-8"
    )
    edited = site.build_site(instance, warm, now=NOW)
    assert "runs/skill-evals-2026-08-09.html" in edited.written
    folder = instance / CACHE_DIR / "articles"
    shutil.rmtree(instance / CACHE_DIR)
    cold = instance / "site-cold"
    site.build_site(instance, cold, now=NOW)
    assert snapshot(warm) == snapshot(cold)

    # a damaged cache is a miss, never a wrong page
    (folder / "index.json").write_text('{"articles": {', encoding="utf-8")
    for rows in (folder / "rows").iterdir():
        rows.write_text("[[", encoding="utf-8")
    assert site.build_site(instance, warm, now=NOW).written == ()
    shutil.rmtree(folder / "bodies")
    assert site.build_site(instance, instance / "site-third", now=NOW).written
    assert snapshot(instance / "site-third") == snapshot(cold)


def test_template_override_dir_comes_first(instance: Path, tmp_path: Path) -> None:
    override = instance / ".aeon-evals" / "templates"
    override.mkdir(parents=True)
    (override / "run.html").write_text("custom {{ page.run.iso }}\n", encoding="utf-8")
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "run.html").write_text("extra\n", encoding="utf-8")
    (extra / "style.css").write_text("body { color: red; }\n", encoding="utf-8")
    site.build_site(instance, instance / "site", now=NOW, template_dirs=[extra])
    assert (
        instance / "site" / "runs" / "skill-evals-2026-08-09.html"
    ).read_text() == "custom 2026-08-09\n"
    assert "body { color: red; }" in (instance / "site" / "index.html").read_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{% if %}\n", "run.html: line 1: "),
        ("{{ page.no_such_field }}\n", "run.html: cannot render: "),
        # regression: skill.html, compiled before the skill pages' fork, was a traceback
        ("{% if %}\n", "skill.html: line 1: "),
    ],
)
def test_broken_override_is_one_line_config_error(instance: Path, text: str, message: str) -> None:
    override = instance / ".aeon-evals" / "templates"
    override.mkdir(parents=True)
    (override / message.split(":")[0]).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        site.build_site(instance, instance / "site", now=NOW)
    assert message in caught.value.line() and "\n" not in caught.value.line()


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "run.html",
            "line one\n{{ page.no_such_field }}\n",
            ".aeon-evals/templates/run.html: cannot render: 'aeon_evals.site.views.RunPage "
            "object' has no attribute 'no_such_field' (line 2)",
        ),
        # an override of a template the page extends: the override that broke is named
        (
            "base.html",
            "{% block content %}{% endblock %}\n{{ page.nope.deeper }}\n",
            ".aeon-evals/templates/base.html: cannot render: ",
        ),
        (
            "skill.html",
            "{{ page.skill }}\n{{ page.nope }}\n",
            ".aeon-evals/templates/skill.html: cannot render the page of skill ",
        ),
    ],
)
def test_render_error_in_a_template_override_names_the_override_and_the_skill(
    instance: Path, name: str, text: str, message: str
) -> None:
    """Regression: a render error in an override named `run.html`, not the override's path
    (nor, for a skill page, the skill)."""
    override = instance / ".aeon-evals" / "templates"
    override.mkdir(parents=True)
    (override / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        site.build_site(instance, instance / "site", now=NOW)
    line = caught.value.line()
    assert line.startswith(message) and "\n" not in line
    if name == "skill.html":  # which skill: one of the articles' skills
        skill = line.removeprefix(message).split(":")[0]
        assert skill in _article_skills(instance)


def _article_skills(instance: Path) -> set[str]:
    from aeon_evals.articles.parse import read_article

    return {
        skill
        for path in (instance / "articles").glob("skill-evals-*.md")
        for skill in read_article(path, root=instance).rows
    }


# --------------------------------------------------------------------------------------------
# pure pieces


@pytest.mark.parametrize(
    ("days", "expected"),
    [
        ([], []),
        (["2026-08-16"], ["2026-08-16"]),
        (["2026-08-09", "2026-08-16"], ["2026-08-09", "2026-08-16"]),
        (["2026-01-04", "2026-08-09", "2026-08-16"], ["2026-01-04", "2026-08-16"]),  # newest wins
        (
            [f"2026-{m:02d}-01" for m in range(1, 13)],
            ["2026-01-01", "2026-05-01", "2026-08-01", "2026-12-01"],
        ),
    ],
)
def test_x_ticks_never_crowd(days: list[str], expected: list[str]) -> None:
    runs = [_run(d).day for d in days]
    ticks = charts.x_ticks(runs, charts.x_positions(runs))
    assert [t.label for t in ticks] == expected


def _run(
    day: str, verdict: str | None = "SKILL_EVALS_OK", pct: float | None = 50.0
) -> views.RunView:
    parsed = _parsed(day, verdict, pct)
    return views.run_view(parsed, None)


def _parsed(day: str, verdict: str | None, pct: float | None) -> ParsedArticle:
    return ParsedArticle(
        path=f"articles/skill-evals-{day}.md",
        day=date.fromisoformat(day),
        verdict=verdict,
        coverage=None,
        coverage_pct=pct,
        rows={"a": ArticleRow("a", Status.FAIL), "b": ArticleRow("b", Status.PASS)},
    )


def test_chart_breaks_the_line_where_coverage_is_unknown() -> None:
    runs = [
        _run("2026-08-02"),
        _run("2026-08-09", verdict=None, pct=None),
        _run("2026-08-16", "SKILL_EVALS_REGRESSED"),
    ]
    coverage, failing = views.charts_for(runs)
    assert coverage.line.count("M") == 2 and "L" not in coverage.line
    assert [p.css for p in coverage.points] == ["ok", "regressed"]
    assert [p.css for p in failing.points] == ["ok", "unknown", "regressed"]
    assert [t.label for t in failing.y_ticks] == ["0", "1", "2", "3", "4", "5"]


def test_every_status_and_verdict_has_a_glyph_and_label() -> None:
    assert set(views.STATUS_MARKS) == set(Status)
    glyphs = [m.glyph for m in views.STATUS_MARKS.values()]
    assert len(set(glyphs)) == len(glyphs)
    shapes = {m.shape for m in views.VERDICT_MARKS.values()}
    assert len(shapes) >= 6
    assert views.verdict_mark("garbage") is views.UNKNOWN_VERDICT


# --------------------------------------------------------------------------------------------
# CLI glue


def _registered(instance: Path) -> Path:
    """The history instance with its skill registry: `site` refuses a folder without one."""
    (instance / "aeon.yml").write_text("skills:\n", encoding="utf-8")
    return instance


def test_run_prints_one_line(instance: Path, cli: Cli) -> None:
    _registered(instance)
    code, out, _err = cli("site", "--root", str(instance), "--now", "2026-08-17T06:00:00Z")
    assert code == 0
    # 4 pages; 4 skill pages, 4 × 2 badge files and the fleet's 2, from the articles' history
    pages = "4 pages (0 unchanged), 14 skill pages and badges (0 unchanged)"
    assert out == f"site: wrote {pages} to {instance / 'site'}\n"
    elsewhere = instance / "elsewhere"
    code, out, _err = cli(
        "site", "--root", str(instance), "--out", str(elsewhere), "--now", "2026-08-17"
    )
    assert code == 0
    assert out == f"site: wrote {pages} to {elsewhere}\n"
    index = (elsewhere / "index.html").read_text(encoding="utf-8")
    assert "generated 2026-08-17 00:00 UTC" in index
    assert 'href="../memory/issues/ISS-002.md"' in index


def test_bad_now_is_a_usage_error(instance: Path, cli: Cli) -> None:
    code, out, err = cli("site", "--root", str(instance), "--now", "next tuesday")
    assert (code, out) == (ExitCode.ERROR, "")
    assert err.startswith("aeon-evals: --now 'next tuesday'")
    assert not (instance / "site").exists()


def test_site_now_with_an_offset_is_the_utc_day_as_in_run(instance: Path, cli: Cli) -> None:
    """Issue 15: `site --now 2026-08-16T23:30:00-05:00` took the day as 08-16 where `run` takes
    08-17: every command reads --now with clock.parse_now, in UTC."""
    _registered(instance)
    code, _out, err = cli("site", "--root", str(instance), "--now", "2026-08-16T23:30:00-05:00")
    assert code == 0, err
    index = (instance / "site" / "index.html").read_text(encoding="utf-8")
    assert "generated 2026-08-17 04:30 UTC" in index
    today, now = clock.resolve(None, "2026-08-16T23:30:00-05:00")  # what `run` takes
    assert (today, now.hour) == (date(2026, 8, 17), 4)


def grid_data(html: str) -> Any:
    """The dashboard's grid data block (site.js makes the cells' links and titles from it), with
    `_status`: each grid row's cell statuses, read from the cells' classes in the HTML."""
    block = html.split('<div id="grid-data" hidden data-grid="')[1].split('"></div>')[0]
    data = json.loads(unescape(block))
    grid = html.split('id="grid"')[1].split("</section>")[0]
    data["_status"] = {
        skill: [data["labels"].get(css) for css in re.findall(r'<a class="cell s-([a-z-]+)">', row)]
        for skill, row in re.findall(r'<tr data-skill="([^"]+)"[^>]*>(.*?)</tr>', grid, re.S)
    }
    return data


def grid_cell(data: Any, skill: str, column: int) -> tuple[str | None, str | None, str | None]:
    """(status, diff label, root cause) of one grid cell, None for what it does not have."""
    row = data["tables"]["grid"][skill]
    diff = row[0][column]
    causes = dict(row[1]) if len(row) > 1 else {}
    return (
        data["_status"][skill][column],
        data["strings"][diff] if diff >= 0 else None,
        data["strings"][causes[column]] if column in causes else None,
    )
