"""The catalog checks' plain data: a finding (`file:line: severity: message`, with its rule),
what the checks read from an instance, and the report they return."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aeon_evals.load.registry import Registry
from aeon_evals.load.skillmd import SkillDoc
from aeon_evals.model.problems import Severity as Severity  # errors fail `lint` (exit 1)

if TYPE_CHECKING:  # the model and the cases load with the checks, not with a cached summary
    from aeon_evals.catalog.cases import CaseResult
    from aeon_evals.catalog.routing import Collision

SHOWN = 40  # characters of a value quoted in a message


class Rule(enum.StrEnum):
    """What a finding is about (stable identifiers, shown in --json and JUnit)."""

    UNREADABLE = "unreadable"
    FRONTMATTER_MISSING = "frontmatter-missing"
    FRONTMATTER_INVALID = "frontmatter-invalid"
    NAME_MISSING = "name-missing"
    NAME_FORMAT = "name-format"
    NAME_FOLDER = "name-folder"
    DESCRIPTION_MISSING = "description-missing"
    DESCRIPTION_FORMAT = "description-format"
    DESCRIPTION_LENGTH = "description-length"
    DESCRIPTION_ANGLE = "description-angle-brackets"
    UNKNOWN_KEY = "unknown-key"
    LINE_BUDGET = "line-budget"
    NO_SKILL_MD = "no-skill-md"
    NO_FOLDER = "no-folder"
    NOT_IN_CONFIG = "not-in-config"
    NO_OUTPUT = "no-output"
    OUTPUT_OVERLAP = "output-overlap"
    COLLISION = "collision"
    TRIGGER_INVALID = "trigger-invalid"
    TRIGGER_FAILED = "trigger-failed"


@dataclass(frozen=True)
class Finding:
    """One problem, located: `file:line: severity: message`."""

    file: str
    line: int
    severity: Severity
    rule: Rule
    message: str
    skill: str | None = None

    def text(self) -> str:
        return f"{self.file}:{self.line}: {self.severity}: {self.message}"

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "severity": self.severity.value,
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
    # (skill, output_pattern, its line) of each evals.json spec: a skill's declared output
    specs: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class CatalogReport:
    """Every finding, sorted by file and line, with the colliding pairs and the case results."""

    skills: tuple[str, ...]
    findings: tuple[Finding, ...]
    collisions: tuple[Collision, ...]
    results: tuple[CaseResult, ...] = field(default=())

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
