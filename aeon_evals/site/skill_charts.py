"""The skill page's charts: each metric over the runs with its drift bound and step, as inline
SVG geometry and figures (pure: a metrics.History in, frozen dataclasses and markup out)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from html import escape

from markupsafe import Markup
from markupsafe import escape as escape_markup

from aeon_evals import drift, metrics
from aeon_evals.metrics import History
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

MAX_MARKERS = 30  # a chart with more runs draws its line and only the flagged runs' markers
# Not charted (still recorded): bytes follow words, and the age follows the schedule's phase.
UNCHARTED = (metrics.BYTES, metrics.AGE)
LINE_STEP = 1.0  # viewBox units per point of a long chart line (the plot is 428 wide)
MAX_TICK_POINTS = 60
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


def charts_for(skill: str, history: History) -> tuple[MetricChart, ...]:
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
