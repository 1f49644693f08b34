"""When a skill's run is due or in progress (its last scheduled fire within the grace, or a
dispatch in cron-state with no result yet: it is judged as it stood just before), and whether an
on-demand skill ran at all."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from aeon_evals.checks.latest import newest_entry
from aeon_evals.clock import parse_stamp
from aeon_evals.load import cadence
from aeon_evals.load.outputs import Outputs
from aeon_evals.model import CronState, Registration, Spec

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


ON_DEMAND = frozenset({"workflow_dispatch", "reactive"})


def on_demand(spec: Spec, registration: Registration | None) -> bool:
    """A skill that runs only when dispatched (`workflow_dispatch`, `reactive`) and whose spec sets
    no `expected_cadence` (an operator who sets one expects a run that often)."""
    schedule = registration.schedule if registration else None
    return (
        schedule is not None
        and schedule.strip() in ON_DEMAND
        and spec.expected_cadence_days is None
    )


@dataclass(frozen=True)
class OnDemandRun:
    """What shows that an on-demand skill ran inside the lookback."""

    dispatched: datetime | None  # the newest dispatch, success or failure cron-state records
    output: str | None  # the newest output dated inside the lookback (a log holding its entry)
    since: datetime


def on_demand_run(
    spec: Spec,
    files: tuple[str, ...],
    outputs: Outputs,
    cron: CronState | None,
    now: datetime,
    cadences: float,
) -> OnDemandRun:
    """An on-demand skill's evidence of a run within `cadences` times its cadence (14 days
    unless set)."""
    days, _ = cadence.expected_cadence_days(None, None)
    since = now - timedelta(days=cadences * days)
    stamps = [
        t
        for t in (
            parse_stamp(cron.last_dispatch if cron else None),
            parse_stamp(cron.last_success if cron else None),
            parse_stamp(cron.last_failed if cron else None),
        )
        if t is not None and t >= since
    ]
    dispatched = max(stamps, default=None)
    output: str | None = None
    if spec.output_pattern.startswith("memory/logs/"):
        output = newest_entry(spec, files, outputs, since.date())
    else:
        for rel in reversed(files):
            age, source = outputs.age(rel, now)
            if source in ("filename", "git") and age is not None and age <= cadences * days:
                output = rel
                break
    return OnDemandRun(dispatched, output, since)
