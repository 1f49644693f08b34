"""Pinning the clock: `--today` and `--now` make runs reproducible."""

from __future__ import annotations

from datetime import UTC, date, datetime

from aeon_evals.errors import UsageError

# The dates a run can be pinned to: a week before and after must stay representable, and a
# year-1 or year-9999 clock is a mistake, not a run.
EARLIEST = date(1970, 1, 1)
LATEST = date(9998, 12, 31)
_WINDOW = f"between {EARLIEST.isoformat()} and {LATEST.isoformat()}"


def parse_stamp(text: str | None) -> datetime | None:
    """A timestamp as state files write it (`2026-05-03T06:35:29Z`, an offset, or none meaning
    UTC), in UTC; None when it is missing or unreadable."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _in_window(option: str, text: str, day: date) -> None:
    if not EARLIEST <= day <= LATEST:
        raise UsageError(f"{option} {text!r} is out of range: the run's date must be {_WINDOW}")


def parse_now(text: str) -> datetime:
    """ISO-8601 → an aware UTC datetime (`Z` and offsets accepted; naive means UTC)."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--now {text!r} is not an ISO-8601 time such as 2026-05-31T06:00:00Z"
        ) from None
    try:
        moment = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        moment = value.replace(tzinfo=None)  # out of range in UTC: refused just below
    _in_window("--now", text, moment.date())
    return moment


def parse_day(text: str) -> date:
    """`--today YYYY-MM-DD` → a date within the window."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--today {text!r} is not a date YYYY-MM-DD") from None
    _in_window("--today", text, day)
    return day


def resolve(today: str | None, now: str | None) -> tuple[date, datetime]:
    """(today, now): `--now` alone sets both; `--today` alone means that day at 00:00 UTC."""
    if now is not None:
        moment = parse_now(now)
        return (parse_day(today) if today else moment.date()), moment
    if today is not None:
        day = parse_day(today)
        return day, datetime(day.year, day.month, day.day, tzinfo=UTC)
    moment = datetime.now(UTC).replace(microsecond=0)
    return moment.date(), moment
