"""`aeon-evals audit`: which enabled skills have no spec (the old scripts/eval-audit)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from aeon_evals import audit, stubs
from aeon_evals.manifest import parse_manifest, read_manifest_data
from aeon_evals.registry import load_registry


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "audit",
        help="coverage audit: enabled skills without an evals.json entry",
        description="Skills are the folders under skills/; covered = has an evals.json entry; enabled from aeon.yml. "
        "Coverage = enabled skills with a spec / enabled skills.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--root", type=Path, default=Path("."), help="instance root (default: current directory)")
    p.add_argument("--json", action="store_true", help="machine-readable output (the old script's key names)")
    p.add_argument("--all", action="store_true", help="also list disabled and unregistered skills")
    p.add_argument("--stubs", action="store_true", help="print starter specs for uncovered enabled skills as JSON")
    p.set_defaults(func=run)


def report_for(root: Path) -> audit.AuditReport:
    data = read_manifest_data(root, retry_delay=0)
    specs = set(parse_manifest(data).skills) if data is not None else set()
    return audit.audit(root, specs, load_registry(root))


def as_json(found: audit.AuditReport) -> dict[str, Any]:
    return {
        "summary": {
            "total_skills": found.total_skills,
            "covered": len(found.covered),
            "uncovered_enabled": len(found.uncovered_enabled),
            "uncovered_disabled": len(found.uncovered_disabled),
            "uncovered_unregistered": len(found.uncovered_unregistered),
            "enabled_total": found.enabled_total,
            "coverage_pct": found.coverage_pct,
        },
        "covered": list(found.covered),
        "uncovered_enabled": [{"skill": g.skill, "inferred_pattern": g.inferred_pattern} for g in found.uncovered_enabled],
        "uncovered_disabled": list(found.uncovered_disabled),
        "uncovered_unregistered": list(found.uncovered_unregistered),
        "orphans": [{"skill": o.skill, "closest": o.closest} for o in found.orphans],
    }


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    found = report_for(root)
    if args.stubs:
        print(json.dumps(stubs.stubs(found), indent=2, ensure_ascii=False))
        return 0
    if args.json:
        print(json.dumps(as_json(found), indent=2, ensure_ascii=False))
        return 0
    cov = found.coverage
    print(f"Coverage: {cov.covered}/{cov.enabled} enabled skills have a spec ({found.coverage_pct}%)")
    print(f"Skills: {found.total_skills} folders · {found.enabled_total} enabled · {len(found.covered)} covered")
    if found.uncovered_enabled:
        print(f"\nUncovered enabled ({len(found.uncovered_enabled)}):")
        for gap in found.uncovered_enabled:
            print(f"  ✗ {gap.skill:<32} {gap.inferred_pattern or '(no output pattern inferred)'}")
    if found.orphans:
        print(f"\nOrphan specs ({len(found.orphans)}):")
        for orphan in found.orphans:
            hint = f" — did you mean {orphan.closest}?" if orphan.closest else ""
            print(f"  ? {orphan.skill}{hint}")
    if args.all:
        for title, names in (("Uncovered disabled", found.uncovered_disabled), ("Not in aeon.yml", found.uncovered_unregistered)):
            if names:
                print(f"\n{title} ({len(names)}):")
                for name in names:
                    print(f"  · {name}")
    return 0
