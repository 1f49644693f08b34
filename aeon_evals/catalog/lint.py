"""Catalog checks over skills/*/SKILL.md: structure, collisions and trigger routing.

`load_catalog` reads what the checks need (every SKILL.md through `skillmd`, aeon.yml, the
trigger cases); `check_catalog` is pure and returns every finding, each located as
`file:line`, with the colliding pairs and the routing results. `aeon-evals lint` prints them;
the nightly run summarises them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from aeon_evals.catalog import routing as catalog
from aeon_evals.catalog.cases import Case, CaseResult, evaluate, line_finder
from aeon_evals.catalog.cases import parse_trigger as _parse_trigger
from aeon_evals.catalog.findings import (
    Catalog,
    CatalogReport,
    Finding,
    Rule,
    Severity,
    TriggerSource,
    order,
    show,
)
from aeon_evals.catalog.read import TRIGGER_FILE, load_catalog
from aeon_evals.catalog.routing import Collision, Model, SkillText
from aeon_evals.catalog.rules import (
    config_findings,
    contract_finding,
    contract_of,
    overlap_findings,
    structure_findings,
)
from aeon_evals.catalog.select import Selection
from aeon_evals.errors import ConfigError
from aeon_evals.load.skillmd import Form, SkillDoc, skill_md_path

__all__ = [
    "TRIGGER_FILE",
    "CatalogReport",
    "Finding",
    "Rule",
    "Severity",
    "check_catalog",
    "load_catalog",
]


def skill_text(doc: SkillDoc) -> SkillText:
    """What routing sees: the declared name when it is a string (else the folder), and the
    description."""
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
                f"description collides with {c.b} ({docs[c.b].path}): "
                f"similarity {c.similarity:.3f}; shared terms: {c.terms()}",
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
                        f"trigger case for {case.skill}: {missing[0]} has no "
                        f"{skill_md_path(missing[0])} a router can read",
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
        f"{case.kind} trigger case for {case.skill} fails: {show(case.prompt)}: {result.why}",
        case.skill,
    )


UNREADABLE = "unreadable"  # a SKILL.md no form can be told of (binary, too large …)


def setting_errors(cat: Catalog) -> None:
    """Raise ConfigError for the first error in the instance's lint settings (a code that names
    no rule, settings in two places): lint exits 2 on it, naming the file, line and code."""
    for p in cat.setting_problems:
        if p.severity is Severity.ERROR:
            place = f"{p.file}:{p.line}" if p.line else p.file
            raise ConfigError(p.message, path=place, where=p.where or None)


def check_catalog(
    cat: Catalog, scope: Iterable[str] | None = None, selection: Selection | None = None
) -> CatalogReport:
    """Every check over the catalog; with `scope`, only findings about those skills (the
    routing model is still fitted on the whole catalog). Only the rules the instance's settings
    select apply, then `selection` (the command line's) on top. Raises ConfigError for an
    error in the instance's lint settings."""
    setting_errors(cat)
    rules = (cat.settings if selection is None else cat.settings.then(selection)).rules()
    wanted = frozenset(scope) if scope is not None else None
    docs = {d.skill: d for d in cat.docs}
    in_scope = [d for d in cat.docs if wanted is None or d.skill in wanted]
    found = list(cat.problems)
    # the contracts of the skills the registry schedules (a run checks only those; one it does
    # not is AE204), in scope or not: an output may overlap another skill's (AE205). The
    # inference costs a third of a lint: only when a rule needs it.
    contracts = (
        {
            d.skill: c
            for d in cat.docs
            if d.skill in cat.registry.skills and (c := contract_of(d)) is not None
        }
        if Rule.NO_OUTPUT in rules or Rule.OUTPUT_OVERLAP in rules
        else {}
    )
    for doc in in_scope:
        found += structure_findings(doc)
        if Rule.NO_OUTPUT in rules and doc.skill in cat.registry.skills:
            contract = contract_finding(doc, contracts.get(doc.skill))
            if contract is not None:
                found.append(contract)
    if Rule.OUTPUT_OVERLAP in rules:
        found += overlap_findings(contracts, cat.specs, docs, cat.registry, wanted)
    found += config_findings(docs, cat.folders, cat.registry, wanted)
    model = catalog.build_model(skill_text(d) for d in routable(cat.docs))
    among = None if wanted is None else [s for s in model.skills if s in wanted]
    pairs = catalog.collisions(model, catalog.COLLISION_WARNING, among=among)
    if Rule.COLLISION not in rules:
        pairs = []
    found += collision_findings(pairs, docs)
    cases, problems = _cases(cat.triggers, model, wanted)
    found += problems
    results = [evaluate(model, case) for case in cases]
    found += [case_finding(r) for r in results if not r.passed]
    return CatalogReport(
        skills=tuple(d.skill for d in in_scope),
        findings=tuple(sorted((f for f in found if f.rule in rules), key=order)),
        collisions=tuple(pairs),
        results=tuple(results),
        forms={d.skill: UNREADABLE if d.error is not None else d.form.value for d in in_scope},
    )
