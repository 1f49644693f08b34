"""Output contracts as plain data (what a SKILL.md says a skill writes, with the evidence), and
as the JSON the cache and `aeon-evals contracts --json` hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aeon_evals.model import Spec

QUOTE_LIMIT = 120


@dataclass(frozen=True)
class Evidence:
    """Where in the SKILL.md an element of a contract comes from."""

    line: int  # 1-based, counted in the whole file
    quote: str


@dataclass(frozen=True)
class ContractOutput:
    """One output the skill writes, as a spec, with the branch it belongs to and the evidence."""

    spec: Spec
    condition: str | None  # e.g. "mode=single-token"; None when every run writes it
    evidence: tuple[tuple[str, Evidence], ...]

    @property
    def source(self) -> str:
        """`SKILL.md:41`: the line of the write instruction."""
        for element, ev in self.evidence:
            if element == "output":
                return f"SKILL.md:{ev.line}"
        return "SKILL.md"


@dataclass(frozen=True)
class Contract:
    """Everything inferred for one skill; `outputs` is empty when there is no usable contract."""

    skill: str
    outputs: tuple[ContractOutput, ...]
    reason: str | None  # why there is none ("SKILL.md names no output it writes")
    source: str  # "SKILL.md:41": where the first write instruction is
    scorable: bool
    warnings: tuple[str, ...] = ()
    sha256: str = ""
    # (branch condition, `var` value that selects it, evidence): "" for the branch an empty var
    # runs, "*" for the one any other value runs, a value ending with ":" for a prefix
    selectors: tuple[tuple[str, str, Evidence], ...] = ()

    @property
    def usable(self) -> bool:
        return bool(self.outputs)


def quoted(text: str) -> str:
    text = " ".join(text.strip().split())
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


def contract_to_json(contract: Contract) -> dict[str, Any]:
    """A contract as plain JSON data (the cache and `contracts --json`)."""
    return {
        "skill": contract.skill,
        "sha256": contract.sha256,
        "source": contract.source,
        "scorable": contract.scorable,
        "reason": contract.reason,
        "warnings": list(contract.warnings),
        "outputs": [
            {
                "condition": o.condition,
                "spec": spec_to_json(o.spec),
                "evidence": [[el, ev.line, ev.quote] for el, ev in o.evidence],
            }
            for o in contract.outputs
        ],
        "branches": [
            {"condition": cond, "var": selector, "line": ev.line, "quote": ev.quote}
            for cond, selector, ev in contract.selectors
        ],
    }


def spec_to_json(spec: Spec) -> dict[str, Any]:
    """The evals.json entry a spec stands for (only the fields a contract sets)."""
    out: dict[str, Any] = {"output_pattern": spec.output_pattern}
    if spec.section:
        out["section"] = spec.section
    if spec.min_words:
        out["min_words"] = spec.min_words
    if spec.required_patterns:
        out["required_patterns"] = list(spec.required_patterns)
    if spec.required_headings:
        out["required_headings"] = list(spec.required_headings)
    out["forbidden_patterns"] = list(spec.forbidden_patterns)
    return out


def contract_to_row(contract: Contract) -> list[Any]:
    """A contract as the cache keeps it: positional lists, smaller and faster to read back than
    contract_to_json's objects."""
    return [
        contract.skill,
        contract.sha256,
        contract.source,
        contract.scorable,
        contract.reason,
        list(contract.warnings),
        [
            [
                o.condition,
                o.spec.output_pattern,
                o.spec.section,
                o.spec.min_words,
                list(o.spec.required_patterns),
                list(o.spec.forbidden_patterns),
                list(o.spec.required_headings),
                [[el, ev.line, ev.quote] for el, ev in o.evidence],
            ]
            for o in contract.outputs
        ],
        [[cond, selector, ev.line, ev.quote] for cond, selector, ev in contract.selectors],
    ]


def _strings(items: Any) -> tuple[str, ...]:
    found = tuple(items)
    if not all(type(item) is str for item in found):
        raise TypeError("expected strings")
    return found


def contract_from_row(row: Any) -> Contract:
    """The inverse of contract_to_row; raises TypeError or ValueError on damaged data."""
    skill, sha256, source, scorable, reason, warnings, rows, branches = row
    if not (type(skill) is str and type(sha256) is str and type(source) is str):
        raise TypeError("damaged contract")
    if type(scorable) is not bool or not (reason is None or type(reason) is str):
        raise TypeError("damaged contract")
    outputs = []
    for condition, pattern, section, min_words, required, forbidden, headings, evidence in rows:
        if type(pattern) is not str or type(min_words) is not int:
            raise TypeError("damaged output")
        if not (condition is None or type(condition) is str):
            raise TypeError("damaged output")
        if not (section is None or type(section) is str):
            raise TypeError("damaged output")
        spec = Spec(
            skill=skill,
            output_pattern=pattern,
            min_words=min_words,
            required_patterns=_strings(required),
            forbidden_patterns=_strings(forbidden),
            section=section,
            required_headings=_strings(headings),
        )
        shown = tuple([(str(el), Evidence(int(line), str(q))) for el, line, q in evidence])
        outputs.append(ContractOutput(spec, condition, shown))
    selectors = tuple(
        [(str(cond), str(sel), Evidence(int(line), str(q))) for cond, sel, line, q in branches]
    )
    return Contract(
        skill, tuple(outputs), reason, source, scorable, _strings(warnings), sha256, selectors
    )
