"""Pinning the clock: `--today` and `--now` make runs reproducible."""

from __future__ import annotations

from datetime import UTC, date, datetime

from aeon_evals.errors import UsageError


def parse_now(text: str) -> datetime:
    """ISO-8601 → an aware UTC datetime (`Z` and offsets accepted; naive means UTC)."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--now {text!r} is not an ISO-8601 time such as 2026-05-31T06:00:00Z"
        ) from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--today {text!r} is not a date YYYY-MM-DD") from None


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
