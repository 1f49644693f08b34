"""The nightly run: load → check → diff → issues → render → write → site → notify.

Each stage is a function of data; this module wires them and owns the run's writes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from aeon_evals import audit as audit_stage
from aeon_evals import cadence, card, checks, render, report
from aeon_evals import notify as notifier
from aeon_evals import scope as scope_stage
from aeon_evals import state as state_stage
from aeon_evals.artifacts import NOT_SENT, Artifact, Fate, failed, skipped
from aeon_evals.catalog_summary import CatalogSummary, catalog_summary
from aeon_evals.controls import escape_controls, has_controls, one_line
from aeon_evals.errors import (
    ArticleNotOurs,
    ConfigError,
    EvalsError,
    NothingEvaluated,
    WriteFailed,
)
from aeon_evals.fsio import (
    append_bytes,
    atomic_write,
    check_writable,
    create_exclusive,
    instance_lock,
    read_confined,
    rel_path,
    write_error,
    write_if_changed,
)
from aeon_evals.issues import (
    DETECTOR,
    IssueOutcome,
    IssueRef,
    IssueRequest,
    apply_plan,
    plan_issues,
    read_state,
)
from aeon_evals.layout import Layout, detect
from aeon_evals.manifest import (
    EVALS_PATH,
    Manifest,
    Problem,
    parse_manifest,
    read_manifest_data,
)
from aeon_evals.model import (
    ArticleRow,
    ContractsMode,
    Coverage,
    DiffLabel,
    ParsedArticle,
    SkillResult,
    Status,
    Verdict,
)
from aeon_evals.outputs import Outputs
from aeon_evals.patches import spec_patches
from aeon_evals.registry import Registry, llm_skill, load_registry
from aeon_evals.scope import Scope, broken_line
from aeon_evals.state import StateSources, load_state
from aeon_evals.store import ArticleStore


@dataclass(frozen=True)
class RunOptions:
    root: Path
    today: date
    now: datetime
    skill: str | None = None
    dry_run: bool = False
    notify: bool = True
    notify_cmd: str | None = None
    notify_timeout: float = notifier.TIMEOUT_SECONDS
    retry_delay: float = 5.0
    lock_timeout: float = 60.0
    site: bool = True
    site_out: Path | None = None
    grace: timedelta = checks.GRACE
    contracts: ContractsMode | None = None  # --contracts; None: evals.json's, else report
    layout: Layout | None = None  # None: detected from the root when the run starts
    force: bool = False  # replace a same-day article this tool did not write


@dataclass
class RunOutcome:
    """What happened, for the ledger, --json, the job summary and the exit code."""

    verdict: Verdict
    day: date
    results: list[SkillResult] = field(default_factory=list)
    rows: list[report.Row] = field(default_factory=list)
    article: render.ArticleData | None = None
    article_path: str | None = None
    article_written: Artifact = field(default_factory=Artifact)
    log_written: Artifact = field(default_factory=Artifact)
    site_written: Artifact = field(default_factory=Artifact)
    notified: Artifact = NOT_SENT
    card_written: Artifact | None = None  # None: the instance has no dashboard feed
    issues: IssueOutcome = field(default_factory=IssueOutcome)
    warnings: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    # Said on stderr, kept out of the article: about the switch-over, not about the skills.
    notices: list[str] = field(default_factory=list)
    prior: ParsedArticle | None = None
    day_issues: tuple[list[IssueRef], list[IssueRef]] = field(default_factory=lambda: ([], []))
    scope: Scope | None = None  # skills evaluated on SKILL.md contracts, and those without one

    def ledger(self) -> list[str]:
        filed = ", ".join(f"{i.id} ({i.skill})" for i in self.issues.filed) or "none"
        closed = ", ".join(f"{i.id} ({i.skill})" for i in self.issues.closed) or "none"
        return [
            f"verdict: {self.verdict.value}",
            f"article: {self.article_written}",
            f"log: {self.log_written}",
            f"site: {self.site_written}",
            *([f"dashboard card: {self.card_written}"] if self.card_written is not None else []),
            f"issues filed: {filed}",
            f"issues closed: {closed}",
            f"notification: {self.notified}",
        ]


def article_rel(day: date, layout: Layout | None = None) -> str:
    """This tool's article for `day`, relative to the root (`articles/` without a layout)."""
    return (layout or Layout()).article_rel(day)


def load_manifest(opts: RunOptions) -> Manifest | None:
    """evals.json validated, or None when it is missing or names no skill (bootstrap)."""
    duplicates: list[Problem] = []
    data = read_manifest_data(opts.root, retry_delay=opts.retry_delay, problems=duplicates)
    if data is None:
        return None
    manifest = parse_manifest(data)
    if duplicates:
        manifest = dataclasses.replace(manifest, problems=(*duplicates, *manifest.problems))
    return manifest if manifest.skills else None


def evaluate_all(
    manifest: Manifest,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    scope: list[str],
    outputs: Outputs,
) -> list[SkillResult]:
    """Checks for every skill in scope; a broken spec gives an ERROR row, never a crash."""
    results: list[SkillResult] = []
    for skill in scope:
        ctx = checks.Context(
            registry.skills.get(skill),
            state.cron.get(skill),
            state.health.get(skill),
            opts.now,
            opts.today,
            opts.grace,
        )
        if skill in manifest.spec_errors:
            results.append(checks.error_result(skill, manifest.spec_errors[skill], ctx))
        else:
            results.append(checks.evaluate(manifest.specs[skill], outputs, ctx))
    return results


def _history(store: ArticleStore, today: date) -> dict[str, list[Status | None]]:
    """Each skill's status over the last runs before today (oldest first), for flakiness."""
    parsed = store.recent(today, report.FLAKY_WINDOW - 1)
    skills = {s for p in parsed for s in p.rows}
    return {s: [p.rows[s].status if s in p.rows else None for p in parsed] for s in skills}


def _same_day_rows(
    store: ArticleStore, today: date, skill: str
) -> tuple[dict[str, ArticleRow], dict[str, ArticleRow]]:
    """Today's article's other rows: Full Results, and the Inferred contracts table."""
    parsed = store.on(today)
    if parsed is None:
        return {}, {}
    return (
        {s: r for s, r in parsed.rows.items() if s != skill},
        {s: r for s, r in parsed.inferred_rows.items() if s != skill},
    )


def evaluate_inferred(
    scope: Scope, registry: Registry, state: StateSources, opts: RunOptions, outputs: Outputs
) -> list[SkillResult]:
    """Checks for every skill evaluated on its SKILL.md contract; the row names the spec's line."""
    results: list[SkillResult] = []
    for skill, inferred in sorted(scope.inferred.items()):
        ctx = checks.Context(
            registry.skills.get(skill),
            state.cron.get(skill),
            state.health.get(skill),
            opts.now,
            opts.today,
            opts.grace,
        )
        result = checks.evaluate(inferred.output.spec, outputs, ctx)
        results.append(dataclasses.replace(result, spec_source=inferred.source))
    return results


def contracts_mode(manifest: Manifest, opts: RunOptions) -> ContractsMode:
    """`--contracts`, else evals.json's `contracts`, else report. An unusable value in evals.json
    stops the run (exit 2) unless `--contracts` decides."""
    if opts.contracts is not None:
        return opts.contracts
    problem = manifest.contracts_problem
    if problem is not None:
        raise ConfigError(problem.message, path=manifest.path, where=problem.where)
    return manifest.contracts or ContractsMode.REPORT


def _issue_requests(rows: list[report.Row], scope: Scope | None = None) -> list[IssueRequest]:
    requests = []
    for row in rows:
        result = row.result
        if (
            result is None
            or not row.counts
            or row.label not in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED)
        ):
            continue
        head = result.head
        inferred = scope.inferred.get(result.skill) if scope is not None else None
        spec_note = (
            "the spec is inferred from "
            + broken_line(inferred, head.code if head else "")
            + ", the skill has no evals.json entry"
            if inferred is not None and result.spec_source is not None
            else ""
        )
        requests.append(
            IssueRequest(
                skill=result.skill,
                label=DiffLabel(row.label),
                status=result.status,
                root_cause=one_line(head.code if head else result.status.value),
                # the row's notes (cron-state disagreement, which log was used) belong in the
                # issue too; a control character quoted from cron-state is shown escaped
                detail=one_line(
                    "; ".join([head.detail if head else "", *result.notes, spec_note]).strip("; ")
                ),
                output_path=result.output.path if result.output else None,
                flaky=row.flaky,
            )
        )
    return requests


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
        reason = exc.message if isinstance(exc, EvalsError) else str(exc)
        return f"it exists and is not an aeon-evals article ({reason})"
    if parsed.own:
        return None
    return "it exists and was not written by aeon-evals (the LLM-run skill-evals wrote it)"


def _run(opts: RunOptions) -> RunOutcome:
    root = opts.root
    layout = _layout(opts)
    manifest = load_manifest(opts)
    registry = load_registry(root, layout.config)
    switch = _switchover(root, layout, registry)
    if manifest is None:
        outcome = bootstrap(opts, registry)
        outcome.notices += switch
        return outcome

    mode = contracts_mode(manifest, opts)
    outputs = Outputs(root)
    inferred = scope_stage.inferred_scope(
        root,
        mode,
        registry,
        manifest.skills,
        outputs,
        opts.now,
        only=opts.skill,
        write_cache=not opts.dry_run,
    )
    if opts.skill is not None and opts.skill not in {*manifest.skills, *inferred.inferred}:
        message = f"skill-evals: {opts.skill} has no spec — add an entry to evals.json"
        if opts.notify and not opts.dry_run:
            notifier.notify(
                root,
                opts.notify_cmd,
                message,
                timeout=opts.notify_timeout,
            )
        raise NothingEvaluated(message)
    scope = [s for s in manifest.skills if opts.skill in (None, s)]
    state = load_state(root, [*scope, *inferred.inferred])
    warnings = (
        [
            p.line() + ("" if p.severity == "warning" else " (the skill is reported as ERROR)")
            for p in manifest.problems
        ]
        + list(registry.warnings)
        + list(state.warnings)
    )

    results = evaluate_all(manifest, registry, state, opts, scope, outputs)
    warnings += outputs.warnings
    results += evaluate_inferred(inferred, registry, state, opts, outputs)
    fresh = state_stage.freshness(state, results, opts.now)
    if fresh.stale:  # cron-state is behind the outputs: its facts would be stale, not wrong outputs
        state = state_stage.without_cron(state, fresh.status())
        results = evaluate_all(manifest, registry, state, opts, scope, outputs)
        results += evaluate_inferred(inferred, registry, state, opts, outputs)
    # The article folder is listed once, for the globs and the past articles.
    store = ArticleStore(
        root,
        names=outputs.names(layout.articles),
        writable=not opts.dry_run,
        dirs=layout.article_dirs,
    )
    article = layout.article_rel(opts.today)
    foreign = _not_ours(root, article, store)
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
        # Issues and INDEX.md are written before the article: make sure it can be written first.
        probe_writable(root, article, size=_ARTICLE_BYTES_PER_ROW * len(results) + 8192)
    prior, prior_warnings = store.prior(opts.today)
    warnings += prior_warnings
    rows = report.build_rows(
        results,
        prior,
        today=opts.today,
        history=_history(store, opts.today),
        open_issues={},
        full_run=opts.skill is None,
        reported_only=frozenset(inferred.inferred if mode is ContractsMode.REPORT else ()),
    )

    try:
        # the SKILL.md contracts the run read already (none with contracts off: audit reads them)
        found = audit_stage.audit(
            root,
            set(manifest.skills),
            registry,
            contracts=inferred.contracts if mode is not ContractsMode.OFF else None,
        )
        audit_source = "eval-audit=ok" + (
            f" ({len(found.warnings)} warning(s))" if found.warnings else ""
        )
        warnings += list(found.warnings)
    except Exception as exc:  # a failing audit never stops the run (SPEC §7)
        found = None
        audit_source = f"eval-audit=fail ({type(exc).__name__}: {exc})"
    coverage = found.coverage if found else Coverage(0, 0)
    catalog = _catalog(root, writable=not opts.dry_run, warnings=warnings)
    gaps = [(g.skill, g.inferred_pattern) for g in found.uncovered_enabled] if found else []
    without = [
        *inferred.without,
        *(
            (skill, "scorable: false in its SKILL.md: listed, not scored")
            for skill in inferred.unscored
        ),
    ]

    to_close = [r.skill for r in rows if r.label is DiffLabel.FIXED and not r.reported_only]
    try:
        check_writable(root, root / "memory/issues/INDEX.md", what="issues folder")
        plan = plan_issues(
            read_state(root),
            _issue_requests(rows, inferred),
            to_close,
            now=opts.now,
            today=opts.today,
            article_path=article,
            skills=[
                r.skill
                for r in rows
                if r.status is not None and r.status.failing and not r.reported_only
            ],
        )
        issues = plan.outcome if opts.dry_run else apply_plan(plan)
    except (OSError, EvalsError) as exc:
        reason = exc.message if isinstance(exc, EvalsError) else str(exc)
        issues = IssueOutcome(warnings=(f"memory/issues: issue keeping skipped: {reason}",))
    warnings += list(issues.warnings)
    rows = [
        dataclasses.replace(
            r,
            result=_see_also(r.result, issues.see_also.get(r.skill, ())),
            issue=issues.open_by_skill.get(r.skill, r.issue),
            failing_since=(
                dataclasses.replace(
                    r.failing_since, issue=issues.open_by_skill.get(r.skill, r.failing_since.issue)
                )
                if r.failing_since
                else None
            ),
        )
        for r in rows
    ]
    if opts.skill is not None:
        kept_rows, kept_inferred = _same_day_rows(store, opts.today, opts.skill)
        rows += [report.Row(None, kept.diff, None, kept=kept) for kept in kept_rows.values()]
        rows += [
            report.Row(None, kept.diff, None, kept=kept, reported_only=True)
            for kept in kept_inferred.values()
        ]

    spec_problems = [
        (
            o.skill,
            f"no skills/{o.skill}/ folder or aeon.yml entry"
            + (f"; did you mean {o.closest}?" if o.closest else ""),
        )
        for o in (found.orphans if found else ())
    ]
    spec_problems += spec_patches(manifest)  # validate's warnings about specs, as Patch items
    spec_problems = [p for p in spec_problems if opts.skill in (None, p[0])]
    actions = report.action_queue(
        rows,
        spec_problems=spec_problems,
        gaps=_add_specs(found, registry) if found is not None and opts.skill is None else [],
        fixes=catalog.actions() if catalog is not None else (),
    )
    previous_pct = prior.coverage_pct if prior else None
    # The old LLM skill counted disabled skills with a spec as covered: comparing against its
    # number would report a coverage cliff on the first run of this tool. Only compare like with like.
    comparable_pct = previous_pct if prior is not None and prior.own else None
    verdict = report.verdict(rows, coverage, comparable_pct)
    day_filed, day_closed = _issues_of_the_day(opts.today, issues)
    sources = _sources(manifest, state, audit_source, prior, day_filed, day_closed, warnings)
    if outputs.shallow:
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
        contracts=None if mode is ContractsMode.OFF else inferred.line(),
        inferred_counts=report.count(rows, reported=True) if mode is ContractsMode.REPORT else None,
        without=without if opts.skill is None else [],
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
    )
    if opts.dry_run:
        outcome.article_written = outcome.log_written = outcome.site_written = skipped("--dry-run")
        outcome.notified = skipped("--dry-run", verb="sent")
        if layout.dashboard is not None:
            outcome.card_written = skipped("--dry-run")
        return outcome
    _write(opts, outcome, store)
    return outcome


def _catalog(root: Path, *, writable: bool, warnings: list[str]) -> CatalogSummary | None:
    """`aeon-evals lint`'s checks for the article and the dashboard; a failure never stops the
    run (it becomes a warning and the article has no Catalog line)."""
    try:
        return catalog_summary(root, writable=writable)
    except Exception as exc:  # the catalog is a side view: the evaluation must go on
        warnings.append(f"catalog checks skipped: {type(exc).__name__}: {exc}")
        return None


def _see_also(result: SkillResult | None, ids: tuple[str, ...]) -> SkillResult | None:
    """The result with a note linking the other open issues that name its new failure."""
    if result is None or not ids:
        return result
    return dataclasses.replace(result, notes=(*result.notes, f"see also {', '.join(ids)}"))


def _switchover(root: Path, layout: Layout, registry: Registry) -> list[str]:
    """A warning while the registry still enables the LLM-run skill-evals (two writers)."""
    try:
        text = read_confined(root, layout.config).decode("utf-8", errors="replace")
    except (OSError, EvalsError):  # refused (a FIFO, /dev/zero, a link out): load_registry says so
        return []
    found = llm_skill(text, path=layout.config, registry=registry)
    return [found.warning()] if found else []


def _add_specs(found: audit_stage.AuditReport, registry: Registry) -> list[report.AddSpec]:
    """The Coverage Gaps as "Add" items: log-based ones with their section (from the skill's
    contract, else `### <skill>`), most frequently scheduled first."""
    adds = []
    for gap in found.uncovered_enabled:
        section = None
        if gap.inferred_pattern.startswith("memory/logs/"):
            contract = found.contracts.get(gap.skill)
            section = next(
                (
                    o.spec.section
                    for o in (contract.outputs if contract else ())
                    if o.spec.section and o.spec.output_pattern == gap.inferred_pattern
                ),
                f"### {gap.skill}",
            )
        reg = registry.skills.get(gap.skill)
        days, _how = cadence.expected_cadence_days(reg.schedule if reg else None, None)
        adds.append(report.AddSpec(gap.skill, gap.inferred_pattern, section, days))
    return report.rank_adds(adds)


def _issues_of_the_day(today: date, outcome: IssueOutcome) -> tuple[list[IssueRef], list[IssueRef]]:
    """Issues this tool filed and closed today, this run or an earlier one the same day: the
    article and the log describe the day, so a second run the same day writes the same text."""
    filed = {i.id: i for i in outcome.filed}
    closed = {i.id: i for i in outcome.closed}
    day = today.isoformat()
    for issue in outcome.known:
        if issue.detected_by != DETECTOR or not issue.affected_skills:
            continue
        ref = IssueRef(issue.id, issue.affected_skills[0], issue.path)
        if issue.detected_at.startswith(day):
            filed.setdefault(issue.id, ref)
        if issue.resolved_at and issue.resolved_at.startswith(day) and not issue.is_open:
            closed.setdefault(issue.id, ref)
    return sorted(filed.values(), key=lambda i: i.id), sorted(closed.values(), key=lambda i: i.id)


def _sources(
    manifest: Manifest,
    state: StateSources,
    audit_source: str,
    prior: ParsedArticle | None,
    filed: list[IssueRef],
    closed: list[IssueRef],
    warnings: list[str],
) -> list[str]:
    evals = (
        "evals.json=ok"
        if not manifest.spec_errors
        else f"evals.json=ok ({len(manifest.spec_errors)} invalid spec(s))"
    )
    if prior is None:
        prior_text = "prior-article=none (bootstrap)"
    elif prior.source == "disk":
        prior_text = f"prior-article=ok ({prior.path})"
    else:
        prior_text = f"prior-article=ok ({prior.path} from {prior.source}: no article on disk)"
    lines = [
        " · ".join(
            [
                evals,
                f"cron-state={state.cron_status}",
                f"skill-health={state.health_status}",
                audit_source,
                prior_text,
            ]
        )
    ]
    lines.append("issues filed: " + (", ".join(f"{i.id} ({i.skill})" for i in filed) or "none"))
    lines.append("issues closed: " + (", ".join(f"{i.id} ({i.skill})" for i in closed) or "none"))
    lines += [f"warning: {w}" for w in warnings]
    return lines


def _write(opts: RunOptions, outcome: RunOutcome, store: ArticleStore) -> None:
    root = opts.root
    data = outcome.article
    assert data is not None and outcome.article_path is not None
    article = outcome.article_path
    text = render.render_article(data)
    # What the rows quote (a cron-state error, a file name, a pattern) may hold control
    # characters: shown escaped, never raw (a NUL would make the article "binary" next week).
    raw_controls = has_controls(text)
    text = escape_controls(text)
    path = root / article
    check_writable(root, path, what="article")
    raw = text.encode("utf-8")
    try:  # an identical article keeps its file and mtime
        unchanged = not write_if_changed(path, raw)
    except OSError as exc:
        raise WriteFailed(write_error(exc, path, root=root)) from None
    outcome.article_written = Artifact(Fate.UNCHANGED if unchanged else Fate.DONE, article)
    if not raw_controls:  # else the parse kept would not be the file's: it is parsed when read
        # kept parsed without parsing its big table: the dashboard and tomorrow's run read it there
        store.remember(path, raw, lambda: render.parsed_article(data, path=article))
    else:
        store.remember(path, raw)

    filed, closed = outcome.day_issues
    section = render.log_section(
        data,
        article=outcome.article_path,
        filed=[i.id for i in filed],
        closed=[i.id for i in closed],
    )
    log_rel = f"memory/logs/{opts.today.isoformat()}.md"
    try:
        write_log_section(root, log_rel, escape_controls(section), opts.today)
        outcome.log_written = Artifact(Fate.DONE, log_rel, "### skill-evals")
    except (OSError, EvalsError) as exc:
        reason = (
            exc.message if isinstance(exc, EvalsError) else (exc.strerror or type(exc).__name__)
        )
        outcome.log_written = failed(reason)
        outcome.warnings.append(f"{log_rel}: cannot write the log section: {reason}")

    if opts.site:
        try:
            from aeon_evals import site

            out = opts.site_out or root / "site"
            if opts.site_out is None:
                check_writable(root, out / "index.html", what="site")
            built = site.build_site(root, out, now=opts.now, store=store, catalog=data.catalog)
            outcome.site_written = Artifact(
                Fate.DONE,
                f"{rel_path(out, root)}/index.html",
                f"{len(built.written)} written, {len(built.unchanged)} unchanged",
            )
        except Exception as exc:  # the dashboard must never cost the operator the article
            outcome.site_written = failed(f"{type(exc).__name__}: {exc}")
            outcome.warnings.append(f"site: {exc}")
    else:
        outcome.site_written = skipped("--no-site")
    try:
        store.save()
    except OSError as exc:  # the cache is only a speed-up
        outcome.warnings.append(f"{write_error(exc, '.aeon-evals/cache')}; cache not saved")
    _write_card(opts, outcome, data)

    if not opts.notify:
        outcome.notified = skipped("--no-notify", verb="sent")
    elif not outcome.verdict.notifies:
        outcome.notified = skipped(f"{outcome.verdict.value}: nothing changed", verb="sent")
    else:
        _notify(opts, outcome, render.notify_body(data, article=outcome.article_path))


def _notify(opts: RunOptions, outcome: RunOutcome, body: str) -> None:
    """Send `body` unless this very body was sent for this day already (notify state, not the
    article, decides: a rerun after --no-notify or a failed notifier sends once)."""
    root = opts.root
    state, problem = notifier.read_state(root)
    if problem:
        outcome.warnings.append(problem)
    earlier = notifier.already_sent(state, opts.today, body)
    if earlier is not None:
        outcome.notified = skipped(f"already sent for {earlier.day} at {earlier.at}", verb="sent")
        return
    sent = notifier.notify(root, opts.notify_cmd, body, timeout=opts.notify_timeout)
    outcome.notified = _notified(sent)
    if not sent.sent:
        outcome.warnings.append(f"notify: {sent.message}")
        return
    try:
        notifier.record_sent(root, state, opts.today, body, opts.now)
    except OSError as exc:
        outcome.warnings.append(
            f"{notifier.STATE_PATH}: cannot record the notification ({exc.strerror or exc}); "
            "a rerun today will send it again"
        )


def _notified(sent: notifier.NotifyResult) -> Artifact:
    """The notification's fate, in the notifier's own words."""
    return Artifact(Fate.DONE if sent.sent else Fate.FAILED, verb="sent", said=sent.message)


def _write_card(opts: RunOptions, outcome: RunOutcome, data: render.ArticleData) -> None:
    """One json-render card per run into the instance's dashboard feed, when it has one."""
    folder = _layout(opts).dashboard
    if folder is None or outcome.article_path is None:
        return
    rel = f"{folder}/{card.card_name(opts.now)}"
    try:
        path = opts.root / rel
        check_writable(opts.root, path, what="dashboard card")
        atomic_write(path, card.render_card(card.build_card(data, article=outcome.article_path)))
        outcome.card_written = Artifact(Fate.DONE, where=rel)
    except (OSError, EvalsError) as exc:
        reason = (
            exc.message if isinstance(exc, EvalsError) else (exc.strerror or type(exc).__name__)
        )
        outcome.card_written = failed(reason)
        outcome.warnings.append(f"{rel}: cannot write the dashboard card: {reason}")


_ARTICLE_BYTES_PER_ROW = 400  # a Full Results row and its share of the other tables, generously


def probe_writable(root: Path, rel: str, *, size: int) -> None:
    """Raise WriteFailed (one line: the file, the operation, the reason) unless a file of about
    `size` bytes can be written where `rel` goes: a read-only folder or a full disk is found
    before the run changes anything else."""
    path = root / rel
    check_writable(root, path, what="article")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
    except OSError as exc:
        raise WriteFailed(write_error(exc, path, root=root)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            block = b"\0" * min(size, 1 << 20)
            left = size
            while left > 0:
                fh.write(block[:left])
                left -= len(block)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise WriteFailed(write_error(exc, path, root=root)) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def write_log_section(root: Path, rel: str, section: str, today: date) -> None:
    """Put the `### skill-evals` section into the day's log, byte for byte: other skills' text
    is never decoded and re-encoded (Latin-1 bytes, CRLF stay as they are). A log without the
    section gets it appended (O_APPEND: a skill appending at the same moment loses nothing);
    one with it gets only that section's bytes replaced (temp file and rename)."""
    path = root / rel
    check_writable(root, path, what="log")
    try:
        existing: bytes | None = read_confined(root, rel, cap=LOG_CAP)
    except FileNotFoundError:
        existing = None
    new = section.encode("utf-8")
    if existing is None:
        atomic_write(path, f"# {today.isoformat()}\n\n".encode() + new)
        return
    replaced = replace_section_bytes(existing, new)
    if replaced is not None:
        if replaced != existing:
            atomic_write(path, replaced)
        return
    sep = b"" if existing.endswith(b"\n\n") else (b"\n" if existing.endswith(b"\n") else b"\n\n")
    append_bytes(path, sep + new)


LOG_CAP = 64 << 20  # a daily log larger than this is not edited


def replace_section_bytes(log: bytes, section: bytes) -> bytes | None:
    """`log` with its `### skill-evals` section replaced by `section`; None when it has none."""
    lines = log.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == b"### skill-evals"), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(b"#")), len(lines))
    tail = lines[end:]
    return b"".join(lines[:start]) + section + (b"\n" if tail else b"") + b"".join(tail)


def replace_section(log: str, section: str) -> str:
    """Put the `### skill-evals` section into a daily log: replace today's, else append."""
    lines = log.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == "### skill-evals"), None)
    if start is None:
        sep = "" if log.endswith("\n\n") else ("\n" if log.endswith("\n") else "\n\n")
        return log + sep + section
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    tail = lines[end:]
    return "".join(lines[:start]) + section + ("\n" if tail else "") + "".join(tail)


def bootstrap(opts: RunOptions, registry: Registry) -> RunOutcome:
    """No evals.json, or no skills in it: write a starter spec from the audit, notify, stop."""
    from aeon_evals.stubs import starter_manifest

    root = opts.root
    if not registry.found and not (root / "skills").is_dir():
        # Not an Aeon instance (a wrong --root, or cron started in the wrong folder): write nothing.
        raise ConfigError(
            "not an Aeon instance: no aeon.yml, no skills/ folder and no skills/skill-evals/evals.json "
            "(check --root; `aeon-evals init` sets up an existing Aeon repository)",
            path=root,
        )
    found = audit_stage.audit(root, set(), registry)
    outcome = RunOutcome(Verdict.BOOTSTRAP, opts.today)
    target = root / EVALS_PATH
    starter = starter_manifest(root, found)
    count = len(starter["skills"])
    if opts.dry_run:
        outcome.article_written = skipped(
            "--dry-run", note=f"would write {EVALS_PATH} with {count} starter specs"
        )
        return outcome
    if target.exists():
        outcome.messages.append(
            f"{EVALS_PATH} exists but names no skill; it was left as it is — add specs (see `aeon-evals audit --stubs`)"
        )
        outcome.article_written = failed(f"{EVALS_PATH} has no skills")
    else:
        check_writable(root, target, what="starter spec")
        create_exclusive(target, json.dumps(starter, indent=2, ensure_ascii=False))
        outcome.messages.append(
            f"wrote {EVALS_PATH} with {count} starter specs: review it and commit it"
        )
        outcome.article_written = skipped(note=f"starter {EVALS_PATH} written ({count} specs)")
    body = f"*Skill Evals — {Verdict.BOOTSTRAP.value}*\n{outcome.messages[-1]}"
    if opts.notify:
        outcome.notified = _notified(
            notifier.notify(root, opts.notify_cmd, body, timeout=opts.notify_timeout)
        )
    return outcome
