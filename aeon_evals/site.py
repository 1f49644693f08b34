"""Static HTML dashboard (issue #5): `index.html` plus one page per skill-evals article.

Reads `articles/skill-evals-*.md` and `memory/issues/`, gathers what the pages show into small
frozen dataclasses (pure functions, no I/O), renders them with Jinja2 and writes only the pages
whose bytes changed. Everything is inline (CSS, JS, SVG charts), so the site opens from file://.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import math
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from stat import S_ISREG

from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    TemplateSyntaxError,
    select_autoescape,
)
from markdown_it import MarkdownIt
from markupsafe import Markup

from aeon_evals import history
from aeon_evals.cache import ArticleCache, content_key, counts_of
from aeon_evals.errors import ConfigError, EvalsError, UsageError
from aeon_evals.fsio import atomic_write
from aeon_evals.history import ArticleParseError, article_names, read_article
from aeon_evals.issues import IssueFile, read_issues
from aeon_evals.model import ArticleRow, FailingSince, ParsedArticle, Status
from aeon_evals.resources import templates_dir

OVERRIDE_DIR = Path(".aeon-evals") / "templates"  # per-instance template overrides, searched first
GRID_RUNS = 52  # a year of weekly runs in the skills × runs grid; the charts and run list show all
GRID_CELLS = 12_000  # a large fleet gets fewer grid columns (never under GRID_MIN_RUNS) so the page stays light
GRID_MIN_RUNS = 8


def grid_window(skills: int) -> int:
    """How many of the newest runs the grid shows for a fleet of `skills`."""
    return max(GRID_MIN_RUNS, min(GRID_RUNS, GRID_CELLS // max(1, skills)))


# Where versions before 0.2 kept their cache, inside the published site; removed on sight.
LEGACY_CACHE = (".aeon-evals-site-cache.json", ".aeon-evals-bodies")

# Raw HTML off (markdown-it passes it through by default) and images off: an image in an article
# would make the page fetch from the network, and the site must work offline from file://.
_MD = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


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
    coverage_delta: str  # "↑4 pts vs prior", "unchanged vs prior", "" without a prior
    failing: int
    skills: int
    diff_chips: tuple[str, ...]  # the article's Diff line, one chip per "·" part


@dataclass(frozen=True)
class Cell:
    """One grid cell: one skill in one run."""

    mark: Mark
    title: str  # hover text: skill, date, status, diff label, root cause
    href: str


@dataclass(frozen=True)
class SkillView:
    """One grid row plus the skill's details from the newest article."""

    skill: str
    failing: bool  # failing in the newest run
    in_latest: bool
    cells: tuple[Cell, ...]
    mark: Mark  # latest status (ABSENT_MARK when not in the newest run)
    diff: str
    root_cause: str
    quality: str
    words: str
    last_output: str
    failing_since: str  # "2026-05-31 (77 d)" or "—"
    issue: str
    notes: str = "—"  # the article's Notes cell: disabled, muted, flaky, which log was used …
    flaky: bool = False


@dataclass(frozen=True)
class ChartPoint:
    """One run on a trend chart: a marker shaped and coloured by the run's verdict."""

    x: str
    y: str
    marker: str  # SVG path data for the marker
    css: str
    title: str
    href: str


@dataclass(frozen=True)
class Tick:
    pos: str
    label: str


@dataclass(frozen=True)
class Chart:
    """An inline SVG line chart over runs (geometry precomputed, the template only draws)."""

    key: str
    title: str
    width: int
    height: int
    plot_left: int
    plot_right: int
    plot_top: int
    plot_bottom: int
    line: str  # SVG path data ("" when fewer than one point)
    points: tuple[ChartPoint, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    summary: str  # a text equivalent for screen readers and JS-less text browsers


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
    skills: str
    root_cause: str
    href: str  # relative from the site root to the issue file


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
    failing_now: int
    charts: tuple[Chart, ...]
    issues: tuple[IssueView, ...]
    issues_dir: str  # relative link to memory/issues/
    warnings: tuple[str, ...]
    status_legend: tuple[Mark, ...] = (*STATUS_MARKS.values(), ABSENT_MARK)
    verdict_legend: tuple[Mark, ...] = tuple(VERDICT_MARKS.values())


@dataclass(frozen=True)
class RunPage:
    """Everything runs/skill-evals-DATE.html shows."""

    assets: Assets
    run: RunView
    body: Markup
    newer: RunView | None
    older: RunView | None
    source_href: str  # relative from runs/ to the article's markdown


@dataclass(frozen=True)
class SiteOutcome:
    """What build_site did: pages are paths relative to `out`, in write order."""

    out: Path
    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]  # run pages whose article is gone
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class LoadedArticle:
    """An article parsed once; its markdown is rendered to HTML only when a page needs it, and
    the HTML kept in the article cache for the next build."""

    parsed: ParsedArticle  # rows empty when only the summary was read from the cache
    sha256: str
    source: Path  # the article file
    cache: ArticleCache
    counts: tuple[int, int]  # (failing, skills)
    has_rows: bool = True
    html: str | None = None  # the rendered body, when it was rendered in this build

    def full(self) -> ParsedArticle:
        """The article with its rows (from the cache, or parsed again)."""
        if self.has_rows:
            return self.parsed
        whole = self.cache.full(self.sha256, self.parsed)
        if whole is not None:
            return whole
        return read_article(self.source, root=self.source.parents[1], cache=self.cache)

    def body(self) -> str:
        cached = self.html if self.html is not None else self.cache.body(self.sha256)
        if cached is not None:
            return cached
        body: str = _MD.render(self.source.read_bytes().decode("utf-8", errors="replace"))
        self.cache.put_body(self.sha256, body)
        return body


# --------------------------------------------------------------------------------------------
# Jinja2, configured once.


def template_search_path(root: Path, template_dirs: Sequence[Path] | None = None) -> list[Path]:
    """Instance overrides first, then `template_dirs`, then the packaged templates (mkdocs-style)."""
    return [root / OVERRIDE_DIR, *(template_dirs or ()), templates_dir()]


def make_env(search_path: Sequence[Path], bytecode: Path | None = None) -> Environment:
    """A Jinja2 environment that escapes everything in .html/.svg templates and fails on typos.
    `bytecode`: a folder that keeps the compiled templates between runs (keyed by their source)."""
    return Environment(
        loader=FileSystemLoader([str(p) for p in search_path]),
        bytecode_cache=FileSystemBytecodeCache(str(bytecode)) if bytecode is not None else None,
        # Only the inline CSS/JS assets are unescaped; any other name is escaped by default.
        autoescape=select_autoescape(
            enabled_extensions=("html", "htm", "svg", "xml"),
            disabled_extensions=("css", "js"),
            default_for_string=True,
            default=True,
        ),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # one build, one look at each template file
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _render(env: Environment, name: str, **context: object) -> str:
    """Render one template; a broken (usually user-overridden) template becomes a ConfigError."""
    try:
        return env.get_template(name).render(**context)
    except TemplateSyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else None
        raise ConfigError(
            exc.message or "syntax error", path=exc.filename or name, where=where
        ) from None
    except TemplateError as exc:
        raise ConfigError(f"cannot render: {exc}", path=name) from None


def _assets(env: Environment) -> Assets:
    script = _render(env, "site.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    style = _render(env, "style.css")
    return Assets(style=Markup(style), script=Markup(script), csp=csp)


# --------------------------------------------------------------------------------------------
# Pure stage: parsed articles + issues → page contexts.


def _fmt_pct(value: float) -> str:
    rounded = round(value)
    return str(rounded) if abs(value - rounded) < 0.05 else f"{value:.1f}"


def _coverage_text(article: ParsedArticle) -> str:
    pct = article.coverage_pct
    if pct is None and article.coverage is not None:
        pct = article.coverage.pct
    if article.coverage is not None and pct is not None:
        return f"{article.coverage.covered}/{article.coverage.enabled} ({_fmt_pct(pct)}%)"
    return f"{_fmt_pct(pct)}%" if pct is not None else "—"


def _coverage_pct(article: ParsedArticle) -> float | None:
    if article.coverage_pct is not None:
        return article.coverage_pct
    return article.coverage.pct if article.coverage is not None else None


def run_view(
    article: ParsedArticle, prior: ParsedArticle | None, counts: tuple[int, int] | None = None
) -> RunView:
    """The summary of one article; `prior` (the previous run) gives the coverage change.
    `counts` (failing, skills) stand in for the rows when only the article's summary was loaded."""
    name = f"skill-evals-{article.day.isoformat()}"
    pct = _coverage_pct(article)
    prior_pct = _coverage_pct(prior) if prior is not None else None
    delta = ""
    if pct is not None and prior_pct is not None:
        change = pct - prior_pct
        if abs(change) < 0.05:
            delta = "unchanged vs prior"
        else:
            delta = f"{'↑' if change > 0 else '↓'}{_fmt_pct(abs(change))} pts vs prior"
    chips = tuple(part.strip() for part in article.diff_summary.split("·") if part.strip())
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
        failing=counts[0]
        if counts is not None
        else sum(1 for row in article.rows.values() if row.status.failing),
        skills=counts[1] if counts is not None else len(article.rows),
        diff_chips=chips,
    )


def _cell(skill: str, run: RunView, row: ArticleRow | None) -> Cell:
    if row is None:
        return Cell(ABSENT_MARK, f"{skill} — {run.iso}: not evaluated in this run", run.href)
    parts = [f"{skill} — {run.iso}: {row.status.value}"]
    if row.diff:
        parts.append(f"diff: {row.diff}")
    if row.root_cause and row.root_cause != "—":
        parts.append(f"root cause: {row.root_cause}")
    return Cell(STATUS_MARKS[row.status], "\n".join(parts), run.href)


def _skill_order(skill: str, latest: ParsedArticle | None) -> tuple[int, int, str]:
    row = latest.rows.get(skill) if latest is not None else None
    if row is None:
        return (2, 0, skill)
    return (0 if row.status.failing else 1, row.status.rank, skill)


def skill_views(
    articles: Sequence[ParsedArticle], runs: Sequence[RunView], *, today: date
) -> tuple[SkillView, ...]:
    """Grid rows (newest run first) for every skill seen in `articles`, failing-now first."""
    latest = articles[-1] if articles else None
    names = {skill for article in articles for skill in article.rows}
    views: list[SkillView] = []
    for skill in sorted(names, key=lambda s: _skill_order(s, latest)):
        cells = tuple(
            _cell(skill, run, article.rows.get(skill))
            for article, run in zip(reversed(articles), reversed(runs), strict=True)
        )
        row = latest.rows.get(skill) if latest is not None else None
        since: FailingSince | None = latest.failing_since.get(skill) if latest is not None else None
        issue = (latest.issues.get(skill) if latest is not None else None) or (
            since.issue if since else None
        )
        since_text = "—"
        if since is not None and row is not None and row.status.failing:
            since_text = f"{since.since.isoformat()} ({(today - since.since).days} d)"
        views.append(
            SkillView(
                skill=skill,
                failing=row is not None and row.status.failing,
                in_latest=row is not None,
                cells=cells,
                mark=STATUS_MARKS[row.status] if row is not None else ABSENT_MARK,
                diff=row.diff if row is not None and row.diff else "—",
                root_cause=row.root_cause if row is not None else "—",
                quality=row.quality if row is not None else "—",
                words=f"{row.words:,}" if row is not None and row.words is not None else "—",
                last_output=(row.last_output or "—") if row is not None else "—",
                failing_since=since_text,
                issue=issue or "—",
                notes="; ".join(row.flags) if row is not None and row.flags else "—",
                flaky=row is not None and "flaky" in row.flags,
            )
        )
    return tuple(views)


# Chart geometry (viewBox units). Small enough that text stays legible when scaled to a phone.
_W, _H = 480, 210
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 468, 14, 178
_R = 5.0


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _marker(shape: str, x: float, y: float, r: float = _R) -> str:
    n = _num
    if shape == "tri-up":
        return f"M{n(x)} {n(y - r)}L{n(x + r)} {n(y + r * 0.8)}L{n(x - r)} {n(y + r * 0.8)}Z"
    if shape == "tri-down":
        return f"M{n(x)} {n(y + r)}L{n(x + r)} {n(y - r * 0.8)}L{n(x - r)} {n(y - r * 0.8)}Z"
    if shape == "diamond":
        return f"M{n(x)} {n(y - r)}L{n(x + r)} {n(y)}L{n(x)} {n(y + r)}L{n(x - r)} {n(y)}Z"
    if shape == "square":
        s = r * 0.85
        return f"M{n(x - s)} {n(y - s)}H{n(x + s)}V{n(y + s)}H{n(x - s)}Z"
    if shape == "cross":
        s = r * 0.8
        return f"M{n(x - s)} {n(y - s)}L{n(x + s)} {n(y + s)}M{n(x + s)} {n(y - s)}L{n(x - s)} {n(y + s)}"
    # circle / ring: two arcs
    return f"M{n(x - r)} {n(y)}a{n(r)} {n(r)} 0 1 0 {n(2 * r)} 0a{n(r)} {n(r)} 0 1 0 {n(-2 * r)} 0Z"


def _x_positions(runs: Sequence[RunView]) -> list[float]:
    if not runs:
        return []
    first, last = runs[0].day, runs[-1].day
    span = (last - first).days
    width = _RIGHT - _LEFT
    if span == 0:
        return [_LEFT + width / 2 for _ in runs]
    return [_LEFT + width * (run.day - first).days / span for run in runs]


def _x_ticks(runs: Sequence[RunView], xs: Sequence[float], most: int = 4) -> tuple[Tick, ...]:
    """Date labels for the first and last run and up to `most - 2` in between, never crowded.

    Labels are about 70 units wide; the first is anchored at its start and the last at its end,
    so a middle label needs 110 units to either end and 80 to its neighbour.
    """
    if not runs:
        return ()
    last = len(runs) - 1
    if last == 0:
        return (Tick(_num(xs[0]), runs[0].iso),)
    chosen = [0]
    for k in range(1, most - 1):
        target = _LEFT + (_RIGHT - _LEFT) * k / (most - 1)
        i = min(range(len(xs)), key=lambda j: (abs(xs[j] - target), j))
        room = 110 if chosen[-1] == 0 else 80
        if i not in (0, last) and xs[i] - xs[chosen[-1]] >= room and xs[last] - xs[i] >= 110:
            chosen.append(i)
    chosen.append(last)
    return tuple(Tick(_num(xs[i]), runs[i].iso) for i in chosen)


def trend_chart(
    runs: Sequence[RunView],
    *,
    key: str,
    title: str,
    values: Sequence[float | None],
    y_max: float,
    y_step: float,
    unit: str,
) -> Chart:
    """A line chart of `values` (one per run, oldest first); each run's marker shows its verdict."""
    xs = _x_positions(runs)
    height = _BOTTOM - _TOP

    def y_of(v: float) -> float:
        return _BOTTOM - height * (v / y_max if y_max else 0.0)

    line: list[str] = []
    pen_down = False
    points: list[ChartPoint] = []
    for run, x, value in zip(runs, xs, values, strict=True):
        if value is None:
            pen_down = False
            continue
        y = y_of(value)
        line.append(f"{'L' if pen_down else 'M'}{_num(x)} {_num(y)}")
        pen_down = True
        shown = f"{_fmt_pct(value)}{unit}"
        points.append(
            ChartPoint(
                x=_num(x),
                y=_num(y),
                marker=_marker(run.mark.shape, x, y),
                css=run.mark.css,
                title=f"{run.iso} · {run.verdict} · {title.lower()}: {shown}",
                href=run.href,
            )
        )
    ticks = []
    steps = round(y_max / y_step) if y_step else 0
    for i in range(steps + 1):
        v = i * y_step
        ticks.append(Tick(_num(y_of(v)), f"{_fmt_pct(v)}{unit}"))
    known = [(run, v) for run, v in zip(runs, values, strict=True) if v is not None]
    if known:
        last_run, last_value = known[-1]
        summary = (
            f"{title}: {len(known)} runs, latest {_fmt_pct(last_value)}{unit} on {last_run.iso}"
        )
    else:
        summary = f"{title}: no data"
    return Chart(
        key=key,
        title=title,
        width=_W,
        height=_H,
        plot_left=_LEFT,
        plot_right=_RIGHT,
        plot_top=_TOP,
        plot_bottom=_BOTTOM,
        line="".join(line),
        points=tuple(points),
        y_ticks=tuple(ticks),
        x_ticks=_x_ticks(runs, xs),
        summary=summary,
    )


def charts_for(runs: Sequence[RunView]) -> tuple[Chart, ...]:
    """Coverage % and failing-skill count per run (runs oldest first)."""
    coverage = trend_chart(
        runs,
        key="coverage",
        title="Coverage",
        values=[r.coverage_pct for r in runs],
        y_max=100,
        y_step=25,
        unit="%",
    )
    most = max((r.failing for r in runs), default=0)
    y_max = max(5, math.ceil(most / 5) * 5)
    failing = trend_chart(
        runs,
        key="failing",
        title="Failing skills",
        values=[float(r.failing) for r in runs],
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
            skills=", ".join(issue.affected_skills) or "—",
            root_cause=issue.root_cause or "—",
            href=f"{root_href}/{issue.path}",
        )
        views.append(((rank, int(digits) if digits else 0, issue.id), view))
    return tuple(view for _, view in sorted(views, key=lambda pair: pair[0]))


def _generated(now: datetime) -> str:
    zone = f" {now.tzname()}" if now.tzinfo is not None and now.tzname() else ""
    return f"{now.strftime('%Y-%m-%d %H:%M')}{zone}"


def dashboard_page(
    articles: Sequence[ParsedArticle],
    issues: Sequence[IssueFile],
    *,
    now: datetime,
    assets: Assets,
    root_href: str,
    warnings: Sequence[str] = (),
    counts: Sequence[tuple[int, int] | None] | None = None,
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
        generated=_generated(now),
        latest=runs[-1] if runs else None,
        actions=tuple(Markup(_MD.renderInline(item)) for item in articles[-1].action_queue)
        if articles
        else (),
        runs=tuple(reversed(runs)),
        grid_runs=tuple(reversed(grid_runs)),
        grid_hidden=len(runs) - len(grid_runs),
        skills=skills,
        failing_now=sum(1 for s in skills if s.failing),
        charts=charts_for(runs),
        issues=issue_views(issues, today=today, root_href=root_href),
        issues_dir=f"{root_href}/memory/issues/",
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------------------------
# I/O at the edges: reading articles (with a content-addressed cache) and issues, writing pages.


FORK = hasattr(os, "fork")  # render new articles on a second core where the platform can fork


class BodyRenderer:
    """Renders new articles' markdown to HTML into the cache in a forked child process, so this
    process parses the same articles (and builds the dashboard) meanwhile: a 1,000-row article
    costs ~0.1 s to parse and ~0.12 s to render, and each stage wants a core of its own.

    Without fork, or with a cache that cannot be written, `start` says no and the caller renders
    in-process. A child that dies leaves bodies missing, and `LoadedArticle.body` renders those.
    """

    def __init__(self, cache: ArticleCache) -> None:
        self.cache = cache
        self.pid: int | None = None

    def start(self, work: list[tuple[str, bytes]]) -> bool:
        if not work or not FORK or self.cache.folder("bodies") is None:
            return False
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: render, write, leave without running the parent's exit handlers
            code = 1
            try:
                for sha, raw in work:
                    self.cache.put_body(sha, _MD.render(raw.decode("utf-8", errors="replace")))
                code = 0
            finally:
                os._exit(code)
        self.pid = pid
        return True

    def wait(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None


def load_articles(
    root: Path,
    cache: ArticleCache,
    renderer: BodyRenderer | None = None,
    listing: Sequence[str] | None = None,
) -> tuple[list[LoadedArticle], list[str]]:
    """Every readable article, oldest first, parsed once ever (cache hits read only the summary);
    one warning per unreadable article. New articles' bodies are rendered by `renderer` when it
    can fork, else here, from the tokens of the same parse."""
    found: list[tuple[Path, bytes, str]] = []
    warnings: list[str] = []
    for _day, path in article_names(root / "articles", listing):
        try:
            stat = path.stat()
            if not S_ISREG(stat.st_mode):
                continue  # a folder or a device under an article's name
            sha = cache.known_sha(path, stat)  # unchanged since it was last hashed: not read
            raw = b"" if sha is not None else path.read_bytes()
        except OSError as exc:
            warnings.append(f"{path.name}: cannot read ({exc.strerror or exc}); skipped")
            continue
        if sha is None:
            sha = content_key(raw)
            cache.remember_file(path, stat, sha)
        found.append((path, raw, sha))
    hits = {sha: cache.summary(sha) for _path, _raw, sha in found}
    unrendered = []  # new articles, and parsed ones (the one a run just wrote) without a body yet
    for i, (path, raw, sha) in enumerate(found):
        if not _fits(hits[sha], path, root) or not cache.has_body(sha):
            if not raw:  # known bytes, not read above: read them after all
                with contextlib.suppress(OSError):
                    found[i] = (path, raw := path.read_bytes(), sha)
            unrendered.append((sha, raw))
    forked = renderer is not None and renderer.start(unrendered)
    loaded: list[LoadedArticle] = []
    for path, raw, sha in found:
        hit = hits[sha]
        if hit is not None and _fits(hit, path, root):
            loaded.append(LoadedArticle(hit[0], sha, path, cache, hit[1], has_rows=False))
            continue
        try:
            parsed, tokens = history.parse_raw(raw, path, root=root, md=None if forked else _MD)
        except (ArticleParseError, UnicodeError) as exc:
            line = exc.line() if isinstance(exc, EvalsError) else f"{path.name}: {exc}"
            warnings.append(f"{line}; skipped")
            continue
        cache.put(sha, parsed)
        html: str | None = None
        if not forked:  # a new article always needs its page: render it from the same tokens
            html = _MD.renderer.render(tokens, _MD.options, {})
            cache.put_body(sha, html)
        loaded.append(LoadedArticle(parsed, sha, path, cache, counts_of(parsed), html=html))
    return loaded, warnings


def _fits(hit: tuple[ParsedArticle, tuple[int, int]] | None, path: Path, root: Path) -> bool:
    """There is a cached summary, and it stands for the article at `path`."""
    return hit is not None and history.stands_for(hit[0], path, root)


def load_issues(root: Path) -> tuple[list[IssueFile], list[str]]:
    """Issue files under memory/issues (none when the folder does not exist)."""
    issues_dir = root / "memory" / "issues"
    if not issues_dir.is_dir():
        return [], []
    return read_issues(issues_dir, root=root)


def _templates_digest(env: Environment) -> str:
    """A digest of every template the pages can use, overrides included."""
    digest = hashlib.sha256()
    loader = env.loader
    for name in sorted(env.list_templates()):
        assert loader is not None
        source, _filename, _uptodate = loader.get_source(env, name)
        digest.update(name.encode() + b"\0" + source.encode("utf-8"))
    return digest.hexdigest()


def _relative(target: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return target.resolve().as_uri()


def _write_if_changed(path: Path, text: str) -> bool:
    """Write through atomic_write only when the bytes differ; True when written."""
    if not text.endswith("\n"):
        text += "\n"
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    atomic_write(path, data)
    return True


def build_site(
    root: Path,
    out: Path,
    *,
    now: datetime,
    template_dirs: list[Path] | None = None,
    cache: ArticleCache | None = None,
    listing: Sequence[str] | None = None,
) -> SiteOutcome:
    """Render the dashboard and run pages for the instance at `root` into `out`.

    Reads root/articles/skill-evals-*.md (unparseable ones become warnings) and
    root/memory/issues/. Writes out/index.html and out/runs/skill-evals-DATE.html only where
    the bytes changed and removes run pages whose article is gone. Parsed articles, rendered
    bodies and page keys live in the article cache (root/.aeon-evals/cache/, see cache.py), so a
    rebuild parses and renders only new or edited articles; `cache` shares a run's cache and
    `listing` its sorted names of root/articles (the run has listed that folder already).
    Output depends only on the files read and `now`.
    """
    own_cache = cache is None
    cache = cache or ArticleCache(root)
    env = make_env(template_search_path(root, template_dirs), cache.folder("templates"))
    assets = _assets(env)
    renderer = BodyRenderer(cache)
    try:
        return _build(root, out, now, env, assets, cache, renderer, own_cache, listing)
    finally:
        renderer.wait()


def _build(
    root: Path,
    out: Path,
    now: datetime,
    env: Environment,
    assets: Assets,
    cache: ArticleCache,
    renderer: BodyRenderer,
    own_cache: bool,
    listing: Sequence[str] | None,
) -> SiteOutcome:
    loaded, warnings = load_articles(root, cache, renderer, listing)
    issues, issue_warnings = load_issues(root)
    warnings.extend(issue_warnings)

    window = grid_window(max((item.counts[1] for item in loaded), default=0))
    articles = [
        item.full() if i >= len(loaded) - window else item.parsed for i, item in enumerate(loaded)
    ]
    root_href = _relative(root, out)  # usually ".."
    root_from_runs = _relative(root, out / "runs")  # usually "../.."
    dashboard = dashboard_page(
        articles,
        issues,
        now=now,
        assets=assets,
        root_href=root_href,
        warnings=warnings,
        counts=[item.counts for item in loaded],
    )

    written: list[str] = []
    unchanged: list[str] = []

    def emit(rel: str, text: str) -> None:
        (written if _write_if_changed(out / rel, text) else unchanged).append(rel)

    emit("index.html", _render(env, "index.html", page=dashboard))
    runs_oldest_first = list(reversed(dashboard.runs))
    templates = _templates_digest(env)
    before = cache.pages(out)
    renderer.wait()  # the new articles' bodies are in the cache now
    pages: dict[str, str] = {}
    for i, (item, run) in enumerate(zip(loaded, runs_oldest_first, strict=True)):
        newer = runs_oldest_first[i + 1] if i + 1 < len(runs_oldest_first) else None
        older = runs_oldest_first[i - 1] if i else None
        # A run page depends on its article, its neighbours, the templates and this code only:
        # when none changed and the page is there, it is not rendered again.
        key = hashlib.sha256(
            "\0".join(
                [
                    cache.dir.name,
                    templates,
                    item.sha256,
                    repr(run),
                    repr(newer),
                    repr(older),
                    root_from_runs,
                ]
            ).encode()
        ).hexdigest()
        pages[run.href] = key
        if before.get(run.href) == key and (out / run.href).is_file():
            unchanged.append(run.href)
            continue
        page = RunPage(
            assets=assets,
            run=run,
            body=Markup(item.body()),
            newer=newer,
            older=older,
            source_href=f"{root_from_runs}/{item.parsed.path}",
        )
        emit(run.href, _render(env, "run.html", page=page))

    removed: list[str] = []
    runs_dir = out / "runs"
    if runs_dir.is_dir():
        for stale in sorted(runs_dir.glob("skill-evals-*.html")):
            if f"runs/{stale.name}" not in pages:
                stale.unlink()
                removed.append(f"runs/{stale.name}")
    for legacy in LEGACY_CACHE:
        with contextlib.suppress(OSError):
            shutil.rmtree(out / legacy) if (out / legacy).is_dir() else (out / legacy).unlink()

    cache.prune({item.sha256 for item in loaded})
    cache.save_pages(out, pages)
    if own_cache:
        cache.save()
    return SiteOutcome(
        out=out,
        written=tuple(written),
        unchanged=tuple(unchanged),
        removed=tuple(removed),
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------------------------
# CLI glue (the `aeon-evals site` subcommand is wired in cli.py).


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `aeon-evals site`."""
    parser.add_argument("--root", default=".", metavar="DIR", help="instance root (default: .)")
    parser.add_argument(
        "--out", default=None, metavar="DIR", help="output folder (default: <root>/site)"
    )
    parser.add_argument(
        "--now",
        default=None,
        metavar="ISO",
        help="pin the current time, e.g. 2026-08-16T22:00:00Z (default: now, UTC)",
    )


def parse_now(text: str | None) -> datetime:
    """`--now`: an ISO date or date-time; naive values are taken as UTC."""
    if text is None:
        return datetime.now(UTC)
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"--now: expected an ISO date-time like 2026-08-16T22:00:00Z, got {text!r}"
        ) from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def run(args: argparse.Namespace) -> int:
    """Build the site; print warnings to stderr and one summary line to stdout."""
    root = Path(args.root)
    out = Path(args.out) if args.out else root / "site"
    outcome = build_site(root, out, now=parse_now(args.now))
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"site: wrote {len(outcome.written)} pages ({len(outcome.unchanged)} unchanged) to {out}")
    return 0
