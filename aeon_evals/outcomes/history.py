"""A skill's run history: each run's outcome in date order, the streak the newest run ends, and
the judgement of the newest run (error → failing, partial → warn, a long unbroken noop →
"never does its job", a short one → a note). Pure."""

from __future__ import annotations

from collections.abc import Iterable

from aeon_evals.outcomes.model import (
    Basis,
    History,
    Judgement,
    Outcome,
    OutcomeClass,
    Run,
    RunOutcome,
    Streak,
    Verdict,
    Vocabulary,
)
from aeon_evals.outcomes.reader import read_outcome

PERMANENT_RUNS = 7  # a noop on at least this many runs in a row …
PERMANENT_DAYS = 7  # … spanning at least this many days never does its job


def outcomes(runs: Iterable[Run], vocabulary: Vocabulary) -> tuple[RunOutcome, ...]:
    """Each run's outcome, oldest first (by day, then the run's order within its day, then its
    source), read with the skill's vocabulary."""
    ordered = sorted(runs, key=lambda r: (r.day, r.order, r.source))
    return tuple(RunOutcome(r.day, r.source, read_outcome(r.text, vocabulary)) for r in ordered)


def streak(runs: tuple[RunOutcome, ...]) -> Streak | None:
    """The newest runs that share the newest run's outcome: for errors any error (the key is the
    newest run's token or signature), for every other class the same token or signature (a
    `FLEET_EMPTY` streak is broken by a `FLEET_NO_AUTH` run). Inside a noop streak, a run whose
    text shows nothing at all (basis NONE) neither extends nor breaks it: a run that wrote no
    status has not shown that it did its job. None for no runs."""
    if not runs:
        return None
    newest = runs[-1].outcome
    count = window = 0
    since = runs[-1].day
    for k, run in enumerate(reversed(runs), 1):
        if _matches(run.outcome, newest):
            count, window, since = count + 1, k, run.day
        elif not (newest.outcome is OutcomeClass.NOOP and run.outcome.basis is Basis.NONE):
            break
    return Streak(newest.outcome, newest.key, count, window, len(runs), since, runs[-1].day)


def _matches(o: Outcome, newest: Outcome) -> bool:
    if newest.outcome is OutcomeClass.ERROR:
        return o.outcome is OutcomeClass.ERROR
    return o.outcome is newest.outcome and o.key == newest.key


def history(skill: str, runs: Iterable[Run], vocabulary: Vocabulary) -> History:
    """`outcomes` and `streak` of one skill's runs."""
    done = outcomes(runs, vocabulary)
    return History(skill, done, streak(done))


def judge(
    found: History,
    *,
    permanent_runs: int = PERMANENT_RUNS,
    permanent_days: int = PERMANENT_DAYS,
) -> Judgement:
    """The judgement of the newest run: `error` → failing `run_error:<token or signature>`;
    `partial` → warn `run_partial`; `ok`/`quiet` → healthy; a `noop` that every run for at
    least `permanent_runs` runs spanning at least `permanent_days` days reported →
    failing `never_does_its_job:<token>`; a shorter noop streak → a note."""
    newest = found.newest
    run_streak = found.streak
    if newest is None or run_streak is None:
        return Judgement(found.skill, Verdict.NO_RUNS, message="no runs to judge")
    o = newest.outcome
    quoted = f"{newest.source}: {o.line}" if o.line else newest.source
    if o.outcome is OutcomeClass.ERROR:
        return Judgement(
            found.skill,
            Verdict.FAILING,
            f"run_error:{o.key}",
            run_streak.since,
            o.key,
            f"{o.key} — {run_streak.describe()} ({quoted})",
            newest,
            run_streak,
        )
    if o.outcome is OutcomeClass.PARTIAL:
        return Judgement(
            found.skill,
            Verdict.WARN,
            "run_partial",
            run_streak.since,
            o.key,
            f"partial run: {o.key} ({quoted})",
            newest,
            run_streak,
        )
    if o.outcome is OutcomeClass.NOOP:
        permanent = run_streak.count >= permanent_runs and run_streak.days >= permanent_days
        if permanent:
            return Judgement(
                found.skill,
                Verdict.FAILING,
                f"never_does_its_job:{o.key}",
                run_streak.since,
                o.key,
                f"never does its job: {run_streak.describe()} ({quoted})",
                newest,
                run_streak,
            )
        return Judgement(
            found.skill,
            Verdict.NOTE,
            f"noop:{o.key}",
            run_streak.since,
            o.key,
            f"did not do its job: {run_streak.describe()} ({quoted})",
            newest,
            run_streak,
        )
    return Judgement(
        found.skill, Verdict.HEALTHY, since=run_streak.since, newest=newest, streak=run_streak
    )


MAX_RUNS = 400  # a streak is counted over at most this many runs


def newest_history(
    skill: str, newest_first: Iterable[Run], vocabulary: Vocabulary, *, cap: int = MAX_RUNS
) -> History:
    """`history` of only the runs the judgement needs, read newest first and lazily: the newest
    run, and the older ones while they extend its streak (at most `cap`). A healthy newest run
    is all that is read; the run that breaks a streak is read and left out, so the streak's
    words ("FLEET_EMPTY on 28 of 28 runs since …") speak of the runs it counts."""
    kept: list[RunOutcome] = []
    first: Outcome | None = None
    for run in newest_first:
        found = RunOutcome(run.day, run.source, read_outcome(run.text, vocabulary))
        o = found.outcome
        if first is None:
            first = o
            kept.append(found)
            if o.outcome in (OutcomeClass.OK, OutcomeClass.QUIET):
                break
            continue
        if _matches(o, first):
            kept.append(found)
        elif first.outcome is OutcomeClass.NOOP and o.basis is Basis.NONE:
            kept.append(found)  # no status at all: neither extends nor breaks a noop streak
        else:
            break
        if len(kept) >= cap:
            break
    while len(kept) > 1 and first is not None and not _matches(kept[-1].outcome, first):
        kept.pop()  # runs with no status older than the streak's first: not part of it
    runs = tuple(reversed(kept))
    return History(skill, runs, streak(runs))
