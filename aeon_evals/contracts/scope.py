"""Which skills a run evaluates besides evals.json's: every other enabled, scorable skill, on the
output contract its own SKILL.md states (`contracts.load_contracts`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from aeon_evals.cache.folder import Cache
from aeon_evals.checks.skill import newest_output_age
from aeon_evals.contracts.instance import Contract, ContractOutput, load_contracts
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import LLM_SKILL, Registry
from aeon_evals.model import ContractsMode


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


def choose_output(contract: Contract, outputs: Outputs, now: datetime) -> ContractOutput:
    """The output to evaluate: the one whose newest existing file is newest (the branch the skill
    ran last), else the first the SKILL.md names."""
    if len(contract.outputs) == 1:
        return contract.outputs[0]
    best: tuple[float, ContractOutput] | None = None
    for candidate in contract.outputs:
        age = newest_output_age(candidate.spec, outputs, now)
        if age is not None and (best is None or age < best[0]):
            best = (age, candidate)
    return best[1] if best is not None else contract.outputs[0]


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
) -> Scope:
    """Every enabled skill without an evals.json entry (only `only`, when given), on its SKILL.md
    contract; the ones with none, or not scorable, listed with the reason. Reads the SKILL.md
    files (through the contracts cache) and looks at outputs to choose among several."""
    if mode is ContractsMode.OFF:
        return Scope(mode, {})
    # skill-evals' own output is the article this tool writes: grading it would grade ourselves
    # (and a same-day rerun would read the first run's article as the skill's output)
    skip = {*covered, LLM_SKILL}
    skills = sorted(
        name
        for name, reg in registry.skills.items()
        if reg.enabled and name not in skip and only in (None, name)
    )
    contracts = load_contracts(root, skills, cache)
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
            inferred[skill] = Inferred(contract, choose_output(contract, outputs, now))
    return Scope(mode, inferred, tuple(without), tuple(unscored), contracts)


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
