"""Issue keeping (SPEC §6): file ISS-NNN issues for new failures, resolve them on recovery.

INDEX.md is kept in step.

`read_state` → `plan_issues` (pure) → `apply_plan` (the writes); `keep_issues` does all three.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date, datetime
from pathlib import Path

from aeon_evals.issues.apply import apply_plan
from aeon_evals.issues.files import DETECTOR, ISSUES_DIR, IssueFile, IssueRequest
from aeon_evals.issues.index import INDEX_NAME
from aeon_evals.issues.plan import (
    IssueOutcome,
    IssuePlan,
    IssueRef,
    IssueState,
    by_id,
    plan_issues,
    read_issues,
    read_state,
)

__all__ = [
    "DETECTOR",
    "INDEX_NAME",
    "ISSUES_DIR",
    "IssueFile",
    "IssueOutcome",
    "IssuePlan",
    "IssueRef",
    "IssueRequest",
    "IssueState",
    "apply_plan",
    "by_id",
    "keep_issues",
    "plan_issues",
    "read_issues",
    "read_state",
]


def keep_issues(
    root: Path,
    to_file: list[IssueRequest],
    to_close: list[str],
    *,
    now: datetime,
    today: date,
    article_path: str,
    dry_run: bool = False,
    skills: Collection[str] = (),
) -> IssueOutcome:
    """Read memory/issues under `root`, plan (`plan_issues`) and apply the plan; with `dry_run`
    the plan's outcome is returned and nothing is written."""
    plan = plan_issues(
        read_state(root),
        to_file,
        to_close,
        now=now,
        today=today,
        article_path=article_path,
        skills=skills,
    )
    return plan.outcome if dry_run else apply_plan(plan)
