"""Load and check: evals.json validated, then every skill in scope checked against its spec."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aeon_evals.checks import skill as checks
from aeon_evals.contracts.audit import AuditReport
from aeon_evals.contracts.scope import Scope
from aeon_evals.errors import ConfigError
from aeon_evals.load import state as state_stage
from aeon_evals.load.manifest import Manifest, read_manifest
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import Registry
from aeon_evals.load.state import StateSources
from aeon_evals.model import ContractsMode, SkillResult
from aeon_evals.model.problems import Severity
from aeon_evals.parallel import Forked
from aeon_evals.run.data import RunOptions


def load_manifest(opts: RunOptions) -> Manifest | None:
    """evals.json validated, each problem at its line, or None when it is missing or names no
    skill (bootstrap)."""
    manifest = read_manifest(opts.root, retry_delay=opts.retry_delay)
    return manifest if manifest is not None and manifest.skills else None


def contracts_mode(manifest: Manifest, opts: RunOptions) -> ContractsMode:
    """`--contracts`, else evals.json's `contracts`, else report. An unusable value in evals.json
    stops the run (exit 2) unless `--contracts` decides."""
    if opts.contracts is not None:
        return opts.contracts
    problem = manifest.contracts_problem
    if problem is not None:
        raise ConfigError(problem.message, path=manifest.path, where=problem.where)
    return manifest.contracts or ContractsMode.REPORT


def _context(
    skill: str,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    spec_source: str | None = None,
    asks: tuple[tuple[str, int], ...] = (),
) -> checks.Context:
    """What one skill's checks know besides its spec: its schedule, state and the run's clock
    (and where an inferred spec came from)."""
    return checks.Context(
        registry.skills.get(skill),
        state.cron.get(skill),
        state.health.get(skill),
        opts.now,
        opts.today,
        opts.grace,
        spec_source,
        cron_known=bool(state.cron),
        listed_on=state.listed.get(skill),
        new_since_prior=state.prior_found and skill not in state.judged,
        asks=asks,
    )


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
        ctx = _context(skill, registry, state, opts)
        if skill in manifest.spec_errors:
            results.append(checks.error_result(skill, manifest.spec_errors[skill], ctx))
        else:
            results.append(checks.evaluate(manifest.specs[skill], outputs, ctx))
    return results


def evaluate_inferred(
    scope: Scope, registry: Registry, state: StateSources, opts: RunOptions, outputs: Outputs
) -> list[SkillResult]:
    """Checks for every skill evaluated on its SKILL.md contract; the row names the spec's line."""
    results: list[SkillResult] = []
    for skill, inferred in sorted(scope.inferred.items()):
        asks = tuple((element, ev.line) for element, ev in inferred.output.evidence)
        ctx = _context(skill, registry, state, opts, inferred.source, asks)
        results.append(checks.evaluate(inferred.output.spec, outputs, ctx))
    return results


def load_warnings(manifest: Manifest, registry: Registry, state: StateSources) -> list[str]:
    """The loaders' warnings, in the article's order: evals.json, the registry, the state files."""
    return (
        [
            p.brief()
            + ("" if p.severity is Severity.WARNING else " (the skill is reported as ERROR)")
            for p in manifest.problems
        ]
        + list(registry.warnings)
        + list(state.warnings)
    )


def check_all(
    manifest: Manifest,
    inferred: Scope,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    scope: list[str],
    outputs: Outputs,
    warnings: list[str],
) -> tuple[list[SkillResult], StateSources]:
    """Every skill in scope checked (evals.json specs, then SKILL.md contracts), and the state
    the checks used: when cron-state is behind the outputs its facts are dropped and the skills
    checked again, since they would be stale rather than the outputs wrong. The outputs'
    warnings go to `warnings`."""
    results = evaluate_all(manifest, registry, state, opts, scope, outputs)
    warnings += outputs.warnings
    results += evaluate_inferred(inferred, registry, state, opts, outputs)
    fresh = state_stage.freshness(state, results, opts.now)
    if fresh.stale:
        state = state_stage.without_cron(state, fresh.status())
        results = evaluate_all(manifest, registry, state, opts, scope, outputs)
        results += evaluate_inferred(inferred, registry, state, opts, outputs)
    return results, state


# With fewer skills than this the checks run in this process: a fork costs more than checking a
# few skills, and a small instance's run stays in one process.
FORK_MIN_CHECKS = 200


@dataclass(frozen=True)
class Audited:
    """The coverage audit as the checks' child gives it back: the report (None when the audit
    could not run), its Sources word, and what it had to say."""

    report: AuditReport | None
    source: str
    warnings: list[str]


@dataclass(frozen=True)
class Checked:
    """What check_all gives, and what the checks learnt of the outputs: their warnings, and
    whether the instance is a shallow clone."""

    results: list[SkillResult]
    state: StateSources
    warnings: list[str]
    shallow: bool
    audited: Audited | None = None  # start_checks' `audit`, when given


def start_checks(
    manifest: Manifest,
    inferred: Scope,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    scope: list[str],
    outputs: Outputs,
    audit: Callable[[], Audited] | None = None,
) -> Forked[Checked]:
    """check_all, on the second core when there are at least FORK_MIN_CHECKS skills: the run
    reads its metric history and audits the catalog meanwhile (nothing there depends on the
    checks). The checks only read, so a child that fails is replaced by checking here.
    `audit`: the coverage audit, which only reads too, done after the checks by the same process
    (the second core has time to spare while this one reads the history); it comes back in
    `Checked.audited`."""

    def work() -> Checked:
        warnings: list[str] = []
        results, checked = check_all(
            manifest, inferred, registry, state, opts, scope, outputs, warnings
        )
        extra = audit() if audit is not None else None
        return Checked(results, checked, warnings, outputs.shallow, extra)

    return Forked(work, fork=len(scope) + len(inferred.inferred) >= FORK_MIN_CHECKS)
