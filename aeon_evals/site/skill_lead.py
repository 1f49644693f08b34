"""What a skill's page leads with (pure): the newest run's finding in expected-vs-actual words,
since when the skill has been failing, the last run that was not, and its issue."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from markupsafe import Markup

from aeon_evals.issues import IssueFile
from aeon_evals.model import Status
from aeon_evals.site.findings import NO_CAUSE, Finding, code_spans
from aeon_evals.site.views import ABSENT_MARK, STATUS_MARKS, Mark


@dataclass(frozen=True)
class SkillIssueView:
    """One issue naming the skill, as its page lists it."""

    id: str
    title: str
    status: str
    open: bool
    detected: str
    age: str  # "open 12 d" / "resolved after 5 d"
    href: str


@dataclass(frozen=True)
class FindingView:
    """What the page leads with: the newest run's finding, since when, its issue."""

    day: str  # the run it is from ("2026-12-17"), "" when none is recorded
    mark: Mark
    diff: str  # the diff label as the article wrote it, "" when none
    headline: Markup  # expected vs actual ("107 words, minimum 200"), code spans shown
    codes: str  # the cause codes ("word_count"), "" when clean
    notes: str  # the article's Notes cell, "" when none
    since: str  # "2026-12-03 (14 d)", "" when not failing
    last_good: str  # "2026-12-10 (PASS)": the newest run before that was not failing, or ""
    issue: SkillIssueView | None  # the issue the article names (or the newest open one)
    where: str  # where the finding comes from, in words
    failing: bool = False


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat((text or "").strip()[:10])
    except ValueError:
        return None


def skill_issues(
    skill: str,
    issues: Sequence[IssueFile],
    today: date,
    root_href: str,
    by_skill: Mapping[str, Sequence[IssueFile]] | None = None,
) -> tuple[SkillIssueView, ...]:
    """The issues naming `skill`: open ones first, newest first, with their ages. `by_skill`:
    the issues by the skills they name, when the caller has them (PageMemo)."""
    views = []
    if by_skill is not None:
        named = by_skill.get(skill, ())
    else:
        named = [issue for issue in issues if skill in issue.affected_skills]
    for issue in named:
        detected = _day(issue.detected_at)
        resolved = _day(issue.resolved_at)
        if issue.is_open:
            age = f"open {(today - detected).days} d" if detected else "open"
        elif detected and resolved:
            age = f"resolved after {(resolved - detected).days} d"
        else:
            age = "resolved"
        views.append(
            SkillIssueView(
                issue.id,
                issue.title,
                issue.status,
                issue.is_open,
                detected.isoformat() if detected else (issue.detected_at or "?"),
                age,
                f"{root_href}/{issue.path}",
            )
        )
    return tuple(sorted(views, key=lambda v: (not v.open, v.detected), reverse=False))


_GOOD = frozenset({Status.PASS, Status.WARN, Status.STALE})  # judged and not failing


def finding_view(
    found: Finding | None,
    days: Sequence[date],
    statuses: Sequence[Status | None],
    causes: Sequence[str],
    issues: Sequence[SkillIssueView],
    today: date,
) -> FindingView:
    """The page's lead from the newest article's `found` (None: the skill is not in it), else
    from the newest run of the history (each run's day, status and cause, oldest first):
    status, diff label, expected vs actual, since when, the last run that was not failing, the
    issue."""
    last = len(days) - 1
    if found is not None and (last < 0 or found.day >= days[last]):
        status: Status | None = found.status
        run = found.day
        where = f"the article of {run.isoformat()}"
        since = found.since_text(today)
        if found.inferred:
            where += " (an inferred contract: report only)"
    elif last >= 0:
        status, run = statuses[last], days[last]
        where = f"the metrics of {run.isoformat()} (not in the newest article)"
        since = "—"
        if status is not None and status.failing:
            first = last
            while first > 0 and (statuses[first - 1] or Status.PASS).failing:
                first -= 1
            since = f"{days[first].isoformat()} ({(today - days[first]).days} d)"
    else:
        return FindingView("", ABSENT_MARK, "", Markup(""), "", "", "", "", None, "no run recorded")
    good = next((i for i in range(last, -1, -1) if days[i] < run and statuses[i] in _GOOD), None)
    if found is not None and status is found.status:
        codes = "" if found.codes == NO_CAUSE else found.codes
        headline, diff, notes, named = (
            found.headline,
            found.diff,
            "; ".join(found.notes),
            found.issue,
        )
    else:
        codes, headline, diff, notes, named = causes[last], causes[last], "", "", None
        if not headline and status is Status.PASS:
            headline = "every check passed"
    issue = next((i for i in issues if i.id == named), None) if named else None
    if issue is None and status is not None and status.failing:
        still_open = [i for i in issues if i.open]  # (by day detected: the newest last)
        issue = still_open[-1] if still_open else None
    failing = status is not None and status.failing
    return FindingView(
        day=run.isoformat(),
        mark=STATUS_MARKS[status] if status is not None else ABSENT_MARK,
        diff=diff,
        headline=code_spans(headline),
        codes=codes if codes != headline else "",
        notes=notes,
        since=since if failing and since != "—" else "",
        last_good=(
            f"{days[good].isoformat()} ({statuses[good]})"
            if good is not None and status is not Status.PASS
            else ""
        ),
        issue=issue,
        where=where,
        failing=failing,
    )
