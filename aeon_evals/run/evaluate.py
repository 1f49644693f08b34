"""Load and check: evals.json validated, then every skill in scope checked against its spec."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aeon_evals.cache.folder import Cache
from aeon_evals.catalog.summary import CatalogSummary, catalog_summary
from aeon_evals.checks import skill as checks
from aeon_evals.checks.outcome import judge_runs, with_outcome
from aeon_evals.checks.owners import Claims
from aeon_evals.checks.runs import RunReader
from aeon_evals.contracts.audit import AuditReport
from aeon_evals.contracts.scope import Scope, choose_output
from aeon_evals.load import cadence
from aeon_evals.load import state as state_stage
from aeon_evals.load.manifest import Manifest
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import Registry
from aeon_evals.load.state import StateSources
from aeon_evals.metrics import history as metrics
from aeon_evals.metrics.history import History
from aeon_evals.metrics.read import history_for_run
from aeon_evals.model import Cause, ContractsMode, Coverage, SkillResult, Spec, Status
from aeon_evals.outcomes import Judgement, Vocabulary
from aeon_evals.parallel import Forked
from aeon_evals.report.facts import coverage_audit
from aeon_evals.run.data import RunOptions
from aeon_evals.run.loaded import Judging, Loaded
from aeon_evals.text import patterns


def _context(
    skill: str,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    spec_source: str | None = None,
    asks: tuple[tuple[str, int], ...] = (),
    claims: Claims | None = None,
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
        enabled=state.enabled,
        asks=asks,
        claims=claims,
    )


def evaluate_all(
    manifest: Manifest,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    scope: list[str],
    outputs: Outputs,
    claims: Claims | None = None,
) -> list[SkillResult]:
    """Checks for every skill in scope; a broken spec gives an ERROR row, never a crash."""
    results: list[SkillResult] = []
    for skill in scope:
        ctx = _context(skill, registry, state, opts, claims=claims)
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
        ctx = _context(skill, registry, state, opts, inferred.source, asks, scope.claims)
        results.append(checks.evaluate(inferred.output.spec, outputs, ctx))
    return results


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
    claims = inferred.claims
    results = evaluate_all(manifest, registry, state, opts, scope, outputs, claims)
    warnings += outputs.warnings
    results += evaluate_inferred(inferred, registry, state, opts, outputs)
    fresh = state_stage.freshness(state, results, opts.now)
    if fresh.stale:
        state = state_stage.without_cron(state, fresh.status())
        results = evaluate_all(manifest, registry, state, opts, scope, outputs, claims)
        results += evaluate_inferred(inferred, registry, state, opts, outputs)
    return results, state


def disagreement(
    result: SkillResult,
    manifest: Manifest,
    judging: Judging,
    registry: Registry,
    state: StateSources,
    opts: RunOptions,
    outputs: Outputs,
    claims: Claims | None = None,
) -> SkillResult:
    """An evals.json spec whose pattern matches nothing while the skill's own SKILL.md contract
    finds a fresh output (a leftover template entry, issue #32.7): not a NO_OUTPUT failure of
    the skill but a spec to patch, ERROR `spec_disagrees` with both quoted (no issue; the Action
    Queue's Patch item). Any other result as it is."""
    head = result.head
    contract = judging.spec_contracts.get(result.skill)
    spec = manifest.specs.get(result.skill)
    if (
        head is None
        or head.code != "no_file_match"
        or contract is None
        or spec is None
        or not contract.usable
    ):
        return result
    chosen = choose_output(contract, outputs, opts.now, claims=claims)
    ctx = _context(result.skill, registry, state, opts, chosen.source, claims=claims)
    found = checks.evaluate(chosen.spec, outputs, ctx)
    if found.output is None or found.status.failing or found.status is not Status.PASS:
        return result  # the contract finds no fresh, passing output either: the spec stands
    section = f" ({chosen.spec.section})" if chosen.spec.section else ""
    detail = (
        f"evals.json's `{spec.output_pattern}` matches nothing, while {chosen.source} says the "
        f"skill writes `{chosen.spec.output_pattern}`{section}: fresh, {found.output.path}; "
        "patch the spec (or remove it: the SKILL.md contract is then evaluated)"
    )
    return dataclasses.replace(
        found,
        status=Status.ERROR,
        causes=(Cause(Status.ERROR, "spec_disagrees", detail),),
        spec_source=None,
        notes=("evals.json and SKILL.md disagree: the skill is not judged on this spec",),
    )


class RunJudge:
    """Check h's reading (issue #32): skills' newest runs judged with their vocabularies, the
    logs split once for all of them, each skill's newest run looked for within its cadence."""

    def __init__(
        self, registry: Registry, opts: RunOptions, outputs: Outputs, judging: Judging
    ) -> None:
        self.registry, self.outputs = registry, outputs
        self.reader = RunReader(outputs, opts.today, judging.headings)

    def judge(self, skill: str, spec: Spec, vocabulary: Vocabulary) -> Judgement:
        reg = self.registry.skills.get(skill)
        days, _ = cadence.expected_cadence_days(
            reg.schedule if reg else None, spec.expected_cadence_days
        )
        return judge_runs(skill, spec, vocabulary, self.reader, self.outputs, days)


def judge_runs_of(
    skills: list[str], manifest: Manifest, inferred: Scope, judging: Judging, runs: RunJudge
) -> dict[str, Judgement]:
    """Every skill in scope judged on its newest runs. It needs no check's result, so the run
    does it while the checks run on the second core."""
    judged: dict[str, Judgement] = {}
    for skill in skills:
        spec = manifest.specs.get(skill)
        if spec is None and skill in inferred.inferred:
            spec = inferred.inferred[skill].output.spec
        vocabulary = judging.by_skill.get(skill)
        if spec is not None and vocabulary is not None:
            judged[skill] = runs.judge(skill, spec, vocabulary)
    return judged


def with_outcomes(
    results: list[SkillResult],
    judged: dict[str, Judgement],
    inferred: Scope,
    state: StateSources,
    opts: RunOptions,
    judging: Judging,
    runs: RunJudge,
) -> tuple[list[SkillResult], dict[str, Judgement]]:
    """Each result with what its newest runs report added (checks/outcome.py), and the
    judgements, for the fleet findings. A spec that disagrees with its skill's SKILL.md is
    judged again where the skill really writes."""
    out: list[SkillResult] = []
    for result in results:
        skill = result.skill
        found = judged.get(skill)
        head = result.head
        contract = judging.spec_contracts.get(skill)
        vocabulary = judging.by_skill.get(skill)
        if head is not None and head.code == "spec_disagrees" and contract and vocabulary:
            spec = choose_output(contract, runs.outputs, opts.now, claims=inferred.claims).spec
            found = judged[skill] = runs.judge(skill, spec, vocabulary)
        if found is None or vocabulary is None:
            out.append(result)
            continue
        out.append(
            with_outcome(
                result,
                found,
                vocabulary,
                cron=state.cron.get(skill),
                now=opts.now,
                grace=opts.grace,
            )
        )
    return out, judged


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
    judging: Judging,
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
        results = [
            disagreement(r, manifest, judging, registry, checked, opts, outputs, inferred.claims)
            for r in results
        ]
        checked = dataclasses.replace(checked, enabled=None)  # asked by the checks only
        extra = audit() if audit is not None else None
        return Checked(results, checked, warnings, outputs.shallow, extra)

    return Forked(work, fork=len(scope) + len(inferred.inferred) >= FORK_MIN_CHECKS)


@dataclass
class Evaluated:
    """The checks' results (drift applied), the state they used, the coverage audit, the metric
    history and the catalog checks: everything the rows and the article are made from."""

    results: list[SkillResult]
    state: StateSources
    audit: AuditReport | None
    audit_source: str
    history: History
    catalog: CatalogSummary | None
    shallow: bool
    warnings: list[str]  # the checks', the past articles', the history's, the audit's, in order
    judged: dict[str, Judgement] = field(default_factory=dict)  # each skill's newest run

    @property
    def coverage(self) -> Coverage:
        return self.audit.coverage if self.audit else Coverage(0, 0)


def evaluate(loaded: Loaded, opts: RunOptions, cache: Cache) -> Evaluated:
    """Check every skill in scope and audit the coverage (on the second core with many skills),
    while this process reads the metric history, runs the catalog checks and reads each skill's
    runs (check h): none depends on another (the checks change only cron-state's facts, not
    skill-health's); the runs' judgements then join the checks' results. Then each metric's
    history turns a sustained step into a drift:<metric> cause (docs/metrics.md). Warnings keep
    the order of a run in one process."""
    root, manifest, inferred = opts.root, loaded.manifest, loaded.inferred

    def audit_coverage() -> Audited:
        # the SKILL.md contracts the run read already (none with contracts off: audit reads them)
        said: list[str] = []
        contracts = inferred.contracts if loaded.mode is not ContractsMode.OFF else None
        # with no evals.json the SKILL.md contracts are the coverage (`aeon-evals audit` agrees)
        covered = set(manifest.skills) if manifest.found else set(loaded.whole.inferred)
        found, source = coverage_audit(root, covered, loaded.registry, contracts, said)
        return Audited(found, source, said)

    checking = start_checks(
        manifest,
        inferred,
        loaded.registry,
        loaded.state,
        opts,
        loaded.scope,
        loaded.outputs,
        loaded.judging,
        audit=audit_coverage,
    )
    catalog_warnings: list[str] = []
    try:
        history = history_for_run(root, loaded.store, loaded.state.health, before=opts.today)
        catalog = _catalog(root, cache, warnings=catalog_warnings)
        runs = RunJudge(loaded.registry, opts, loaded.outputs, loaded.judging)
        judged = judge_runs_of(
            [*loaded.scope, *sorted(inferred.inferred)], manifest, inferred, loaded.judging, runs
        )
        checked = checking.result()
    except BaseException:
        checking.abandon()
        raise
    assert checked.audited is not None  # start_checks was given the audit
    checked_results, judged = with_outcomes(
        checked.results, judged, inferred, checked.state, opts, loaded.judging, runs
    )
    loaded.outputs.release()  # the checks are done: their reads make room for the dashboard's
    patterns.forget()
    warnings = [
        *checked.warnings,
        *loaded.later,
        *history.warnings,
        *checked.audited.warnings,
        *catalog_warnings,
    ]
    specs = {**manifest.specs, **{s: c.output.spec for s, c in inferred.inferred.items()}}
    results, _steps = metrics.with_drift(checked_results, history, day=opts.today, specs=specs)
    return Evaluated(
        results,
        checked.state,
        checked.audited.report,
        checked.audited.source,
        history,
        catalog,
        checked.shallow,
        warnings,
        judged,
    )


def _catalog(root: Path, cache: Cache, *, warnings: list[str]) -> CatalogSummary | None:
    """`aeon-evals lint`'s checks for the article and the dashboard; a failure never stops the
    run (it becomes a warning and the article has no Catalog line)."""
    try:
        return catalog_summary(root, cache)
    except Exception as exc:  # the catalog is a side view: the evaluation must go on
        warnings.append(f"catalog checks skipped: {type(exc).__name__}: {exc}")
        return None
