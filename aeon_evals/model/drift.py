"""Drift detection on one metric's history: a sustained step beyond a robust bound (pure maths).

The bound is the median of the recent history ± K interquartile ranges, never narrower than a
floor of FLOOR × |median| (a constant series has no spread to scale by). A step is flagged when
the last CONFIRM runs are all beyond the bound on the same side, and dated at the first run of
the step; after SETTLE runs at the new level it is the new normal. The reasoning and the anchors
(asv, Bencher, CodSpeed) are in docs/metrics.md.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from aeon_evals.model import DriftMode, SkillResult

MIN_POINTS = 6  # history before a step needed to judge it
WINDOW = 30  # at most this many runs before the step make the baseline
K = 2.0  # the bound's half-width in interquartile ranges: ±2.7 σ for normal noise
FLOOR = 0.10  # …and at least 10 % of the median (CodSpeed's default threshold)
CONFIRM = 2  # runs beyond the bound in a row before a step is flagged (one odd run never is)
SETTLE = 6  # runs at a new level after which it is the baseline: the flag clears by itself
EPSILON = 1e-9  # a floor above zero for a series that was always exactly 0


class Direction(enum.Enum):
    """Which way a metric gets better: a move that way is shown, never flagged."""

    HIGHER_BETTER = "higher"  # words, bytes, quality: a drop is the regression
    LOWER_BETTER = "lower"  # output age
    EITHER = "either"  # a numeric check's value: any step is a change to look at


@dataclass(frozen=True)
class Params:
    """The detector's knobs, with the documented defaults."""

    min_points: int = MIN_POINTS
    window: int = WINDOW
    k: float = K
    floor: float = FLOOR
    confirm: int = CONFIRM
    settle: int = SETTLE


DEFAULT = Params()


@dataclass(frozen=True)
class Bound:
    """The robust bound of a baseline: median ± half."""

    median: float
    low: float
    high: float
    points: int  # how many runs made the baseline


@dataclass(frozen=True)
class Step:
    """A sustained step of one metric: where it started, where it is, against what."""

    since: date  # the first run at the new level
    value: float  # the latest value
    bound: Bound
    runs: int  # runs at the new level so far (CONFIRM … SETTLE)
    worse: bool  # a regression (flagged); False: an improvement (shown only)

    def describe(self, metric: str) -> str:
        """`words 210 vs 570 (median of 8 runs), since 2026-06-14`."""
        return (
            f"{metric} {number(self.value)} vs {number(self.bound.median)} "
            f"(median of {self.bound.points} runs), since {self.since.isoformat()}"
        )


def number(value: float) -> str:
    """1,234 or 3.25: how the article writes a metric's value."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), on sorted values."""
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def bound(values: Sequence[float], params: Params = DEFAULT) -> Bound:
    """median ± max(k·IQR, floor·|median|, EPSILON) of `values` (at least one)."""
    ordered = sorted(values)
    median = _quantile(ordered, 0.5)
    iqr = _quantile(ordered, 0.75) - _quantile(ordered, 0.25)
    half = max(params.k * iqr, params.floor * abs(median), EPSILON)
    return Bound(median, median - half, median + half, len(values))


def _side(value: float, b: Bound) -> int:
    """+1 above the bound, -1 below it, 0 inside."""
    return 1 if value > b.high else (-1 if value < b.low else 0)


def _run_beyond(values: Sequence[float], length: int, params: Params) -> tuple[int, Bound] | None:
    """When the last `length` values are all beyond the bound of the values before them (on one
    side, with enough history): (side, bound)."""
    start = len(values) - length
    base = values[max(0, start - params.window) : start]
    if len(base) < params.min_points:
        return None
    b = bound(base, params)
    sides = {_side(v, b) for v in values[start:]}
    if len(sides) != 1 or 0 in sides:
        return None
    return sides.pop(), b


def needed(params: Params = DEFAULT) -> int:
    """How many of a series' newest points `detect` looks at: the baseline window before a step
    of at most `settle` + 1 runs (longer ones are settled). `detect` on that tail of a series
    gives what it gives on the whole series."""
    return params.window + max(params.confirm, params.settle + 1)


def detect(
    series: Sequence[tuple[date, float]],
    direction: Direction = Direction.EITHER,
    params: Params = DEFAULT,
) -> Step | None:
    """The step the newest runs of `series` (oldest first, the current run last) are on, or None.

    None when fewer than `min_points` runs precede the last `confirm`, when the last `confirm`
    runs are not all beyond the bound on one side (a single outlier), or when the new level has
    held for more than `settle` runs (it is the baseline now). The step is dated at its first
    run: the longest trailing run that is beyond the bound of the history before it."""
    values = [v for _, v in series]
    found = _run_beyond(values, params.confirm, params)
    if found is None:
        return None
    side, b = found
    length = params.confirm
    while length < len(values):
        if length > params.settle:
            return None  # settled: however long it goes on, it is the new normal
        longer = _run_beyond(values, length + 1, params)
        if longer is None or longer[0] != side:
            break
        length, b = length + 1, longer[1]
    if length > params.settle:
        return None
    worse = (
        True
        if direction is Direction.EITHER
        else (side < 0) == (direction is Direction.HIGHER_BETTER)
    )
    return Step(series[-length][0], values[-1], b, length, worse)


# --------------------------------------------------------------------------------------------
# The `drift` field of a spec in evals.json.

BUILTIN_METRICS = ("words", "bytes", "age_days", "quality", "score")


def parse_drift_spec(
    value: object, labels: Sequence[str], where: str, problems: list[tuple[str, str, str]]
) -> tuple[tuple[str, DriftMode], ...]:
    """A spec's `drift` (`"off"`, or `{"words": "fail", "dollar amount": "off"}`) as (metric,
    mode) pairs, "*" for every metric; `labels` are the spec's numeric check labels. Problems
    are appended as (where, message, "error" | "warning"): a bad mode is an error, an unknown
    metric a warning (ignored)."""
    modes = '"warn", "fail" or "off"'
    if value is None:
        return ()
    if isinstance(value, str):
        if value in DriftMode._value2member_map_:
            return (("*", DriftMode(value)),)
        problems.append(
            (where, f"expected {modes} or an object of metrics, got {value!r}", "error")
        )
        return ()
    if not isinstance(value, dict):
        problems.append(
            (
                where,
                f"expected {modes} or an object of metrics, got {type(value).__name__}",
                "error",
            )
        )
        return ()
    known = (*BUILTIN_METRICS, *labels, "*")
    out: list[tuple[str, DriftMode]] = []
    for metric, mode in value.items():
        at = f"{where}.{metric}"
        if not isinstance(mode, str) or mode not in DriftMode._value2member_map_:
            problems.append((at, f"expected {modes}, got {mode!r}", "error"))
            continue
        if metric not in known:
            choices = ", ".join(known[:-1])
            problems.append((at, f"unknown metric (ignored); one of {choices}", "warning"))
            continue
        out.append((str(metric), DriftMode(mode)))
    return tuple(out)


def drift_action(result: SkillResult) -> str | None:
    """The Action Queue item for a row whose worst finding is a drift, or None."""
    head = result.head
    if head is None or not head.code.startswith("drift:"):
        return None
    return f"Investigate {result.skill} — drift: {head.detail}"
