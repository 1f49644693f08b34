"""What the dashboard's pages show: view dataclasses and the pure functions that build them.

Parsed articles and issue files in, frozen dataclasses out; no I/O. Templates receive one of
`DashboardPage` or `RunPage` as `page`: adding something to a page means adding a field here and
using it in a template (docs/dashboard.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from markupsafe import Markup

from aeon_evals.articles.cache import counts_of
from aeon_evals.articles.parse import BODY_MD
from aeon_evals.issues import IssueFile
from aeon_evals.model import ArticleRow, ParsedArticle, Status, flags_count
from aeon_evals.site.charts import Chart, Point, fmt_pct, trend_chart
from aeon_evals.site.findings import code_spans, finding
from aeon_evals.site.grid import Cell, cells_html, grid_data

if TYPE_CHECKING:
    from aeon_evals.catalog.summary import CatalogSummary

GRID_RUNS = 52  # a year of weekly runs in the skills × runs grid; the charts and run list show all
# A large fleet gets fewer grid columns (never under GRID_MIN_RUNS) so the page stays light.
GRID_CELLS = 12_000
GRID_MIN_RUNS = 8
# An issue naming more skills than this lists them folded ("53 skills ▸", <details>).
FOLD_SKILLS = 6
NO_DETAIL = Markup("")


# A skill's name becomes a file name: plain names only (as evals.json requires them).
PAGE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def page_name(skill: str) -> str | None:
    """The skill's page, `skills/<skill>.html` (relative to the site root), or None for a name
    that cannot safely be a file name."""
    if not PAGE_NAME.match(skill) or skill in (".", ".."):
        return None
    return f"skills/{skill}.html"


def grid_window(skills: int) -> int:
    """How many of the newest runs the grid shows for a fleet of `skills`."""
    return max(GRID_MIN_RUNS, min(GRID_RUNS, GRID_CELLS // max(1, skills)))


# --------------------------------------------------------------------------------------------
# Presentation tables: every status and verdict gets a colour (css class) AND a glyph/shape.


@dataclass(frozen=True)
class Mark:
    """How one status or verdict is drawn: css class suffix, glyph, short label, chart shape."""

    css: str
    glyph: str
    label: str
    shape: str = "circle"


STATUS_MARKS: dict[Status, Mark] = {
    Status.NO_OUTPUT: Mark("no-output", "∅", "NO_OUTPUT"),
    Status.FAIL: Mark("fail", "✗", "FAIL"),
    Status.STALE: Mark("stale", "◷", "STALE"),
    Status.QUALITY_DEGRADED: Mark("quality", "▼", "QUALITY_DEGRADED"),
    Status.WARN: Mark("warn", "▲", "WARN"),
    Status.ERROR: Mark("error", "?", "ERROR"),
    Status.NOT_RUN: Mark("not-run", "–", "NOT_RUN"),
    Status.PASS: Mark("pass", "✓", "PASS"),
}
ABSENT_MARK = Mark("absent", "·", "not evaluated")

VERDICT_MARKS: dict[str, Mark] = {
    "SKILL_EVALS_REGRESSED": Mark("regressed", "▼", "REGRESSED", "tri-down"),
    "SKILL_EVALS_QUALITY_DROP": Mark("quality-drop", "◆", "QUALITY_DROP", "diamond"),
    "SKILL_EVALS_RECOVERED": Mark("recovered", "▲", "RECOVERED", "tri-up"),
    "SKILL_EVALS_COVERAGE_CLIFF": Mark("cliff", "■", "COVERAGE_CLIFF", "square"),
    "SKILL_EVALS_OK": Mark("ok", "●", "OK", "circle"),
    "SKILL_EVALS_ERROR": Mark("error", "✗", "ERROR", "cross"),
    "SKILL_EVALS_BOOTSTRAP": Mark("bootstrap", "○", "BOOTSTRAP", "ring"),
}
UNKNOWN_VERDICT = Mark("unknown", "?", "unknown", "ring")

_SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def verdict_mark(verdict: str | None) -> Mark:
    """The mark for a verdict as written in an article (None or an unknown word → "unknown")."""
    return VERDICT_MARKS.get(verdict or "", UNKNOWN_VERDICT)


# --------------------------------------------------------------------------------------------
# The template context, declared in one place.


@dataclass(frozen=True)
class Assets:
    """Inline CSS/JS shared by every page, and the Content-Security-Policy that allows only them."""

    style: Markup
    script: Markup
    csp: str


@dataclass(frozen=True)
class RunView:
    """One parsed article, as the dashboard and its run page show it."""

    day: date
    iso: str
    name: str  # "skill-evals-2026-08-16"
    href: str  # relative to the site root: "runs/skill-evals-2026-08-16.html"
    verdict: str  # as written, or "unknown"
    mark: Mark
    coverage: str  # "12/43 (28%)" or "—"
    coverage_pct: float | None
    coverage_delta: (
        str  # "↑4 pts vs prior", "unchanged vs prior", "not compared: …", "" without a prior
    )
    failing: int  # enabled, unmuted skills failing (as the article's run counted them)
    skills: int  # every row of the article
    diff_chips: tuple[str, ...]  # the article's Diff line, one chip per "·" part
    apart: int = 0  # disabled, unregistered or muted rows: not counted in `failing`

    @property
    def counted(self) -> int:
        """Rows of enabled, unmuted skills: what `failing` is out of."""
        return self.skills - self.apart


@dataclass(frozen=True)
class SkillView:
    """One grid row plus the skill's finding in the newest article (findings.Finding)."""

    skill: str
    failing: bool  # failing in the newest run
    in_latest: bool
    cells: tuple[Cell, ...]
    mark: Mark  # latest status (ABSENT_MARK when not in the newest run)
    diff: str
    root_cause: str  # the cause codes ("word_count"), "—" when clean
    quality: str
    words: str
    last_output: str
    failing_since: str  # "2026-05-31 (77 d)" or "—"
    issue: str
    notes: str = "—"  # the article's Notes cell: disabled, muted, flaky, which log was used …
    flaky: bool = False
    page: str = ""  # skills/<skill>.html, "" when the name cannot be a file name
    detail: Markup = NO_DETAIL  # expected vs actual ("107 words, minimum 200"), code spans shown

    @property
    def cells_html(self) -> Markup:
        """The row's grid cells: status glyph and colour only (readable without JavaScript)."""
        return cells_html(self.cells)


@dataclass(frozen=True)
class IssueView:
    """One open issue from memory/issues."""

    id: str
    title: str
    severity: str
    severity_css: str
    status: str
    detected: str
    age: str  # "12 d", or "?" when detected_at is unreadable
    skills: tuple[str, ...]  # the skills it names, in its order
    root_cause: str
    href: str  # relative from the site root to the issue file

    @property
    def folded(self) -> bool:
        """Whether its skills are too many to list open: shown as "53 skills ▸"."""
        return len(self.skills) > FOLD_SKILLS


@dataclass(frozen=True)
class DashboardPage:
    """Everything index.html shows."""

    assets: Assets
    generated: str
    latest: RunView | None
    actions: tuple[Markup, ...]  # the newest Action Queue, inline markdown with raw HTML disabled
    runs: tuple[RunView, ...]  # newest first, all of them
    grid_runs: tuple[RunView, ...]  # newest first, at most GRID_RUNS
    grid_hidden: int  # runs older than the grid window
    skills: tuple[SkillView, ...]
    inferred: tuple[SkillView, ...]  # skills on SKILL.md contracts in report mode, shown apart
    failing_now: int
    charts: tuple[Chart, ...]
    issues: tuple[IssueView, ...]
    issues_dir: str  # relative link to memory/issues/
    warnings: tuple[str, ...]
    catalog: CatalogSummary | None = (
        None  # the catalog checks (lint): colliding pairs, failing cases
    )
    status_legend: tuple[Mark, ...] = (*STATUS_MARKS.values(), ABSENT_MARK)
    verdict_legend: tuple[Mark, ...] = tuple(VERDICT_MARKS.values())

    @property
    def grid_data(self) -> str:
        """The grids' links and hover texts, one JSON block (see `grid.grid_data`)."""
        labels = {mark.css: mark.label for mark in STATUS_MARKS.values()}
        tables = (("grid", self.skills), ("inferred", self.inferred))
        return grid_data(self.grid_runs, tables, labels)


@dataclass(frozen=True)
class RunPage:
    """Everything runs/skill-evals-DATE.html shows."""

    assets: Assets
    run: RunView
    body: Markup
    newer: RunView | None
    older: RunView | None
    source_href: str  # relative from runs/ to the article's markdown


# --------------------------------------------------------------------------------------------
# Pure stage: parsed articles + issues → page contexts.


def _coverage_text(article: ParsedArticle) -> str:
    pct = article.coverage_pct
    if pct is None and article.coverage is not None:
        pct = article.coverage.pct
    if article.coverage is not None and pct is not None:
        return f"{article.coverage.covered}/{article.coverage.enabled} ({fmt_pct(pct)}%)"
    return f"{fmt_pct(pct)}%" if pct is not None else "—"


def _coverage_pct(article: ParsedArticle) -> float | None:
    if article.coverage_pct is not None:
        return article.coverage_pct
    return article.coverage.pct if article.coverage is not None else None


NOT_COMPARED = "not compared: the prior run counted coverage another way"


def run_view(
    article: ParsedArticle,
    prior: ParsedArticle | None,
    counts: tuple[int, int, int] | None = None,
) -> RunView:
    """The summary of one article; `prior` (the previous run) gives the coverage change, only
    when both were written by aeon-evals (as the run compares: the old LLM articles counted
    coverage another way). `counts` (failing, skills, apart; see cache.counts_of) stand in for
    the rows when only the article's summary was loaded."""
    name = f"skill-evals-{article.day.isoformat()}"
    pct = _coverage_pct(article)
    prior_pct = _coverage_pct(prior) if prior is not None else None
    delta = ""
    if prior is not None and not (article.own and prior.own):
        delta = NOT_COMPARED
    elif pct is not None and prior_pct is not None:
        change = pct - prior_pct
        if abs(change) < 0.05:
            delta = "unchanged vs prior"
        else:
            delta = f"{'↑' if change > 0 else '↓'}{fmt_pct(abs(change))} pts vs prior"
    chips = tuple(part.strip() for part in article.diff_summary.split("·") if part.strip())
    tally = counts if counts is not None else counts_of(article)
    return RunView(
        day=article.day,
        iso=article.day.isoformat(),
        name=name,
        href=f"runs/{name}.html",
        verdict=article.verdict or "unknown",
        mark=verdict_mark(article.verdict),
        coverage=_coverage_text(article),
        coverage_pct=pct,
        coverage_delta=delta,
        failing=tally[0],
        skills=tally[1],
        diff_chips=chips,
        apart=tally[2],
    )


_ABSENT_CELL = Cell(ABSENT_MARK)


def _cell(row: ArticleRow | None) -> Cell:
    if row is None:
        return _ABSENT_CELL
    cause = row.root_cause if row.root_cause and row.root_cause != "—" else ""
    return Cell(STATUS_MARKS[row.status], row.diff or "", cause)


def _skill_order(
    skill: str, latest: ParsedArticle | None, inferred: bool = False
) -> tuple[int, int, str]:
    rows = (latest.inferred_rows if inferred else latest.rows) if latest is not None else {}
    row = rows.get(skill)
    if row is None:
        return (2, 0, skill)
    return (0 if row.status.failing else 1, row.status.rank, skill)


def skill_views(
    articles: Sequence[ParsedArticle],
    runs: Sequence[RunView],
    *,
    today: date,
    inferred: bool = False,
) -> tuple[SkillView, ...]:
    """Grid rows (newest run first) for every skill seen in `articles`, failing-now first. With
    `inferred`, the rows of the articles' Inferred contracts tables (report mode) instead."""

    def rows_of(article: ParsedArticle) -> dict[str, ArticleRow]:
        return article.inferred_rows if inferred else article.rows

    latest = articles[-1] if articles else None
    names = {skill for article in articles for skill in rows_of(article)}
    views: list[SkillView] = []
    for skill in sorted(names, key=lambda s: _skill_order(s, latest, inferred)):
        cells = tuple(
            _cell(rows_of(article).get(skill))
            for article, run in zip(reversed(articles), reversed(runs), strict=True)
        )
        row = rows_of(latest).get(skill) if latest is not None else None
        found = (
            finding(latest, skill, row, inferred=inferred)
            if latest is not None and row is not None
            else None
        )
        views.append(
            SkillView(
                skill=skill,
                failing=row is not None and row.status.failing,
                in_latest=row is not None,
                cells=cells,
                mark=STATUS_MARKS[row.status] if row is not None else ABSENT_MARK,
                diff=row.diff if row is not None and row.diff else "—",
                root_cause=found.codes if found is not None else "—",
                quality=row.quality if row is not None else "—",
                words=f"{row.words:,}" if row is not None and row.words is not None else "—",
                last_output=(row.last_output or "—") if row is not None else "—",
                failing_since=found.since_text(today) if found is not None else "—",
                issue=(found.issue if found is not None else None) or "—",
                notes="; ".join(row.flags) if row is not None and row.flags else "—",
                flaky=row is not None and "flaky" in row.flags,
                page=page_name(skill) or "",
                detail=code_spans(found.detail) if found is not None else NO_DETAIL,
            )
        )
    return tuple(views)


def _points(runs: Sequence[RunView], values: Sequence[float | None]) -> list[Point]:
    return [
        Point(run.day, value, run.mark.shape, run.mark.css, run.verdict, run.href)
        for run, value in zip(runs, values, strict=True)
    ]


def charts_for(runs: Sequence[RunView]) -> tuple[Chart, ...]:
    """Coverage % and failing-skill count per run (runs oldest first), each run's marker shaped
    and coloured by its verdict."""
    coverage = trend_chart(
        _points(runs, [r.coverage_pct for r in runs]),
        key="coverage",
        title="Coverage",
        y_max=100,
        y_step=25,
        unit="%",
    )
    most = max((r.failing for r in runs), default=0)
    y_max = max(5, math.ceil(most / 5) * 5)
    failing = trend_chart(
        _points(runs, [float(r.failing) for r in runs]),
        key="failing",
        title="Failing skills",
        y_max=y_max,
        y_step=y_max / 5,
        unit="",
    )
    return (coverage, failing)


def issue_views(
    issues: Sequence[IssueFile], *, today: date, root_href: str
) -> tuple[IssueView, ...]:
    """Open issues, most severe first, with their age in days at `today`.

    `root_href` is the instance root relative to the site folder (usually ".."): issue paths are
    relative to the root, so the links work from file:// and in a repository browser alike.
    """
    views: list[tuple[tuple[int, int, str], IssueView]] = []
    for issue in issues:
        if not issue.is_open:
            continue
        try:
            detected: date | None = date.fromisoformat(issue.detected_at.strip()[:10])
        except ValueError:
            detected = None
        severity = issue.severity.strip().lower() or "unknown"
        rank = _SEVERITY_RANK.get(severity, len(_SEVERITY_RANK))
        digits = "".join(ch for ch in issue.id if ch.isdigit())
        view = IssueView(
            id=issue.id,
            title=issue.title,
            severity=severity,
            severity_css={0: "high", 1: "high", 2: "medium", 3: "low"}.get(rank, "other"),
            status=issue.status,
            detected=detected.isoformat() if detected else issue.detected_at or "?",
            age=f"{(today - detected).days} d" if detected else "?",
            skills=tuple(dict.fromkeys(issue.affected_skills)),
            root_cause=issue.root_cause or "—",
            href=f"{root_href}/{issue.path}",
        )
        views.append(((rank, int(digits) if digits else 0, issue.id), view))
    return tuple(view for _, view in sorted(views, key=lambda pair: pair[0]))


def generated_at(now: datetime) -> str:
    """When the dashboard was built, as its pages say it ("2026-08-16 06:00 UTC")."""
    zone = f" {now.tzname()}" if now.tzinfo is not None and now.tzname() else ""
    return f"{now.strftime('%Y-%m-%d %H:%M')}{zone}"


def counted_statuses(article: ParsedArticle) -> dict[str, Status | None]:
    """The status of each of `article`'s rows that count toward its verdict (report.counted):
    not disabled, unregistered or muted; inferred contracts in report mode are apart already
    (ParsedArticle.inferred_rows)."""
    return {skill: row.status for skill, row in article.rows.items() if flags_count(row.flags)}


def dashboard_page(
    articles: Sequence[ParsedArticle],
    issues: Sequence[IssueFile],
    *,
    now: datetime,
    assets: Assets,
    root_href: str,
    warnings: Sequence[str] = (),
    counts: Sequence[tuple[int, int, int] | None] | None = None,
    catalog: CatalogSummary | None = None,
) -> DashboardPage:
    """The dashboard context from parsed articles (oldest first) and issue files.

    With `counts` (failing, skills per article), articles outside the grid window may be
    summaries without rows: only the grid's runs need their rows."""
    per = list(counts) if counts is not None else [None] * len(articles)
    runs = [run_view(a, articles[i - 1] if i else None, per[i]) for i, a in enumerate(articles)]
    if counts is not None:
        window = grid_window(max((run.skills for run in runs), default=0))
    else:
        window = grid_window(len({skill for article in articles for skill in article.rows}))
    grid_articles = list(articles[-window:])
    grid_runs = runs[-window:]
    today = now.date()
    skills = skill_views(grid_articles, grid_runs, today=today)
    return DashboardPage(
        assets=assets,
        generated=generated_at(now),
        latest=runs[-1] if runs else None,
        actions=tuple(Markup(BODY_MD.renderInline(item)) for item in articles[-1].action_queue)
        if articles
        else (),
        runs=tuple(reversed(runs)),
        grid_runs=tuple(reversed(grid_runs)),
        grid_hidden=len(runs) - len(grid_runs),
        skills=skills,
        inferred=skill_views(grid_articles, grid_runs, today=today, inferred=True),
        failing_now=runs[-1].failing if runs else 0,
        charts=charts_for(runs),
        issues=issue_views(issues, today=today, root_href=root_href),
        issues_dir=f"{root_href}/memory/issues/",
        warnings=tuple(warnings),
        catalog=catalog,
    )
