"""`aeon-evals lint`: check every SKILL.md, the collisions between descriptions, and routing."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from aeon_evals.commands import add_instance_options, summary
from aeon_evals.errors import ConfigError, ExitCode, UsageError
from aeon_evals.fs.write import atomic_write
from aeon_evals.load import layout
from aeon_evals.model.problems import warning_line

if TYPE_CHECKING:
    from aeon_evals.catalog.lint import CatalogReport, Finding, Rule


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "lint",
        help=summary("lint"),
        description="Check skills/*/SKILL.md: frontmatter (name, description, keys, size), the "
        "config (aeon.yml), an output a contract can be inferred from; every pair of skills whose "
        "name and description are similar enough to confuse a router (≥ 0.5 warning, "
        "≥ 0.75 error); and the trigger cases (evals.json `trigger`, "
        "skills/<name>/evals/trigger.json) against the routing model. Every finding is "
        "`file:line: CODE severity: message`; rules are selected by code as ruff does (the "
        "instance's `lint` settings in evals.json or aeon.yml, then --select, --extend-select, "
        "--ignore). See docs/catalog.md.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "skills",
        nargs="*",
        metavar="SKILL",
        help="only these skills (a name, skills/<name> or skills/<name>/SKILL.md); default: all",
    )
    add_instance_options(p)
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.add_argument("--junit", type=Path, metavar="FILE", help="also write a JUnit XML report")
    p.add_argument(
        "--min-rank1",
        type=float,
        metavar="PCT",
        help="exit 1 when fewer than PCT %% of the positive trigger cases rank their skill first",
    )
    p.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="only these rules (codes such as AE105, prefixes such as AE1, or ALL; "
        "comma-separated, repeatable); replaces the instance's `select`",
    )
    p.add_argument(
        "--extend-select",
        action="append",
        metavar="CODES",
        help="these rules too (e.g. AE107: flat-form titles that are not slugs, off by default)",
    )
    p.add_argument(
        "--ignore", action="append", metavar="CODES", help="not these rules (wins over selects)"
    )
    p.set_defaults(func=run)


def skill_of(arg: str) -> str:
    """`paper-pick`, `skills/paper-pick` or `skills/paper-pick/SKILL.md` → `paper-pick`."""
    parts = [p for p in arg.replace("\\", "/").split("/") if p not in ("", ".")]
    if parts and parts[-1] == "SKILL.md":
        parts = parts[:-1]
    if len(parts) >= 2 and parts[-2] == "skills":
        return parts[-1]
    if len(parts) == 1:
        return parts[0]
    raise UsageError(f"{arg!r} is not a skill name, skills/<name> or skills/<name>/SKILL.md")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


FORM_NAMES = {
    "flat": "flat form",
    "agent-skills": "Agent Skills form",
    "none": "no frontmatter",
    "broken": "broken frontmatter",
    "unreadable": "unreadable",
}


def forms_part(report: CatalogReport) -> str:
    """`113 SKILL.md (80 flat form, 33 Agent Skills form)`: which frontmatter form each file
    uses, the forms in the order of FORM_NAMES."""
    counts = Counter(report.forms.values())
    shown = ", ".join(f"{counts[form]} {name}" for form, name in FORM_NAMES.items() if counts[form])
    return f"{len(report.skills)} SKILL.md" + (f" ({shown})" if shown else "")


def summary_line(report: CatalogReport) -> str:
    """`113 SKILL.md (80 flat form, 33 Agent Skills form): 0 errors, 18 warnings, 16 infos;
    4 collisions; rank-1 5/6 (83.3%)`."""
    from aeon_evals.catalog.lint import Severity

    parts = [
        f"{forms_part(report)}: "
        f"{_plural(report.count(Severity.ERROR), 'error')}, "
        f"{_plural(report.count(Severity.WARNING), 'warning')}, "
        f"{_plural(report.count(Severity.INFO), 'info')}",
        _plural(len(report.collisions), "collision"),
    ]
    if report.results:
        failed = sum(1 for r in report.results if not r.passed)
        parts.append(f"{_plural(len(report.results), 'trigger case')}, {failed} failed")
        positives = report.positives
        if positives:
            first = sum(1 for r in positives if r.first)
            parts.append(f"rank-1 {first}/{len(positives)} ({_pct(report.rank1_rate)})")
    return "; ".join(parts)


def as_json(
    report: CatalogReport,
    *,
    min_rank1: float | None,
    floor_missed: bool,
    rules: Iterable[Rule] = (),
) -> dict[str, Any]:
    """The report as plain data: counts (and each file's frontmatter form), the codes of the
    rules that applied, findings, collisions, cases, the rank-1 rate."""
    from aeon_evals.catalog.lint import Severity
    from aeon_evals.catalog.routing import COLLISION_ERROR

    return {
        "skills": len(report.skills),
        "forms": dict(sorted(Counter(report.forms.values()).items())),
        "form_of": dict(sorted(report.forms.items())),
        "rules": sorted(rule.code for rule in rules),
        "errors": report.count(Severity.ERROR),
        "warnings": report.count(Severity.WARNING),
        "infos": report.count(Severity.INFO),
        "findings": [f.as_json() for f in report.findings],
        "collisions": [
            {
                "a": c.a,
                "b": c.b,
                "similarity": c.similarity,
                "severity": "error" if c.similarity >= COLLISION_ERROR else "warning",
                "shared": [{"term": s.word, "share": s.contribution} for s in c.shared],
            }
            for c in report.collisions
        ],
        "cases": [
            {
                "skill": r.case.skill,
                "kind": r.case.kind.value,
                "prompt": r.case.prompt,
                "file": r.case.file,
                "line": r.case.line,
                "top_k": r.case.top_k if r.case.kind.value == "positive" else None,
                "owner": r.case.owner,
                "rank": r.rank,
                "score": r.score,
                "above": [{"skill": a.skill, "score": a.score} for a in r.above],
                "passed": r.passed,
                "why": r.why,
            }
            for r in report.results
        ],
        "rank1_rate": report.rank1_rate,
        "min_rank1": min_rank1,
        "floor_missed": floor_missed,
    }


def junit_xml(report: CatalogReport) -> str:
    """JUnit XML: suite `skill-catalog` (one case per skill, failing on its errors) and suite
    `skill-routing` (one case per trigger case)."""
    import xml.etree.ElementTree as ET

    from aeon_evals.catalog.lint import Rule, Severity

    def clean(text: str) -> str:
        return "".join(
            "\ufffd" if (ord(ch) < 32 and ch not in "\t\n\r") or 0xD800 <= ord(ch) <= 0xDFFF else ch
            for ch in text
        )

    by_skill: dict[str, list[Finding]] = {skill: [] for skill in report.skills}
    for f in report.findings:
        if f.rule is not Rule.TRIGGER_FAILED:  # a failed case is its own testcase below
            by_skill.setdefault(f.skill or "(catalog)", []).append(f)
    root = ET.Element("testsuites", {"name": "aeon-evals lint"})
    suites: list[tuple[str, list[ET.Element], int]] = []
    cases: list[ET.Element] = []
    failures = 0
    for skill in sorted(by_skill):
        found = by_skill[skill]
        case = ET.Element("testcase", {"name": skill, "classname": "catalog", "time": "0"})
        errors = [f for f in found if f.severity is Severity.ERROR]
        text = clean("\n".join(f.text() for f in found))
        if errors:
            failures += 1
            failure = ET.SubElement(
                case,
                "failure",
                {"message": clean(errors[0].message), "type": errors[0].rule.code},
            )
            failure.text = text
        elif found:
            ET.SubElement(case, "system-out").text = text
        cases.append(case)
    suites.append(("skill-catalog", cases, failures))
    cases, failures = [], 0
    for r in report.results:
        name = f"{r.case.kind.value} {r.case.skill}: {r.case.prompt[:80]}"
        case = ET.Element("testcase", {"name": clean(name), "classname": "routing", "time": "0"})
        if not r.passed:
            failures += 1
            failure = ET.SubElement(case, "failure", {"message": clean(r.why), "type": "trigger"})
            failure.text = clean(f"{r.case.file}:{r.case.line}: {r.why}")
        else:
            ET.SubElement(case, "system-out").text = clean(r.why)
        cases.append(case)
    if cases:
        suites.append(("skill-routing", cases, failures))
    for name, members, failed in suites:
        attrs = {"tests": str(len(members)), "failures": str(failed), "errors": "0", "skipped": "0"}
        suite = ET.SubElement(root, "testsuite", {"name": name, **attrs, "time": "0"})
        suite.extend(members)
    total = sum(len(m) for _, m, _ in suites)
    root.set("tests", str(total))
    root.set("failures", str(sum(f for _, _, f in suites)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
MAX_ANNOTATIONS_PER_LEVEL = 10


def annotation_lines(report: CatalogReport, prefix: str) -> list[str]:
    """`::error file=…,line=…::message` lines, at most 10 per level (GitHub's cap per step:
    the 10th becomes a pointer to the rest)."""
    from aeon_evals.ci.gate import workflow_command

    out: list[str] = []
    for severity, level in _LEVEL.items():
        found = [f for f in report.findings if f.severity.value == severity]
        shown = (
            found
            if len(found) <= MAX_ANNOTATIONS_PER_LEVEL
            else found[: MAX_ANNOTATIONS_PER_LEVEL - 1]
        )
        for f in shown:
            props = [
                ("file", prefix + f.file),
                ("line", str(f.line)),
                ("title", f"lint {f.rule.code} {f.rule.value}"),
            ]
            out.append(workflow_command(level, f.message, props))
        if len(shown) < len(found):
            rest = len(found) - len(shown)
            out.append(
                workflow_command(
                    level,
                    f"+{rest} more lint {severity}s — see the lint step's log",
                    [("title", f"{rest} more")],
                )
            )
    return out


def floor_missed(report: CatalogReport, min_rank1: float | None) -> bool:
    """Whether the rank-1 rate is below the floor (never without positive cases)."""
    rate = report.rank1_rate
    return min_rank1 is not None and rate is not None and rate * 100 < min_rank1 - 1e-9


def _print_text(report: CatalogReport, out: TextIO) -> None:
    from aeon_evals.text.controls import one_line  # a folder named `x⏎::error::…` is data

    for finding in report.findings:
        print(one_line(finding.text()), file=out)
    if report.results:
        print("routing:", file=out)
        for r in report.results:
            mark = "pass" if r.passed else "FAIL"
            prompt = r.case.prompt if len(r.case.prompt) <= 60 else r.case.prompt[:59] + "…"
            line = (
                f"  {mark} {r.case.kind.value} {r.case.skill} {prompt!r}: {r.why} "
                f"({r.case.file}:{r.case.line})"
            )
            print(one_line(line), file=out)


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    """Lint the catalog, print the findings (or --json), write --junit; return the exit code."""
    from aeon_evals.catalog import select
    from aeon_evals.catalog.lint import Severity, check_catalog, load_catalog

    env = os.environ if env is None else env
    root = args.root.resolve()
    config = layout.instance(root, config=args.config).config
    if not (root / "skills").is_dir():
        raise ConfigError("no skills/ folder: not an Aeon instance", path=root)
    if args.min_rank1 is not None and not 0 <= args.min_rank1 <= 100:
        raise UsageError(f"--min-rank1 must be a percentage from 0 to 100, got {args.min_rank1:g}")
    chosen = select.from_cli(args.select, args.extend_select, args.ignore)
    scope = sorted({skill_of(a) for a in args.skills}) if args.skills else None
    cat = load_catalog(root, config)
    if scope is not None:
        known = set(cat.folders)
        unknown = [s for s in scope if s not in known]
        if unknown:
            raise UsageError(
                f"no skills/{unknown[0]}/ folder"
                + (f" (+{len(unknown) - 1} more)" if len(unknown) > 1 else "")
            )
    report = check_catalog(cat, scope, chosen)
    for problem in cat.setting_problems:  # errors stopped check_catalog: these are warnings
        print(warning_line(problem.brief()), file=sys.stderr)
    missed = floor_missed(report, args.min_rank1)
    human = sys.stderr if args.json else sys.stdout
    if args.json:
        rules = cat.settings.then(chosen).rules()
        data = as_json(report, min_rank1=args.min_rank1, floor_missed=missed, rules=rules)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        _print_text(report, sys.stdout)
    if env.get("GITHUB_ACTIONS") == "true":
        from aeon_evals.commands.run_cmd import _repo_prefix

        for line in annotation_lines(report, _repo_prefix(env, root)):
            print(line, file=human)
    if args.junit is not None:
        atomic_write(args.junit, junit_xml(report))
    print(f"lint: {summary_line(report)}", file=human)
    if missed:
        print(
            f"lint: rank-1 rate {_pct(report.rank1_rate)} is below "
            f"--min-rank1 {args.min_rank1:g}% → exit 1",
            file=sys.stderr,
        )
    elif args.min_rank1 is not None and report.rank1_rate is None:
        print("lint: no positive trigger cases: --min-rank1 not checked", file=sys.stderr)
    failed = report.count(Severity.ERROR) > 0 or missed
    return int(ExitCode.FAILED if failed else ExitCode.OK)
