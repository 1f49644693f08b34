"""Expected cadence of a skill: the longest gap between consecutive fire times of its cron."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TypeVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

FALLBACK_DAYS = 14.0  # workflow_dispatch, reactive, unregistered, unparseable
_WINDOW_DAYS = 8 * 366  # covers leap years and every weekday/day-of-month alignment
_EPOCH = date(2024, 1, 1)


class CronError(ValueError):
    """Not a 5-field cron expression that GitHub Actions would accept."""


@dataclass(frozen=True)
class Fields:
    """A 5-field cron expression as croniter expands it: the minutes and hours (sorted), the days
    of the month, months and weekdays (0 = Sunday) it fires on, whether its day-of-month and
    weekday fields start with `*` (as written), and whether croniter reads the two day fields
    as "either one" (both restricted once expanded: Vixie cron's rule)."""

    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    doms: frozenset[int]
    months: frozenset[int]
    dows: frozenset[int]
    dom_star: bool
    dow_star: bool
    day_or: bool


# What each expression gave in this process, seeded from the run's cache (`seed`): a warm run
# neither imports croniter (with dateutil, about 30 ms) nor builds one per schedule.
_FIELDS: dict[str, Fields | str] = {}  # expression → its fields, or the CronError's message
_GAPS: dict[str, float | str] = {}  # expression → cron_gap_days, or the CronError's message
_GROWN: list[str] = []  # the expressions computed here (not seeded), in order


_T = TypeVar("_T")


def _memo(table: dict[str, _T | str], expr: str, compute: Callable[[str], _T]) -> _T:
    """`compute(expr)` kept in `table` (a CronError kept as its message, raised again)."""
    found = table.get(expr)
    if found is None:
        try:
            found = compute(expr)
        except CronError as exc:
            found = str(exc)
        table[expr] = found
        _GROWN.append(expr)
    if isinstance(found, str):
        raise CronError(found)
    return found


def _fields(expr: str) -> Fields:
    return _memo(_FIELDS, expr, _expand)


def _expand(expr: str) -> Fields:
    """The fields of `expr` as croniter expands them; CronError when GitHub would refuse it."""
    parts = expr.split()
    if len(parts) != 5:
        raise CronError(
            f"{expr!r} has {len(parts)} fields; "
            "a cron schedule has 5 (minute hour day month weekday)"
        )
    dom, dow = parts[2], parts[4]
    if re.search(r"[LW?#]", dom) or re.search(r"#|\?|(^|,)\d*L($|,)", dow):
        raise CronError(f"{expr!r} uses #, L, W or ?, which GitHub Actions cron does not support")
    from croniter import croniter

    if not croniter.is_valid(expr):
        raise CronError(f"{expr!r} is not a valid cron expression")
    expanded = croniter(expr).expanded
    full = (range(60), range(24), range(1, 32), range(1, 13), range(7))

    def values(i: int) -> list[int]:
        raw = expanded[i]
        if "*" in raw:
            return list(full[i])
        return [int(v) for v in raw if str(v).isdigit()]

    return Fields(
        minutes=tuple(sorted(values(0))),
        hours=tuple(sorted(values(1))),
        doms=frozenset(values(2)),
        months=frozenset(values(3)),
        dows=frozenset(d % 7 for d in values(4)),
        dom_star=parts[2].startswith("*"),
        dow_star=parts[4].startswith("*"),
        # croniter's own test (`_calc_next`): "1-31" expands to "*", "*/2" does not
        day_or="*" not in expanded[2] and "*" not in expanded[4],
    )


def validate(expr: str) -> None:
    """Raise CronError when `expr` is not a usable 5-field cron expression."""
    _fields(expr)


def cron_gap_days(expr: str) -> float:
    """Longest gap, in days, between two consecutive fire times (`0 8 * * 1,3` → 5.0).

    Minutes and hours do not depend on the day, so the gap is found from the set of fire days
    over eight years and the first/last fire time within a day; exact and cheap for any cron.
    """
    return _memo(_GAPS, expr, _gap)


def _gap(expr: str) -> float:
    f = _fields(expr)
    minutes, hours, doms, months, dows = f.minutes, f.hours, f.doms, f.months, f.dows
    dom_star, dow_star = f.dom_star, f.dow_star
    times = [h * 60 + m for h in hours for m in minutes]
    in_day = max((b - a for a, b in itertools.pairwise(times)), default=0)
    first, last = times[0], times[-1]

    def fires(day: date) -> bool:
        if day.month not in months:
            return False
        dom_ok = day.day in doms
        dow_ok = (day.isoweekday() % 7) in dows
        if dom_star or dow_star:  # Vixie cron: both restricted → either matches
            return dom_ok and dow_ok
        return dom_ok or dow_ok

    dom_field = expr.split()[2]
    if "/" in dom_field:
        # A day-of-month step (`*/20`, `5/10`) is not a star however it starts: croniter's own
        # fire days decide, so the cadence is the gap croniter (and GitHub) will really leave.
        window = _WINDOW_DAYS
        fire_days = _croniter_days(expr)
    else:
        # With every month and no day-of-month restriction the days repeat weekly: two weeks
        # show every gap. Otherwise month lengths and leap years matter: look at eight years.
        weekly = len(months) == 12 and dom_star
        window = 15 if weekly else _WINDOW_DAYS
        fire_days = [i for i in range(window) if fires(_EPOCH + timedelta(days=i))]
    if not fire_days:
        raise CronError(f"{expr!r} never fires")
    gaps = [(b - a) * 1440 - last + first for a, b in itertools.pairwise(fire_days)]
    if len(fire_days) == 1:
        gaps.append(window * 1440)
    return max([in_day, *gaps]) / 1440.0


def _croniter_days(expr: str) -> list[int]:
    """Days (counted from _EPOCH) on which croniter fires `expr`, over the eight-year window."""
    from croniter import croniter

    _minute, _hour, dom, month, dow = expr.split()
    start = datetime(_EPOCH.year, _EPOCH.month, _EPOCH.day) - timedelta(seconds=1)
    it = croniter(f"0 0 {dom} {month} {dow}", start)
    days: list[int] = []
    while True:
        fired: datetime = it.get_next(datetime)
        day = (fired.date() - _EPOCH).days
        if day >= _WINDOW_DAYS:
            return days
        days.append(day)


@functools.lru_cache(maxsize=4096)  # skills share schedules, and a run has one `now`
def previous_fire(expr: str, now: datetime) -> datetime | None:
    """The last time `expr` fired at or before `now` (None when it is not a cron, or never fires).

    As croniter's `get_prev` from `now` + 1 s says, found from the expanded fields by a walk back
    over the days (a croniter object costs about 0.3 ms to build, and a run asks for every
    schedule of the fleet); croniter itself answers when the walk finds no fire within eight
    years or `now` is not in UTC."""
    try:
        fields = _fields(expr)
    except CronError:
        return None
    found = _previous_fire(fields, now)
    if found is not None:
        return found
    from croniter import CroniterBadDateError, croniter

    try:
        result: datetime = croniter(expr, now + timedelta(seconds=1)).get_prev(datetime)
    except CroniterBadDateError:  # it never fires (`0 0 31 2 *`): no fire to judge before
        return None
    return result


def next_fire(expr: str, now: datetime) -> datetime | None:
    """The first time `expr` fires after `now` (None when it is not a cron, or never fires), as
    croniter's `get_next`, found from the expanded fields (croniter answers when the walk finds
    no fire within eight years or `now` is not in UTC)."""
    try:
        fields = _fields(expr)
    except CronError:
        return None
    if now.tzinfo is not None and now.utcoffset() == timedelta(0):
        day, minute = now.date(), now.hour * 60 + now.minute
        times = [h * 60 + m for h in fields.hours for m in fields.minutes]
        if _fires_on(fields, day):
            later = [t for t in times if t > minute]
            if later:
                return _at(day, later[0], now)
        for ahead in range(1, _WINDOW_DAYS + 1):
            future = day + timedelta(days=ahead)
            if _fires_on(fields, future):
                return _at(future, times[0], now)
    from croniter import CroniterBadDateError, croniter

    try:
        result: datetime = croniter(expr, now).get_next(datetime)
    except CroniterBadDateError:
        return None
    return result


def _fires_on(fields: Fields, day: date) -> bool:
    """Whether a cron with these fields fires on `day` (croniter's reading of the day fields)."""
    if day.month not in fields.months:
        return False
    dom_ok = day.day in fields.doms
    dow_ok = day.isoweekday() % 7 in fields.dows
    return (dom_ok or dow_ok) if fields.day_or else (dom_ok and dow_ok)


def _previous_fire(fields: Fields, now: datetime) -> datetime | None:
    """croniter's `get_prev` from `now` + 1 s: the last fire at or before the minute that holds
    `now` + 1 s - 1 µs (croniter steps back a microsecond and drops the seconds). None when
    `now` is not in UTC or no fire is found within eight years (croniter decides those)."""
    if now.tzinfo is None or now.utcoffset() != timedelta(0):
        return None
    at = now + timedelta(seconds=1, microseconds=-1)
    day, minute = at.date(), at.hour * 60 + at.minute
    times = [h * 60 + m for h in fields.hours for m in fields.minutes]
    if _fires_on(fields, day):
        earlier = [t for t in times if t <= minute]
        if earlier:
            return _at(day, earlier[-1], now)
    for back in range(1, _WINDOW_DAYS + 1):
        past = day - timedelta(days=back)
        if _fires_on(fields, past):
            return _at(past, times[-1], now)
    return None


def _at(day: date, minute: int, now: datetime) -> datetime:
    return datetime(day.year, day.month, day.day, minute // 60, minute % 60, tzinfo=now.tzinfo)


def parse_cadence(value: object) -> float | None:
    """An `expected_cadence` value → days: days, `"7d"`, `"12h"`, `daily`, `weekly`, or a cron."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):  # Infinity is refused as NaN is
        return float(value) if value > 0 and math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    named = {"hourly": 1 / 24, "daily": 1.0, "weekly": 7.0, "monthly": 31.0}
    if text in named:
        return named[text]
    for suffix, scale in (("d", 1.0), ("h", 1 / 24), ("w", 7.0)):
        if text.endswith(suffix) and text[:-1].replace(".", "", 1).isdigit():
            days = float(text[:-1]) * scale
            return days if days > 0 else None
    try:
        return cron_gap_days(value.strip())
    except CronError:
        return None


def expected_cadence_days(schedule: str | None, override: float | None) -> tuple[float, str]:
    """(days, how it was decided) for a skill; the fallback is 14 days."""
    if override is not None:
        return override, "expected_cadence"
    if schedule:
        try:
            return cron_gap_days(schedule.strip()), f"cron {schedule.strip()}"
        except CronError:
            pass
    return FALLBACK_DAYS, "fallback"


# --- the run's cache of expanded expressions (cron_cache.py reads and writes it) ---------------


def fields_to_json(fields: Fields) -> list[object]:
    """`Fields` as a JSON row: [minutes, hours, days, months, weekdays, dom *, dow *, day or]."""
    return [
        list(fields.minutes),
        list(fields.hours),
        sorted(fields.doms),
        sorted(fields.months),
        sorted(fields.dows),
        fields.dom_star,
        fields.dow_star,
        fields.day_or,
    ]


_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))


def fields_from_json(row: object) -> Fields | None:
    """The `Fields` of a JSON row, None for anything `fields_to_json` does not write."""
    if not (isinstance(row, list) and len(row) == 8):
        return None
    lists, flags = row[:5], row[5:]
    for values, (low, high) in zip(lists, _RANGES, strict=True):
        if not (
            isinstance(values, list)
            and values
            and all(type(v) is int and low <= v <= high for v in values)
            and values == sorted(set(values))
        ):
            return None
    if not all(type(flag) is bool for flag in flags):
        return None
    return Fields(
        minutes=tuple(lists[0]),
        hours=tuple(lists[1]),
        doms=frozenset(lists[2]),
        months=frozenset(lists[3]),
        dows=frozenset(lists[4]),
        dom_star=flags[0],
        dow_star=flags[1],
        day_or=flags[2],
    )


def seed(fields: Mapping[str, Fields | str], gaps: Mapping[str, float | str]) -> None:
    """Take what a cache knew of some expressions (their fields or CronError message, their
    gap): `_fields` and `cron_gap_days` then answer them without croniter."""
    _FIELDS.update(fields)
    _GAPS.update(gaps)


def forget() -> None:
    """Drop everything this process knows of its expressions (tests; a long-lived caller)."""
    _FIELDS.clear()
    _GAPS.clear()
    _GROWN.clear()
    previous_fire.cache_clear()


def learned() -> tuple[dict[str, Fields | str], dict[str, float | str]] | None:
    """Everything this process knows of its expressions, when it computed some itself (the
    cache is then worth writing again); None when all came from `seed`."""
    if not _GROWN:
        return None
    return dict(_FIELDS), dict(_GAPS)
