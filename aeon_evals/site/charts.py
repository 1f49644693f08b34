"""Chart geometry for the dashboard and the skill pages: one Chart shape, SVG path data from
plain points, no I/O, no templates."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from markupsafe import Markup

# Chart geometry (viewBox units): drawn at 480 px (docs/dashboard.md), so 12-unit text is 12 px,
# and small enough that it stays legible when scaled to a phone. LEFT leaves room for a y label
# of five characters ("37.5k", "7,500": axis_number) right-aligned 6 units before the plot.
WIDTH, HEIGHT = 480, 210
LEFT, RIGHT, TOP, BOTTOM = 48, 468, 14, 178
RADIUS = 5.0


@dataclass(frozen=True)
class Point:
    """One run on a chart, as plain data: its day and value (None: unknown, the line breaks) and
    how its marker looks and links."""

    day: date
    value: float | None
    shape: str  # circle, ring, tri-up, tri-down, diamond, square, cross
    css: str
    caption: str  # what the hover text says about the run besides its day and value (its verdict)
    href: str


@dataclass(frozen=True)
class ChartPoint:
    """One drawn marker: position, SVG path data, css class, hover text and link."""

    x: str
    y: str
    marker: str  # SVG path data for the marker
    css: str
    title: str
    href: str


@dataclass(frozen=True)
class Tick:
    """An axis label at a position along the axis (viewBox units, as text)."""

    pos: str
    label: str


NO_MARKUP = Markup("")


@dataclass(frozen=True)
class Frame:
    """A chart's viewBox and its plot area inside it (viewBox units)."""

    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = RIGHT
    top: int = TOP
    bottom: int = BOTTOM


FRAME = Frame()


@dataclass(frozen=True)
class Band:
    """A shaded range behind the line (a metric's drift bound), in viewBox units."""

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
class LimitLine:
    """A bound a metric is checked against (a spec's `min_words`, a numeric check's `min` or
    `max`, the quality floor): a dashed line at `y`, or, when `y` is None (far above the values:
    `max: 100000` over values near 40), named at the top of the chart as off it."""

    y: str | None
    label: str  # "minimum 200", "maximum 100,000 (above the chart)"
    css: str  # "low" or "high"


@dataclass(frozen=True)
class Chart:
    """An inline SVG line chart over runs (geometry precomputed, the template only draws): the
    dashboard's trend charts (linked `points`) and the skill pages' metric charts (`markers`
    drawn already, a `band` and a `step`)."""

    key: str
    title: str
    line: str  # SVG path data ("" when fewer than one point)
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    summary: str  # a text equivalent for screen readers and JS-less text browsers
    points: tuple[ChartPoint, ...] = ()  # linked markers, drawn by the template
    markers: Markup = NO_MARKUP  # markers drawn already (a metric chart's runs)
    band: Band | None = None
    step: StepLine | None = None
    frame: Frame = FRAME
    limits: tuple[LimitLine, ...] = ()  # the bounds the metric is checked against

    # the frame's numbers under the names the templates use
    @property
    def width(self) -> int:
        return self.frame.width

    @property
    def height(self) -> int:
        return self.frame.height

    @property
    def plot_left(self) -> int:
        return self.frame.left

    @property
    def plot_right(self) -> int:
        return self.frame.right

    @property
    def plot_top(self) -> int:
        return self.frame.top

    @property
    def plot_bottom(self) -> int:
        return self.frame.bottom


def fmt_pct(value: float) -> str:
    """A value as the dashboard prints it: whole numbers bare, others with one decimal."""
    rounded = round(value)
    return str(rounded) if abs(value - rounded) < 0.05 else f"{value:.1f}"


def axis_number(value: float) -> str:
    """A y-axis label of at most five characters: 7,500 · 12.5k · 100k · 2.5M · 0.25."""
    magnitude = abs(value)
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e4, "k")):
        if magnitude >= size:
            short = f"{value / (size if suffix != 'k' else 1e3):.1f}".removesuffix(".0")
            return f"{short}{suffix}"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def marker(shape: str, x: float, y: float, r: float = RADIUS) -> str:
    """SVG path data for a marker of `shape` centred on (x, y)."""
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
        return (
            f"M{n(x - s)} {n(y - s)}L{n(x + s)} {n(y + s)}"
            f"M{n(x + s)} {n(y - s)}L{n(x - s)} {n(y + s)}"
        )
    # circle / ring: two arcs
    return f"M{n(x - r)} {n(y)}a{n(r)} {n(r)} 0 1 0 {n(2 * r)} 0a{n(r)} {n(r)} 0 1 0 {n(-2 * r)} 0Z"


def x_positions(days: Sequence[date]) -> list[float]:
    """Each day's x: proportional to time between the first and the last day (oldest first)."""
    if not days:
        return []
    first, last = days[0], days[-1]
    span = (last - first).days
    width = RIGHT - LEFT
    if span == 0:
        return [LEFT + width / 2 for _ in days]
    return [LEFT + width * (day - first).days / span for day in days]


def x_ticks(days: Sequence[date], xs: Sequence[float], most: int = 4) -> tuple[Tick, ...]:
    """Date labels for the first and last day and up to `most - 2` in between, never crowded.

    Labels are about 70 units wide (82 at the 14 px a phone draws them at); the first is
    anchored at its start and the last at its end, so a middle label needs 125 units to either
    end and 95 to its neighbour.
    """
    if not days:
        return ()
    last = len(days) - 1
    if last == 0:
        return (Tick(_num(xs[0]), days[0].isoformat()),)
    chosen = [0]
    for k in range(1, most - 1):
        target = LEFT + (RIGHT - LEFT) * k / (most - 1)
        i = _nearest(xs, target)
        room = 125 if chosen[-1] == 0 else 95
        if i not in (0, last) and xs[i] - xs[chosen[-1]] >= room and xs[last] - xs[i] >= 125:
            chosen.append(i)
    chosen.append(last)
    return tuple(Tick(_num(xs[i]), days[i].isoformat()) for i in chosen)


def _nearest(xs: Sequence[float], target: float) -> int:
    """The index of the x nearest `target` in ascending `xs`, the first one on a tie."""
    right = bisect_left(xs, target)
    if right == 0:
        return 0
    left = bisect_left(xs, xs[right - 1])  # the first of equal x
    if right == len(xs) or target - xs[left] <= xs[right] - target:
        return left
    return right


def trend_chart(
    points: Sequence[Point], *, key: str, title: str, y_max: float, y_step: float, unit: str
) -> Chart:
    """A line chart of `points` (oldest first); each point's marker is drawn as it asks."""
    days = [p.day for p in points]
    xs = x_positions(days)
    height = BOTTOM - TOP

    def y_of(v: float) -> float:
        return BOTTOM - height * (v / y_max if y_max else 0.0)

    line: list[str] = []
    pen_down = False
    drawn: list[ChartPoint] = []
    for point, x in zip(points, xs, strict=True):
        value = point.value
        if value is None:
            pen_down = False
            continue
        y = y_of(value)
        line.append(f"{'L' if pen_down else 'M'}{_num(x)} {_num(y)}")
        pen_down = True
        shown = f"{fmt_pct(value)}{unit}"
        drawn.append(
            ChartPoint(
                x=_num(x),
                y=_num(y),
                marker=marker(point.shape, x, y),
                css=point.css,
                title=f"{point.day.isoformat()} · {point.caption} · {title.lower()}: {shown}",
                href=point.href,
            )
        )
    ticks = []
    steps = round(y_max / y_step) if y_step else 0
    for i in range(steps + 1):
        v = i * y_step
        ticks.append(Tick(_num(y_of(v)), f"{fmt_pct(v)}{unit}"))
    known = [p for p in points if p.value is not None]
    if known:
        last_value = known[-1].value
        assert last_value is not None
        summary = (
            f"{title}: {len(known)} run{'s' * (len(known) != 1)}, "
            f"latest {fmt_pct(last_value)}{unit} "
            f"on {known[-1].day.isoformat()}"
        )
    else:
        summary = f"{title}: no data"
    return Chart(
        key=key,
        title=title,
        line="".join(line),
        points=tuple(drawn),
        y_ticks=tuple(ticks),
        x_ticks=x_ticks(days, xs),
        summary=summary,
    )
