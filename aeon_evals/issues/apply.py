"""The issue stage's writes: a plan (issues/plan.py) made real, new files created exclusively,
closed ones replaced, INDEX.md last; renumbered when another process took a number first; every
change recorded for the rollback (issues/rollback.py)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence

from aeon_evals.fs.write import atomic_write, create_exclusive, create_exclusive_run, sync_dir
from aeon_evals.issues import files
from aeon_evals.issues.files import ISSUES_DIR, IssueFile
from aeon_evals.issues.index import Index
from aeon_evals.issues.plan import IssueOutcome, IssuePlan, IssueRef, NewIssue
from aeon_evals.issues.rollback import Undo

_MAX_TRIES = 1000  # exclusive-create attempts before giving up on one request


def apply_plan(plan: IssuePlan, undo: Undo | None = None) -> IssueOutcome:
    """Write the plan: new issue files (created exclusively: when another process took a number
    first, the next free one is used; each synced before its name appears, since a new file's
    bytes are not forced out by anything else), the closed issues (renamed over the old ones
    unsynced: ext4 and XFS write a file renamed over another before the rename commits), one
    fsync of the folder for them all, INDEX.md last (synced on its own). Returns what was done.

    With `undo`, every change is recorded there as it is made (issues/rollback.py); when a write
    fails midway, the ones made are put back before the error is raised: nothing changed."""
    try:
        return _apply(plan, undo)
    except BaseException:
        if undo is not None:
            # files of ours whose names the failure left behind (a batch cut short)
            for planned in plan.new:
                path = plan.state.issues_dir / f"{planned.issue.id}.md"
                with contextlib.suppress(OSError):
                    if path not in undo.created and path.read_text("utf-8") == planned.text:
                        undo.created.append(path)
            undo.restore()
        raise


def _apply(plan: IssuePlan, undo: Undo | None) -> IssueOutcome:
    moved: dict[str, IssueFile] = {}  # planned id -> the issue as filed under another number
    skipped: set[str] = set()
    warnings: list[str] = []
    floor = 0
    # The planned numbers first, synced side by side; from the first number another process
    # took, one at a time with the next free number, as the names must appear in order.
    first = _first_run(plan.new)
    paths = [plan.state.issues_dir / f"{p.issue.id}.md" for p in first]
    done = create_exclusive_run([(path, p.text) for path, p in zip(paths, first, strict=True)])
    if undo is not None:
        undo.created += paths[:done]
    if done:
        floor = first[done - 1].issue.number + 1
    for planned in plan.new[done:]:
        issue, text = planned.issue, planned.text
        number = max(issue.number, floor)
        for _ in range(_MAX_TRIES):
            if number != planned.issue.number:
                iid = f"ISS-{number:03d}"
                issue = dataclasses.replace(planned.issue, id=iid, path=f"{ISSUES_DIR}/{iid}.md")
                text = files.render_issue(issue, planned.body)
            path = plan.state.issues_dir / f"{issue.id}.md"
            if create_exclusive(path, text):
                if undo is not None:
                    undo.created.append(path)
                break
            number += 1
        else:
            warnings.append(
                f"{ISSUES_DIR}: no free number in {_MAX_TRIES} tries; "
                f"{planned.request.skill} not filed"
            )
            skipped.add(planned.issue.id)
            continue
        floor = number + 1
        if issue.id != planned.issue.id:
            moved[planned.issue.id] = issue
    for closing in plan.closing:  # bytes: keep its last byte
        if undo is not None:
            undo.keep(closing.file)
        atomic_write(closing.file, closing.text.encode("utf-8"), sync=False)
    if plan.new or plan.closing:  # one fsync for the batch, not one per file
        sync_dir(plan.state.issues_dir)
    index_text = plan.index_text
    if moved or skipped:
        index_text = _replay(plan, moved, skipped)
    if index_text is not None:
        if undo is not None:
            undo.keep(plan.state.index_path)
        atomic_write(plan.state.index_path, index_text.encode("utf-8"))
    if not (moved or skipped):
        return plan.outcome
    return _renumbered(plan.outcome, moved, skipped, warnings)


def _first_run(new: Sequence[NewIssue]) -> list[NewIssue]:
    """The leading planned issues whose numbers rise (each is filed under its own number when
    it is free, as the one-by-one loop would file it)."""
    run: list[NewIssue] = []
    for planned in new:
        if run and planned.issue.number <= run[-1].issue.number:
            break
        run.append(planned)
    return run


def _replay(plan: IssuePlan, moved: dict[str, IssueFile], skipped: set[str]) -> str | None:
    """INDEX.md's new text with the issues filed under other numbers than planned."""
    if plan.state.index_problem:
        return None
    planned = {n.issue.id for n in plan.new}
    index = Index(plan.state.index_text)
    for kind, issue, resolved_on in plan.index_edits:
        if issue.id in planned:
            if issue.id in skipped:
                continue
            issue = moved.get(issue.id, issue)
        if kind == "open":
            index.add_open(issue)
        else:
            index.close(issue, resolved_on)
    return index.text if index.changed else None


def _renumbered(
    outcome: IssueOutcome, moved: dict[str, IssueFile], skipped: set[str], warnings: list[str]
) -> IssueOutcome:
    """`outcome` with the numbers the new issues were filed under."""

    def swap(iid: str) -> str:
        return moved[iid].id if iid in moved else iid

    return dataclasses.replace(
        outcome,
        filed=tuple(
            IssueRef(swap(r.id), r.skill, moved[r.id].path if r.id in moved else r.path)
            for r in outcome.filed
            if r.id not in skipped
        ),
        existing={k: swap(v) for k, v in outcome.existing.items() if v not in skipped},
        open_by_skill={k: swap(v) for k, v in outcome.open_by_skill.items() if v not in skipped},
        warnings=(*outcome.warnings, *warnings),
    )
