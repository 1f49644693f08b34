"""Starter specs for skills without an evals.json entry (`audit --stubs`, `init`, bootstrap).

A skill whose SKILL.md yields an output contract gets that contract as its spec, with the
evidence as a `"_from": "SKILL.md:41"` note (and `"_when"` for a branch selected by `var`);
any other gets the older placeholder spec built from its name. Of a contract with several
branches, the starter holds the one a run evaluates (`scope.choose_output`: the branch whose
newest output is newest, else the first), the others listed in `"_other_branches"`: a starter
committed as it is keeps checking what the run checked before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from aeon_evals.contracts.audit import AuditReport, Gap
from aeon_evals.contracts.instance import Contract, ContractOutput, spec_to_json
from aeon_evals.contracts.paths import LOG_PATTERN
from aeon_evals.contracts.scope import choose_output, configured_var
from aeon_evals.load.layout import ARTICLE_DIRS, article_twin
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import load_registry

# How a starter picks among a contract's branches (see `run_branch`).
Pick = Callable[[Contract], ContractOutput]

# `${var}` left in an output means a prompt variable was never filled in; `[TODO]` and
# PLACEHOLDER are what an LLM writes when it gives up on a section.
FORBIDDEN_DEFAULTS = ("\\$\\{var\\}", "\\[TODO\\]", "PLACEHOLDER")
MIN_WORDS_FILE = 30  # a dedicated output (article, topics file) says at least this much
MIN_WORDS_SECTION = 10  # one skill's section of the shared daily log is a few lines
_META = re.compile(r"([\\.^$|?*+()\[\]{}])")


def _escape(text: str) -> str:
    """`text` as a literal in an RE2 pattern."""
    return _META.sub(r"\\\1", text)


def name_pattern(skill: str) -> str:
    """A case-insensitive pattern that finds the skill's name in its own output: the name as
    written, with spaces for hyphens, or any of its words longer than 2 letters."""
    words = [w for w in re.split(r"[-_]+", skill) if w]
    options = [skill]
    spaced = " ".join(words)
    if spaced and spaced != skill:
        options.append(spaced)
    options += [w for w in words if len(w) > 2 and w not in options]
    return "(?i)" + "|".join(_escape(o) for o in options)


def stub_for(gap: Gap) -> dict[str, Any]:
    """A small, safe spec: the inferred pattern, a low word floor, the skill's name as required
    text, the usual placeholders forbidden; log-based skills are checked on their own section."""
    pattern = gap.inferred_pattern or LOG_PATTERN
    on_log = pattern == LOG_PATTERN
    spec: dict[str, Any] = {"output_pattern": pattern}
    if on_log:
        spec["section"] = f"### {gap.skill}"
    spec["min_words"] = MIN_WORDS_SECTION if on_log else MIN_WORDS_FILE
    spec["required_patterns"] = [name_pattern(gap.skill)]
    spec["forbidden_patterns"] = list(FORBIDDEN_DEFAULTS)
    return spec


def run_branch(root: Path, now: datetime) -> Pick:
    """The branch a run at `now` evaluates, among a contract's outputs (`scope.choose_output`):
    of those the skill's aeon.yml `var` may write, the one whose newest file under `root` is
    newest, else the first. Reads aeon.yml and looks at the outputs."""
    outputs = Outputs(root)
    registry = load_registry(root)
    return lambda contract: choose_output(
        contract, outputs, now, configured_var(registry, contract.skill)
    )


def stub_from_contract(contract: Contract, pick: Pick | None = None) -> dict[str, Any] | None:
    """The spec of the output `pick` chooses (without it the first: the product, an article
    before a log entry), with where it came from and the other branches as a note; None when
    the contract has no output."""
    if not contract.outputs:
        return None
    chosen = pick(contract) if pick is not None else contract.outputs[0]
    spec: dict[str, Any] = {"_from": chosen.source}
    if chosen.condition:
        spec["_when"] = chosen.condition
    others = [
        f"{o.condition or 'always'}: {o.spec.output_pattern} ({o.source})"
        for o in contract.outputs
        if o is not chosen
    ]
    if others:
        spec["_other_branches"] = others
    spec.update(spec_to_json(chosen.spec))
    return spec


def stubs(
    found: AuditReport, pick: Pick | None = None, *, articles: str | None = None
) -> dict[str, dict[str, Any]]:
    """Starter specs keyed by skill, for every uncovered enabled skill that is scorable (ready
    to merge into `skills`): from its SKILL.md contract when there is one (the branch `pick`
    chooses, see `run_branch`), else a placeholder. `articles`: the instance's article folder
    (load.layout): a SKILL.md naming `articles/` in an instance that moved to `output/articles/`
    is drafted there (the checks read both folders)."""
    out: dict[str, dict[str, Any]] = {}
    for gap in found.uncovered_enabled:
        contract = found.contracts.get(gap.skill)
        if contract is not None and not contract.scorable:
            continue  # `scorable: false`: listed, never scored
        drafted = stub_from_contract(contract, pick) if contract is not None else None
        out[gap.skill] = _in_folder(drafted if drafted is not None else stub_for(gap), articles)
    return out


def _in_folder(spec: dict[str, Any], articles: str | None) -> dict[str, Any]:
    """`spec` with an `articles/` output_pattern moved to `output/articles/` when the instance
    writes there (never the other way: a SKILL.md naming `output/articles/` is upstream's)."""
    pattern = spec.get("output_pattern")
    new, old = ARTICLE_DIRS
    if articles == new and isinstance(pattern, str) and pattern.startswith(f"{old}/"):
        return {**spec, "output_pattern": article_twin(pattern)}
    return spec


def starter_manifest(
    found: AuditReport, pick: Pick | None = None, *, articles: str | None = None
) -> dict[str, Any]:
    """A whole evals.json for an instance that has none (`pick`, `articles`: see `stubs`)."""
    return {
        "version": "1",
        "description": "Per-skill output assertions for aeon-evals. Starter specs drafted from "
        "each skill's SKILL.md (`_from` names the line): review before trusting them.",
        "skills": stubs(found, pick, articles=articles),
    }
