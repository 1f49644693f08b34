"""Which skills a run evaluates besides evals.json's: every other enabled, scorable skill, on the
output contract its own SKILL.md states (`contracts.load_contracts`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from aeon_evals.cache.folder import Cache
from aeon_evals.checks.owners import Claims
from aeon_evals.checks.skill import newest_output_age
from aeon_evals.contracts.branches import holds, is_branch, selected_branch
from aeon_evals.contracts.instance import Contract, ContractOutput, load_contracts
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import LLM_SKILL, Registry
from aeon_evals.model import ContractsMode, Spec


@dataclass(frozen=True)
class Inferred:
    """One skill evaluated on its inferred contract: the output chosen and its evidence."""

    contract: Contract
    output: ContractOutput

    @property
    def source(self) -> str:
        """`SKILL.md:41`: the line of the chosen output's write instruction."""
        return self.output.source


@dataclass(frozen=True)
class Scope:
    """The inferred part of a run's scope."""

    mode: ContractsMode
    inferred: dict[str, Inferred]
    without: tuple[tuple[str, str], ...] = ()  # (skill, why it has no usable contract)
    unscored: tuple[str, ...] = ()  # `scorable: false` in their SKILL.md
    contracts: dict[str, Contract] = field(default_factory=dict)  # every contract read, for audit
    # every skill's declared output patterns (evals.json's and the contracts'): what the checks
    # leave out of a skill's glob as another skill's files (checks/owners.py)
    claims: Claims = field(default_factory=Claims)

    def line(self, *, counted: bool = False) -> str:
        """What the Coverage line says the coverage is by: `evals.json, +83 inferred; 2 without
        a contract`; `counted` (no evals.json: the contracts are the coverage) `SKILL.md
        contracts; 2 without a contract`."""
        parts = ["SKILL.md contracts" if counted else f"evals.json, +{len(self.inferred)} inferred"]
        if self.without:
            parts.append(f"{len(self.without)} without a contract")
        if self.unscored:
            parts.append(f"{len(self.unscored)} not scorable")
        return "; ".join(parts)


def runnable(contract: Contract, var: str = "") -> tuple[ContractOutput, ...]:
    """The outputs a run with `var` (aeon.yml's, "" when unset) may write: when the SKILL.md
    says which branch that value runs, that branch's own outputs, then those every run writes;
    else all of them."""
    branch = selected_branch(contract, var)
    if branch is None:
        return contract.outputs
    own = [o for o in contract.outputs if o.condition is not None and holds(o, branch)]
    own = [o for o in own if is_branch(o.condition)]
    rest = [o for o in contract.outputs if holds(o, branch) and o not in own]
    return (*own, *rest) or contract.outputs


def choose_output(
    contract: Contract,
    outputs: Outputs,
    now: datetime,
    var: str = "",
    claims: Claims | None = None,
) -> ContractOutput:
    """The output to evaluate, among those a run with `var` may write (`runnable`): the branch's
    own output when one of its files exists, else the one whose newest file is newest (what the
    skill wrote last: a product written only on some runs, or the log entry of a run that took
    an early way out), else the first. A file another skill declares (`claims`) is never one of
    its files."""
    candidates = runnable(contract, var)
    if len(candidates) == 1:
        return candidates[0]
    ages = [
        (newest_output_age(c.spec, outputs, now, claims), n, c) for n, c in enumerate(candidates)
    ]
    found = [(age, n, c) for age, n, c in ages if age is not None]
    # the branch aeon.yml's var runs is evaluated first, when it wrote anything
    own = [i for i in found if is_branch(i[2].condition)] if selected_branch(contract, var) else []
    best = min(own or found, key=lambda item: (item[0], item[1]), default=None)
    return best[2] if best is not None else candidates[0]


def configured_var(registry: Registry, skill: str) -> str:
    """The `var` aeon.yml gives `skill` ("" when it gives none, or not a string)."""
    entry = registry.raw.get(skill)
    value = entry.get("var") if isinstance(entry, dict) else None
    return value if isinstance(value, str) else ""


def inferred_scope(
    root: Path,
    mode: ContractsMode,
    registry: Registry,
    covered: Iterable[str],
    outputs: Outputs,
    now: datetime,
    *,
    only: str | None = None,
    cache: Cache,
    specs: Mapping[str, Spec] | None = None,
) -> Scope:
    """Every enabled skill without an evals.json entry (only `only`, when given), on its SKILL.md
    contract; the ones with none, or not scorable, listed with the reason. Reads the SKILL.md
    files (through the contracts cache) and looks at outputs to choose among several."""
    declared = {skill: (spec.output_pattern,) for skill, spec in (specs or {}).items()}
    if mode is ContractsMode.OFF:
        return Scope(mode, {}, claims=Claims(declared))
    # skill-evals' own output is the article this tool writes: grading it would grade ourselves
    # (and a same-day rerun would read the first run's article as the skill's output)
    skip = {*covered, LLM_SKILL}
    skills = sorted(
        name
        for name, reg in registry.skills.items()
        if reg.enabled and name not in skip and only in (None, name)
    )
    contracts = load_contracts(root, skills, cache)
    claims = declared_outputs(declared, contracts)
    inferred: dict[str, Inferred] = {}
    without: list[tuple[str, str]] = []
    unscored: list[str] = []
    for skill in skills:
        contract = contracts.get(skill)
        if contract is None:
            without.append((skill, f"no skills/{skill}/SKILL.md"))
        elif not contract.scorable:
            unscored.append(skill)
        elif not contract.usable:
            without.append((skill, contract.reason or "no usable contract"))
        else:
            var = configured_var(registry, skill)
            chosen = choose_output(contract, outputs, now, var, claims)
            inferred[skill] = Inferred(contract, chosen)
    return Scope(mode, inferred, tuple(without), tuple(unscored), contracts, claims)


def declared_outputs(
    declared: Mapping[str, tuple[str, ...]], contracts: Mapping[str, Contract]
) -> Claims:
    """Every skill's declared output patterns: its evals.json spec's (`declared`), else those
    its SKILL.md contract names."""
    found = dict(declared)
    for skill, contract in contracts.items():
        if skill not in found:
            found[skill] = tuple(o.spec.output_pattern for o in contract.outputs)
    return Claims(found)


def narrowed(scope: Scope, skill: str) -> Scope:
    """`scope` narrowed to one skill (a --skill run), its contracts all kept (the audit's)."""
    return dataclasses.replace(
        scope,
        inferred={s: i for s, i in scope.inferred.items() if s == skill},
        without=tuple(w for w in scope.without if w[0] == skill),
        unscored=tuple(u for u in scope.unscored if u == skill),
    )


_ELEMENT = {
    "missing_heading": "heading",
    "missing_section": "section",
    "word_count": "min_words",
    "forbidden_pattern": "forbidden",
}


def broken_line(inferred: Inferred, code: str) -> str:
    """The SKILL.md line an output broke, quoted: `skills/x/SKILL.md:41 ("## Summary")`, for
    the cause `code` (`missing_heading:## Summary` → that heading's line; anything else → the
    write instruction)."""
    kind, _, arg = code.partition(":")
    element = _ELEMENT.get(kind)
    wanted = f"{element}:{arg}" if element and arg else element
    evidence = dict(inferred.output.evidence)
    found = evidence.get(wanted or "output") or evidence.get("output")
    where = f"skills/{inferred.contract.skill}/SKILL.md"
    if found is None:
        return where
    return f'{where}:{found.line} ("{found.quote}")'
