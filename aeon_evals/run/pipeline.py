"""The nightly run: load → check → diff → issues → render → write → site → notify.

`_run` is the list of stages; each stage is a function of data in a module of its own
(evaluate, issue_stage, article_facts), and the writes are at the edge (publish, bootstrap).
"""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

from aeon_evals.articles.store import ArticleStore
from aeon_evals.cache.folder import Cache
from aeon_evals.catalog.summary import CatalogSummary, catalog_summary
from aeon_evals.contracts import scope as scope_stage
from aeon_evals.contracts.scope import Scope
from aeon_evals.errors import (
    ArticleNotOurs,
    ConfigError,
    EvalsError,
    NothingEvaluated,
    os_reason,
)
from aeon_evals.fs.confine import read_confined
from aeon_evals.fs.lock import instance_lock
from aeon_evals.load import cron_cache, registry_cache
from aeon_evals.load.layout import Layout, detect
from aeon_evals.load.manifest import Manifest
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import LLM_SKILL, Registry, load_registry
from aeon_evals.load.state import load_state
from aeon_evals.load.switchover import llm_skill
from aeon_evals.metrics import history as metrics
from aeon_evals.metrics.read import history_for_run
from aeon_evals.model import (
    ArticleRow,
    ContractsMode,
    Coverage,
    FailingSince,
    ParsedArticle,
    Status,
)
from aeon_evals.model.artifacts import skipped
from aeon_evals.report import diff as report
from aeon_evals.report import render
from aeon_evals.report.facts import add_specs, coverage_audit, scoped_queue, spec_problems
from aeon_evals.report.facts import sources as article_sources
from aeon_evals.run.data import RunOptions, RunOutcome
from aeon_evals.run.evaluate import (
    Audited,
    contracts_mode,
    load_manifest,
    load_warnings,
    start_checks,
)
from aeon_evals.run.issue_stage import issues_of_the_day, keep_issues
from aeon_evals.run.publish import ARTICLE_BYTES_PER_ROW, probe_writable, publish
from aeon_evals.text import patterns


def run(opts: RunOptions) -> RunOutcome:
    """The whole nightly job. Raises EvalsError subclasses for expected failures."""
    if not opts.root.is_dir():
        raise ConfigError("instance root does not exist or is not a folder", path=opts.root)
    if opts.layout is None:
        opts = dataclasses.replace(opts, layout=detect(opts.root))
    if opts.dry_run:
        return _run(opts)
    with instance_lock(opts.root, timeout=opts.lock_timeout):
        return _run(opts)


def _layout(opts: RunOptions) -> Layout:
    assert opts.layout is not None  # run() detects it
    return opts.layout


def _run(opts: RunOptions) -> RunOutcome:
    """The stages in order; each takes data and returns data, the writes are at the end."""
    root = opts.root
    layout = _layout(opts)
    cache = Cache(root, writable=not opts.dry_run)  # saved once, at the end of a run that writes
    cron_cache.load(cache)  # each schedule's fields as last expanded: no croniter
    manifest = load_manifest(opts)
    parse = registry_cache.CachedParser(cache)  # aeon.yml as last parsed, when unchanged
    registry = load_registry(root, layout.config, parse=parse)
    switch = _switchover(root, layout, registry)
    if manifest is None:
        from aeon_evals.run.bootstrap import bootstrap  # the first run only: no evals.json yet

        outcome = bootstrap(opts, registry)
        outcome.notices += switch
        return outcome

    mode = contracts_mode(manifest, opts)
    outputs = Outputs(root)
    # every inferred contract, as a full run has them: a --skill run's Coverage line and
    # Sources describe the instance, only its evaluation is scoped
    whole = scope_stage.inferred_scope(
        root, mode, registry, manifest.skills, outputs, opts.now, cache=cache, specs=manifest.specs
    )
    inferred = whole if opts.skill is None else scope_stage.narrowed(whole, opts.skill)
    scope = _in_scope(opts, manifest, inferred)
    state = load_state(root, [*_in_scope(_all(opts), manifest, whole), *whole.inferred])
    # The article folder is listed once, for the globs and the past articles.
    store = ArticleStore(
        root,
        names=outputs.names(layout.articles),
        dirs=layout.article_dirs,
        cache=cache,
    )
    prior, prior_warnings = store.prior(opts.today)
    state = dataclasses.replace(
        state,
        listed=_listed(prior),
        prior_found=prior is not None and prior.own,
        judged=_judged(prior),
    )
    warnings = load_warnings(manifest, registry, state)
    article = layout.article_rel(opts.today)
    guarded: list[str] = []
    _guard_article(opts, article, store, len(scope) + len(inferred.inferred), guarded)

    def audit_coverage() -> Audited:
        # the SKILL.md contracts the run read already (none with contracts off: audit reads them)
        said: list[str] = []
        contracts = inferred.contracts if mode is not ContractsMode.OFF else None
        found, source = coverage_audit(root, set(manifest.skills), registry, contracts, said)
        return Audited(found, source, said)

    # The checks, then the coverage audit (on the second core with many skills), while this
    # process reads the metric history and audits the catalog: none depends on another (the
    # checks change only cron-state's facts, not skill-health's). Warnings keep the order of a
    # run in one process.
    checking = start_checks(
        manifest, inferred, registry, state, opts, scope, outputs, audit=audit_coverage
    )
    catalog_warnings: list[str] = []
    try:
        # each metric's history: a sustained step becomes a drift:<metric> cause (docs/metrics.md)
        history = history_for_run(root, store, state.health, before=opts.today)
        catalog = _catalog(root, cache, warnings=catalog_warnings)
        checked = checking.result()
    except BaseException:
        checking.abandon()
        raise
    assert checked.audited is not None  # start_checks was given the audit
    found, audit_source, later = (
        checked.audited.report,
        checked.audited.source,
        checked.audited.warnings,
    )
    later += catalog_warnings
    results, state = checked.results, checked.state
    outputs.release()  # the checks are done: their reads make room for the dashboard's
    patterns.forget()
    warnings += [*checked.warnings, *guarded, *prior_warnings, *history.warnings, *later]
    specs = {**manifest.specs, **{s: c.output.spec for s, c in inferred.inferred.items()}}
    results, _steps = metrics.with_drift(results, history, day=opts.today, specs=specs)
    rows = report.build_rows(
        results,
        _without_llm_skill(prior),
        today=opts.today,
        history=_history(store, opts.today),
        full_run=opts.skill is None,
        reported_only=frozenset(inferred.inferred if mode is ContractsMode.REPORT else ()),
    )

    coverage = found.coverage if found else Coverage(0, 0)
    gaps = [(g.skill, g.inferred_pattern) for g in found.uncovered_enabled] if found else []

    issues, rows = keep_issues(
        root,
        rows,
        inferred,
        now=opts.now,
        today=opts.today,
        article=article,
        apply=not opts.dry_run,
    )
    warnings += list(issues.warnings)
    kept_queue: tuple[str, ...] = ()
    if opts.skill is not None:
        today_article = store.on(opts.today)
        kept_rows, kept_inferred, since = _same_day_rows(today_article, opts.skill)
        causes = today_article.causes if today_article is not None else {}
        was = today_article.was if today_article is not None else {}
        rows += [
            report.Row.kept_from(k, failing_since=since.get(s), cause=causes.get(s), was=was.get(s))
            for s, k in kept_rows.items()
        ]
        rows += [report.Row.kept_from(kept, reported_only=True) for kept in kept_inferred.values()]
        kept_queue = today_article.action_queue if today_article is not None else ()

    actions = report.action_queue(
        rows,
        spec_problems=spec_problems(found, manifest, opts.skill),
        gaps=[a for a in add_specs(found, registry) if opts.skill in (None, a.skill)]
        if found is not None
        else [],
        fixes=catalog.actions() if catalog is not None else (),
    )
    if opts.skill is not None:  # today's items about the other skills are kept, as their rows
        actions = scoped_queue(kept_queue, opts.skill, actions)
    previous_pct = prior.coverage_pct if prior else None
    # The old LLM skill counted disabled skills with a spec as covered: comparing against its
    # number would report a coverage cliff on the first run of this tool. Only compare like with
    # like.
    comparable_pct = previous_pct if prior is not None and prior.own else None
    verdict = report.verdict(rows, coverage, comparable_pct)
    day_filed, day_closed = issues_of_the_day(opts.today, issues)
    sources = article_sources(manifest, state, audit_source, prior, day_filed, day_closed, warnings)
    if checked.shallow:
        sources.insert(1, "history is shallow: ages of undated outputs are unknown")
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
        contracts=None if mode is ContractsMode.OFF else whole.line(),
        inferred_counts=report.count(rows, reported=True) if mode is ContractsMode.REPORT else None,
        without=list(inferred.without) if opts.skill is None else [],
        unscored=list(inferred.unscored) if opts.skill is None else [],
        catalog=catalog,
    )
    outcome = RunOutcome(
        verdict,
        opts.today,
        results,
        rows,
        data,
        article,
        issues=issues,
        warnings=warnings,
        notices=switch,
        prior=prior,
        day_issues=(day_filed, day_closed),
        scope=inferred,
        metrics=history,
        dry_run=opts.dry_run,
    )
    # a cache that is not this instance's own: said on the console and in --json, not in the
    # article (whose words a cache must never change)
    outcome.warnings[:0] = cache.warnings
    if opts.dry_run:
        outcome.article_written = outcome.log_written = outcome.site_written = skipped("--dry-run")
        outcome.notified = skipped("--dry-run", verb="sent")
        if layout.dashboard is not None:
            outcome.card_written = skipped("--dry-run")
        return outcome
    parse.save()
    cron_cache.save(cache)
    publish(opts, outcome, store)
    cache.save()
    return outcome


def _listed(prior: ParsedArticle | None) -> dict[str, date]:
    """Skill -> the day of the previous article that listed it (it was enabled by then)."""
    if prior is None:
        return {}
    return {skill: prior.day for skill in (*prior.rows, *prior.inferred_rows)}


def _judged(prior: ParsedArticle | None) -> frozenset[str]:
    """The skills the previous article judged: listed with a status other than NOT_RUN. Without
    a previous article of this tool's (a first run, or the old LLM skill's articles, which list
    only evals.json's skills) nothing says a never-dispatched skill is new, so it is judged:
    aeonfun's morning-brief, in a chain whose dispatches fail, is a failure, not a skill whose
    first slot is still to come."""
    if prior is None:
        return frozenset()
    rows = (*prior.rows.values(), *prior.inferred_rows.values())
    return frozenset(row.skill for row in rows if row.status is not Status.NOT_RUN)


def _without_llm_skill(prior: ParsedArticle | None) -> ParsedArticle | None:
    """The prior article without a row for the LLM-run skill-evals (an earlier version graded
    this tool's article): the skill is not evaluated, so its old row is no 'no longer covered'."""
    if prior is None or LLM_SKILL not in prior.rows:
        return prior
    rows = {skill: row for skill, row in prior.rows.items() if skill != LLM_SKILL}
    return dataclasses.replace(prior, rows=rows)


def _all(opts: RunOptions) -> RunOptions:
    """`opts` without --skill: what a full run's scope would be."""
    return dataclasses.replace(opts, skill=None)


def _in_scope(opts: RunOptions, manifest: Manifest, inferred: Scope) -> list[str]:
    """The evals.json skills this run evaluates (all, or --skill's); a --skill with no spec and
    no contract is notified and stops the run (NothingEvaluated)."""
    if opts.skill == LLM_SKILL:
        raise NothingEvaluated(
            f"skill-evals: {LLM_SKILL} is not evaluated: its output is this tool's own article"
        )
    if opts.skill is not None and opts.skill not in {*manifest.skills, *inferred.inferred}:
        message = f"skill-evals: {opts.skill} has no spec — add an entry to evals.json"
        if opts.notify and not opts.dry_run:
            from aeon_evals.report import notify as notifier

            notifier.notify(opts.root, opts.notify_cmd, message, timeout=opts.notify_timeout)
        raise NothingEvaluated(message)
    # an evals.json entry for Aeon's LLM-run skill-evals would grade this tool's own article
    # (a same-day rerun read the first run's): never evaluated, as the audit says
    return [s for s in manifest.skills if opts.skill in (None, s) and s != LLM_SKILL]


def _guard_article(
    opts: RunOptions, article: str, store: ArticleStore, rows: int, warnings: list[str]
) -> None:
    """Stop before anything is written when today's article is not ours (without --force) or
    cannot be written (a read-only folder, a full disk): issues and INDEX.md come first."""
    foreign = _not_ours(opts.root, article, store)
    if foreign is not None:
        if not opts.force and not opts.dry_run:
            raise ArticleNotOurs(
                f"{foreign}; not replaced. Disable the LLM skill (`aeon-evals init "
                "--disable-llm-skill`), then run again with --force to replace it",
                path=article,
            )
        if opts.dry_run and not opts.force:
            warnings.append(f"{article}: {foreign}; a real run stops here unless --force")
    if not opts.dry_run:
        probe_writable(opts.root, article, size=ARTICLE_BYTES_PER_ROW * rows + 8192)


def _history(store: ArticleStore, today: date) -> dict[str, list[Status | None]]:
    """Each skill's status over the last runs before today (oldest first), for flakiness."""
    parsed = store.recent(today, report.FLAKY_WINDOW - 1)
    skills = {s for p in parsed for s in p.rows}
    return {s: [p.rows[s].status if s in p.rows else None for p in parsed] for s in skills}


def _same_day_rows(
    parsed: ParsedArticle | None, skill: str
) -> tuple[dict[str, ArticleRow], dict[str, ArticleRow], dict[str, FailingSince]]:
    """Today's article's other rows: Full Results, and the Inferred contracts table; and their
    failing-since dates and issues (the Still Failing and Regressions tables)."""
    if parsed is None:
        return {}, {}, {}
    return (
        {s: r for s, r in parsed.rows.items() if s != skill},
        {s: r for s, r in parsed.inferred_rows.items() if s != skill},
        parsed.failing_since,
    )


def _not_ours(root: Path, rel: str, store: ArticleStore) -> str | None:
    """Why today's article at `rel` must not be replaced without --force: it exists and this tool
    did not write it (the old LLM skill did, or it is no article at all). None when it is ours
    or absent."""
    path = root / rel
    if not path.is_file():
        return None
    try:
        parsed = store.read(path)
    except (EvalsError, OSError, UnicodeError) as exc:
        reason = exc.message if isinstance(exc, EvalsError) else os_reason(exc)
        return f"it exists and is not an aeon-evals article ({reason})"
    if parsed.own:
        return None
    return "it exists and was not written by aeon-evals (the LLM-run skill-evals wrote it)"


def _catalog(root: Path, cache: Cache, *, warnings: list[str]) -> CatalogSummary | None:
    """`aeon-evals lint`'s checks for the article and the dashboard; a failure never stops the
    run (it becomes a warning and the article has no Catalog line)."""
    try:
        return catalog_summary(root, cache)
    except Exception as exc:  # the catalog is a side view: the evaluation must go on
        warnings.append(f"catalog checks skipped: {type(exc).__name__}: {exc}")
        return None


def _switchover(root: Path, layout: Layout, registry: Registry) -> list[str]:
    """A warning while the registry still enables the LLM-run skill-evals (two writers)."""
    try:
        text = read_confined(root, layout.config).decode("utf-8", errors="replace")
    except (OSError, EvalsError):  # refused (a FIFO, /dev/zero, a link out): load_registry says so
        return []
    found = llm_skill(text, path=layout.config, registry=registry)
    return [found.warning()] if found else []
