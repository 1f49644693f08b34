"""The skill page's charts: each metric over the runs with its drift bound and step, as inline
SVG geometry and figures (pure: a metrics.History in, frozen dataclasses and markup out)."""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from html import escape

from markupsafe import Markup
from markupsafe import escape as escape_markup

from aeon_evals.checks.findings import QUALITY_FAIL
from aeon_evals.metrics import history as metrics
from aeon_evals.metrics.history import History
from aeon_evals.metrics.samples import SkillColumns
from aeon_evals.model import Spec, drift
from aeon_evals.site.charts import (
    BOTTOM,
    LEFT,
    RIGHT,
    TOP,
    Band,
    Chart,
    LimitLine,
    StepLine,
    Tick,
    axis_number,
    x_ticks,
)

MAX_MARKERS = 30  # a chart with more runs draws its line and only the flagged runs' markers
# Not charted (still recorded): bytes follow words, and the age follows the schedule's phase.
UNCHARTED = (metrics.BYTES, metrics.AGE)
LINE_STEP = 1.0  # viewBox units per point of a long chart line (the plot is 428 wide)
CHART_LABELS = {
    metrics.WORDS: "Words",
    metrics.BYTES: "Bytes",
    metrics.AGE: "Output age at evaluation (days)",
    metrics.QUALITY: "Quality (skill-health avg_score)",
    metrics.SCORE: "skill-health score (history[])",
}
_BOTTOM = f"{BOTTOM:.1f}"  # the y of a value at or below 0, as the line writes it
_first, _second = operator.itemgetter(0), operator.itemgetter(1)
# A run's marker: a circle of radius 3.5 from its left edge (charts.marker("circle", x, y, 3.5))
_DOT = "a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0 -7 0Z"


def chart_figures(charts: Sequence[Chart]) -> Markup:
    """Each chart's <figure>, escaped as the templates escape: built here rather than in
    template loops (a thousand pages of a few charts with their ticks each night)."""
    e = escaped
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
        parts.extend(_limit_html(c, limit) for limit in c.limits)
        parts.append(f'{c.markers}\n</svg>\n<p class="muted summary">{summary}</p>\n</figure>\n')
    return Markup("".join(parts))


def _limit_html(c: Chart, limit: LimitLine) -> str:
    """A bound the metric is checked against: a dashed line labelled at its right end (below
    it for a floor, above for a ceiling), or its label alone at the top when off the chart."""
    label = escaped(limit.label)
    if limit.y is None:
        return (
            f'<text class="limit-label {limit.css}" x="{c.plot_right}" y="{c.plot_top - 4}" '
            f'text-anchor="end">{label} ↑</text>'
        )
    y = float(limit.y)
    below = limit.css == "low"  # a floor's label under its line, a ceiling's over it
    if below and c.plot_bottom - y < 16:
        below = False
    elif not below and y - c.plot_top < 14:
        below = True
    text_y = _n(y + 13 if below else y - 4)
    return (
        f'<line class="limit {limit.css}" x1="{c.plot_left}" x2="{c.plot_right}" y1="{limit.y}" '
        f'y2="{limit.y}"><title>{label}</title></line>'
        f'<text class="limit-label {limit.css}" x="{c.plot_right}" y="{text_y}" '
        f'text-anchor="end">{label}</text>'
    )


_SPECIAL = re.compile(r"[&<>\"']").search


def needs_escape(text: str) -> bool:
    """Whether `text` holds a character the templates escape."""
    return _SPECIAL(text) is not None


def escaped(text: str) -> str:
    """`text` escaped as the templates escape it (markupsafe), quickly when it holds nothing to
    escape (most numbers, dates, paths and hashes)."""
    return str(escape_markup(text)) if _SPECIAL(text) else text


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


@dataclass(frozen=True)
class Xs:
    """Where the runs of one chart sit along x: for each, (x, line x, marker start, ISO day)
    (`at`), its x, and its point's start in the line's path ("M<x> ", then "L<x> "; `pen`);
    and the date labels of those days (`ticks`)."""

    at: list[tuple[float, str, str, str]]
    xs: list[float]
    pen: list[str]
    ticks: tuple[Tick, ...] = ()


class _YText(dict[float, str]):
    """Each value's y on a chart of one scale, as the line writes it (made when first met: the
    charts of a fleet share a few scales and their metrics' values repeat run after run)."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def __missing__(self, value: float) -> str:
        # a value at or below 0 (or NaN) sits on 0
        text = self[value] = f"{BOTTOM - self.scale * value:.1f}" if value > 0 else _BOTTOM
        return text


@dataclass(frozen=True)
class ChartMemo:
    """What the charts of one build share: for each span of days (first, last) a chart covers,
    each day's x as a number, as the line writes it, as a marker's start ("M<x - 3.5> ") and the
    day in ISO form; and the last days met for each span with their Xs. A thousand skills'
    charts mostly span the same runs, most of them on the same days, on a few y scales: each
    scale's y texts of the values met and each axis maximum's y ticks are kept too."""

    spans: dict[tuple[date, date], dict[date, tuple[float, str, str, str]]] = field(
        default_factory=dict
    )
    last: dict[tuple[date, date, int], tuple[list[date], Xs]] = field(default_factory=dict)
    ys: dict[float, _YText] = field(default_factory=dict)
    y_ticks: dict[float, tuple[Tick, ...]] = field(default_factory=dict)  # by the axis maximum

    def y_text(self, scale: float) -> _YText:
        """Each value's y as the line writes it, on charts of `scale` (viewBox units a unit)."""
        found = self.ys.get(scale)
        if found is None:
            found = self.ys[scale] = _YText(scale)
        return found

    def days(self, days: list[date]) -> Xs:
        """Each day's place on x; `days` oldest first (as x_positions), not empty."""
        first, last = days[0], days[-1]
        key = (first, last, len(days))
        met = self.last.get(key)
        if met is not None and met[0] == days:
            return met[1]
        span = self.spans.setdefault((first, last), {})
        total = (last - first).days
        width = RIGHT - LEFT
        at = []
        for day in days:
            known = span.get(day)
            if known is None:
                x = LEFT + width * (day - first).days / total if total else LEFT + width / 2
                known = span[day] = (x, f"{x:.1f}", f"M{_n(x - 3.5)} ", day.isoformat())
            at.append(known)
        places = [a[0] for a in at]
        pen = [f"L{a[1]} " for a in at]
        pen[0] = f"M{at[0][1]} "
        xs = Xs(at, places, pen, x_ticks(days, places))
        self.last[key] = (days, xs)
        return xs


@dataclass(frozen=True)
class Limits:
    """The bounds a metric is checked against (None: no such bound)."""

    low: float | None = None
    high: float | None = None


# A ceiling this many times above the chart's values is named off the chart rather than drawn
# (`max: 100000` over dollar amounts near 40 would flatten every point onto the axis).
_OFF_CHART = 3.0


def spec_limits(spec: Spec | None) -> dict[str, Limits]:
    """The bounds each charted metric is checked against: the quality floor (check g, whenever
    skill-health has a score), the spec's `min_words` and each numeric check's `min`/`max`."""
    found = {metrics.QUALITY: Limits(low=QUALITY_FAIL)}
    if spec is None:
        return found
    if spec.min_words > 0:
        found[metrics.WORDS] = Limits(low=float(spec.min_words))
    for check in spec.numeric_checks:
        if check.min is not None or check.max is not None:
            found[check.label] = Limits(check.min, check.max)
    return found


def metric_chart(
    key: str,
    title: str,
    series: Sequence[tuple[date, float]],
    flagged: set[date],
    direction: drift.Direction,
    memo: ChartMemo | None = None,
    *,
    limits: Limits | None = None,
    tail: tuple[date, float] | None = None,
) -> Chart:
    """The chart of one metric's series (oldest first): line, markers (all of them up to
    MAX_MARKERS runs, else only the flagged runs), the current bound and the current step, and
    the `limits` the metric is checked against. `tail`: the newest run's value when the series
    left it out (the same output evaluated again: no point of the drift series, but the chart
    ends at the newest run, as the article and the metrics file do). `memo`: shared by the
    charts of one build."""
    # the detector looks at no more than the newest `needed` points (the run's steps_for too)
    step = drift.detect(series[-drift.needed() :], direction) if series else None
    if tail is not None and series and tail[0] > series[-1][0]:
        series = [*series, tail]
    days = list(map(_first, series))
    values = list(map(_second, series))
    memo = memo if memo is not None else ChartMemo()
    placed = memo.days(days) if days else Xs([], [], [], ())
    at, xs = placed.at, placed.xs
    top = max(values, default=1.0)
    if step is not None:
        top = max(top, step.bound.high)
    low = limits.low if limits is not None and limits.low is not None else None
    high = limits.high if limits is not None and limits.high is not None else None
    if low is not None:
        top = max(top, low)
    if high is not None and high <= max(top, 1e-9) * _OFF_CHART:
        top = max(top, high)
    y_max = _nice(top * 1.05)

    def y_of(v: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * max(0.0, min(v / y_max, 1.0))

    scale = (BOTTOM - TOP) / y_max
    # values are never above y_max (it is rounded up from the largest); negative ones sit on 0
    y_text = list(map(memo.y_text(scale).__getitem__, values))
    if len(xs) <= (RIGHT - LEFT) / LINE_STEP:
        # each point's start in the path then its y, interleaved
        points = placed.pen + y_text
        points[::2], points[1::2] = placed.pen, y_text
        line = "".join(points)
    else:
        line = _line(xs, [BOTTOM - scale * v if v > 0 else BOTTOM for v in values])
    shown = range(len(days)) if len(days) <= MAX_MARKERS else _flagged_at(days, flagged)
    what = escape(title.lower())
    number = drift.number
    dots = []
    for i in shown:
        flag = days[i] in flagged
        y = y_text[i]
        # a date and a number hold nothing to escape
        dots.append(
            f'<path class="dot {"flag" if flag else "run"}" '
            f'd="{at[i][2]}{y[:-2] if y.endswith(".0") else y}{_DOT}"><title>{at[i][3]} · '
            f"{what}: {number(values[i])}{' · drift flagged' if flag else ''}</title></path>"
        )
    band = None
    step_line = None
    if step is not None:
        b = step.bound
        hi, lo = y_of(b.high), y_of(b.low)
        band = Band(
            _n(hi),
            _n(max(lo - hi, 0.5)),
            f"bound: {number(b.low)}–{number(b.high)} "
            f"(median {number(b.median)} of {b.points} runs ± max(2 IQR, 10 %))",
        )
        x = xs[days.index(step.since)]
        step_line = StepLine(
            _n(x),
            f"step {'the worse' if step.worse else 'the better'} way: {step.describe(key)}",
            "worse" if step.worse else "better",
        )
    ticks = memo.y_ticks.get(y_max)
    if ticks is None:  # (the y axis depends on its maximum only: charts share a few)
        ticks = tuple(Tick(_n(y_of(y_max * i / 4)), axis_number(y_max * i / 4)) for i in range(5))
        memo.y_ticks[y_max] = ticks
    lines = []
    if low is not None:
        lines.append(LimitLine(_n(y_of(low)), f"minimum {number(low)}", "low"))
    if high is not None:
        drawn = high <= y_max
        label = f"maximum {number(high)}" + ("" if drawn else " (above the chart)")
        lines.append(LimitLine(_n(y_of(high)) if drawn else None, label, "high"))
    if series:
        summary = (
            f"{title}: {len(series)} run{'s' * (len(series) != 1)}, latest "
            f"{number(values[-1])} on {at[-1][3]}"
        )
        if lines:
            summary += "; checked against " + " and ".join(line.label for line in lines)
        if step is not None:
            summary += (
                f"; step {'the worse' if step.worse else 'the better'} way: {step.describe(key)}"
            )
    else:
        summary = f"{title}: no data"
    return Chart(
        key=key,
        title=title,
        line=line if series else "",
        y_ticks=ticks,
        x_ticks=placed.ticks,
        summary=summary,
        markers=Markup("".join(dots)),
        band=band,
        step=step_line,
        limits=tuple(lines),
    )


def _flagged_at(days: Sequence[date], flagged: set[date]) -> list[int]:
    """The positions of the flagged days (a long chart marks only those)."""
    if not flagged:
        return []
    return [i for i, day in enumerate(days) if day in flagged]


def charts_for(
    skill: str,
    history: History,
    memo: ChartMemo | None = None,
    drifted: Mapping[date, str] | None = None,
    limits: Mapping[str, Limits] | None = None,
) -> tuple[Chart, ...]:
    """Each charted metric of `skill` (the built-ins first, then its numeric checks by label),
    each ending at the newest run with a value. `memo`: shared by the charts of one build;
    `drifted`: the cause of each run whose cause names a drift (read from the history when not
    given); `limits`: the bounds each metric is checked against (spec_limits)."""
    cols = history.columns(skill)
    if drifted is None:
        drifted = {d: c for d, c in zip(cols.days(), cols.causes(), strict=True) if "drift:" in c}
    labels = sorted(cols.numeric.labels())
    candidates = [m for m in metrics.BUILTIN if m not in UNCHARTED and m not in labels]
    charts = []
    names = [*candidates, *labels]
    for metric, series in zip(names, history.every_series(skill, names), strict=True):
        if not series:
            continue
        code = f"drift:{metric}"
        flagged = {day for day, cause in drifted.items() if code in cause}
        title = CHART_LABELS.get(metric, metric)
        direction = metrics.DIRECTIONS.get(metric, drift.Direction.EITHER)
        bounds = limits.get(metric) if limits is not None else None
        tail = _newest(cols, metric) if metric != metrics.SCORE else None
        charts.append(
            metric_chart(metric, title, series, flagged, direction, memo, limits=bounds, tail=tail)
        )
    return tuple(charts)


def _newest(cols: SkillColumns, metric: str) -> tuple[date, float] | None:
    """The newest run's value of `metric` and its day (None: no run has one)."""
    n = len(cols)
    last = cols.values(metric, n - 1, n) if n else []
    if last and last[0] is not None:  # (usually: one value read, not the whole column)
        return cols.day(n - 1), float(last[0])
    values = cols.values(metric)
    for i in range(len(values) - 1, -1, -1):
        if values[i] is not None:
            return cols.day(i), float(values[i])
    return None
