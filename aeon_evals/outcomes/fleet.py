"""Fleet-level causes found in per-skill judgements: one error signature shared by several
skills (an expired key, a failing model), or every scheduled skill silent since the same day (a
stopped scheduler). Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date

from aeon_evals.outcomes.model import FleetFinding, FleetKind, Judgement, Verdict

SHARED_SKILLS = 3  # a signature in at least this many skills is one cause
SILENT_DAYS = 2  # every scheduled skill silent for at least this many days: a stopped scheduler
SILENT_SKILLS = 3  # … counted only in a fleet of at least this many scheduled skills


def _normalized(signature: str) -> str:
    return " ".join(signature.split()).lower()


def shared_signatures(
    judgements: Iterable[Judgement], *, min_skills: int = SHARED_SKILLS
) -> tuple[FleetFinding, ...]:
    """Signatures that at least `min_skills` failing or warned skills share (compared without
    case), each with the skills, sorted, and the earliest since-date among them; most skills
    first, then by signature."""
    groups: dict[str, list[Judgement]] = {}
    for j in judgements:
        if j.verdict in (Verdict.FAILING, Verdict.WARN) and j.signature:
            groups.setdefault(_normalized(j.signature), []).append(j)
    found = []
    for members in groups.values():
        skills = tuple(sorted({j.skill for j in members}))
        if len(skills) < min_skills:
            continue
        dates = [j.since for j in members if j.since is not None]
        since = min(dates) if dates else None
        shown = members[0].signature
        found.append(
            FleetFinding(
                FleetKind.SHARED_SIGNATURE,
                shown,
                skills,
                since,
                f"{shown} in {len(skills)} skills"
                + (f" since {since}" if since else "")
                + f": {', '.join(skills)} — one cause, not {len(skills)}",
            )
        )
    found.sort(key=lambda f: (-len(f.skills), _normalized(f.key)))
    return tuple(found)


def fleet_silent(
    last_runs: Mapping[str, date | None],
    today: date,
    *,
    min_days: int = SILENT_DAYS,
    min_skills: int = SILENT_SKILLS,
) -> FleetFinding | None:
    """A stopped scheduler: every skill of `last_runs` (the scheduled skills expected to run at
    least every `min_days` days, each with the day of its newest run, None for never) has been
    silent for at least `min_days` days, in a fleet of at least `min_skills`. The finding's key
    and since-date are the last day any of them ran; None when any ran since, when none ever
    ran (nothing to have stopped), or for a smaller fleet."""
    if len(last_runs) < min_skills:
        return None
    dates = [d for d in last_runs.values() if d is not None]
    if not dates:
        return None
    last = max(dates)
    if (today - last).days < min_days:
        return None
    skills = tuple(sorted(last_runs))
    return FleetFinding(
        FleetKind.FLEET_SILENT,
        last.isoformat(),
        skills,
        last,
        f"every scheduled skill silent since {last} ({(today - last).days} days): "
        f"{', '.join(skills)} — the scheduler or the harness stopped, not {len(skills)} skills",
    )


def fleet_findings(
    judgements: Iterable[Judgement],
    last_runs: Mapping[str, date | None],
    today: date,
) -> tuple[FleetFinding, ...]:
    """`fleet_silent` first (it explains everything), then `shared_signatures`."""
    silent = fleet_silent(last_runs, today)
    return ((silent,) if silent else ()) + shared_signatures(judgements)
