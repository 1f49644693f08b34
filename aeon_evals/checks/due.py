"""When a skill's run is due or in progress: its last scheduled fire within the grace, or a
dispatch in cron-state with no result yet. Such a skill is judged as it stood just before."""

from __future__ import annotations

from datetime import datetime, timedelta

from aeon_evals.clock import parse_stamp
from aeon_evals.load import cadence
from aeon_evals.model import CronState

# A dispatch with no result after this long is a run that died, not one in progress (GitHub
# Actions cancels a job after 6 hours).
IN_PROGRESS_LIMIT = timedelta(hours=6)


def run_due(
    schedule: str | None, cron: CronState | None, now: datetime, grace: timedelta
) -> tuple[datetime, str] | None:
    """When the skill's run is in progress (cron-state shows a dispatch after its last result,
    within IN_PROGRESS_LIMIT) or just due (its last scheduled fire is within `grace`): the moment
    to judge it at instead (just before that run started) and the row's note. Else None."""
    if cron is not None and (dispatched := parse_stamp(cron.last_dispatch)) is not None:
        results = [t for t in (parse_stamp(cron.last_success), parse_stamp(cron.last_failed)) if t]
        if (
            dispatched <= now
            and now - dispatched <= IN_PROGRESS_LIMIT
            and all(dispatched > t for t in results)
        ):
            # a scheduled run is dispatched a little after its fire: judge as before the fire
            fired = cadence.previous_fire(schedule, dispatched) if schedule else None
            return min(dispatched, fired or dispatched) - timedelta(seconds=1), (
                f"run due/in progress: dispatched {dispatched:%Y-%m-%d %H:%M} UTC with no result "
                "in cron-state yet; the previous output is judged"
            )
    if schedule and grace > timedelta(0):
        fired = cadence.previous_fire(schedule, now)
        if fired is not None and now - fired <= grace:
            return fired - timedelta(seconds=1), (
                f"run due/in progress: scheduled {fired:%Y-%m-%d %H:%M} UTC, within the "
                f"{_hours(grace)} grace; the previous output is judged"
            )
    return None


def _hours(value: timedelta) -> str:
    minutes = value.total_seconds() / 60
    return f"{minutes / 60:g} h" if minutes >= 60 else f"{minutes:g} min"
