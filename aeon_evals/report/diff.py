"""Diff against the previous run, verdict and Action Queue (SPEC §5, §7): pure functions on data."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from aeon_evals.model import (
    ArticleRow,
    Coverage,
    DiffLabel,
    FailingSince,
    ParsedArticle,
    SkillResult,
    Status,
    Verdict,
    flags_count,
)
from aeon_evals.model.drift import drift_action
from aeon_evals.report import fixes as known
from aeon_evals.text.controls import show_name
from aeon_evals.text.mdspan import code_span

MAX_ACTIONS = 8
MAX_ADD_ACTIONS = 5
FLAKY_WINDOW = 6
FLAKY_FLIPS = 3


def diff_label(
    previous: Status | None, current: Status | None, *, bootstrap: bool = False
) -> DiffLabel:
    """The one label for a (previous, current) pair; None means absent from that run.

    Failing = FAIL, QUALITY_DEGRADED, NO_OUTPUT. Among the other statuses PASS < WARN < STALE <
    ERROR by how bad they are, so a move between them is WORSE or BETTER, never silently STABLE.
    A move into ERROR (the spec broke) is NEW_ERROR whatever came before: it neither fixes nor
    closes anything. A move into NOT_RUN (nothing was judged) is NEW_NOT_RUN or NOT_RUN, never a
    pass or an improvement; from a failing status it is FIXED (the issue was about a run nobody
    asked for).
    """
    if current is None:
        if previous is None:
            raise ValueError("a skill absent from both runs has no label")
        return DiffLabel.NEW_NO_COVERAGE
    if current is Status.ERROR:
        # The spec broke: nothing about the skill was verified, so nothing is fixed or closed.
        return (
            DiffLabel.STABLE if previous is Status.ERROR and not bootstrap else DiffLabel.NEW_ERROR
        )
    if previous is None or bootstrap:
        if current is Status.NOT_RUN:
            return DiffLabel.NEW_NOT_RUN
        if current is Status.QUALITY_DEGRADED:
            return DiffLabel.NEW_QUALITY_DEGRADED
        if current.failing:
            return DiffLabel.NEW_FAIL
        return DiffLabel.NEW_PASS
    if previous.failing and current.failing:
        return DiffLabel.STILL_FAIL
    if previous.failing:
        return DiffLabel.FIXED
    if current is Status.QUALITY_DEGRADED:
        return DiffLabel.NEW_QUALITY_DEGRADED
    if current.failing:
        return DiffLabel.NEW_FAIL
    if previous is current:
        return DiffLabel.STABLE
    if current is Status.NOT_RUN:
        return DiffLabel.NOT_RUN
    return DiffLabel.WORSE if _calm_rank(current) > _calm_rank(previous) else DiffLabel.BETTER


# NOT_RUN (an on-demand skill nobody dispatched) verifies less than a pass, more than a warning.
_CALM = (Status.PASS, Status.NOT_RUN, Status.WARN, Status.STALE, Status.ERROR)


def _calm_rank(status: Status) -> int:
    return _CALM.index(status)


_LABELS = {label.value: label for label in DiffLabel}


@dataclass(frozen=True)
class Row:
    """A skill's line in this run's article: the result, its label and what is carried forward."""

    result: (
        SkillResult | None
    )  # None for NEW_NO_COVERAGE rows and rows kept from a same-day article
    # None only for a row kept from today's article whose Diff cell names no label (`diff`)
    label: DiffLabel | None
    previous: ArticleRow | None
    failing_since: FailingSince | None = None
    issue: str | None = None
    flaky: bool = False
    kept: ArticleRow | None = None  # a row kept unchanged from today's article by a scoped run
    reported_only: bool = False  # an inferred contract in report mode: shown apart, never counted
    # a kept row's cells as today's article wrote them: the cause with its detail (Regressions,
    # Still Failing) and the Recovered table's Was
    kept_cause: str | None = None
    kept_was: str | None = None

    @classmethod
    def kept_from(
        cls,
        kept: ArticleRow,
        *,
        reported_only: bool = False,
        failing_since: FailingSince | None = None,
        cause: str | None = None,
        was: str | None = None,
    ) -> Row:
        """A row a scoped run keeps unchanged from today's article: its label is the one its
        Diff cell names (None when the cell names none), its failing-since and issue the ones
        today's article gave it."""
        return cls(
            None,
            _LABELS.get(kept.diff),
            None,
            failing_since,
            failing_since.issue if failing_since else None,
            kept=kept,
            reported_only=reported_only,
            kept_cause=cause,
            kept_was=was,
        )

    @property
    def diff(self) -> str:
        """The row's Diff cell: its label, or a kept row's cell as today's article wrote it."""
        if self.label is not None:
            return self.label.value
        return self.kept.diff if self.kept is not None else ""

    @property
    def skill(self) -> str:
        if self.result is not None:
            return self.result.skill
        row = self.kept or self.previous
        assert row is not None
        return row.skill

    @property
    def status(self) -> Status | None:
        if self.result is not None:
            return self.result.status
        return self.kept.status if self.kept is not None else None

    @property
    def counts(self) -> bool:
        """Whether this row may drive the verdict and file issues: enabled, not muted, and not an
        inferred contract in report mode."""
        return (
            self.result is not None
            and self.result.enabled
            and self.result.muted is None
            and not self.reported_only
        )


def is_flaky(history: list[Status | None]) -> bool:
    """Flipped between failing and passing at least 3 times in the last 6 runs (oldest first)."""
    recent = [s.failing for s in history[-FLAKY_WINDOW:] if s is not None]
    flips = sum(1 for a, b in itertools.pairwise(recent) if a != b)
    return flips >= FLAKY_FLIPS


def failing_start(result: SkillResult, today: date) -> date:
    """The day a skill that fails now started failing, as far as this run can tell: for one
    gone quiet (a failing `stale_file`), the day of its last output; for one whose runs report
    an error or never do their job, the first day of that streak; else today."""
    quiet = [
        c.evidence.last_output
        for c in result.causes
        if c.status.failing and c.evidence is not None and c.evidence.last_output is not None
    ]
    run = result.run
    if (
        run is not None
        and run.since is not None
        and run.cause
        and any(c.code == run.cause and c.status.failing for c in result.causes)
    ):
        quiet.append(run.since)
    return min([*quiet, today])


def build_rows(
    results: list[SkillResult],
    prior: ParsedArticle | None,
    *,
    today: date,
    history: dict[str, list[Status | None]],
    full_run: bool,
    reported_only: frozenset[str] = frozenset(),
) -> list[Row]:
    """Label every result against the prior run and carry failing-since and issue IDs forward.

    Skills in `reported_only` (inferred contracts in report mode) get their rows apart; a skill's
    previous row is found in either table, so switching modes keeps its history."""
    rows: list[Row] = []
    bootstrap = prior is None
    seen: set[str] = set()
    for result in results:
        # the article shows a name with a control character escaped, and is read back so
        shown = show_name(result.skill)
        seen.add(shown)
        previous = prior.rows.get(shown) or prior.inferred_rows.get(shown) if prior else None
        label = diff_label(
            previous.status if previous else None, result.status, bootstrap=bootstrap
        )
        since = None
        issue = None
        if result.status.failing:
            carried = prior.failing_since.get(shown) if prior else None
            if label is DiffLabel.STILL_FAIL:
                since = FailingSince(
                    carried.since if carried else prior.day if prior else today,
                    carried.issue if carried else None,
                )
            else:
                since = FailingSince(failing_start(result, today), None)
            issue = since.issue
        statuses = [*history.get(shown, []), result.status]
        rows.append(
            Row(
                result,
                label,
                previous,
                since,
                issue,
                is_flaky(statuses),
                reported_only=result.skill in reported_only,
            )
        )
    if full_run and prior is not None:
        for skill, previous in sorted(prior.rows.items()):
            if skill not in seen:
                rows.append(Row(None, DiffLabel.NEW_NO_COVERAGE, previous))
    return rows


@dataclass(frozen=True)
class DiffCounts:
    new_fail: int = 0
    fixed: int = 0
    still_failing: int = 0
    stable: int = 0
    other: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [
            f"{self.new_fail} new fail",
            f"{self.fixed} fixed",
            f"{self.still_failing} still failing",
            f"{self.stable} stable",
        ]
        names = {
            "NEW_PASS": "new pass",
            "NEW_NOT_RUN": "new, not run",
            "NOT_RUN": "now not run",
            "NEW_ERROR": "new error",
            "WORSE": "worse",
            "BETTER": "better",
            "NEW_NO_COVERAGE": "no longer covered",
            "IGNORED": "disabled or muted",
        }
        parts += [f"{n} {names.get(k, k.lower())}" for k, n in sorted(self.other.items()) if n]
        return " · ".join(parts)


def counted(row: Row) -> bool:
    """Rows of enabled, unmuted skills (and kept rows that were such) drive counts and verdict;
    inferred contracts in report mode never do."""
    if row.reported_only:
        return False
    if row.result is not None:
        return row.counts
    if row.kept is not None:
        return flags_count(row.kept.flags)
    return True  # NEW_NO_COVERAGE


def failing_counted(rows: list[Row]) -> list[str]:
    """The failing skills among the rows that count (enabled, unmuted, kept rows that were such,
    no inferred contract in report mode), sorted: what `--fail-on failing` trips on."""
    return sorted(r.skill for r in rows if r.status is not None and r.status.failing and counted(r))


def count(rows: list[Row], *, reported: bool = False) -> DiffCounts:
    """Diff counts over the rows that count; disabled and muted skills are tallied apart. Rows
    of inferred contracts in report mode are counted only with `reported=True`, on their own."""
    rows = [
        dataclasses.replace(r, reported_only=False) if reported else r
        for r in rows
        if r.reported_only == reported
    ]
    labels = Counter(r.diff for r in rows if counted(r))
    ignored = sum(1 for r in rows if not counted(r))
    if ignored:
        labels["IGNORED"] = ignored
    new_fail = labels.pop("NEW_FAIL", 0) + labels.pop("NEW_QUALITY_DEGRADED", 0)
    return DiffCounts(
        new_fail=new_fail,
        fixed=labels.pop("FIXED", 0),
        still_failing=labels.pop("STILL_FAIL", 0),
        stable=labels.pop("STABLE", 0),
        other=dict(labels),
    )


def coverage_change(pct: float, previous_pct: float) -> float:
    """Coverage change in points against the prior run's, as the articles state both: the prior's
    is read back from its article at one decimal, so today's is rounded the same way first (an
    unchanged 7/9 is 0, not 77.78 - 77.8 = -0.02 shown as "−0pp", trend down)."""
    return round(round(pct, 1) - previous_pct, 1)


def coverage_cliff(previous_pct: float | None, pct: float) -> bool:
    """Coverage fell ≥ 10 points, or fell below 25 % from ≥ 25 %."""
    if previous_pct is None:
        return False
    return previous_pct - pct >= 10 or (previous_pct >= 25 > pct)


def verdict(rows: list[Row], coverage: Coverage, previous_pct: float | None) -> Verdict:
    """SPEC §7 precedence, counting only enabled, unmuted skills."""
    labels = {r.diff for r in rows if counted(r)}
    if DiffLabel.NEW_FAIL in labels:
        return Verdict.REGRESSED
    if DiffLabel.NEW_QUALITY_DEGRADED in labels:
        return Verdict.QUALITY_DROP
    if DiffLabel.FIXED in labels:
        return Verdict.RECOVERED
    if coverage_cliff(previous_pct, coverage.pct):
        return Verdict.COVERAGE_CLIFF
    return Verdict.OK


@dataclass(frozen=True)
class AddSpec:
    """An enabled skill without a spec, as an "Add" item: what to write, and how often it runs."""

    skill: str
    pattern: str  # "" when nothing could be inferred
    section: str | None  # for log-based skills: the heading of its own section
    cadence_days: float  # from its schedule: most frequent first

    def action(self) -> str:
        text = (
            f"Add evals.json entry for {self.skill} — pattern: {self.pattern or '(none inferred)'}"
        )
        return text + (f", section: {self.section}" if self.section else "")


def rank_adds(adds: list[AddSpec]) -> list[AddSpec]:
    """Most frequently scheduled first (a skill run hourly rots fastest unseen), then by name."""
    return sorted(adds, key=lambda a: (a.cadence_days, a.skill))


def action_queue(
    rows: list[Row],
    *,
    spec_problems: list[tuple[str, str]],
    gaps: list[AddSpec],
    fixes: Sequence[str] = (),
) -> list[str]:
    """At most 8 one-line next steps: Patch, Investigate, Dispatch, Fix (a SKILL.md error found
    by the catalog checks, already worded), Add (SPEC §7). `gaps` are taken in the order given
    (see rank_adds)."""
    patch = [f"Patch evals.json:{skill} — {cause}" for skill, cause in spec_problems]
    disagree: list[SkillResult] = []
    investigate: list[str] = []
    dispatch: list[str] = []
    for row in sorted(
        rows,
        key=lambda r: (
            r.label not in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED),
            r.skill,
        ),
    ):
        result = row.result
        if result is None or not result.enabled or row.reported_only:
            continue
        if result.muted is not None:
            if result.status is Status.PASS:
                patch.append(
                    f"Patch evals.json:{result.skill} — muted but passing: remove the mute"
                )
            continue
        if any(n.startswith("mute expired") for n in result.notes):
            patch.append(f"Patch evals.json:{result.skill} — mute expired; remove it or extend it")
        head = result.head
        if head is None:
            continue
        if any(c.code == "spec_disagrees" for c in result.causes):
            disagree.append(result)  # said in words, and as one item for several (issue #32.7)
        if result.status is Status.ERROR:
            if head.code != "spec_disagrees":
                patch.append(f"Patch evals.json:{result.skill} — {code_span(head.code)}")
        elif result.status.failing:
            step = known.next_step(result, f" ({row.issue})" if row.issue else "")
            investigate += [step] if step else []
        elif (drifted := drift_action(result)) is not None:
            investigate.append(drifted)
        elif result.status is Status.STALE and (quiet := known.dispatch(result)) is not None:
            dispatch.append(quiet)
    said = [c for r in disagree[:1] for c in r.causes if c.code == "spec_disagrees"]
    if len(disagree) == 1 and said:
        patch.append(f"Patch evals.json:{disagree[0].skill} — {said[0].brief}")
    elif disagree:
        names = ", ".join(r.skill for r in disagree)
        patch.append(
            f"Patch evals.json — {len(disagree)} specs match nothing while their skills' SKILL.md "
            f"contracts find fresh outputs ({names}): fix their patterns or remove them"
        )
    add = [gap.action() for gap in gaps[:MAX_ADD_ACTIONS]]
    if len(gaps) > MAX_ADD_ACTIONS:
        add.append(
            f"+{len(gaps) - MAX_ADD_ACTIONS} more skills without an evals.json entry — see "
            "Coverage Gaps"
        )
    items = [*patch, *investigate, *dispatch, *fixes]
    room = MAX_ACTIONS - len(items)
    if room > 0:
        items.extend(add[:room])
    return items[:MAX_ACTIONS]


@dataclass(frozen=True)
class Numbers:
    """Every number a run reports, computed once: the article, the log section, `--json`, the
    job summary, JUnit, the notification and (through the article) the dashboard render these.
    Disabled, unregistered and muted skills are counted apart everywhere."""

    verdict: Verdict
    coverage: Coverage
    previous_pct: float | None  # the prior run's coverage, when it was counted the same way
    legacy_pct: float | None  # the prior's coverage counted another way: shown, never compared
    counts: DiffCounts
    regressions: tuple[str, ...]  # counted NEW_FAIL and NEW_QUALITY_DEGRADED skills
    recovered: tuple[str, ...]  # counted FIXED
    still_failing: tuple[str, ...]  # counted STILL_FAIL
    worse: tuple[str, ...]  # counted WORSE
    failing: tuple[str, ...]  # enabled, unmuted skills failing now
    failing_apart: tuple[str, ...]  # disabled, unregistered or muted skills failing now
    evaluated: int  # enabled, unmuted skills in today's article
    apart: int  # disabled, unregistered or muted skills in today's article
    actions: tuple[str, ...]

    @property
    def coverage_delta(self) -> float | None:
        """Coverage change in points against a comparable prior run; None when there is none."""
        if self.previous_pct is None:
            return None
        return coverage_change(self.coverage.pct, self.previous_pct)


def numbers(
    rows: list[Row],
    *,
    verdict: Verdict,
    coverage: Coverage,
    previous_pct: float | None,
    legacy_pct: float | None,
    actions: list[str],
) -> Numbers:
    """The run's numbers from its labelled rows (kept rows of a scoped run included)."""

    def skills(*labels: DiffLabel) -> tuple[str, ...]:
        return tuple(sorted(r.skill for r in rows if counted(r) and r.label in labels))

    # inferred contracts in report mode have their own numbers (the Inferred contracts section)
    present = [r for r in rows if r.status is not None and not r.reported_only]
    failing = [r for r in present if r.status is not None and r.status.failing]
    return Numbers(
        verdict=verdict,
        coverage=coverage,
        previous_pct=previous_pct,
        legacy_pct=legacy_pct,
        counts=count(rows),
        regressions=skills(DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED),
        recovered=skills(DiffLabel.FIXED),
        still_failing=skills(DiffLabel.STILL_FAIL),
        worse=skills(DiffLabel.WORSE),
        failing=tuple(failing_counted(rows)),
        failing_apart=tuple(sorted(r.skill for r in failing if not counted(r))),
        evaluated=sum(1 for r in present if counted(r)),
        apart=sum(1 for r in present if not counted(r)),
        actions=tuple(actions),
    )
