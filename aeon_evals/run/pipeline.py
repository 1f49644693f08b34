"""The nightly run: load → check → diff → issues → report → write (article, log, site, card,
cache) → notify.

`_run` is the list of stages; each is a function of data in a module of its own (`loaded`,
`evaluate`, `compose`, `issue_stage`), and the writes are at the edge (`publish`, `bootstrap`).
A `--skill` run is the same list: the stages are given the scope.
"""

from __future__ import annotations

import dataclasses

from aeon_evals.cache.folder import Cache
from aeon_evals.errors import ConfigError, NothingEvaluated
from aeon_evals.fs.lock import instance_lock
from aeon_evals.issues.rollback import Undo
from aeon_evals.load import cron_cache
from aeon_evals.load.layout import detect
from aeon_evals.load.registry import LLM_SKILL
from aeon_evals.model.artifacts import skipped
from aeon_evals.run.compose import compose, kept_today, label_rows
from aeon_evals.run.data import RunOptions, RunOutcome
from aeon_evals.run.evaluate import evaluate
from aeon_evals.run.fleet import fleet_of
from aeon_evals.run.issue_stage import keep_issues
from aeon_evals.run.loaded import Loaded, load, load_manifest, read_registry, switchover
from aeon_evals.run.publish import publish


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


def _run(opts: RunOptions) -> RunOutcome:
    """The stages in order; each takes data and returns data, the writes are at the end."""
    # the cache is saved once, at the end of a run that writes
    cache = Cache(opts.root, writable=not opts.dry_run)
    cron_cache.load(cache)  # each schedule's fields as last expanded: no croniter
    registry, parse = read_registry(opts, cache)
    manifest = load_manifest(opts, registry)
    if manifest is None:
        from aeon_evals.run.bootstrap import bootstrap  # the first run only: no evals.json yet

        assert opts.layout is not None  # run() detects it
        outcome = bootstrap(opts, registry)
        outcome.notices += switchover(opts.root, opts.layout, registry)
        return outcome
    try:
        loaded = load(opts, cache, registry, parse, manifest)
    except NothingEvaluated as exc:
        _say_nothing_evaluated(opts, exc)
        raise
    evaluated = evaluate(loaded, opts, cache)
    fleet = fleet_of(
        evaluated.results, evaluated.judged, loaded.registry, evaluated.state.cron, opts.today
    )
    undo = None if opts.dry_run else Undo()  # a failed run changes no issue
    issues, rows = keep_issues(
        opts.root,
        label_rows(loaded, evaluated, opts),
        loaded.inferred,
        now=opts.now,
        today=opts.today,
        article=loaded.article,
        undo=undo,
        fleet=fleet if opts.skill is None else None,
    )
    try:
        kept = kept_today(loaded.store, opts)
        outcome = compose(loaded, evaluated, rows, issues, kept, fleet, opts)
        _finish(opts, outcome, loaded, cache, undo)
    except BaseException:
        if undo is not None:
            undo.restore()  # after the article is written there is nothing left to put back
        raise
    return outcome


def _finish(
    opts: RunOptions, outcome: RunOutcome, loaded: Loaded, cache: Cache, undo: Undo | None
) -> None:
    """The writes at the edge, once everything is decided (none on a dry run)."""
    # a cache that is not this instance's own: said on the console and in --json, not in the
    # article (whose words a cache must never change)
    outcome.warnings[:0] = cache.warnings
    if opts.dry_run:
        outcome.article_written = outcome.log_written = outcome.site_written = skipped("--dry-run")
        outcome.notified = skipped("--dry-run", verb="sent")
        if loaded.layout.dashboard is not None:
            outcome.card_written = skipped("--dry-run")
        return
    loaded.parse.save()
    cron_cache.save(cache)
    publish(opts, outcome, loaded.store, written=undo.commit if undo is not None else None)
    cache.save()


def _say_nothing_evaluated(opts: RunOptions, exc: NothingEvaluated) -> None:
    """A --skill with no spec and no contract is notified (the old skill did), unless it is the
    LLM-run skill-evals, which is never evaluated."""
    if opts.notify and not opts.dry_run and opts.skill != LLM_SKILL:
        from aeon_evals.report import notify as notifier

        notifier.notify(opts.root, opts.notify_cmd, exc.message, timeout=opts.notify_timeout)
