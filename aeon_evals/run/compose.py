"""The run's report stages, pure: the rows labelled against the previous run, the rows a --skill
run keeps from today's article, and the outcome (verdict, Action Queue, the article's data)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date

from aeon_evals.articles.store import ArticleStore
from aeon_evals.issues import IssueOutcome
from aeon_evals.load.registry import LLM_SKILL
from aeon_evals.model import ContractsMode, ParsedArticle, Status
from aeon_evals.report import diff as report
from aeon_evals.report import render
from aeon_evals.report.facts import add_specs, scoped_queue, silent, spec_problems
from aeon_evals.report.facts import sources as article_sources
from aeon_evals.run.data import RunOptions, RunOutcome
from aeon_evals.run.evaluate import Evaluated
from aeon_evals.run.fleet import Fleet
from aeon_evals.run.issue_stage import issues_of_the_day
from aeon_evals.run.loaded import Loaded


def label_rows(loaded: Loaded, evaluated: Evaluated, opts: RunOptions) -> list[report.Row]:
    """Every result labelled against the previous article, failing-since and issues carried."""
    return report.build_rows(
        evaluated.results,
        _without_llm_skill(loaded.prior),
        today=opts.today,
        history=_history(loaded.store, opts.today),
        full_run=opts.skill is None,
        reported_only=frozenset(
            loaded.inferred.inferred if loaded.mode is ContractsMode.REPORT else ()
        ),
    )


@dataclass(frozen=True)
class Kept:
    """What a --skill run keeps of today's article: the other skills' rows and queue items."""

    rows: list[report.Row]
    queue: tuple[str, ...] = ()


def kept_today(store: ArticleStore, opts: RunOptions) -> Kept:
    """Today's article's rows and Action Queue items about the skills a --skill run does not
    evaluate (their Full Results and Inferred rows, failing-since dates, issues, causes); nothing
    for a full run."""
    if opts.skill is None:
        return Kept([])
    today = store.on(opts.today)
    if today is None:
        return Kept([])
    skill = opts.skill
    rows = [
        report.Row.kept_from(
            k,
            failing_since=today.failing_since.get(s),
            cause=today.causes.get(s),
            was=today.was.get(s),
        )
        for s, k in today.rows.items()
        if s != skill
    ]
    rows += [
        report.Row.kept_from(
            k,
            reported_only=True,
            failing_since=today.failing_since.get(s),
            cause=today.causes.get(s),
        )
        for s, k in today.inferred_rows.items()
        if s != skill
    ]
    return Kept(rows, today.action_queue)


def compose(
    loaded: Loaded,
    evaluated: Evaluated,
    rows: list[report.Row],
    issues: IssueOutcome,
    kept: Kept,
    fleet: Fleet,
    opts: RunOptions,
) -> RunOutcome:
    """The run's outcome: the Action Queue, the verdict, the article's data, what is said."""
    rows = [*rows, *kept.rows]
    found, manifest, registry = evaluated.audit, loaded.manifest, loaded.registry
    actions = report.action_queue(
        rows,
        spec_problems=spec_problems(found, manifest, opts.skill),
        gaps=[a for a in add_specs(found, registry) if opts.skill in (None, a.skill)]
        if found is not None
        else [],
        fixes=evaluated.catalog.actions() if evaluated.catalog is not None else (),
    )
    if opts.skill is not None:  # today's items about the other skills are kept, as their rows
        actions = scoped_queue(kept.queue, opts.skill, actions)
    prior = loaded.prior
    previous_pct = prior.coverage_pct if prior else None
    # The old LLM skill counted disabled skills with a spec as covered: comparing against its
    # number would report a coverage cliff on the first run of this tool. Only compare like with
    # like.
    comparable_pct = previous_pct if prior is not None and prior.own else None
    coverage = evaluated.coverage
    verdict = report.verdict(rows, coverage, comparable_pct)
    day_filed, day_closed = issues_of_the_day(opts.today, issues)
    warnings = [*loaded.warnings, *evaluated.warnings, *issues.warnings]
    sources = article_sources(
        manifest,
        evaluated.state,
        evaluated.audit_source,
        prior,
        day_filed,
        day_closed,
        warnings,
        issues,
    )
    if evaluated.shallow:
        sources.insert(1, "history is shallow: ages of undated outputs are unknown")
    whole, inferred = loaded.whole, loaded.inferred
    gaps = [(g.skill, g.inferred_pattern) for g in found.uncovered_enabled] if found else []
    reported = loaded.mode is ContractsMode.REPORT
    data = render.ArticleData(
        opts.today,
        verdict,
        coverage,
        comparable_pct,
        report.count(rows),
        actions,
        rows,
        gaps,
        sources,
        legacy_pct=previous_pct if comparable_pct is None else None,
        contracts=None
        if loaded.mode is ContractsMode.OFF
        else whole.line(counted=not manifest.found),
        inferred_counts=report.count(rows, reported=True) if reported else None,
        without=list(inferred.without) if opts.skill is None else [],
        unscored=list(inferred.unscored) if opts.skill is None else [],
        silent=silent(
            [*(s for s, _ in inferred.without), *inferred.unscored],
            registry,
            evaluated.state.cron,
            opts.now,
        )
        if opts.skill is None
        else {},
        catalog=evaluated.catalog,
        fleet=_fleet_lines(fleet, issues),
    )
    notices = list(loaded.notices)
    first = (prior is None or not prior.own) and loaded.store.on(opts.today) is None
    if not manifest.found and first:  # said once: on the first run
        notices.append(
            "no skills/skill-evals/evals.json: every enabled skill is judged on its SKILL.md "
            "contract; `aeon-evals init` writes a starter evals.json to pin or override them"
        )
    return RunOutcome(
        verdict,
        opts.today,
        evaluated.results,
        rows,
        data,
        loaded.article,
        issues=issues,
        warnings=warnings,
        notices=notices,
        prior=prior,
        day_issues=(day_filed, day_closed),
        scope=inferred,
        metrics=evaluated.history,
        dry_run=opts.dry_run,
        known=loaded.known,
        manifest=loaded.manifest,
    )


def _fleet_lines(fleet: Fleet, issues: IssueOutcome) -> list[str]:
    """One line per fleet finding, its issue at the end: what the article leads with."""
    lines = []
    for finding in fleet.findings:
        cause = fleet.root_cause(finding)
        ref = issues.existing.get(cause) or next(
            (i.id for i in issues.filed if i.skill == cause), None
        )
        lines.append(finding.message + (f" ({ref})" if ref else ""))
    return lines


def _without_llm_skill(prior: ParsedArticle | None) -> ParsedArticle | None:
    """The prior article without a row for the LLM-run skill-evals (an earlier version graded
    this tool's article): the skill is not evaluated, so its old row is no 'no longer covered'."""
    if prior is None or LLM_SKILL not in prior.rows:
        return prior
    rows = {skill: row for skill, row in prior.rows.items() if skill != LLM_SKILL}
    return dataclasses.replace(prior, rows=rows)


def _history(store: ArticleStore, today: date) -> dict[str, list[Status | None]]:
    """Each skill's status over the last runs before today (oldest first), for flakiness."""
    parsed = store.recent(today, report.FLAKY_WINDOW - 1)
    skills = {s for p in parsed for s in p.rows}
    return {s: [p.rows[s].status if s in p.rows else None for p in parsed] for s in skills}
