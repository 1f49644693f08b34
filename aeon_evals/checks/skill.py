"""Checks a–g of SPEC §4 for one skill: latest output, empty/stale, words, patterns, numbers."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from aeon_evals.checks import findings
from aeon_evals.checks.content import check_content, order_causes
from aeon_evals.checks.due import OnDemandRun, on_demand, on_demand_run, run_due
from aeon_evals.checks.findings import STALE_AFTER, Where
from aeon_evals.checks.latest import by_date, content_of, holds_entry, newest_entry, pick_log
from aeon_evals.checks.owners import Claim, Claims, taken_note
from aeon_evals.errors import PathOutsideRoot
from aeon_evals.load import cadence
from aeon_evals.load.enabled import Enabled, EnabledSince
from aeon_evals.load.outputs import OutputError, Outputs, name_date
from aeon_evals.load.state import Health
from aeon_evals.model import (
    Cause,
    CronState,
    Mute,
    OutputFile,
    Registration,
    SkillResult,
    Spec,
    Status,
)
from aeon_evals.model.problems import Problem
from aeon_evals.text.controls import has_breaks, one_line
from aeon_evals.text.patterns import PatternError

GRACE = timedelta(hours=2)  # `--grace`: a run scheduled this recently may still be writing


@dataclass(frozen=True)
class Context:
    """What the checks know about a skill besides its spec."""

    registration: Registration | None
    cron: CronState | None
    health: Health | None
    now: datetime
    today: date
    grace: timedelta = GRACE
    spec_source: str | None = None  # the row's `spec SKILL.md:41`, for an inferred contract
    # an inferred contract's elements and their SKILL.md lines (`heading:## Summary`, 41)
    asks: tuple[tuple[str, int], ...] = ()
    # cron-state was read and lists skills, so a skill missing from it was never dispatched
    cron_known: bool = False
    listed_on: date | None = None  # the day of the previous article that listed the skill
    # this tool's previous article exists and did not judge the skill (not in it, or not run
    # yet there): only then can a never-dispatched skill be one enabled since its last slot
    new_since_prior: bool = False
    # scheduled skills never dispatched: when each was enabled (load.enabled), asked lazily
    enabled: EnabledSince | None = None
    # every skill's declared output patterns: files another skill's more specific pattern
    # matches are that skill's, left out of this one's checks (checks/owners.py)
    claims: Claims | None = None


# --- one skill ------------------------------------------------------------------------------


def error_result(skill: str, problems: tuple[Problem, ...], ctx: Context) -> SkillResult:
    """A spec that failed validation: the skill is reported as ERROR, not as failing. The cause
    names the spec's field (`spec_error:min_words`), or the skill for the spec as a whole."""
    causes = tuple(
        Cause(Status.ERROR, f"spec_error:{_spec_field(skill, p.where)}", p.message)
        for p in problems
    )
    return _finish(skill, Status.ERROR, causes, ctx)


def _spec_field(skill: str, where: str) -> str:
    """`skills.<skill>.<field>` → `<field>`; `skills.<skill>` → `<skill>`. Cut by the skill's
    own name: a name may hold dots (`a.b`, `./escape`), so splitting at dots lost its start."""
    head = f"skills.{skill}"
    if where.startswith(head + "."):
        return where[len(head) + 1 :]
    return skill if where == head else where


def _finish(
    skill: str,
    status: Status,
    causes: tuple[Cause, ...],
    ctx: Context,
    *,
    muted: Mute | None = None,
    notes: tuple[str, ...] = (),
    words: int | None = None,
    output: OutputFile | None = None,
    numbers: tuple[tuple[str, float], ...] = (),
    score: float | None = None,
) -> SkillResult:
    """The result row; `score` is skill-health's average, shown as `avg=3.4`. Names in the
    causes and notes (a file named with a newline and a workflow command) are shown escaped."""
    reg = ctx.registration
    if any(has_breaks(c.code + c.detail) for c in causes):
        causes = tuple(Cause(c.status, one_line(c.code), one_line(c.detail)) for c in causes)
    if any(has_breaks(n) for n in notes):
        notes = tuple(one_line(n) for n in notes)
    return SkillResult(
        skill=skill,
        status=status,
        causes=causes,
        words=words,
        output=output,
        quality="unknown" if score is None else f"avg={score:.2f}".rstrip("0").rstrip("."),
        quality_score=score,
        enabled=bool(reg and reg.enabled),
        registered=reg is not None,
        muted=muted,
        notes=notes,
        numbers=numbers,
        spec_source=ctx.spec_source,
    )


def evaluate(spec: Spec, outputs: Outputs, ctx: Context) -> SkillResult:
    """Run checks a–g for one skill (reads through the shared, caching `outputs`).

    A skill that would be failing or STALE while its run is in progress or just due is judged as
    it stood just before that run (the previous output) when that was better, and the row says
    so."""
    result = _evaluate(spec, outputs, ctx)
    if not (result.status.failing or result.status is Status.STALE):
        return result
    due = run_due(
        ctx.registration.schedule if ctx.registration else None, ctx.cron, ctx.now, ctx.grace
    )
    if due is None:
        return result
    at, note = due
    earlier = _evaluate(spec, outputs, dataclasses.replace(ctx, now=at))
    if earlier.status.rank <= result.status.rank:  # as bad before the run: nothing to wait for
        return result
    return dataclasses.replace(earlier, notes=(note, *earlier.notes))


def _evaluate(spec: Spec, outputs: Outputs, ctx: Context) -> SkillResult:
    notes: list[str] = []
    muted = spec.mute if spec.mute is not None and spec.mute.until >= ctx.today else None
    if spec.mute is not None and muted is None:
        notes.append(f"mute expired on {spec.mute.until.isoformat()}")
    try:
        match = outputs.matches(spec.output_pattern)
    except PathOutsideRoot as exc:
        return _finish(
            spec.skill,
            Status.ERROR,
            (Cause(Status.ERROR, "path_outside_root", exc.message),),
            ctx,
            muted=muted,
        )
    except (OSError, ValueError) as exc:
        return _finish(
            spec.skill,
            Status.ERROR,
            (Cause(Status.ERROR, "bad_output_pattern", str(exc)),),
            ctx,
            muted=muted,
        )

    # every match in date order (memoised by pattern: what is left out below keeps the order)
    files = by_date(match.files, outputs, spec.output_pattern)
    # files another skill declares with a more specific pattern are that skill's, not this one's
    taken: tuple[tuple[Claim, int], ...] = ()
    if ctx.claims is not None:
        files, taken = ctx.claims.own(spec.skill, spec.output_pattern, files)
        if taken and files:
            notes.append(taken_note(taken))
    # a file dated after the run (a clock gone wrong, a typo) is not the newest
    run_day = ctx.now.date()
    future = sorted(f for f in files if (d := name_date(f)) is not None and d > run_day)
    if future:
        gone = set(future)
        files = tuple(f for f in files if f not in gone)
        what = future[-1] if len(future) == 1 else f"{len(future)} files, the newest {future[-1]}"
        notes.append(f"ignored {what}: dated after the run ({ctx.now:%Y-%m-%d})")
        for rel in future:
            outputs.warn(f"{rel}: dated after the run ({ctx.now:%Y-%m-%d}); ignored")
    run: OnDemandRun | None = None
    if on_demand(spec, ctx.registration):
        run = on_demand_run(spec, files, outputs, ctx.cron, ctx.now, STALE_AFTER)
        if run.dispatched is None and run.output is None:
            return _not_run(spec, files, run, ctx, muted, notes)
    elif (
        ctx.cron_known
        and ctx.cron is None
        and scheduled(ctx.registration)
        and not _any_output(spec, files, outputs)
        and _no_slot_yet(_enabled(spec, ctx), ctx)
    ):
        return _not_run_yet(spec, ctx, muted, notes)

    # a. latest output
    if not files:
        detail = f"no file matches {spec.output_pattern}"
        skipped = [*match.skipped, *(f"{f} is dated after the run" for f in future[-3:])]
        if taken:
            skipped.append(taken_note(taken))
        if skipped:
            detail += " (" + "; ".join(skipped) + ")"
        cron = ctx.cron
        if cron and cron.last_status == "success":
            notes.append(
                f"cron-state says the last run succeeded ({cron.last_success or 'time unknown'}) "
                "but there is no output"
            )
        causes: tuple[Cause, ...] = (Cause(Status.NO_OUTPUT, "no_file_match", detail),)
        return _finish(
            spec.skill,
            Status.NO_OUTPUT,
            causes,
            ctx,
            muted=muted,
            notes=tuple(notes),
            score=_quality(spec, ctx)[1],
        )

    if run is not None and run.output is not None:
        rel, lookback_note = run.output, None
        if spec.output_pattern.startswith("memory/logs/") and rel != files[-1]:
            lookback_note = f"used {rel}: the newest log with an entry of this on-demand skill"
    else:
        rel, lookback_note = pick_log(
            spec, files, outputs, ctx.registration.schedule if ctx.registration else None, ctx.now
        )
    if lookback_note:
        notes.append(lookback_note)
    try:
        body = outputs.read(rel)
    except OutputError as exc:
        status = Status.NO_OUTPUT if exc.code == "no_file_match" else Status.ERROR
        return _finish(
            spec.skill,
            status,
            (Cause(status, exc.code, exc.detail),),
            ctx,
            muted=muted,
            notes=tuple(notes),
        )
    age, age_source = outputs.age(rel, ctx.now)
    output = OutputFile(rel, body.size, body.sha256, age, age_source)
    found: list[Cause] = []
    words: int | None = None
    values: dict[str, float] = {}

    # b. empty / stale
    cadence_days, cadence_how = cadence.expected_cadence_days(
        ctx.registration.schedule if ctx.registration else None, spec.expected_cadence_days
    )
    # a file of white space only (a single newline) is as empty as one of 0 bytes
    blank = body.size == 0 or (body.data is not None and not body.data.strip())
    if blank:
        what = (
            "0 bytes"
            if body.size == 0
            else f"only white space, {body.size:,} byte{'s' * (body.size != 1)}"
        )
        found.append(Cause(Status.FAIL, "empty_file", f"{rel} is empty ({what})"))
    elif body.binary:
        found.append(
            Cause(Status.FAIL, "binary_file", f"{rel} holds binary data (NUL bytes), not text")
        )
    if age is not None and age > STALE_AFTER * cadence_days:
        # the day it was written: a name's date (its age counts from that day's end), else when
        last = (name_date(rel) if age_source == "filename" else None) or (
            ctx.now - timedelta(days=age)
        ).date()
        found.append(findings.stale(spec, ctx.cron, rel, age, (cadence_days, cadence_how), last))

    # c–f. content
    if not blank and not body.binary:
        blocks = content_of(spec, body, outputs)
        where = Where(rel, ctx.asks, lambda source: findings.locate(spec, body, outputs, source))
        try:
            content_causes, words, seen = check_content(spec, blocks, values, where)
        except PatternError as exc:  # validated at load time; kept for safety
            content_causes, words, seen = [Cause(Status.ERROR, "bad_pattern", str(exc))], 0, 1
        if spec.section and seen == 0:
            found.append(findings.missing_section(spec.section, where))
            content_causes = [c for c in content_causes if c.code != "word_count"]
        found.extend(content_causes)

    # g. quality
    quality_causes, score = _quality(spec, ctx)
    found.extend(quality_causes)
    if ctx.cron and ctx.cron.last_status == "failed" and not any(c.status.failing for c in found):
        err = f" ({ctx.cron.last_error[:120]})" if ctx.cron.last_error else ""
        notes.append(
            f"cron-state says the last run failed ({ctx.cron.last_failed or 'time unknown'}){err}"
        )
    causes = order_causes(found)
    status = causes[0].status if causes else Status.PASS
    return _finish(
        spec.skill,
        status,
        causes,
        ctx,
        words=words,
        output=output,
        muted=muted,
        notes=tuple(notes),
        numbers=tuple(sorted(values.items())),
        score=score,
    )


def _not_run(
    spec: Spec,
    files: tuple[str, ...],
    run: OnDemandRun,
    ctx: Context,
    muted: Mute | None,
    notes: list[str],
) -> SkillResult:
    """An on-demand skill with no run inside the lookback: listed, judged on nothing."""
    schedule = ctx.registration.schedule if ctx.registration else "on demand"
    last = f"; last output {files[-1]}" if files else ""
    detail = (
        f"{schedule}: no dispatch in cron-state and no dated output since "
        f"{run.since:%Y-%m-%d}{last}"
    )
    return _unjudged(spec, ctx, muted, detail, ("on demand, not run", *notes))


def _unjudged(
    spec: Spec, ctx: Context, muted: Mute | None, detail: str, notes: tuple[str, ...]
) -> SkillResult:
    """The NOT_RUN row of a skill that had no run to judge (`detail` says why)."""
    return _finish(
        spec.skill,
        Status.NOT_RUN,
        (Cause(Status.NOT_RUN, "not_run", detail),),
        ctx,
        muted=muted,
        notes=notes,
    )


def scheduled(reg: Registration | None) -> bool:
    """An enabled skill with a cron schedule (it has slots, so cron-state dispatches it)."""
    if reg is None or not reg.enabled or not reg.schedule:
        return False
    try:
        cadence.validate(reg.schedule)
    except ValueError:
        return False
    return True


def _enabled(spec: Spec, ctx: Context) -> Enabled | None:
    return ctx.enabled.get(spec.skill) if ctx.enabled is not None else None


def _no_slot_yet(enabled: Enabled | None, ctx: Context) -> bool:
    """Whether no scheduled slot has come since the skill was `enabled`: by when the config's
    git history or the daily logs date its enabling, else by this tool's previous article (it
    did not judge the skill, and no slot came since it listed it)."""
    reg = ctx.registration
    if enabled is not None and reg is not None and reg.schedule:
        fired = cadence.previous_fire(reg.schedule, ctx.now)
        return fired is None or fired < enabled.at
    return ctx.new_since_prior and not _slot_since_listed(ctx)


def _slot_since_listed(ctx: Context) -> bool:
    """Whether a scheduled slot came after the day the previous article listed the skill
    (enabled by then): it has had a run, so one never dispatched is judged as usual."""
    if ctx.listed_on is None or ctx.registration is None or not ctx.registration.schedule:
        return False
    fired = cadence.previous_fire(ctx.registration.schedule, ctx.now)
    return fired is not None and fired.date() > ctx.listed_on


def _any_output(spec: Spec, files: tuple[str, ...], outputs: Outputs) -> bool:
    """Whether the skill ever wrote anything the spec would check: a matching file, or for a
    shared log's section, a log holding its entry."""
    if not files:
        return False
    if not spec.section:
        return True
    return newest_entry(spec, files, outputs, date.min) is not None


def _not_run_yet(spec: Spec, ctx: Context, muted: Mute | None, notes: list[str]) -> SkillResult:
    """A scheduled skill cron-state has never dispatched and that has no output: its first
    scheduled run has not happened yet (enabled since the last slot), so nothing is judged."""
    schedule = ctx.registration.schedule if ctx.registration else None
    detail = (
        f"{schedule or 'scheduled'}: never dispatched (no entry in memory/cron-state.json) "
        "and no output yet"
    )
    first = cadence.next_fire(schedule, ctx.now) if schedule else None
    note = "not run yet: " + (
        f"first slot {first:%Y-%m-%d %H:%M} UTC"
        if first
        else "its first scheduled run has not happened"
    )
    enabled = _enabled(spec, ctx)
    if enabled is not None:
        note += f" (enabled {enabled.at:%Y-%m-%d}: {enabled.how})"
    return _unjudged(spec, ctx, muted, detail, (note, *notes))


def _quality(spec: Spec, ctx: Context) -> tuple[list[Cause], float | None]:
    """Check g: skill-health's average score (None when unknown), and a cause when it is low."""
    health = ctx.health
    if health is None or health.avg_score is None:
        return [], None
    cause = findings.quality(health.avg_score)
    return ([] if cause is None else [cause]), health.avg_score


def newest_output_age(
    spec: Spec, outputs: Outputs, now: datetime, claims: Claims | None = None
) -> float | None:
    """Age in days of the newest file `spec` would check (for a shared-log section, the newest of
    the last 14 logs that holds it; never another skill's file, given `claims`), None when there
    is none: how a contract with several outputs picks the one the skill wrote last."""
    try:
        files = outputs.matches(spec.output_pattern).files
    except (PathOutsideRoot, OSError, ValueError):
        return None
    if claims is not None:
        files = claims.own(spec.skill, spec.output_pattern, files)[0]
    files = by_date(files, outputs, spec.output_pattern)
    if spec.section:
        for rel in reversed(files[-14:]):
            try:
                body = outputs.read(rel)
            except OutputError:
                continue
            if holds_entry(spec, body, outputs):
                return outputs.age(rel, now)[0]
        return None
    return outputs.age(files[-1], now)[0] if files else None
