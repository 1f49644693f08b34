"""The structure rules of the catalog checks: a SKILL.md's frontmatter and size, its output
contract, and the config (aeon.yml) against the folders under skills/ (docs/catalog.md, §1)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from aeon_evals.catalog.findings import Finding, Rule, Severity, show
from aeon_evals.load.manifest import EVALS_PATH, SKILL_NAME_MAX
from aeon_evals.load.registry import Registry
from aeon_evals.load.skillmd import SKILL_MD, SKILLS_DIR, Form, SkillDoc, skill_md_path
from aeon_evals.text.controls import show_name

if TYPE_CHECKING:
    from aeon_evals.contracts.data import Contract

LINE_BUDGET = 500
NAME_MAX = SKILL_NAME_MAX  # the Agent Skills limit
DESCRIPTION_MAX = 1024
# The Agent Skills specification's top-level keys; everything else belongs under `metadata:`.
AGENT_SKILLS_KEYS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)
# Top-level keys upstream Aeon itself reads beside the Agent Skills ones: `scorable` (its
# post-run quality scorer skips a skill with `scorable: false`).
AEON_KEYS = frozenset({"scorable"})
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<message>.*)$", re.S)


def _type(value: object) -> str:
    return {dict: "a mapping", list: "a list", bool: "a boolean"}.get(
        type(value), f"a {type(value).__name__}"
    )


def located(doc: SkillDoc, warning: str) -> tuple[int, str]:
    """A skillmd warning `path:line: message` as (line, message)."""
    match = _LOCATED.match(warning)
    if match and match.group("file") == doc.path:
        return int(match.group("line")), match.group("message")
    prefix = f"{doc.path}: "
    return 1, warning[len(prefix) :] if warning.startswith(prefix) else warning


def _line_count(doc: SkillDoc) -> int:
    body_lines = doc.body.count("\n") + (0 if doc.body.endswith("\n") or not doc.body else 1)
    return doc.body_line - 1 + body_lines


def _frontmatter_findings(doc: SkillDoc) -> list[Finding]:
    def at(line: int, severity: Severity, rule: Rule, message: str) -> Finding:
        return Finding(doc.path, line, severity, rule, message, doc.skill)

    if doc.error is not None:
        return [at(1, Severity.ERROR, Rule.UNREADABLE, doc.error)]
    if doc.form is Form.NONE or doc.form is Form.BROKEN:
        if doc.warnings:
            line, message = located(doc, doc.warnings[0])
            return [at(line, Severity.ERROR, Rule.FRONTMATTER_INVALID, message)]
        return [
            at(
                1,
                Severity.ERROR,
                Rule.FRONTMATTER_MISSING,
                "no frontmatter: an agent sees no name or description "
                "(start the file with ---, name:, description:, ---)",
            )
        ]
    found: list[Finding] = []
    agent_skills = doc.form is Form.AGENT_SKILLS
    # The flat form predates the Agent Skills rules: its `name` is often a title ("Paper Pick"),
    # upstream Aeon's own convention before August 2026: flat-title (off by default), and the
    # name rules are warnings there.
    name_severity = Severity.ERROR if agent_skills else Severity.WARNING
    form_note = "" if agent_skills else " (flat frontmatter; the Agent Skills form requires it)"
    line_of = doc.meta_line
    name = doc.meta.get("name")
    name_line = line_of.get("name", 1)
    if name is None or (isinstance(name, str) and not name.strip()):
        found.append(at(1, Severity.ERROR, Rule.NAME_MISSING, f"no name: add `name: {doc.skill}`"))
    elif not isinstance(name, str):
        found.append(
            at(name_line, name_severity, Rule.NAME_FORMAT, f"name is {_type(name)}, not a string")
        )
    elif not agent_skills and not _NAME.fullmatch(name):
        found.append(
            at(
                name_line,
                Severity.WARNING,
                Rule.FLAT_TITLE,
                f"name {show(name)} is a title, not a slug: the Agent Skills form requires "
                f"`name: {doc.skill}` (flat frontmatter, upstream Aeon's form before August 2026)",
            )
        )
    elif len(name) > NAME_MAX or not _NAME.fullmatch(name):
        why = (
            f"{len(name)} characters (at most {NAME_MAX})"
            if len(name) > NAME_MAX
            else "lowercase letters, digits and single hyphens only"
        )
        found.append(
            at(
                name_line,
                name_severity,
                Rule.NAME_FORMAT,
                f"name {show(name)}: {why}; expected `name: {doc.skill}`{form_note}",
            )
        )
    elif name != doc.skill:
        found.append(
            at(
                name_line,
                name_severity,
                Rule.NAME_FOLDER,
                f"name {show(name)} is not the folder name {doc.skill!r}{form_note}",
            )
        )
    description = doc.meta.get("description")
    desc_line = line_of.get("description", 1)
    if description is None or (isinstance(description, str) and not description.strip()):
        found.append(
            at(
                desc_line,
                Severity.ERROR,
                Rule.DESCRIPTION_MISSING,
                "no description: say what the skill does and when to use it (1–1024 characters)",
            )
        )
    elif not isinstance(description, str):
        found.append(
            at(
                desc_line,
                Severity.ERROR,
                Rule.DESCRIPTION_FORMAT,
                f"description is {_type(description)}, not a string",
            )
        )
    else:
        if len(description) > DESCRIPTION_MAX:
            found.append(
                at(
                    desc_line,
                    Severity.ERROR,
                    Rule.DESCRIPTION_LENGTH,
                    f"description is {len(description)} characters (at most {DESCRIPTION_MAX})",
                )
            )
        if "<" in description or ">" in description:
            found.append(
                at(
                    desc_line,
                    Severity.ERROR,
                    Rule.DESCRIPTION_ANGLE,
                    "description contains < or >: agents may read it as markup",
                )
            )
    if agent_skills:
        for key in sorted(set(line_of) - AGENT_SKILLS_KEYS - AEON_KEYS):
            found.append(
                at(
                    line_of[key],
                    Severity.WARNING,
                    Rule.UNKNOWN_KEY,
                    f"unknown top-level key {show(key)}: "
                    "the Agent Skills form keeps it under metadata:",
                )
            )
    return found


def structure_findings(doc: SkillDoc) -> list[Finding]:
    """The frontmatter and size rules for one SKILL.md (docs/catalog.md lists them)."""
    found = _frontmatter_findings(doc)
    if doc.error is None:
        lines = _line_count(doc)
        if lines > LINE_BUDGET:
            found.append(
                Finding(
                    doc.path,
                    LINE_BUDGET + 1,
                    Severity.WARNING,
                    Rule.LINE_BUDGET,
                    f"{lines} lines (budget {LINE_BUDGET}): "
                    "move reference material to files the skill reads on demand",
                    doc.skill,
                )
            )
    return found


def contract_of(doc: SkillDoc) -> Contract | None:
    """The output contract `doc` states (None for an unreadable or unscorable SKILL.md)."""
    from aeon_evals.contracts.instance import (
        infer_contract,  # the SKILL.md contract inference (#13)
    )

    if doc.error is not None or not doc.scorable:
        return None
    return infer_contract(doc)


def contract_finding(doc: SkillDoc, contract: Contract | None = None) -> Finding | None:
    contract = contract or contract_of(doc)
    if contract is None or contract.outputs:
        return None
    reason = contract.reason or "the SKILL.md names no output it writes"
    return Finding(
        doc.path,
        doc.body_line,
        Severity.WARNING,
        Rule.NO_OUTPUT,
        f"no output contract: {reason}; a run cannot be checked until the SKILL.md says where it "
        "writes (`Save to …`, `Append to …`)",
        doc.skill,
    )


def overlap_findings(
    contracts: Mapping[str, Contract],
    specs: Iterable[tuple[str, str, int]],
    docs: Mapping[str, SkillDoc],
    registry: Registry,
    scope: frozenset[str] | None,
) -> list[Finding]:
    """An output whose glob also matches another skill's more specific one (an evals.json spec,
    or the SKILL.md contract of an enabled skill without one, as a run declares them): the run
    leaves those files out of its checks (issue 35.6). Located at the spec's or the write
    instruction's line; two evals.json specs are `validate`'s to report."""
    from aeon_evals.checks.owners import Claims, overlaps

    where = {skill: (EVALS_PATH, line) for skill, _, line in specs}
    declared: dict[str, tuple[str, ...]] = {skill: (pattern,) for skill, pattern, _ in specs}
    for skill, contract in contracts.items():
        reg = registry.skills.get(skill)
        if skill not in declared and (reg is None or reg.enabled) and contract.outputs:
            declared[skill] = tuple(o.spec.output_pattern for o in contract.outputs)
            where[skill] = (docs[skill].path, docs[skill].body_line)
    found: list[Finding] = []
    for mine, theirs in overlaps(Claims(declared)):
        if (scope is not None and mine.skill not in scope) or (
            where[mine.skill][0] == where[theirs.skill][0] == EVALS_PATH
        ):
            continue
        file, line = where[mine.skill]
        if file != EVALS_PATH:
            line = next(
                (
                    ev.line
                    for o in contracts[mine.skill].outputs
                    if o.spec.output_pattern == mine.pattern
                    for element, ev in o.evidence
                    if element == "output"
                ),
                line,
            )
        found.append(
            Finding(
                file,
                line,
                Severity.WARNING,
                Rule.OUTPUT_OVERLAP,
                f"{show_name(mine.skill)} writes {mine.pattern}, which also matches the outputs "
                f"of {show_name(theirs.skill)} ({theirs.pattern}): a run leaves those files out "
                f"of {show_name(mine.skill)}'s checks",
                mine.skill,
            )
        )
    return found


def config_findings(
    docs: Mapping[str, SkillDoc],
    folders: Iterable[str],
    registry: Registry,
    scope: frozenset[str] | None,
) -> list[Finding]:
    """Folders without a SKILL.md, enabled skills without a folder, folders not in the config."""
    folder_set = set(folders)
    found: list[Finding] = []
    # skills/skill-evals/ may hold only this tool's evals.json: not a skill folder to flag.
    for folder in sorted(folder_set - set(docs) - {EVALS_PATH.split("/")[1]}):
        if scope is None or folder in scope:
            found.append(
                Finding(
                    skill_md_path(folder),
                    1,
                    Severity.INFO,
                    Rule.NO_SKILL_MD,
                    f"{SKILLS_DIR}/{folder}/ has no {SKILL_MD}: not a skill an agent can load",
                    folder,
                )
            )
    if not registry.found:
        return found
    for name in sorted(registry.enabled() - folder_set):
        if scope is None or name in scope:
            found.append(
                Finding(
                    registry.path,
                    registry.lines.get(name, 1),
                    Severity.INFO,
                    Rule.NO_FOLDER,
                    f"{name} is enabled but there is no {skill_md_path(name)}",
                    name,
                )
            )
    for name in sorted(set(docs) - set(registry.skills)):
        if scope is None or name in scope:
            found.append(
                Finding(
                    docs[name].path,
                    1,
                    Severity.INFO,
                    Rule.NOT_IN_CONFIG,
                    f"{name} is not in {registry.path}: it is never scheduled",
                    name,
                )
            )
    return found
