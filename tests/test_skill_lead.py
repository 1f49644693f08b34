"""What the operator reads first (issue 34): each skill page leads with the newest run's finding
in expected-vs-actual words, since when, the issue; the charts draw the bounds the checks hold
the metrics to and end at the newest run; every surface shows the article's own label."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from conftest import Instance
from test_metrics import _week
from test_skill_pages import ten_weeks

from aeon_evals import site
from aeon_evals.metrics.history import History, Sample, render_tsv
from aeon_evals.model import DiffLabel, NumericCheck, Spec, Status, drift
from aeon_evals.report.render import cause_cell
from aeon_evals.site.findings import code_spans, split_cause
from aeon_evals.site.skill_charts import Limits, charts_for, metric_chart, spec_limits

Cli = Callable[..., tuple[int, str, str]]
DAY = date(2026, 12, 3)


def _text(page: str, section: str) -> str:
    """The visible text of one `<section id=...>` of a page, tags dropped, spaces collapsed."""
    found = re.search(rf'<section class="[^"]*" id="{section}">(.*?)</section>', page, re.S)
    assert found, section
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


# --------------------------------------------------------------------------------------------
# findings: the article's cells as the dashboard reads them


@pytest.mark.parametrize(
    ("cell", "codes", "detail"),
    [
        ("word_count — 107 words, minimum 200", "word_count", "107 words, minimum 200"),
        ("stale_file; missing_section", "stale_file; missing_section", ""),
        (
            "no_file_match (spec mismatch: key should be x)",
            "no_file_match (spec mismatch: key should be x)",
            "",
        ),
        ("—", "—", ""),
        ("", "—", ""),
        ("a — b — c", "a", "b — c"),
    ],
)
def test_a_cause_cell_splits_into_codes_and_detail(cell: str, codes: str, detail: str) -> None:
    assert split_cause(cell) == (codes, detail)


def test_the_split_reads_what_the_article_writes() -> None:
    """The separator is the article writer's own (report.render.cause_cell)."""
    from aeon_evals.model import Cause, SkillResult
    from aeon_evals.report.diff import Row

    result = SkillResult(
        "cost-report",
        Status.FAIL,
        causes=(Cause(Status.FAIL, "word_count", "107 words, minimum 200"),),
    )
    row = Row(result=result, label=DiffLabel.NEW_FAIL, previous=None)
    assert split_cause(cause_cell(row)) == ("word_count", "107 words, minimum 200")


def test_code_spans_are_shown_as_code_and_the_rest_escaped_once() -> None:
    shown = code_spans("forbidden pattern `\\$\\{var\\}` found: '<b>${var}</b>' *x* `a&b`")
    assert str(shown) == (
        "forbidden pattern <code>\\$\\{var\\}</code> found: &#39;&lt;b&gt;${var}&lt;/b&gt;&#39; "
        "*x* <code>a&amp;b</code>"
    )


# --------------------------------------------------------------------------------------------
# the skill page's lead, from real runs


def test_a_failing_skill_page_leads_with_expected_vs_actual(instance: Instance, cli: Cli) -> None:
    """Regression (issue 34.1): the page showed `word_count` and no figure; the detail was only
    on the run page. Now it leads with it, then since when, then the issue, then the history."""
    ten_weeks(instance, cli)
    _week(instance, cli, 10, 20)  # under min_words 100: FAIL
    page = (instance.root / "site/skills/cost-report.html").read_text()
    lead = _text(page, "finding")
    assert "FAIL NEW_FAIL 20 words, minimum 100" in lead
    assert "word_count" in lead
    assert "Failing since 2026-05-11 (0 d)" in lead
    assert "Last run not failing 2026-05-04 (WARN)" in lead  # judged, not failing (a drift)
    issue = re.search(r"Issue (ISS-\d+) cost-report: word_count", lead)
    assert issue, lead
    # the lead comes first, then the history
    order = [page.index(f'id="{s}"') for s in ("finding", "strip", "metrics", "outputs", "issues")]
    assert order == sorted(order)
    # the index says the same, in the same words
    index = (instance.root / "site/index.html").read_text()
    row = re.search(r'<tr data-skill="cost-report">(.*?)</tr>', index.split('id="skills"')[1], re.S)
    assert row and "20 words, minimum 100" in row.group(1) and "NEW_FAIL" in row.group(1)
    assert issue.group(1) in row.group(1)


def test_a_passing_skill_page_says_every_check_passed(built_weeks: Path) -> None:
    lead = _text((built_weeks / "skills/steady.html").read_text(), "finding")
    assert lead.startswith("Latest run, 2026-05-04 ✓ PASS STABLE every check passed")
    assert "Failing since" not in lead and "Issue" not in lead


@pytest.fixture
def built_weeks(instance: Instance, cli: Cli) -> Path:
    return ten_weeks(instance, cli)


def test_a_skill_only_in_the_metrics_history_leads_with_its_newest_run(tmp_path: Path) -> None:
    """No article names the skill (a metrics file only): the lead comes from the history, with
    since when its failing streak began."""
    samples = {
        DAY: Status.PASS,
        DAY + timedelta(days=7): Status.FAIL,
        DAY + timedelta(days=14): Status.NO_OUTPUT,
    }
    (tmp_path / "articles").mkdir()
    for day, status in samples.items():
        cause = "" if status is Status.PASS else "no_file_match"
        (tmp_path / f"articles/skill-evals-metrics-{day}.tsv").write_text(
            render_tsv([("solo", Sample(day, status, cause=cause))])
        )
    site.build_site(tmp_path, tmp_path / "site", now=datetime(2026, 12, 20, tzinfo=UTC))
    lead = _text((tmp_path / "site/skills/solo.html").read_text(), "finding")
    assert "NO_OUTPUT no_file_match" in lead
    assert "Failing since 2026-12-10 (10 d)" in lead
    assert "Last run not failing 2026-12-03 (PASS)" in lead
    assert "the metrics of 2026-12-17 (not in the newest article)" in lead


# --------------------------------------------------------------------------------------------
# charts: the bounds they are checked against, ending at the newest run


def _history(rows: list[tuple[int, int, str]]) -> History:
    """One skill's weekly runs: (week, words, output)."""
    return History(
        {
            "digest": [
                Sample(
                    DAY + timedelta(days=7 * n), Status.PASS, words=words, output=out, sha256=None
                )
                for n, words, out in rows
            ]
        }
    )


def test_the_chart_ends_at_the_newest_run_when_it_evaluates_the_same_output_again() -> None:
    """Regression (issue 34.1): weekly-digest's page read "latest 168 on 2026-11-19" while the
    article and the metrics file said 172 on 12-03: the chart kept each output once, at its
    first run, so a re-evaluation of the same file (an old article's estimate, then this tool's
    count) never reached it."""
    same = "articles/weekly-digest-2026-11-24.md"
    history = _history([(0, 168, same), (1, 168, same), (2, 172, same)])
    (words,) = charts_for("digest", history)
    assert words.summary == "Words: 2 runs, latest 172 on 2026-12-17"
    assert words.x_ticks[-1].label == "2026-12-17"
    # the drift series is still each output once: no step is read into the re-estimate
    assert history.series("digest", "words") == [(DAY, 168)]


def test_a_chart_draws_the_floor_it_is_checked_against() -> None:
    history = _history([(0, 300, "a.md"), (1, 107, "b.md")])
    spec = Spec("digest", "articles/*.md", min_words=200)
    (words,) = charts_for("digest", history, limits=spec_limits(spec))
    (limit,) = words.limits
    assert limit.label == "minimum 200" and limit.css == "low" and limit.y is not None
    assert "checked against minimum 200" in words.summary
    # the floor sits where 200 sits on the axis
    top = float(words.y_ticks[-1].label.replace(",", ""))
    bottom, height = 178, 164
    assert float(limit.y) == pytest.approx(bottom - height * 200 / top, abs=0.1)


@pytest.mark.parametrize(
    ("low", "high", "values", "drawn"),
    [
        (0.0, 100_000.0, [41.2, 39.0], ["minimum 0", None]),  # a far ceiling: named, off the chart
        (10.0, 60.0, [41.2, 39.0], ["minimum 10", "maximum 60"]),
        (None, 30.0, [41.2, 39.0], ["maximum 30"]),  # values above the ceiling: it is on the chart
        (500.0, None, [41.2, 39.0], ["minimum 500"]),  # a floor far above: the axis reaches it
    ],
)
def test_a_numeric_check_draws_its_min_and_max(
    low: float | None, high: float | None, values: list[float], drawn: list[str | None]
) -> None:
    series = [(DAY + timedelta(days=7 * i), v) for i, v in enumerate(values)]
    chart = metric_chart(
        "price",
        "price",
        series,
        set(),
        drift.Direction.EITHER,
        limits=Limits(low, high),
    )
    shown = [limit.label if limit.y is not None else None for limit in chart.limits]
    assert shown == drawn
    off = [limit.label for limit in chart.limits if limit.y is None]
    assert off == (["maximum 100,000 (above the chart)"] if high == 100_000.0 else [])
    spec = Spec("x", "a.md", numeric_checks=(NumericCheck("price", "x", low, high),))
    assert spec_limits(spec).get("price") == (Limits(low, high))


def test_y_labels_fit_five_characters() -> None:
    """Regression (issue 34.1): "50,000" was clipped at the chart's left edge."""
    series = [(DAY, 41_000.0), (DAY + timedelta(days=7), 47_000.0)]
    chart = metric_chart(
        "words",
        "Words",
        series,
        set(),
        drift.Direction.HIGHER_BETTER,
    )
    labels = [tick.label for tick in chart.y_ticks]
    assert labels == ["0", "12.5k", "25k", "37.5k", "50k"]
    assert all(len(label) <= 5 for label in labels)


# --------------------------------------------------------------------------------------------
# one label and status per skill, the same on every surface


def _labelled_article(day: date) -> tuple[str, dict[str, tuple[Status, str]]]:
    """An article of this tool's layout whose rows carry every diff label the model knows and
    every status, three of them in its Inferred contracts table too; returns it with
    {skill: (status, label)}."""
    labels, statuses = list(DiffLabel), list(Status)
    rows = {
        f"skill-{i:02d}": (statuses[i % len(statuses)], labels[i % len(labels)].value)
        for i in range(max(len(labels), len(statuses)))
    }
    inferred = {f"inferred-{s}": row for s, row in list(rows.items())[:3]}

    def lines(table: dict[str, tuple[Status, str]]) -> list[str]:
        return [
            f"| {s} | {st.value} | {label} | {'—' if st is Status.PASS else 'x'} | unknown "
            "| — | — | — |"
            for s, (st, label) in table.items()
        ]

    head = [
        "| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |",
        "|-------|--------|------|------------|---------|-------|-------------|-------|",
    ]
    text = "\n".join(
        [
            f"# Skill Evals — {day}",
            "",
            "**Verdict:** SKILL_EVALS_REGRESSED",
            "**Coverage:** 1/2 (50%)",
            "**Diff:** 1 new fail",
            "",
            "## Full Results",
            *head,
            *lines(rows),
            "",
            "## Inferred contracts (from SKILL.md; report only: no issues, no verdict)",
            "",
            *head,
            *lines(inferred),
            "",
        ]
    )
    return text, {**rows, **inferred}


def test_every_surface_shows_the_articles_own_label_and_status(tmp_path: Path) -> None:
    """Issue 34.5: the index (skills table and grid) and each skill page show the diff label and
    status the article's row carries, for every label the model knows (a label added to
    DiffLabel is covered as it lands), never one the site decides itself."""
    text, rows = _labelled_article(DAY)
    (tmp_path / "articles").mkdir()
    (tmp_path / f"articles/skill-evals-{DAY}.md").write_text(text)
    site.build_site(tmp_path, tmp_path / "site", now=datetime(2026, 12, 4, tzinfo=UTC))
    index = (tmp_path / "site/index.html").read_text()
    listed = index.split('id="skills"')[1]
    grid = json.loads(html.unescape(re.search(r'data-grid="([^"]*)"', index).group(1)))
    for skill, (status, label) in rows.items():
        page = (tmp_path / f"site/skills/{skill}.html").read_text()
        lead = _text(page, "finding")
        assert lead.startswith(f"Latest run, {DAY} "), lead
        assert f" {status.value} {label} " in f" {lead} ", (skill, lead)
        table = "inferred" if skill.startswith("inferred-") else "grid"
        newest = grid["tables"][table][skill][0][0]
        assert grid["strings"][newest] == label, skill
        if table == "grid":
            row = re.search(rf'<tr data-skill="{skill}">(.*?)</tr>', listed, re.S)
            assert row, skill
            cells = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", row.group(1))).split())
            assert cells.startswith(f"{skill} ") and f" {status.value} {label} " in f"{cells} "
