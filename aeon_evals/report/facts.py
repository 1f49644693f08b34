"""What the article says besides the rows: the coverage audit, action items, its sources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from aeon_evals.checks.findings import STALE_FAIL_AFTER, cadence_words, failing_runs
from aeon_evals.clock import parse_stamp
from aeon_evals.contracts import audit as audit_stage
from aeon_evals.contracts.instance import Contract
from aeon_evals.issues import IssueOutcome, IssueRef, by_id
from aeon_evals.load import cadence
from aeon_evals.load.manifest import Manifest
from aeon_evals.load.registry import Registry
from aeon_evals.load.state import StateSources
from aeon_evals.model import CronState, ParsedArticle
from aeon_evals.report import diff as report
from aeon_evals.report.patches import spec_patches


def coverage_audit(
    root: Path,
    covered: set[str],
    registry: Registry,
    contracts: Mapping[str, Contract] | None,
    warnings: list[str],
) -> tuple[audit_stage.AuditReport | None, str]:
    """The coverage audit and its Sources entry (`eval-audit=ok`, or why it failed); its
    warnings go to `warnings`. A failing audit never stops the run (SPEC §7)."""
    try:
        found = audit_stage.audit(root, covered, registry, contracts=contracts)
    except Exception as exc:  # a failing audit never stops the run (SPEC §7)
        return None, f"eval-audit=fail ({type(exc).__name__}: {exc})"
    warnings += list(found.warnings)
    return found, "eval-audit=ok" + (
        f" ({len(found.warnings)} warning(s))" if found.warnings else ""
    )


def spec_problems(
    found: audit_stage.AuditReport | None, manifest: Manifest, skill: str | None
) -> list[tuple[str, str]]:
    """The Fix Spec items: orphan specs (with the closest real skill) and validate's warnings
    about specs; only `skill`'s with --skill."""
    problems = [
        (
            o.skill,
            f"no skills/{o.skill}/ folder or aeon.yml entry"
            + (f"; did you mean {o.closest}?" if o.closest else ""),
        )
        for o in (found.orphans if found else ())
    ]
    problems += spec_patches(manifest)  # validate's warnings about specs, as Patch items
    return [p for p in problems if skill in (None, p[0])]


def add_specs(found: audit_stage.AuditReport, registry: Registry) -> list[report.AddSpec]:
    """The Coverage Gaps as "Add" items: log-based ones with their section (from the skill's
    contract, else `### <skill>`), most frequently scheduled first."""
    adds = []
    for gap in found.uncovered_enabled:
        contract = found.contracts.get(gap.skill)
        if contract is not None and not contract.scorable:
            continue  # `scorable: false`: listed, never scored, so no spec to add
        section = None
        if gap.inferred_pattern.startswith("memory/logs/"):
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


def sources(
    manifest: Manifest,
    state: StateSources,
    audit_source: str,
    prior: ParsedArticle | None,
    filed: list[IssueRef],
    closed: list[IssueRef],
    warnings: list[str],
    issues: IssueOutcome | None = None,
) -> list[str]:
    """The article's Sources lines: what was read and how it went, the day's issues, warnings."""
    evals = (
        "evals.json=none (SKILL.md contracts)"
        if not manifest.found
        else "evals.json=ok"
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
    if issues is not None and issues.unwritten:  # a refused write: what was not done, said
        lines.append("issues filed: " + issues.said(issues.filed, issues.would_file))
        lines.append("issues closed: " + issues.said(issues.closed, issues.would_close))
    else:
        lines.append(
            "issues filed: " + (", ".join(f"{i.id} ({i.skill})" for i in by_id(filed)) or "none")
        )
        lines.append(
            "issues closed: " + (", ".join(f"{i.id} ({i.skill})" for i in by_id(closed)) or "none")
        )
    lines += [f"warning: {w}" for w in warnings]
    return lines


# The Action Queue's order (report.action_queue): Patch, then Investigate, Dispatch and a failing
# skill's Fix (its runs), then a SKILL.md's Fix (the catalog checks), Add
_QUEUE_ORDER = {"Patch": 0, "Investigate": 1, "Dispatch": 1, "Fix": 2, "Add": 3}


def _rank(action: str) -> int:
    verb = action.partition(" ")[0]
    if verb == "Fix" and not action.startswith("Fix SKILL.md:"):
        return 1  # `Fix <skill> — its runs …`: a failing skill's next step (report.fixes)
    return _QUEUE_ORDER.get(verb, len(_QUEUE_ORDER))


def action_skill(action: str) -> str:
    """The skill an Action Queue item is about: `Investigate x — …`, `Dispatch x — …`,
    `Patch evals.json:x — …`, `Fix SKILL.md:x — …`, `Add evals.json entry for x — …`; "" for
    the `+N more skills …` line."""
    head = action.split(" — ", 1)[0]
    if head.startswith("Add evals.json entry for "):
        return head.removeprefix("Add evals.json entry for ")
    verb, _, target = head.partition(" ")
    if verb in ("Patch", "Fix") and target.startswith(("evals.json", "SKILL.md")):
        return target.partition(":")[2]  # ("" for `Patch evals.json — 3 specs …`)
    return target  # (`Fix <skill> — its runs …`: report.fixes)


def scoped_queue(kept: Sequence[str], skill: str, new: Sequence[str]) -> list[str]:
    """A `--skill` run's Action Queue: today's article's items about the other skills (kept,
    as their rows are) and `skill`'s own new ones, once each, in the queue's order, at most
    report.MAX_ACTIONS. Without an article today, `new` as it is."""
    items = [a for a in kept if action_skill(a) != skill]
    merged = list(dict.fromkeys([*items, *new]))
    merged.sort(key=_rank)
    return merged[: report.MAX_ACTIONS]


def silent(
    skills: Sequence[str], registry: Registry, cron: Mapping[str, CronState], now: datetime
) -> dict[str, str]:
    """What cron-state says of each of `skills` that the run judges on nothing (no contract,
    `scorable: false`) when its runs fail or it has gone silent for longer than
    STALE_FAIL_AFTER cadences of its schedule: `cron-state: last run dispatched 2026-07-02 (48
    days ago), expected daily`. Said beside the skill in the article; no verdict, no issue."""
    found: dict[str, str] = {}
    for skill in skills:
        state, reg = cron.get(skill), registry.skills.get(skill)
        if state is None or reg is None or not reg.schedule:
            continue
        every, how = cadence.expected_cadence_days(reg.schedule, None)
        if how == "fallback":  # workflow_dispatch, reactive: no cadence to be late for
            continue
        if (failures := failing_runs(state)) is not None:
            found[skill] = f"cron-state: {failures} failed runs in a row"
            continue
        heard = [
            (stamp, word)
            for text, word in (
                (state.last_success, "succeeded"),
                (state.last_failed, "failed"),
                (state.last_dispatch, "dispatched"),
            )
            if (stamp := parse_stamp(text)) is not None
        ]
        if not heard:
            continue
        stamp, word = max(heard)
        age = (now - stamp).total_seconds() / 86400
        if age > STALE_FAIL_AFTER * every:
            found[skill] = (
                f"cron-state: last run {word} {stamp:%Y-%m-%d} ({age:.0f} days ago), "
                f"expected {cadence_words(every)}"
            )
    return found
