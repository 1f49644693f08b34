"""`aeon-evals contracts`: what each skill's SKILL.md says it writes, with the evidence lines."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from aeon_evals.cache.folder import Cache
from aeon_evals.commands import add_instance_options, summary
from aeon_evals.contracts import audit
from aeon_evals.contracts.instance import Contract, ContractOutput, contract_to_json, load_contracts
from aeon_evals.errors import ConfigError, UsageError
from aeon_evals.load import layout
from aeon_evals.load.manifest import EVALS_PATH, SKILL_NAME, parse_manifest, read_manifest_data
from aeon_evals.load.registry import LLM_SKILL, load_registry
from aeon_evals.model.problems import warning_line
from aeon_evals.text.controls import show_name


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "contracts",
        help=summary("contracts"),
        description="For each skill (default: every folder under skills/): the outputs its "
        "SKILL.md says it writes (and under which branch), the log heading, the template's "
        "required headings, the word floor and the forbidden placeholders, each with the SKILL.md "
        f"line it comes from. A skill with an entry in {EVALS_PATH} is evaluated on that entry "
        "instead (the contract is shown, marked as overridden). See docs/contracts.md.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("skills", nargs="*", metavar="SKILL", help="only these skills")
    add_instance_options(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _overrides(root: Path) -> set[str]:
    """Skills with an evals.json entry (valid or not: either way the contract is not used)."""
    data = read_manifest_data(root, retry_delay=None)
    return set(parse_manifest(data).skills) if data is not None else set()


def _output_lines(output: ContractOutput) -> list[str]:
    spec = output.spec
    head = f"  output  {spec.output_pattern}"
    if spec.section:
        head += f"  section {spec.section!r}"
    if output.condition:
        head += f"  when {output.condition}"
    if spec.min_words:
        head += f"  ≥ {spec.min_words} words"
    lines = [head]
    for element, ev in output.evidence:
        label = element.partition(":")[0]
        lines.append(f"    {label:<10} SKILL.md:{ev.line:<5} {ev.quote}")
    documented = {el.partition(":")[2] for el, _ in output.evidence if el.startswith("forbidden:")}
    for pattern in spec.forbidden_patterns:
        if pattern not in documented:
            lines.append(f"    {'forbidden':<10} {'(always)':<14} {pattern}")
    if spec.section and not any(el == "section" for el, _ in output.evidence):
        lines.append(f"    {'section':<10} {'(default)':<14} the SKILL.md shows no heading")
    return lines


def render_text(
    contracts: dict[str, Contract], overridden: set[str], enabled: set[str]
) -> list[str]:
    """One block per skill: its state, then each output with its evidence, or why none."""
    lines: list[str] = []
    for skill, contract in contracts.items():
        state = ["enabled" if skill in enabled else "not enabled"]
        if not contract.scorable:
            state.append("scorable: false (listed, never scored)")
        if skill in overridden:
            state.append(f"overridden by its {EVALS_PATH} entry")
        elif skill == LLM_SKILL and skill in enabled:
            state.append(f"not counted: {audit.NOT_COUNTED_WHY}")
        if lines:
            lines.append("")
        lines.append(f"{show_name(skill)}  ({' · '.join(state)})")
        if not contract.outputs:
            lines.append(f"  no contract: {contract.reason}")
            continue
        for output in contract.outputs:
            lines += _output_lines(output)
    return lines


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    config = layout.instance(root, config=args.config).config
    if not (root / audit.SKILLS_DIR).is_dir():
        raise ConfigError("not an Aeon instance: no skills/ folder (check --root)", path=root)
    folders = audit.skill_folders(root)
    wanted: list[str] = list(dict.fromkeys(args.skills)) or folders
    for name in args.skills:  # a folder under skills/ is listed whatever its name
        if not SKILL_NAME.match(name) or name not in folders:
            raise UsageError(
                f"{show_name(name)!r}: no such skill (no skills/{show_name(name)}/ folder)"
            )
    contracts = load_contracts(
        root, wanted, Cache(root, writable=False)
    )  # reads the cache, writes none
    missing = [s for s in wanted if s not in contracts]
    overridden = _overrides(root)
    registry = load_registry(root, config)
    enabled = registry.enabled()
    if args.json:
        data: dict[str, Any] = {"skills": {}}
        for skill in wanted:
            entry: dict[str, Any] = (
                contract_to_json(contracts[skill])
                if skill in contracts
                else {"skill": skill, "outputs": [], "reason": "no SKILL.md"}
            )
            entry["enabled"] = skill in enabled
            entry["overridden_by"] = EVALS_PATH if skill in overridden else None
            entry["not_counted"] = (
                audit.NOT_COUNTED_WHY
                if skill == LLM_SKILL and skill in enabled and skill not in overridden
                else None
            )
            data["skills"][skill] = entry
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        lines = render_text(contracts, overridden, enabled)
        lines += [f"{show_name(s)}  (no SKILL.md)" for s in missing]
        print("\n".join(lines))
        for warning in [*registry.warnings, *(w for c in contracts.values() for w in c.warnings)]:
            print(warning_line(warning), file=sys.stderr)
    return 0
