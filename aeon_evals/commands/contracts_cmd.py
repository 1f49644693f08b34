"""`aeon-evals contracts`: what each skill's SKILL.md says it writes, with the evidence lines, and
the status tokens it says a run ends with (its outcome vocabulary), with evals.json's overrides."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aeon_evals.cache.folder import Cache
from aeon_evals.commands import add_instance_options, summary
from aeon_evals.contracts import audit
from aeon_evals.contracts.branches import ANY, DEFAULT, selected_branch
from aeon_evals.contracts.instance import Contract, ContractOutput, contract_to_json, load_contracts
from aeon_evals.contracts.scope import configured_var
from aeon_evals.errors import ConfigError, UsageError
from aeon_evals.load import layout
from aeon_evals.load.manifest import (
    EVALS_PATH,
    SKILL_NAME,
    Manifest,
    parse_manifest,
    read_manifest_data,
)
from aeon_evals.load.registry import LLM_SKILL, load_registry
from aeon_evals.load.skillmd import parse_skill_doc, read_skill_bytes, skill_md_path
from aeon_evals.model import Spec
from aeon_evals.model.problems import warning_line
from aeon_evals.outcomes import Vocabulary, Why, noop_fail_after, vocabulary_for
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


def _manifest(root: Path) -> Manifest | None:
    """evals.json, validated; None when there is none. A skill with an entry (valid or not) is
    not evaluated on its contract; only a valid entry's `outcomes` apply."""
    data = read_manifest_data(root, retry_delay=None)
    return parse_manifest(data) if data is not None else None


@dataclass(frozen=True)
class Outcomes:
    """One skill's outcome vocabulary as the run reads it, and the SKILL.md's own, to show
    which classes the evals.json entry overrides."""

    vocabulary: Vocabulary
    own: Vocabulary  # without the overrides
    fail_after: int
    from_spec: bool  # `noop_fail_after` comes from the evals.json entry
    errors: tuple[str, ...]  # the entry's errors: its overrides are not applied


def _outcomes(
    root: Path, skill: str, spec: Spec | None, errors: tuple[str, ...]
) -> Outcomes | None:
    """The vocabulary of `skill`'s SKILL.md (None when it has no readable text)."""
    raw = read_skill_bytes(root, skill)
    if not isinstance(raw, bytes) or parse_skill_doc(skill, skill_md_path(skill), raw).error:
        return None  # binary, not UTF-8, unreadable: the contract says why
    text = raw.decode("utf-8")
    own = vocabulary_for(skill, text, None)
    vocabulary = vocabulary_for(skill, text, spec) if spec is not None and spec.outcomes else own
    from_spec = spec is not None and spec.noop_fail_after is not None
    return Outcomes(vocabulary, own, noop_fail_after(spec), from_spec, errors)


def _where(line: int) -> str:
    return f"SKILL.md:{line}" if line else EVALS_PATH.rpartition("/")[2]


def outcome_lines(found: Outcomes) -> list[str]:
    """The vocabulary block of one skill: a head line, then one line per token (class, why,
    where, the sentence; an override says what the SKILL.md said)."""
    tokens = found.vocabulary.tokens
    after = f"noop_fail_after {found.fail_after} runs" + (
        f" ({EVALS_PATH.rpartition('/')[2]})" if found.from_spec else " (default)"
    )
    lines = [f"  outcomes  {len(tokens)} status token{'s' if len(tokens) != 1 else ''} · {after}"]
    lines += [f"    not applied: {error}" for error in found.errors]
    if not tokens:
        lines.append("    (the SKILL.md names no status token: a run is read by its status lines)")
    width = min(32, max((len(t) for t in tokens), default=0))
    for token, vt in tokens.items():
        own = found.own.get(token)
        if vt.why is Why.OVERRIDE and own is None:
            note = f"added by {EVALS_PATH.rpartition('/')[2]} outcomes"
        elif vt.why is Why.OVERRIDE and own is not None:
            note = f"overrides {own.outcome} ({own.why}): {own.sentence}"
        else:
            note = vt.sentence
        where = _where(own.line if own is not None else vt.line)
        lines.append(
            f"    {show_name(token):<{width}}  {vt.outcome.value:<7}  {vt.why.value:<8}  "
            f"{where:<13} {' '.join(note.split())[:100]}"
        )
    return lines


def outcomes_json(found: Outcomes) -> dict[str, Any]:
    """The vocabulary block as data (`contracts --json`)."""
    tokens = []
    for token, vt in found.vocabulary.tokens.items():
        own = found.own.get(token)
        tokens.append(
            {
                "token": token,
                "class": vt.outcome.value,
                "why": vt.why.value,
                "line": (own.line if own is not None else vt.line) or None,
                "quote": own.sentence if own is not None else None,
                "skill_md": (
                    {"class": own.outcome.value, "why": own.why.value}
                    if own is not None and vt.why is Why.OVERRIDE
                    else None
                ),
            }
        )
    return {
        "tokens": tokens,
        "noop_fail_after": found.fail_after,
        "noop_fail_after_source": EVALS_PATH if found.from_spec else "default",
        "not_applied": list(found.errors),
    }


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


def _branch_lines(contract: Contract, var: str) -> list[str]:
    """Which `var` value runs which branch, with the evidence, and the branch aeon.yml's `var`
    runs here (its outputs are the ones evaluated)."""
    if not contract.selectors:
        return []
    chosen = selected_branch(contract, var)
    runs = f"runs {chosen}" if chosen else "runs a branch the SKILL.md does not name"
    lines = [f"  branches  aeon.yml var {json.dumps(var, ensure_ascii=False)} {runs}"]
    width = max(len(cond) for cond, _, _ in contract.selectors)
    for cond, selector, ev in contract.selectors:
        shown = {DEFAULT: "empty var", ANY: "any other"}.get(selector, f"var {selector!r}")
        lines.append(f"    {cond:<{width}}  {shown:<22} SKILL.md:{ev.line:<5} {ev.quote[:90]}")
    return lines


def render_text(
    contracts: dict[str, Contract],
    overridden: set[str],
    enabled: set[str],
    outcomes: dict[str, Outcomes] | None = None,
    variables: dict[str, str] | None = None,
) -> list[str]:
    """One block per skill: its state, then each output with its evidence, or why none, the
    branch its aeon.yml `var` (`variables`, by skill) runs, then its outcome vocabulary
    (`outcomes`, by skill)."""
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
        for output in contract.outputs:
            lines += _output_lines(output)
        lines += _branch_lines(contract, (variables or {}).get(skill, ""))
        found = (outcomes or {}).get(skill)
        if found is not None:
            lines += outcome_lines(found)
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
    manifest = _manifest(root)
    overridden = set(manifest.skills) if manifest is not None else set()
    specs = manifest.specs if manifest is not None else {}
    errors = manifest.spec_errors if manifest is not None else {}
    outcomes = {
        skill: found
        for skill in wanted
        if skill in contracts
        and (
            found := _outcomes(
                root, skill, specs.get(skill), tuple(p.brief() for p in errors.get(skill, ()))
            )
        )
        is not None
    }
    registry = load_registry(root, config)
    enabled = registry.enabled()
    variables = {skill: configured_var(registry, skill) for skill in wanted}
    if args.json:
        data: dict[str, Any] = {"skills": {}}
        for skill in wanted:
            entry: dict[str, Any] = (
                contract_to_json(contracts[skill])
                if skill in contracts
                else {"skill": skill, "outputs": [], "reason": "no SKILL.md"}
            )
            entry["enabled"] = skill in enabled
            entry["var"] = variables[skill]
            entry["runs_branch"] = (
                selected_branch(contracts[skill], variables[skill]) if skill in contracts else None
            )
            entry["overridden_by"] = EVALS_PATH if skill in overridden else None
            entry["not_counted"] = (
                audit.NOT_COUNTED_WHY
                if skill == LLM_SKILL and skill in enabled and skill not in overridden
                else None
            )
            found = outcomes.get(skill)
            entry["outcomes"] = outcomes_json(found) if found is not None else None
            data["skills"][skill] = entry
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        lines = render_text(contracts, overridden, enabled, outcomes, variables)
        lines += [f"{show_name(s)}  (no SKILL.md)" for s in missing]
        print("\n".join(lines))
        for warning in [*registry.warnings, *(w for c in contracts.values() for w in c.warnings)]:
            print(warning_line(warning), file=sys.stderr)
    return 0
