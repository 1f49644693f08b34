"""`aeon-evals audit`: which enabled skills have no spec (the old scripts/eval-audit)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from aeon_evals import audit, stubs
from aeon_evals.manifest import parse_manifest, read_manifest_data
from aeon_evals.registry import load_registry

_NAME_WIDTH = 30


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "audit",
        help="coverage audit: enabled skills without an evals.json entry",
        description="Skills are the folders under skills/; covered = has an evals.json entry; enabled from aeon.yml. "
        "Coverage = enabled skills with a spec / enabled skills. Also lists orphan specs (an evals.json "
        "entry with no skills/<name>/ folder and no aeon.yml entry) with the closest real skill name.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--root", type=Path, default=Path("."), help="instance root (default: current directory)"
    )
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


def report_for(root: Path) -> tuple[audit.AuditReport, list[str]]:
    """The audit of the instance at `root` and the warnings met on the way (aeon.yml entries
    read best-effort …). Raises ConfigError when evals.json exists but cannot be read."""
    data = read_manifest_data(root, retry_delay=0)
    specs = set(parse_manifest(data).skills) if data is not None else set()
    registry = load_registry(root)
    found = audit.audit(root, specs, registry)
    return found, [*registry.warnings, *found.warnings]


def as_json(found: audit.AuditReport, warnings: list[str] | None = None) -> dict[str, Any]:
    """The old script's keys (`summary`, `covered`, `uncovered_enabled`, `uncovered_disabled`)
    with the same meaning, plus `uncovered_unregistered`, `orphans`, `no_folder`, `warnings`."""
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
        "warnings": list(warnings or []),
    }


def render_text(found: audit.AuditReport, *, show_all: bool) -> list[str]:
    """The report a human reads at a glance: the number first, then what to do."""
    cov = found.coverage
    lines = [
        f"Coverage: {cov.covered}/{cov.enabled} enabled skills have a spec ({found.coverage_pct}%)",
        f"Skills: {found.total_skills} · enabled {found.enabled_total} · with a spec {len(found.covered)}"
        f" · disabled without a spec {len(found.uncovered_disabled)} · not in aeon.yml {len(found.uncovered_unregistered)}",
    ]
    if found.uncovered_enabled:
        lines += [
            "",
            f"Uncovered enabled ({len(found.uncovered_enabled)}) — add an evals.json entry (`aeon-evals audit --stubs` drafts them):",
        ]
        for gap in found.uncovered_enabled:
            lines.append(
                f"  ✗ {gap.skill:<{_NAME_WIDTH}} {gap.inferred_pattern or '(no output path found in SKILL.md)'}"
            )
    if found.orphans:
        lines += [
            "",
            f"Orphan specs ({len(found.orphans)}) — evals.json entries with no skills/<name>/ folder and no aeon.yml entry:",
        ]
        for orphan in found.orphans:
            hint = f"did you mean {orphan.closest}?" if orphan.closest else "no similar skill"
            lines.append(f"  ? {orphan.skill:<{_NAME_WIDTH}} {hint}")
    if found.no_folder:
        lines += ["", f"Enabled in aeon.yml but no skills/<name>/ folder ({len(found.no_folder)}):"]
        lines += [f"  ! {name}" for name in found.no_folder]
    if show_all:
        sections = (
            ("Covered", "✓", found.covered),
            ("Uncovered disabled", "-", found.uncovered_disabled),
            ("Not in aeon.yml", "?", found.uncovered_unregistered),
        )
        for title, mark, names in sections:
            if names:
                lines += ["", f"{title} ({len(names)}):"]
                lines += [f"  {mark} {name}" for name in names]
    elif found.uncovered_disabled or found.uncovered_unregistered:
        lines += [
            "",
            f"(--all also lists the {len(found.covered)} covered, {len(found.uncovered_disabled)} disabled and {len(found.uncovered_unregistered)} unregistered skills)",
        ]
    return lines


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    found, warnings = report_for(root)
    if args.stubs:
        print(json.dumps(stubs.stubs(found), indent=2, ensure_ascii=False))
    elif args.json:
        print(json.dumps(as_json(found, warnings), indent=2, ensure_ascii=False))
    else:
        print("\n".join(render_text(found, show_all=args.all)))
    if not args.json:
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return 0
