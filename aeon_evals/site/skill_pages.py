"""A page per skill (`site/skills/<skill>.html`) and its badges: view dataclasses, built purely.

The metrics history (metrics.History), the skill's issues and its spec in; frozen dataclasses
out. `build.py` renders them with `skill.html` and writes them with the badges (badges.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape

from markupsafe import Markup
from markupsafe import escape as escape_markup

from aeon_evals import drift, metrics
from aeon_evals.issues import IssueFile
from aeon_evals.metrics import History, Sample
from aeon_evals.model import Status
from aeon_evals.site.charts import (
    BOTTOM,
    HEIGHT,
    LEFT,
    RIGHT,
    TOP,
    WIDTH,
    Tick,
    marker,
    x_positions,
    x_ticks,
)
from aeon_evals.site.views import ABSENT_MARK, STATUS_MARKS, Assets, Mark

MAX_MARKERS = 30  # a chart with more runs draws its line and only the flagged runs' markers
# Not charted (still recorded): bytes follow words, and the age follows the schedule's phase.
UNCHARTED = (metrics.BYTES, metrics.AGE)
LINE_STEP = 1.0  # viewBox units per point of a long chart line (the plot is 428 wide)
MAX_TICK_POINTS = 60
MAX_OUTPUTS = 30  # outputs evaluated, newest first
CHART_LABELS = {
    metrics.WORDS: "Words",
    metrics.BYTES: "Bytes",
    metrics.AGE: "Output age at evaluation (days)",
    metrics.QUALITY: "Quality (skill-health avg_score)",
    metrics.SCORE: "skill-health score (history[])",
}


@dataclass(frozen=True)
class Band:
    """The drift bound of the latest history, drawn behind the line (viewBox units)."""

    y: str
    height: str
    title: str


@dataclass(frozen=True)
class StepLine:
    """A vertical line where a step begins."""

    x: str
    title: str
    css: str  # "worse" or "better"


@dataclass(frozen=True)
class MetricChart:
    """One metric over the runs, with its bound and its step, as inline SVG geometry."""

    key: str
    title: str
    width: int
    height: int
    plot_left: int
    plot_right: int
    plot_top: int
    plot_bottom: int
    line: str
    markers: Markup  # the runs' markers (all of them up to MAX_MARKERS runs, else the flagged)
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    band: Band | None
    step: StepLine | None
    summary: str  # the text equivalent, also shown under the chart


@dataclass(frozen=True)
class OutputView:
    day: str
    path: str
    href: str
    size: str
    sha256: str


@dataclass(frozen=True)
class SkillIssueView:
    id: str
    title: str
    status: str
    open: bool
    detected: str
    age: str  # "open 12 d" / "resolved after 5 d"
    href: str


@dataclass(frozen=True)
class SkillPage:
    """Everything skills/<skill>.html shows."""

    assets: Assets
    skill: str
    mark: Mark  # the latest status
    latest: str  # "2026-08-16: WARN · drift:words"
    strip: Markup  # every run, oldest first
    runs: int
    pass_30: str  # "92% of 13 runs" or "no runs"
    pass_90: str
    charts: tuple[MetricChart, ...]
    outputs: tuple[OutputView, ...]
    issues: tuple[SkillIssueView, ...]
    spec: str  # the evals.json entry, pretty-printed; "" when there is none
    spec_source: str  # where the spec came from, in words
    spec_href: str
    badge_href: str
    badge_json: str
    root_href: str  # the instance root from skills/
    generated: str

    @property
    def charts_html(self) -> Markup:
        """The charts' figures, as skill.html showed them with a loop (chart_figures)."""
        return chart_figures(self.charts)

    @property
    def outputs_html(self) -> Markup:
        """The outputs table's rows (output_rows)."""
        return output_rows(self.outputs)


# --------------------------------------------------------------------------------------------
# Pure builders.


@dataclass(frozen=True)
class StripMemo:
    """What the strips of one build's pages share, escaped once: each day's ISO text and run
    link, each cause as " · cause". Filled as met; only for one `run_pages`."""

    days: dict[date, tuple[str, str]] = field(default_factory=dict)
    causes: dict[str, str] = field(default_factory=dict)


def strip_html(
    samples: Sequence[Sample], run_pages: Mapping[date, str], memo: StripMemo | None = None
) -> Markup:
    """The status strip, oldest first: one link per run, its title the date, status and cause.
    Built here rather than in a template loop: a year of daily runs is 365 of them per page.
    `memo`: shared by the pages of one build (a thousand strips of the same days)."""
    memo = memo if memo is not None else StripMemo()
    days, causes = memo.days, memo.causes
    parts = []
    for s in samples:
        day = days.get(s.day)
        if day is None:
            day = days[s.day] = (s.day.isoformat(), escape(run_pages.get(s.day, "")))
        cause = causes.get(s.cause)
        if cause is None:
            cause = causes[s.cause] = escape(f" · {s.cause}") if s.cause else ""
        if s.status is None:
            css, label = ABSENT_MARK.css, "not evaluated"
        else:
            css, label = STATUS_MARKS[s.status].css, s.status.value
        # a date and a status value hold nothing to escape
        title = f"{day[0]} · {label}{cause}"
        parts.append(
            f'<a class="tick s-{css}" href="{day[1]}" title="{title}" aria-label="{title}"></a>'
        )
    return Markup("".join(parts))


def chart_figures(charts: Sequence[MetricChart]) -> Markup:
    """Each chart's <figure>, escaped as the templates escape: built here rather than in
    template loops (a thousand pages of a few charts with their ticks each night)."""
    e = escape_markup
    parts = []
    for i, c in enumerate(charts, start=1):
        summary = e(c.summary)
        left, right = c.plot_left, c.plot_right
        parts.append(
            f'<figure class="chart metric" id="metric-{i}">\n'
            f"<figcaption>{e(c.title)}</figcaption>\n"
            f'<svg viewBox="0 0 {c.width} {c.height}" role="img" aria-label="{summary}" '
            'xmlns="http://www.w3.org/2000/svg">\n'
            f"<title>{summary}</title>\n"
        )
        for tick in c.y_ticks:
            pos = e(tick.pos)
            parts.append(
                f'<line class="gridline" x1="{left}" x2="{right}" y1="{pos}" y2="{pos}"/>'
                f'<text class="ylabel" x="{left - 6}" y="{pos}" text-anchor="end" '
                f'dominant-baseline="middle">{e(tick.label)}</text>'
            )
        last = len(c.x_ticks) - 1
        for n, tick in enumerate(c.x_ticks):
            anchor = (
                "start" if n == 0 and n != last else ("end" if n == last and n != 0 else "middle")
            )
            parts.append(
                f'<text class="xlabel" x="{e(tick.pos)}" y="{c.plot_bottom + 20}" '
                f'text-anchor="{anchor}">{e(tick.label)}</text>'
            )
        if c.band:
            parts.append(
                f'<rect class="band" x="{left}" width="{right - left}" y="{e(c.band.y)}" '
                f'height="{e(c.band.height)}"><title>{e(c.band.title)}</title></rect>'
            )
        if c.step:
            x = e(c.step.x)
            parts.append(
                f'<line class="step {e(c.step.css)}" x1="{x}" x2="{x}" y1="{c.plot_top}" '
                f'y2="{c.plot_bottom}"><title>{e(c.step.title)}</title></line>'
            )
        if c.line:
            parts.append(f'<path class="line" d="{e(c.line)}"/>')
        parts.append(f'{e(c.markers)}\n</svg>\n<p class="muted summary">{summary}</p>\n</figure>\n')
    return Markup("".join(parts))


def output_rows(outputs: Sequence[OutputView]) -> Markup:
    """The rows of the outputs table (see chart_figures)."""
    e = escape_markup
    return Markup(
        "".join(
            f'<tr><td class="nowrap">{e(o.day)}</td><td class="path"><a href="{e(o.href)}">'
            f'{e(o.path)}</a></td><td class="num nowrap">{e(o.size)}</td>'
            f'<td class="path sha">{e(o.sha256)}</td></tr>\n'
            for o in outputs
        )
    )


def pass_rate(samples: Sequence[Sample], today: date, days: int) -> str:
    """Share of runs in the last `days` days whose status is not failing, in words."""
    since = today - timedelta(days=days)
    window = [s.status for s in samples if s.status is not None and since < s.day <= today]
    if not window:
        return "no runs"
    passing = sum(1 for status in window if not status.failing)
    pct = 100 * passing / len(window)
    return f"{pct:.0f}% of {len(window)} run{'s' if len(window) != 1 else ''}"


def _nice(value: float) -> float:
    """A round axis maximum at or above `value` (1, 2, 2.5, 5 × 10^n)."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if value <= step * power:
            return step * power
    return 10.0 * power


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _line(xs: Sequence[float], ys: Sequence[float]) -> str:
    """SVG path data through the points; with more points than the plot has room for (one per
    LINE_STEP units: more than 428), each such slice keeps its first, lowest, highest and last
    point, so no spike is lost and years of daily runs stay a few kilobytes."""
    if len(xs) <= (RIGHT - LEFT) / LINE_STEP:
        pts = list(zip(xs, ys, strict=True))
    else:
        pts = []
        bucket: list[tuple[float, float]] = []
        edge = xs[0] + LINE_STEP
        for x, y in zip(xs, ys, strict=True):
            if x >= edge and bucket:
                pts += _keep(bucket)
                bucket = []
                edge = x + LINE_STEP
            bucket.append((x, y))
        pts += _keep(bucket)
    return "M" + "L".join(f"{x:.1f} {y:.1f}" for x, y in pts) if pts else ""


def _keep(bucket: list[tuple[float, float]]) -> list[tuple[float, float]]:
    low = min(bucket, key=lambda p: p[1])
    high = max(bucket, key=lambda p: p[1])
    kept = sorted({bucket[0], low, high, bucket[-1]}, key=bucket.index)
    return kept


def _x_ticks(days: Sequence[date], xs: Sequence[float]) -> tuple[Tick, ...]:
    """charts.x_ticks, on at most MAX_TICK_POINTS of the points (it looks at every point for
    every tick; a year of daily runs needs no finer placement than that)."""
    if len(xs) <= MAX_TICK_POINTS:
        return x_ticks(days, xs)
    keep = sorted(
        {round(i * (len(xs) - 1) / (MAX_TICK_POINTS - 1)) for i in range(MAX_TICK_POINTS)}
    )
    return x_ticks([days[i] for i in keep], [xs[i] for i in keep])


def metric_chart(
    key: str,
    title: str,
    series: Sequence[tuple[date, float]],
    flagged: set[date],
    direction: drift.Direction,
) -> MetricChart:
    """The chart of one metric's series (oldest first): line, markers (all of them up to
    MAX_MARKERS runs, else only the flagged runs), the current bound and the current step."""
    days = [d for d, _ in series]
    xs = x_positions(days)
    title_lower = title.lower()
    step = drift.detect(series, direction) if series else None
    top = max([v for _, v in series] + ([step.bound.high] if step else []), default=1.0)
    y_max = _nice(top * 1.05)

    def y_of(v: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * max(0.0, min(v / y_max, 1.0))

    scale = (BOTTOM - TOP) / y_max
    # values are never above y_max (it is rounded up from the largest); negative ones sit on 0
    line = _line(xs, [BOTTOM - scale * v if v > 0 else BOTTOM for _, v in series])
    show_all = len(series) <= MAX_MARKERS
    dots = []
    for x, (d, v) in zip(xs, series, strict=True):
        if not (show_all or d in flagged):
            continue
        y = y_of(v)
        hover = escape(
            f"{d.isoformat()} · {title_lower}: {drift.number(v)}"
            + (" · drift flagged" if d in flagged else "")
        )
        dots.append(
            f'<path class="dot {"flag" if d in flagged else "run"}" '
            f'd="{marker("circle", x, y, 3.5)}"><title>{hover}</title></path>'
        )
    markers = Markup("".join(dots))
    band = None
    step_line = None
    if step is not None:
        b = step.bound
        hi, lo = y_of(b.high), y_of(b.low)
        band = Band(
            _n(hi),
            _n(max(lo - hi, 0.5)),
            f"bound: {drift.number(b.low)}–{drift.number(b.high)} "
            f"(median {drift.number(b.median)} of {b.points} runs ± max(2 IQR, 10 %))",
        )
        x = xs[days.index(step.since)]
        step_line = StepLine(
            _n(x),
            f"step {'the worse' if step.worse else 'the better'} way: {step.describe(key)}",
            "worse" if step.worse else "better",
        )
    ticks = tuple(Tick(_n(y_of(y_max * i / 4)), drift.number(y_max * i / 4)) for i in range(5))
    if series:
        summary = (
            f"{title}: {len(series)} run{'s' * (len(series) != 1)}, latest "
            f"{drift.number(series[-1][1])} on "
            f"{series[-1][0].isoformat()}"
        )
        if step is not None:
            summary += (
                f"; step {'the worse' if step.worse else 'the better'} way: {step.describe(key)}"
            )
    else:
        summary = f"{title}: no data"
    return MetricChart(
        key=key,
        title=title,
        width=WIDTH,
        height=HEIGHT,
        plot_left=LEFT,
        plot_right=RIGHT,
        plot_top=TOP,
        plot_bottom=BOTTOM,
        line=line,
        markers=markers,
        y_ticks=ticks,
        x_ticks=_x_ticks(days, xs),
        band=band,
        step=step_line,
        summary=summary,
    )


def _charts(skill: str, history: History) -> tuple[MetricChart, ...]:
    samples = history.samples.get(skill, ())
    # each distinct `numeric` once (a metrics file's identical cells are one tuple)
    distinct = {id(s.numeric): s.numeric for s in samples if s.numeric}
    labels = sorted({label for numeric in distinct.values() for label, _ in numeric})
    candidates = [m for m in metrics.BUILTIN if m not in UNCHARTED and m not in labels]
    drifted = {s.day: s.cause for s in samples if "drift:" in s.cause}
    charts = []
    for metric in [*candidates, *labels]:
        series = history.series(skill, metric)
        if not series:
            continue
        code = f"drift:{metric}"
        flagged = {day for day, cause in drifted.items() if code in cause}
        title = CHART_LABELS.get(metric, metric)
        direction = metrics.DIRECTIONS.get(metric, drift.Direction.EITHER)
        charts.append(metric_chart(metric, title, series, flagged, direction))
    return tuple(charts)


def _size(n: int | None) -> str:
    if n is None:
        return "—"
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


def _outputs(samples: Sequence[Sample], root_href: str) -> tuple[OutputView, ...]:
    seen: set[tuple[str, str | None]] = set()
    out: list[OutputView] = []
    for s in reversed(samples):
        if s.output is None or (s.output, s.sha256) in seen:
            continue
        seen.add((s.output, s.sha256))
        out.append(
            OutputView(
                s.day.isoformat(),
                s.output,
                f"{root_href}/{s.output}",
                _size(s.bytes),
                s.sha256 or "—",
            )
        )
        if len(out) == MAX_OUTPUTS:
            break
    return tuple(out)


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat((text or "").strip()[:10])
    except ValueError:
        return None


def skill_issues(
    skill: str, issues: Sequence[IssueFile], today: date, root_href: str
) -> tuple[SkillIssueView, ...]:
    """The issues naming `skill`: open ones first, newest first, with their ages."""
    views = []
    for issue in issues:
        if skill not in issue.affected_skills:
            continue
        detected = _day(issue.detected_at)
        resolved = _day(issue.resolved_at)
        if issue.is_open:
            age = f"open {(today - detected).days} d" if detected else "open"
        elif detected and resolved:
            age = f"resolved after {(resolved - detected).days} d"
        else:
            age = "resolved"
        views.append(
            SkillIssueView(
                issue.id,
                issue.title,
                issue.status,
                issue.is_open,
                detected.isoformat() if detected else (issue.detected_at or "?"),
                age,
                f"{root_href}/{issue.path}",
            )
        )
    return tuple(sorted(views, key=lambda v: (not v.open, v.detected), reverse=False))


def skill_page(
    skill: str,
    history: History,
    *,
    issues: Sequence[IssueFile],
    spec: object | None,
    run_pages: Mapping[date, str],
    today: date,
    assets: Assets,
    generated: str,
    root_href: str = "../..",
    skill_md: bool = False,
    memo: StripMemo | None = None,
) -> SkillPage:
    """The context of one skill's page. `spec`: its evals.json entry (None: none); `run_pages`:
    each run's page relative to skills/; `skill_md`: skills/<skill>/SKILL.md exists; `memo`:
    shared by the pages of one build (strip_html)."""
    samples = history.samples.get(skill, ())
    last = samples[-1] if samples else None
    mark = STATUS_MARKS[last.status] if last is not None and last.status else ABSENT_MARK
    latest = "no run recorded"
    if last is not None:
        latest = f"{last.day.isoformat()}: {last.status.value if last.status else '—'}"
        latest += f" · {last.cause}" if last.cause else ""
    if spec is not None:
        spec_text = json.dumps(spec, indent=2, ensure_ascii=False)
        source = "its entry in skills/skill-evals/evals.json"
        spec_href = f"{root_href}/skills/skill-evals/evals.json"
    else:
        spec_text = ""
        source = (
            "no evals.json entry: evaluated on the output contract inferred from its SKILL.md"
            if skill_md
            else "no evals.json entry and no SKILL.md"
        )
        spec_href = f"{root_href}/skills/{skill}/SKILL.md" if skill_md else ""
    return SkillPage(
        assets=assets,
        skill=skill,
        mark=mark,
        latest=latest,
        strip=strip_html(samples, run_pages, memo),
        runs=len(samples),
        pass_30=pass_rate(samples, today, 30),
        pass_90=pass_rate(samples, today, 90),
        charts=_charts(skill, history),
        outputs=_outputs(samples, root_href),
        issues=skill_issues(skill, issues, today, root_href),
        spec=spec_text,
        spec_source=source,
        spec_href=spec_href,
        badge_href=f"../badges/{skill}.svg",
        badge_json=f"../badges/{skill}.json",
        root_href=root_href,
        generated=generated,
    )


def latest_statuses(history: History) -> dict[str, Status | None]:
    """Each skill's status in its newest recorded run."""
    return {skill: samples[-1].status for skill, samples in history.samples.items() if samples}
