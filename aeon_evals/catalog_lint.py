"""Catalog checks over skills/*/SKILL.md: structure, collisions and trigger routing.

`load_catalog` reads what the checks need (every SKILL.md through `skillmd`, aeon.yml, the
trigger cases); `check_catalog` is pure and returns every finding, each located as
`file:line`, with the colliding pairs and the routing results. `aeon-evals lint` prints them;
the nightly run summarises them.
"""

from __future__ import annotations

import enum
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aeon_evals import catalog
from aeon_evals.catalog import Collision, Model, SkillText
from aeon_evals.catalog_cases import Case, CaseKind, CaseResult, evaluate, key_line, line_finder
from aeon_evals.catalog_cases import parse_trigger as _parse_trigger
from aeon_evals.fsio import inside
from aeon_evals.manifest import EVALS_PATH, decode_json
from aeon_evals.registry import Registry, load_registry
from aeon_evals.skillmd import SKILL_MD, SKILLS_DIR, Form, SkillDoc, read_skill_doc, skill_md_path

LINE_BUDGET = 500
NAME_MAX = 64
DESCRIPTION_MAX = 1024
TRIGGER_FILE = "evals/trigger.json"
TRIGGER_LIMIT = 1 << 20
# The Agent Skills specification's top-level keys; everything else belongs under `metadata:`.
AGENT_SKILLS_KEYS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<message>.*)$", re.S)
SHOWN = 40  # characters of a value quoted in a message


class Severity(enum.StrEnum):
    """How much a finding matters: errors fail `lint` (exit 1), the others do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


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
        return tuple(r for r in self.results if r.case.kind is CaseKind.POSITIVE)

    @property
    def rank1_rate(self) -> float | None:
        """Share of positive cases whose skill ranks first (None without positive cases)."""
        positives = self.positives
        if not positives:
            return None
        return sum(1 for r in positives if r.first) / len(positives)


def _show(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= SHOWN else text[: SHOWN - 1] + "…")


def _type(value: object) -> str:
    return {dict: "a mapping", list: "a list", bool: "a boolean"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _located(doc: SkillDoc, warning: str) -> tuple[int, str]:
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
            line, message = _located(doc, doc.warnings[0])
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
    # The flat form predates the Agent Skills rules: its `name` is often a title ("Paper Pick").
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
                f"name {_show(name)}: {why}; expected `name: {doc.skill}`{form_note}",
            )
        )
    elif name != doc.skill:
        found.append(
            at(
                name_line,
                name_severity,
                Rule.NAME_FOLDER,
                f"name {_show(name)} is not the folder name {doc.skill!r}{form_note}",
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
        for key in sorted(set(line_of) - AGENT_SKILLS_KEYS):
            found.append(
                at(
                    line_of[key],
                    Severity.WARNING,
                    Rule.UNKNOWN_KEY,
                    f"unknown top-level key {_show(key)}: the Agent Skills form keeps it under metadata:",
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
                    f"{lines} lines (budget {LINE_BUDGET}): move reference material to files the skill reads on demand",
                    doc.skill,
                )
            )
    return found


def _contract_finding(doc: SkillDoc) -> Finding | None:
    from aeon_evals.contracts import infer_contract  # the SKILL.md contract inference (#13)

    if doc.error is not None or not doc.scorable:
        return None
    contract = infer_contract(doc)
    if contract.outputs:
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


def skill_text(doc: SkillDoc) -> SkillText:
    """What routing sees: the declared name when it is a string (else the folder), the description."""
    name = doc.meta.get("name")
    description = doc.meta.get("description")
    return SkillText(
        doc.skill,
        name if isinstance(name, str) and name.strip() else doc.skill,
        description if isinstance(description, str) else "",
    )


def routable(docs: Iterable[SkillDoc]) -> list[SkillDoc]:
    """The SKILL.md files a router sees: readable, with frontmatter that is a mapping."""
    return [d for d in docs if d.error is None and d.form in (Form.FLAT, Form.AGENT_SKILLS)]


def collision_findings(
    collisions: Iterable[Collision], docs: Mapping[str, SkillDoc]
) -> list[Finding]:
    """One finding per colliding pair, on the first skill's description line."""
    found = []
    for c in collisions:
        doc = docs[c.a]
        severity = Severity.ERROR if c.similarity >= catalog.COLLISION_ERROR else Severity.WARNING
        found.append(
            Finding(
                doc.path,
                doc.meta_line.get("description", 1),
                severity,
                Rule.COLLISION,
                f"description collides with {c.b} ({docs[c.b].path}): similarity {c.similarity:.3f}; shared terms: {c.terms()}",
                c.a,
            )
        )
    return found


def _cases(
    triggers: Iterable[TriggerSource], model: Model, scope: frozenset[str] | None
) -> tuple[list[Case], list[Finding]]:
    cases: list[Case] = []
    found: list[Finding] = []
    known = set(model.skills)
    for source in triggers:
        if scope is not None and source.skill not in scope:
            continue
        parsed, problems = _parse_trigger(
            source.skill,
            source.value,
            file=source.file,
            where=source.where,
            line_of=line_finder(source.text, source.start),
        )
        for p in problems:
            found.append(
                Finding(
                    p.file, p.line, Severity.ERROR, Rule.TRIGGER_INVALID, p.message, source.skill
                )
            )
        for case in parsed:
            missing = [s for s in (case.skill, case.owner) if s is not None and s not in known]
            if missing:
                found.append(
                    Finding(
                        case.file,
                        case.line,
                        Severity.ERROR,
                        Rule.TRIGGER_INVALID,
                        f"trigger case for {case.skill}: {missing[0]} has no {skill_md_path(missing[0])} a router can read",
                        case.skill,
                    )
                )
            else:
                cases.append(case)
    return cases, found


def case_finding(result: CaseResult) -> Finding:
    """A failed case, on the line its prompt is written."""
    case = result.case
    return Finding(
        case.file,
        case.line,
        Severity.ERROR,
        Rule.TRIGGER_FAILED,
        f"{case.kind} trigger case for {case.skill} fails: {_show(case.prompt)}: {result.why}",
        case.skill,
    )


def check_catalog(cat: Catalog, scope: Iterable[str] | None = None) -> CatalogReport:
    """Every check over the catalog; with `scope`, only findings about those skills (the
    routing model is still fitted on the whole catalog)."""
    wanted = frozenset(scope) if scope is not None else None
    docs = {d.skill: d for d in cat.docs}
    in_scope = [d for d in cat.docs if wanted is None or d.skill in wanted]
    found = list(cat.problems)
    for doc in in_scope:
        found += structure_findings(doc)
        contract = _contract_finding(doc)
        if contract is not None:
            found.append(contract)
    found += config_findings(docs, cat.folders, cat.registry, wanted)
    model = catalog.build_model(skill_text(d) for d in routable(cat.docs))
    among = None if wanted is None else [s for s in model.skills if s in wanted]
    pairs = catalog.collisions(model, catalog.COLLISION_WARNING, among=among)
    found += collision_findings(pairs, docs)
    cases, problems = _cases(cat.triggers, model, wanted)
    found += problems
    results = [evaluate(model, case) for case in cases]
    found += [case_finding(r) for r in results if not r.passed]
    return CatalogReport(
        skills=tuple(d.skill for d in in_scope),
        findings=tuple(sorted(found, key=_order)),
        collisions=tuple(pairs),
        results=tuple(results),
    )


_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _order(f: Finding) -> tuple[str, int, int, str, str]:
    return (f.file, f.line, _SEVERITY_ORDER[f.severity], f.rule.value, f.message)


# --- reading ----------------------------------------------------------------------------------


def _skill_folders(root: Path) -> list[str]:
    base = root / SKILLS_DIR
    try:
        return sorted(p.name for p in base.iterdir() if not p.name.startswith(".") and p.is_dir())
    except OSError:
        return []


def _read_json(root: Path, rel: str) -> tuple[object, str] | Finding | None:
    """(data, text) of a JSON file under root, None when absent, a Finding when unusable."""
    path = root / rel

    def problem(message: str) -> Finding:
        return Finding(rel, 1, Severity.ERROR, Rule.TRIGGER_INVALID, message)

    try:
        info = path.stat()
        if not inside(root, path):
            return problem("leads outside the instance root through a symlink; not read")
        if not stat.S_ISREG(info.st_mode):
            return problem("not a regular file; not read")
        if info.st_size > TRIGGER_LIMIT:
            return problem(f"larger than {TRIGGER_LIMIT >> 20} MiB; not read")
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return problem(f"cannot read: {exc.strerror}")
    try:
        data = decode_json(raw)
    except ValueError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else 1
        return Finding(rel, line, Severity.ERROR, Rule.TRIGGER_INVALID, str(exc))
    return data, raw.decode("utf-8-sig", errors="replace")


def _evals_triggers(root: Path) -> tuple[list[TriggerSource], list[Finding]]:
    read = _read_json(root, EVALS_PATH)
    if read is None:
        return [], []
    if isinstance(read, Finding):
        # `validate` reports evals.json itself; here it only means its trigger cases are unread.
        note = f"trigger cases in it not read: {read.message}"
        return [], [Finding(read.file, read.line, Severity.WARNING, Rule.TRIGGER_INVALID, note)]
    data, text = read
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        return [], []
    sources = []
    for skill, spec in sorted(skills.items()):
        if isinstance(spec, dict) and "trigger" in spec:
            start = key_line(text, "trigger", key_line(text, skill))
            sources.append(
                TriggerSource(
                    skill, EVALS_PATH, f"skills.{skill}.trigger", spec["trigger"], text, start
                )
            )
    return sources, []


def load_catalog(root: Path) -> Catalog:
    """Read every skills/*/SKILL.md, aeon.yml and the trigger cases under `root`.

    Never raises for bad content: an unreadable SKILL.md is a doc with `error`, an unreadable
    trigger file a finding. Reads only inside the root (skillmd refuses symlinks out of it).
    """
    folders = _skill_folders(root)
    docs = [d for d in (read_skill_doc(root, f) for f in folders) if d is not None]
    triggers, problems = _evals_triggers(root)
    for doc in docs:
        rel = f"{SKILLS_DIR}/{doc.skill}/{TRIGGER_FILE}"
        read = _read_json(root, rel)
        if isinstance(read, Finding):
            problems.append(read)
        elif read is not None:
            data, text = read
            triggers.append(TriggerSource(doc.skill, rel, "trigger", data, text, 1))
    return Catalog(
        docs=tuple(docs),
        folders=tuple(folders),
        registry=load_registry(root),
        triggers=tuple(triggers),
        problems=tuple(problems),
    )
