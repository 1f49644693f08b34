"""Check h (issue #32): did the run do its job? The skill's newest runs read with its outcome
vocabulary (aeon_evals.outcomes), judged, and the judgement added to its result: a run that
reports an error fails (`run_error:<token>`), one that never does its job for a week fails
(`never_does_its_job:<token>`), a partial run warns (`run_partial`), a short no-op streak is a
note; cron-state's "success" is checked against what the run wrote. See docs/outcomes.md."""

from __future__ import annotations

import dataclasses
import math
from datetime import date, datetime, timedelta

from aeon_evals.checks.content import order_causes
from aeon_evals.checks.runs import RunReader
from aeon_evals.clock import parse_stamp
from aeon_evals.errors import EvalsError
from aeon_evals.load.outputs import Outputs, name_date
from aeon_evals.model import (
    Cause,
    CronState,
    Evidence,
    RunReport,
    SkillResult,
    Spec,
    Status,
)
from aeon_evals.outcomes import Judgement, OutcomeClass, Verdict, Vocabulary, judge
from aeon_evals.outcomes.history import PERMANENT_DAYS, PERMANENT_RUNS, newest_history
from aeon_evals.text.controls import one_line

LOG_PREFIX = "memory/logs/"
QUOTE = 160  # characters of a status line quoted in a cause
# statuses whose row has nothing to judge the run by: a broken spec, a skill not asked to run
_UNJUDGED = frozenset({Status.ERROR, Status.NOT_RUN})
_BAD = frozenset({OutcomeClass.ERROR, OutcomeClass.PARTIAL})


def articles_of(spec: Spec, outputs: Outputs) -> tuple[str, ...]:
    """The files of the spec's own output pattern (not a shared log): each dated one is one run
    of the skill."""
    if spec.output_pattern.startswith(LOG_PREFIX):
        return ()
    try:
        files = outputs.matches(spec.output_pattern).files
    except (OSError, ValueError, EvalsError):  # a pattern leading out: the checks said so
        return ()
    return files  # (RunReader keeps the dated ones, by day)


FIRST_RUN_CADENCES = 3  # a skill's newest run is looked for this many cadences back …
FIRST_RUN_DAYS = 14  # … and at least this many days


def judge_runs(
    skill: str,
    spec: Spec,
    vocabulary: Vocabulary,
    reader: RunReader,
    outputs: Outputs,
    cadence_days: float = 1.0,
) -> Judgement:
    """The judgement of `skill`'s newest run (looked for within three cadences, two weeks at
    least: one older than that is a skill gone quiet, which the checks judge), its streak read
    as far back as it goes."""
    within = max(FIRST_RUN_DAYS, math.ceil(FIRST_RUN_CADENCES * cadence_days))
    runs = reader.runs(skill, articles_of(spec, outputs), first_within=within)
    found = newest_history(skill, runs, vocabulary)
    return judge(
        found,
        permanent_runs=spec.noop_fail_after or PERMANENT_RUNS,
        permanent_days=PERMANENT_DAYS,
    )


def with_outcome(
    result: SkillResult,
    found: Judgement,
    vocabulary: Vocabulary,
    *,
    cron: CronState | None,
    now: datetime,
    grace: timedelta,
) -> SkillResult:
    """`result` with what its runs say added: a cause for a failing or partial run, a note for a
    short no-op streak or a cron-state that disagrees, the run's report (`--json`)."""
    head = result.head
    disagrees = head is not None and head.code == "spec_disagrees"  # judged on its real output
    if (result.status in _UNJUDGED and not disagrees) or found.newest is None:
        return result
    newest = found.newest
    o = newest.outcome
    evidence = _evidence(vocabulary, o.token)
    causes = list(result.causes)
    notes = list(result.notes)
    words = _words(found)
    if found.verdict in (Verdict.FAILING, Verdict.WARN):
        quoted = f"`{one_line(o.line)[:QUOTE]}` at {_where(newest.source, o.line_no)}"
        detail = "; ".join(filter(None, (words, quoted, evidence)))
        status = Status.FAIL if found.verdict is Verdict.FAILING else Status.WARN
        code = found.cause if found.verdict is Verdict.FAILING else "run_partial"
        causes.append(Cause(status, code, detail, _located(newest.source, o.line_no)))
    elif found.verdict is Verdict.NOTE:
        notes.append(words)
    if cron is not None and cron.last_status == "success" and o.outcome in _BAD:
        notes.append(
            f"cron-state says the last run succeeded ({cron.last_success or 'time unknown'}) "
            f"but the run reports {o.key}"
        )
    if result.quality_score is not None and result.quality_score >= 3.5 and o.outcome in _BAD:
        notes.append(
            f"skill-health scores it {result.quality_score:g} while its runs report {o.key}"
        )
    unseen = _ran_without_output(result, newest.day, cron, now, grace)
    if unseen is not None:
        causes.append(unseen)
    report = RunReport(
        outcome=o.outcome.value,
        token=o.token,
        line=one_line(o.line)[:QUOTE],
        source=_where(newest.source, o.line_no),
        streak=words if found.verdict is not Verdict.HEALTHY else "",
        since=found.since,
        evidence=evidence,
        cause=found.cause if found.verdict is not Verdict.NOTE else "",
        runs=f"{found.streak.count} of {found.streak.window} runs" if found.streak else "",
    )
    ordered = tuple(order_causes(causes))
    status = ordered[0].status if ordered else Status.PASS
    return dataclasses.replace(
        result, status=status, causes=ordered, notes=tuple(notes), run=report
    )


def _words(found: Judgement) -> str:
    """The judgement in a few words: `runs report X_ERROR: errored on 6 of its last 6 runs, since
    2026-05-26`, `never does its job: FLEET_EMPTY on 28 of 28 runs since 2026-05-20`."""
    newest = found.newest
    if newest is None:
        return found.message
    key = newest.outcome.key
    streak = found.message.split(" (", 1)[0]  # the judgement's words without the quoted line
    if found.verdict is Verdict.FAILING and found.cause.startswith("run_error:"):
        return f"runs report {key}: {streak.split(' — ', 1)[-1]}"
    return streak


def _where(source: str, line_no: int) -> str:
    """The status line's place: a log run's `path:heading line` moved to the line itself; an
    article's path with the line."""
    path, _, heading = source.rpartition(":")
    if path and heading.isdigit() and line_no > 0:
        return f"{path}:{int(heading) + line_no - 1}"
    return f"{source}:{line_no}" if line_no > 0 and not heading.isdigit() else source


def _located(source: str, line_no: int) -> Evidence:
    where = _where(source, line_no)
    path, _, line = where.rpartition(":")
    if path and line.isdigit():
        return Evidence(path=path, line=int(line))
    return Evidence(path=where)


def _evidence(vocabulary: Vocabulary, token: str) -> str:
    """`SKILL.md:43: "notify X_ERROR: … and stop"`: where the skill's own SKILL.md says what the
    reported token means; "" for a generic signature or a token the SKILL.md never names."""
    entry = vocabulary.get(token)
    if entry is None or not entry.uses or entry.line <= 0:
        return ""
    return f'SKILL.md:{entry.line}: "{one_line(entry.sentence)[:QUOTE]}"'


def _ran_without_output(
    result: SkillResult,
    newest_run: date,
    cron: CronState | None,
    now: datetime,
    grace: timedelta,
) -> Cause | None:
    """WARN `ran_without_output` when cron-state records a success on a later day than anything
    the skill left: its newest run (a log section, a dated file) and its newest output."""
    success = parse_stamp(cron.last_success if cron is not None else None)
    if success is None or success > now or now - success < grace:
        return None
    seen = newest_run
    out = result.output
    if out is not None:  # a dated file's day; an undated one's age (git, mtime)
        written = name_date(out.path)
        if written is None and out.age_days is not None:
            written = (now - timedelta(days=out.age_days)).date()
        seen = max(seen, written or seen)
    if success.date() <= seen:
        return None
    return Cause(
        Status.WARN,
        "ran_without_output",
        f"cron-state's last success {success:%Y-%m-%d %H:%M} UTC left no output: the newest run "
        f"or output is from {seen}",
    )
