"""Fleet-level causes (issue #32.5): when one cause explains many failures at once — every
scheduled skill silent since the same day (a stopped scheduler; GitHub disables scheduled
workflows after 60 days without activity), or one error signature in many skills (one expired
key, one failing model) — the article leads with one finding, one issue names the affected
skills, and no issue is filed per skill for that cause. Pure: the judgements and results are
passed in."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from aeon_evals.checks.skill import scheduled
from aeon_evals.clock import parse_stamp
from aeon_evals.issues import IssueRequest
from aeon_evals.issues.files import FLEET
from aeon_evals.load import cadence
from aeon_evals.load.outputs import name_date
from aeon_evals.load.registry import Registry
from aeon_evals.model import CronState, DiffLabel, SkillResult, Status
from aeon_evals.outcomes import FleetFinding, FleetKind, Judgement, Verdict
from aeon_evals.outcomes.fleet import SILENT_DAYS, fleet_silent, shared_signatures
from aeon_evals.report import diff as report

_CATEGORY = {
    FleetKind.SHARED_SIGNATURE: "api-failure",
    FleetKind.FLEET_SILENT: "missing-secret-or-cron",
}
_FIX = {
    FleetKind.SHARED_SIGNATURE: "fix the one thing they share (a key, a token, the model or its "
    "provider), then dispatch one of them to see it pass",
    FleetKind.FLEET_SILENT: "check that the scheduler runs (GitHub disables scheduled workflows "
    "after 60 days without a commit: Actions → the workflow → Enable), then the Aeon workflow's "
    "own recent runs: their logs, the model and its key",
}


@dataclass(frozen=True)
class Fleet:
    """Today's fleet findings, and for each skill whose failure one of them explains, the root
    cause of that finding's issue (`fleet:<kind>:<key>`)."""

    findings: tuple[FleetFinding, ...] = ()
    explained: dict[str, str] = field(default_factory=dict)

    def root_cause(self, finding: FleetFinding) -> str:
        return f"{FLEET}{finding.kind.value}:{finding.key}"

    def keep(self) -> frozenset[str]:
        """The root causes whose open issues stay open."""
        return frozenset(self.root_cause(f) for f in self.findings)


def fleet_of(
    results: list[SkillResult],
    judged: dict[str, Judgement],
    registry: Registry,
    cron: Mapping[str, CronState],
    today: date,
) -> Fleet:
    """The findings over this run's results: a stopped scheduler first (or, when cron-state
    records runs since, a harness whose runs all fail before they write), then error signatures
    shared by several skills, and which skills each explains."""
    by_skill = {r.skill: r for r in results}
    last_runs = {
        skill: _last_seen(result, judged.get(skill), today)
        for skill, result in by_skill.items()
        if result.enabled and _frequent(registry, skill)
    }
    silent = fleet_silent(last_runs, today)
    if silent is not None:
        silent = _dispatched_since(silent, cron, today)
    errors = [j for j in judged.values() if j.verdict is Verdict.FAILING and _errored(j)]
    findings = ((silent,) if silent else ()) + shared_signatures(errors)
    fleet = Fleet(findings)
    explained: dict[str, str] = {}
    for finding in findings:
        for skill in finding.skills:
            result = by_skill.get(skill)
            if result is not None and skill not in explained and _explains(finding, result):
                explained[skill] = fleet.root_cause(finding)
    return Fleet(findings, explained)


def _dispatched_since(
    finding: FleetFinding, cron: Mapping[str, CronState], today: date
) -> FleetFinding:
    """A silent fleet whose cron-state records runs after it fell silent: the scheduler runs,
    the runs write nothing (a harness, a model or a key failing for all of them)."""
    stamps = [
        t
        for skill in finding.skills
        if (state := cron.get(skill)) is not None
        for t in (
            parse_stamp(state.last_dispatch),
            parse_stamp(state.last_success),
            parse_stamp(state.last_failed),
        )
        if t is not None and finding.since is not None and finding.since < t.date() <= today
    ]
    if not stamps:
        return finding
    newest = max(stamps)
    days = (today - finding.since).days if finding.since else 0
    return dataclasses.replace(
        finding,
        message=f"every scheduled skill silent since {finding.since} ({days} days), while "
        f"cron-state records runs since (the newest {newest:%Y-%m-%d %H:%M} UTC): the runs fail "
        f"before they write anything — the harness, its model or its key, not "
        f"{len(finding.skills)} skills",
    )


def _errored(found: Judgement) -> bool:
    return found.cause.startswith("run_error:")


def _frequent(registry: Registry, skill: str) -> bool:
    """An enabled skill with a cron that fires at least every SILENT_DAYS days: one silent
    that long has missed a run."""
    reg = registry.skills.get(skill)
    if not scheduled(reg):
        return False
    assert reg is not None and reg.schedule is not None
    days, _ = cadence.expected_cadence_days(reg.schedule, None)
    return days <= SILENT_DAYS


def _last_seen(result: SkillResult, found: Judgement | None, today: date) -> date | None:
    """The day of the skill's newest run or dated output, None for neither. An age read from a
    file's mtime dates the checkout, not the run: it is no evidence."""
    seen: list[date] = []
    if found is not None and found.newest is not None:
        seen.append(found.newest.day)
    out = result.output
    dated = name_date(out.path) if out is not None else None
    if dated is not None:
        seen.append(dated)
    elif out is not None and out.age_days is not None and out.age_source != "mtime":
        seen.append(today - timedelta(days=int(max(out.age_days, 0))))
    return max(seen, default=None)


def _explains(finding: FleetFinding, result: SkillResult) -> bool:
    """Whether `finding` is the cause of `result`'s failure: for a shared signature, the skill's
    runs report it; for a silent fleet, the skill fails at all."""
    if not result.status.failing:
        return False
    if finding.kind is FleetKind.FLEET_SILENT:
        return True
    wanted = f"run_error:{finding.key}".lower()
    return any(c.code.lower() == wanted for c in result.causes)


def requests(fleet: Fleet, rows: list[report.Row]) -> list[IssueRequest]:
    """One issue request per finding that explains a counted, failing row."""
    out: list[IssueRequest] = []
    for finding in fleet.findings:
        cause = fleet.root_cause(finding)
        members = [
            r
            for r in rows
            if r.counts
            and not r.reported_only
            and r.status is not None
            and r.status.failing
            and fleet.explained.get(r.skill) == cause
        ]
        if not members:
            continue
        out.append(
            IssueRequest(
                skill=cause,
                label=DiffLabel.NEW_FAIL,
                status=Status.FAIL,
                root_cause=cause,
                detail=finding.message,
                output_path=None,
                fixes=(_FIX[finding.kind],),
                affected=tuple(sorted(r.skill for r in members)),
                title=_title(finding, len(members)),
                category=_CATEGORY[finding.kind],
            )
        )
    return out


def _title(finding: FleetFinding, count: int) -> str:
    if finding.kind is FleetKind.FLEET_SILENT:
        return f"every scheduled skill silent since {finding.key} ({count} skills)"
    return f"{finding.key} in {count} skills: one cause"
