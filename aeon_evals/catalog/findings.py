"""The catalog checks' plain data: a finding (`file:line: CODE severity: message`, its rule),
what the checks read from an instance, and the report they return."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aeon_evals.catalog.codes import Rule as Rule
from aeon_evals.catalog.select import DEFAULT, Selection
from aeon_evals.load.registry import Registry
from aeon_evals.load.skillmd import SkillDoc
from aeon_evals.model.problems import Problem
from aeon_evals.model.problems import Severity as Severity  # errors fail `lint` (exit 1)

if TYPE_CHECKING:  # the model and the cases load with the checks, not with a cached summary
    from aeon_evals.catalog.cases import CaseResult
    from aeon_evals.catalog.routing import Collision

SHOWN = 40  # characters of a value quoted in a message


@dataclass(frozen=True)
class Finding:
    """One problem, located: `file:line: AE105 severity: message`."""

    file: str
    line: int
    severity: Severity
    rule: Rule
    message: str
    skill: str | None = None

    def text(self) -> str:
        """`file:line: AE105 error: message`."""
        return f"{self.file}:{self.line}: {self.rule.code} {self.severity}: {self.message}"

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "severity": self.severity.value,
            "code": self.rule.code,
            "rule": self.rule.value,
            "skill": self.skill,
            "message": self.message,
        }


@dataclass(frozen=True)
class TriggerSource:
    """A trigger value as found in a file: `where` names it there, `start` is its line."""

    skill: str
    file: str
    where: str
    value: object
    text: str
    start: int


@dataclass(frozen=True)
class Catalog:
    """What the checks read from an instance: every SKILL.md, the config, the trigger cases."""

    docs: tuple[SkillDoc, ...]
    folders: tuple[str, ...]  # every folder under skills/, with or without a SKILL.md
    registry: Registry
    triggers: tuple[TriggerSource, ...] = ()
    problems: tuple[Finding, ...] = ()  # files that could not be read (trigger.json, evals.json)
    settings: Selection = DEFAULT  # the instance's lint settings (catalog/select.py)
    setting_problems: tuple[Problem, ...] = ()  # what is wrong with them
    # (skill, output_pattern, its line) of each evals.json spec: a skill's declared output
    specs: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class CatalogReport:
    """Every finding, sorted by file and line, with the colliding pairs and the case results."""

    skills: tuple[str, ...]
    findings: tuple[Finding, ...]
    collisions: tuple[Collision, ...]
    results: tuple[CaseResult, ...] = field(default=())
    # each skill's frontmatter form (skillmd.Form's value, or `unreadable`)
    forms: Mapping[str, str] = field(default_factory=dict)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def positives(self) -> tuple[CaseResult, ...]:
        from aeon_evals.catalog.cases import CaseKind  # loaded already: results come from it

        return tuple(r for r in self.results if r.case.kind is CaseKind.POSITIVE)

    @property
    def rank1_rate(self) -> float | None:
        """Share of positive cases whose skill ranks first (None without positive cases)."""
        positives = self.positives
        if not positives:
            return None
        return sum(1 for r in positives if r.first) / len(positives)


def show(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= SHOWN else text[: SHOWN - 1] + "…")


_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def order(f: Finding) -> tuple[str, int, int, str, str]:
    return (f.file, f.line, _SEVERITY_ORDER[f.severity], f.rule.value, f.message)
