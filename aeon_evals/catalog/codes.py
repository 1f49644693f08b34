"""The lint rules and their stable codes (docs/catalog.md lists them: what each checks, its
default severity, the convention it comes from)."""

from __future__ import annotations

import enum


class Rule(enum.StrEnum):
    """What a finding is about (stable identifiers, shown in --json and JUnit); each has a stable
    code (`CODES`), printed with every finding and used to select or ignore it."""

    UNREADABLE = "unreadable"
    FRONTMATTER_MISSING = "frontmatter-missing"
    FRONTMATTER_INVALID = "frontmatter-invalid"
    NAME_MISSING = "name-missing"
    NAME_FORMAT = "name-format"
    NAME_FOLDER = "name-folder"
    FLAT_TITLE = "flat-title"
    DESCRIPTION_MISSING = "description-missing"
    DESCRIPTION_FORMAT = "description-format"
    DESCRIPTION_LENGTH = "description-length"
    DESCRIPTION_ANGLE = "description-angle-brackets"
    UNKNOWN_KEY = "unknown-key"
    LINE_BUDGET = "line-budget"
    NO_OUTPUT = "no-output"
    OUTPUT_OVERLAP = "output-overlap"
    NO_SKILL_MD = "no-skill-md"
    NO_FOLDER = "no-folder"
    NOT_IN_CONFIG = "not-in-config"
    COLLISION = "collision"
    TRIGGER_INVALID = "trigger-invalid"
    TRIGGER_FAILED = "trigger-failed"

    @property
    def code(self) -> str:
        """The rule's stable code: `AE1xx` one SKILL.md's frontmatter and size, `AE2xx` the
        skill in its instance (contract, folders, the registry), `AE3xx` routing."""
        return CODES[self]


# Never renumbered: a code, once given, keeps its meaning (instances select and ignore by it).
CODES: dict[Rule, str] = {
    Rule.UNREADABLE: "AE101",
    Rule.FRONTMATTER_MISSING: "AE102",
    Rule.FRONTMATTER_INVALID: "AE103",
    Rule.NAME_MISSING: "AE104",
    Rule.NAME_FORMAT: "AE105",
    Rule.NAME_FOLDER: "AE106",
    Rule.FLAT_TITLE: "AE107",
    Rule.DESCRIPTION_MISSING: "AE108",
    Rule.DESCRIPTION_FORMAT: "AE109",
    Rule.DESCRIPTION_LENGTH: "AE110",
    Rule.DESCRIPTION_ANGLE: "AE111",
    Rule.UNKNOWN_KEY: "AE112",
    Rule.LINE_BUDGET: "AE113",
    Rule.NO_OUTPUT: "AE201",
    Rule.NO_SKILL_MD: "AE202",
    Rule.NO_FOLDER: "AE203",
    Rule.NOT_IN_CONFIG: "AE204",
    Rule.OUTPUT_OVERLAP: "AE205",
    Rule.COLLISION: "AE301",
    Rule.TRIGGER_INVALID: "AE302",
    Rule.TRIGGER_FAILED: "AE303",
}
# Off unless selected (`--select AE107`, or `extend-select`): upstream Aeon's own convention,
# which the default must not flag.
OFF_BY_DEFAULT = frozenset({Rule.FLAT_TITLE})
DEFAULT_RULES = frozenset(Rule) - OFF_BY_DEFAULT
