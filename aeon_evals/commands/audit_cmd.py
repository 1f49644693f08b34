"""`aeon-evals audit`: which enabled skills have no spec (the old scripts/eval-audit)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aeon_evals.cache.folder import Cache
from aeon_evals.commands import add_instance_options, summary
from aeon_evals.contracts import audit, stubs
from aeon_evals.contracts.instance import load_contracts
from aeon_evals.load import layout
from aeon_evals.load.manifest import parse_manifest, read_manifest_data
from aeon_evals.load.registry import LLM_SKILL, load_registry
from aeon_evals.model import Coverage
from aeon_evals.model.problems import warning_line
from aeon_evals.text.controls import show_name

_NAME_WIDTH = 30


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "audit",
        help=summary("audit"),
        description="Skills are the folders under skills/; covered = has an evals.json entry; "
        "enabled from aeon.yml. Coverage = enabled skills with a spec / enabled skills. Also lists "
        "orphan specs (an evals.json entry with no skills/<name>/ folder and no aeon.yml entry) "
        "with the closest real skill name.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_instance_options(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="machine-readable output (the old script's key names, and more)",
    )
    p.add_argument(
        "--all", action="store_true", help="also list covered, disabled and unregistered skills"
    )
    p.add_argument(
        "--stubs",
        action="store_true",
        help="print starter specs for uncovered enabled skills as one JSON object",
    )
    p.set_defaults(func=run)


def report_for(root: Path, config: str | None = None) -> tuple[audit.AuditReport, list[str]]:
    """The audit of the instance at `root` and the warnings met on the way (aeon.yml entries
    read best-effort …). Raises ConfigError when evals.json exists but cannot be read, when
    two root files could be the skill registry, or when `root` is no Aeon instance at all (no
    skill registry: "0/0 enabled skills" would read as an empty fleet; exit 2, as `run`)."""
    config = layout.instance(root, config=config).config
    data = read_manifest_data(root, retry_delay=None)
    specs = set(parse_manifest(data).skills) if data is not None else set()
    registry = load_registry(root, config)
    # read-only: `audit` writes nothing, not even the contracts cache a run keeps
    enabled = sorted(registry.enabled() & set(audit.skill_folders(root)))
    contracts = load_contracts(root, enabled, Cache(root, writable=False))
    # today's Aeon (no evals.json, no skill-evals registered): the run evaluates every enabled
    # skill on its SKILL.md contract, so those contracts are the coverage
    by_contracts = data is None and LLM_SKILL not in registry.skills
    found = audit.audit(root, specs, registry, contracts=contracts, by_contracts=by_contracts)
    if by_contracts:
        judged = {s for s, c in contracts.items() if c.outputs and c.scorable}
        counted = registry.enabled() - {LLM_SKILL}
        found = dataclasses.replace(
            found, coverage=Coverage(len(judged & counted), found.coverage.enabled)
        )
    contract_warnings = [w for c in found.contracts.values() for w in c.warnings]
    return found, [*registry.warnings, *found.warnings, *contract_warnings]


def contract_rows(found: audit.AuditReport) -> dict[str, dict[str, Any]]:
    """Per enabled skill: where its spec comes from (`evals.json` overrides the SKILL.md
    contract), the contract's source line and first output, or why it has none."""
    covered = set(found.covered)
    rows: dict[str, dict[str, Any]] = {}
    names = sorted({g.skill for g in found.uncovered_enabled} | (covered & set(found.contracts)))
    for skill in names:
        contract = found.contracts.get(skill)
        first = contract.outputs[0] if contract is not None and contract.outputs else None
        if skill in covered:
            spec_source: str | None = "evals.json"
        else:
            spec_source = "SKILL.md" if first is not None else None
        if first is not None:
            reason = None
        else:
            reason = contract.reason if contract is not None else "no SKILL.md"
        rows[skill] = {
            "spec_source": spec_source,
            "contract_source": contract.source if first is not None and contract else None,
            "output_pattern": first.spec.output_pattern if first else None,
            "section": first.spec.section if first else None,
            "condition": first.condition if first else None,
            "scorable": contract.scorable if contract is not None else True,
            "reason": reason,
        }
    return rows


def as_json(found: audit.AuditReport, warnings: list[str] | None = None) -> dict[str, Any]:
    """The old script's keys (`summary`, `covered`, `uncovered_enabled`, `uncovered_disabled`)
    with the same meaning, plus `uncovered_unregistered`, `orphans`, `no_folder`, `not_counted`
    (skill-evals itself, with why), `warnings`."""
    return {
        "summary": {
            "total_skills": found.total_skills,
            "covered": len(found.covered),
            "uncovered_enabled": len(found.uncovered_enabled),
            "uncovered_disabled": len(found.uncovered_disabled),
            "uncovered_unregistered": len(found.uncovered_unregistered),
            "enabled_total": found.enabled_total,
            "coverage_pct": found.coverage_pct,
            "covered_enabled": found.covered_enabled,
            "orphans": len(found.orphans),
        },
        "covered": list(found.covered),
        "uncovered_enabled": [
            {"skill": g.skill, "inferred_pattern": g.inferred_pattern}
            for g in found.uncovered_enabled
        ],
        "uncovered_disabled": list(found.uncovered_disabled),
        "uncovered_unregistered": list(found.uncovered_unregistered),
        "orphans": [{"skill": o.skill, "closest": o.closest} for o in found.orphans],
        "no_folder": list(found.no_folder),
        "not_counted": [{"skill": s, "reason": audit.NOT_COUNTED_WHY} for s in found.not_counted],
        "warnings": list(warnings or []),
        "contracts": contract_rows(found),
    }


def _scorable(found: audit.AuditReport, skill: str) -> bool:
    contract = found.contracts.get(skill)
    return contract is None or contract.scorable


def _gap_line(mark: str, gap: audit.Gap) -> str:
    """`  ✗ skill   pattern  ← SKILL.md:41`: an enabled skill without an evals.json entry."""
    where = f"  ← {gap.contract_source}" if gap.contract_source else ""
    pattern = show_name(gap.inferred_pattern) or "(no output path found in SKILL.md)"
    return f"  {mark} {show_name(gap.skill):<{_NAME_WIDTH}} {pattern}{where}"


def render_text(found: audit.AuditReport, *, show_all: bool) -> list[str]:
    """The report a human reads at a glance: the number first, then what to do."""
    cov = found.coverage
    what = "an output contract (no evals.json: SKILL.md)" if found.by_contracts else "a spec"
    lines = [
        f"Coverage: {cov.covered}/{cov.enabled} enabled skills have {what} ({found.coverage_pct}%)",
        f"Skills: {found.total_skills} · enabled {found.enabled_total} · "
        f"with a spec {len(found.covered)} · "
        f"disabled without a spec {len(found.uncovered_disabled)} · "
        f"not in aeon.yml {len(found.uncovered_unregistered)}",
    ]
    rows = contract_rows(found)
    if rows:
        inferred = [s for s, r in rows.items() if r["contract_source"]]
        without = [
            f"{show_name(s)} ({r['reason']})" for s, r in rows.items() if not r["contract_source"]
        ]
        lines.append(
            f"Contracts: {len(inferred)} enabled skills have an output contract in their SKILL.md"
            " (`aeon-evals contracts` shows them; an evals.json entry overrides)"
            + (f"; without: {', '.join(without)}" if without else "")
        )
    lines += [f"Not counted: {show_name(s)} ({audit.NOT_COUNTED_WHY})" for s in found.not_counted]
    # `scorable: false` skills have no spec to add (no stub either): listed apart, under a
    # heading that says so, as the article's "Listed, not scored"
    gaps = [g for g in found.uncovered_enabled if _scorable(found, g.skill)]
    unscored = [g for g in found.uncovered_enabled if not _scorable(found, g.skill)]
    uncovered = (
        "Judged on their SKILL.md contract ({}) — no evals.json: `aeon-evals audit --stubs` "
        "drafts entries to pin or override them:"
        if found.by_contracts
        else "Uncovered enabled ({}) — add an evals.json entry "
        "(`aeon-evals audit --stubs` drafts them):"
    )
    for mark, listed, heading in (
        ("-" if found.by_contracts else "✗", gaps, uncovered),
        (
            "-",
            unscored,
            "Listed, not scored ({}) — enabled, `scorable: false` in their "
            "SKILL.md: no spec to add:",
        ),
    ):
        if listed:
            lines += ["", heading.format(len(listed)), *(_gap_line(mark, g) for g in listed)]
    if found.orphans:
        lines += [
            "",
            f"Orphan specs ({len(found.orphans)}) — evals.json entries with no skills/<name>/ "
            "folder and no aeon.yml entry:",
        ]
        for orphan in found.orphans:
            closest = orphan.closest
            hint = f"did you mean {show_name(closest)}?" if closest else "no similar skill"
            lines.append(f"  ? {show_name(orphan.skill):<{_NAME_WIDTH}} {hint}")
    if found.no_folder:
        lines += ["", f"Enabled in aeon.yml but no skills/<name>/ folder ({len(found.no_folder)}):"]
        lines += [f"  ! {show_name(name)}" for name in found.no_folder]
    if show_all:
        sections = (
            ("Covered", "✓", found.covered),
            ("Uncovered disabled", "-", found.uncovered_disabled),
            ("Not in aeon.yml", "?", found.uncovered_unregistered),
        )
        for title, mark, names in sections:
            if names:
                lines += ["", f"{title} ({len(names)}):"]
                for name in names:
                    source = rows.get(name, {}).get("contract_source") if mark == "✓" else None
                    note = f"  (evals.json; the SKILL.md contract at {source} is not used)"
                    lines.append(f"  {mark} {show_name(name)}" + (note if source else ""))
    elif found.uncovered_disabled or found.uncovered_unregistered:
        lines += [
            "",
            f"(--all also lists the {len(found.covered)} covered, {len(found.uncovered_disabled)} "
            f"disabled and {len(found.uncovered_unregistered)} unregistered skills)",
        ]
    return lines


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    found, warnings = report_for(root, args.config)
    if args.stubs:
        # the branch the run would evaluate (its newest output), as the starters of init
        pick = stubs.run_branch(root, datetime.now(UTC))
        drafted = stubs.stubs(found, pick, articles=layout.article_folder(root))
        print(json.dumps(drafted, indent=2, ensure_ascii=False))
    elif args.json:
        print(json.dumps(as_json(found, warnings), indent=2, ensure_ascii=False))
    else:
        print("\n".join(render_text(found, show_all=args.all)))
    if not args.json:
        for warning in warnings:
            print(warning_line(warning), file=sys.stderr)
    return 0
