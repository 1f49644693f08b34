"""The run's issue stage: which rows file or close an issue, the plan applied, the rows linked."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from pathlib import Path

from aeon_evals.contracts.scope import Scope, broken_line
from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import check_writable
from aeon_evals.fs.write import os_error_line, write_error
from aeon_evals.issues import (
    DETECTOR,
    ISSUES_DIR,
    IssueFile,
    IssueOutcome,
    IssuePlan,
    IssueRef,
    IssueRequest,
    IssueState,
    apply_plan,
    plan_issues,
    read_state,
)
from aeon_evals.issues.rollback import Undo, sweep
from aeon_evals.model import DiffLabel, SkillResult
from aeon_evals.report import diff as report
from aeon_evals.report.fixes import known_fixes
from aeon_evals.run.fleet import Fleet
from aeon_evals.run.fleet import requests as fleet_requests
from aeon_evals.text.controls import one_line


def keep_issues(
    root: Path,
    rows: list[report.Row],
    scope: Scope,
    *,
    now: datetime,
    today: date,
    article: str,
    undo: Undo | None,
    fleet: Fleet | None = None,
) -> tuple[IssueOutcome, list[report.Row]]:
    """File issues for new failures and close those of fixed skills (only planned without
    `undo`: a dry run); returns the outcome and the rows linked to their open issues. The
    writes are probed first and recorded in `undo` (a later failure of the run puts them back);
    a refused write changes no issue, and the outcome says what was not written. With
    `fleet` (a full run's findings), one issue per finding stands for the failures it explains,
    and a finding's issue no longer holding is closed. An unusable issues folder skips the
    stage with a warning, never the run."""
    to_close = [r.skill for r in rows if r.label is DiffLabel.FIXED and not r.reported_only]
    failing = [
        r.skill for r in rows if r.status is not None and r.status.failing and not r.reported_only
    ]
    try:
        check_writable(root, root / "memory/issues/INDEX.md", what="issues folder")
        state = read_state(root)
        plan = plan_issues(
            state,
            issue_requests(rows, scope, fleet),
            to_close,
            now=now,
            today=today,
            article_path=article,
            skills=failing,
            fleet_keep=fleet.keep() if fleet is not None else None,
        )
        issues = plan.outcome
        if undo is not None:  # a run that writes: probe the writes, then make them
            sweep(state.issues_dir)
            refused = plan.probe()
            if refused is None:
                try:
                    issues = apply_plan(plan, undo)
                except OSError as exc:  # put back by apply_plan: nothing changed
                    refused = write_error(exc, exc.filename or root / ISSUES_DIR, root=root)
            if refused is not None:
                issues = _unwritten(state, plan, refused, failing, now=now, today=today)
    except (OSError, EvalsError) as exc:
        reason = exc.line() if isinstance(exc, EvalsError) else os_error_line(exc, root=root)
        issues = IssueOutcome(warnings=(f"memory/issues: issue keeping skipped: {reason}",))
    known = {i.id: i for i in issues.known}
    return issues, [_linked(r, issues, known) for r in rows]


def _unwritten(
    state: IssueState,
    plan: IssuePlan,
    reason: str,
    failing: list[str],
    *,
    now: datetime,
    today: date,
) -> IssueOutcome:
    """The outcome of a stage that wrote nothing: the rows linked to the issues as they stand,
    and what was not written."""
    standing = plan_issues(state, [], [], now=now, today=today, article_path="", skills=failing)
    return dataclasses.replace(
        standing.outcome,
        warnings=(*plan.outcome.warnings, f"{ISSUES_DIR}: issues not written: {reason}"),
        unwritten=reason,
        would_file=plan.outcome.filed,
        would_close=plan.outcome.closed,
    )


def _linked(row: report.Row, issues: IssueOutcome, known: dict[str, IssueFile]) -> report.Row:
    """The row with its open issue, its failing-since's issue and its "see also" note; the row
    itself when none of them is new (most rows of a fleet: no copy). An issue carried from the
    previous article that does not stand for this skill (a broad issue of another detector) is
    dropped: the row's issue is the one filed for its failure."""
    skill = row.skill

    def own(carried: str | None) -> str | None:
        found = issues.open_by_skill.get(skill)
        if found is None and carried in known and not known[carried].covers(skill):
            return None
        return found or carried

    also = issues.see_also.get(skill, ())
    issue = own(row.issue)
    since = row.failing_since
    if since is not None and own(since.issue) != since.issue:
        since = dataclasses.replace(since, issue=own(since.issue))
    if not also and issue == row.issue and since is row.failing_since:
        return row
    return dataclasses.replace(
        row, result=_see_also(row.result, also), issue=issue, failing_since=since
    )


def issue_requests(
    rows: list[report.Row], scope: Scope | None = None, fleet: Fleet | None = None
) -> list[IssueRequest]:
    """What to file: one request per counted row that newly fails (FAIL or QUALITY_DEGRADED),
    but for the failures a fleet finding explains: one request per finding instead."""
    requests = fleet_requests(fleet, rows) if fleet is not None else []
    explained = fleet.explained if fleet is not None else {}
    for row in rows:
        result = row.result
        if (
            result is None
            or not row.counts
            or row.label not in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED)
            or row.skill in explained
        ):
            continue
        head = result.head
        inferred = scope.inferred.get(result.skill) if scope is not None else None
        spec_note = (
            "the spec is inferred from "
            + broken_line(inferred, head.code if head else "")
            + ", the skill has no evals.json entry"
            if inferred is not None and result.spec_source is not None
            else ""
        )
        requests.append(
            IssueRequest(
                skill=result.skill,
                label=DiffLabel(row.label),
                status=result.status,
                root_cause=one_line(head.code if head else result.status.value),
                # the row's notes (cron-state disagreement, which log was used) belong in the
                # issue too; a control character quoted from cron-state is shown escaped
                detail=one_line(
                    "; ".join([head.detail if head else "", *result.notes, spec_note]).strip("; ")
                ),
                output_path=result.output.path if result.output else None,
                flaky=row.flaky,
                fixes=known_fixes(result),
            )
        )
    return requests


def _see_also(result: SkillResult | None, ids: tuple[str, ...]) -> SkillResult | None:
    """The result with a note linking the other open issues that name its new failure."""
    if result is None or not ids:
        return result
    return dataclasses.replace(result, notes=(*result.notes, f"see also {', '.join(ids)}"))


def issues_of_the_day(today: date, outcome: IssueOutcome) -> tuple[list[IssueRef], list[IssueRef]]:
    """Issues this tool filed and closed today, this run or an earlier one the same day: the
    article and the log describe the day, so a second run the same day writes the same text."""
    filed = {i.id: i for i in outcome.filed}
    closed = {i.id: i for i in outcome.closed}
    day = today.isoformat()
    for issue in outcome.known:
        if issue.detected_by != DETECTOR or not issue.affected_skills:
            continue
        ref = IssueRef(issue.id, issue.affected_skills[0], issue.path)
        if issue.detected_at.startswith(day):
            filed.setdefault(issue.id, ref)
        if issue.resolved_at and issue.resolved_at.startswith(day) and not issue.is_open:
            closed.setdefault(issue.id, ref)
    return sorted(filed.values(), key=lambda i: i.id), sorted(closed.values(), key=lambda i: i.id)
