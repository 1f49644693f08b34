"""Coverage audit (the old scripts/eval-audit): which enabled skills have a spec, and what to add.

Skills are the folders under `skills/` (plus any skill aeon.yml enables without a folder);
covered = has an evals.json entry; enabled from aeon.yml. Coverage = enabled skills with a
spec / enabled skills. Everything here is a pure function of the folder names, the SKILL.md
texts, the registry and the spec names; a SKILL.md that cannot be read only loses its pattern.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aeon_evals.errors import EvalsError
from aeon_evals.load.registry import LLM_SKILL, Registry
from aeon_evals.load.skill_names import SKILLS_DIR as SKILLS_DIR
from aeon_evals.load.skill_names import Orphan as Orphan
from aeon_evals.load.skill_names import closest_skill as closest_skill
from aeon_evals.load.skill_names import find_orphans as find_orphans
from aeon_evals.load.skill_names import skill_folders as skill_folders
from aeon_evals.load.skill_names import tokens

if TYPE_CHECKING:
    from aeon_evals.contracts.instance import Contract
    from aeon_evals.model import Coverage

# The SKILL.md reader, the contract inference (contract_*, skillmd, frontmatter) and a run's
# result types are imported where they are used, and the orphan check lives in skill_names
# (re-exported here): `validate` needs only that, and starts faster without the rest (issue 20).


@dataclass(frozen=True)
class Gap:
    skill: str
    inferred_pattern: str  # "" when nothing could be inferred
    contract_source: str = ""  # "SKILL.md:41" when the pattern comes from the skill's contract


@dataclass(frozen=True)
class AuditReport:
    """The audit's findings; every list sorted by name."""

    total_skills: int
    covered: tuple[str, ...]  # skills with a spec, enabled or not (the old script's `covered`)
    uncovered_enabled: tuple[Gap, ...]
    uncovered_disabled: tuple[str, ...]
    uncovered_unregistered: tuple[str, ...]
    enabled_total: int
    coverage: Coverage  # enabled skills with a spec / enabled skills
    orphans: tuple[Orphan, ...]
    no_folder: tuple[str, ...] = ()  # enabled in aeon.yml, but no skills/<name>/ folder
    # enabled, no spec, and never a gap: Aeon's LLM-run skill-evals, which this tool replaces
    not_counted: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    # the output contract of each enabled skill with a SKILL.md (all of them when the caller
    # passed them in; else the uncovered ones)
    contracts: Mapping[str, Contract] = field(default_factory=dict)
    # no evals.json on an instance that registers no skill-evals: `covered` are the skills with
    # a usable SKILL.md contract, which the run evaluates (enforce)
    by_contracts: bool = False

    @property
    def coverage_pct(self) -> int:
        return round(self.coverage.pct)

    @property
    def covered_enabled(self) -> int:
        return self.coverage.covered


def _kind(glob: str, log_pattern: str) -> int:
    """Lower is a better output pattern: a dated article, then a fixed file, then the shared log."""
    if glob == log_pattern:
        return 2
    return 0 if "*" in glob else 1


def infer_from_text(text: str, skill: str) -> str:
    """The output glob a SKILL.md text says the skill writes; "" when it names none: the audit's
    fallback for a SKILL.md whose contract names no output (or that is not text).

    Every path the text names, read with the contract inference's words (`contract_paths`: the
    same globs, the same verbs): paths the skill writes, or may write, win over paths it only
    reads; among those a dated article beats a fixed file (`memory/topics/x.md`), which beats
    the shared daily log; then the one naming the skill; then the first mentioned. A path only
    ever read is used only for the daily log.
    """
    from aeon_evals.contracts.paths import LOG_PATTERN, REF, Clause, clause_class, normalize_ref

    best: dict[str, tuple[int, int]] = {}  # glob → (best clause class, first position)
    for m in REF.finditer(text):
        glob = normalize_ref(m.group(1))
        if glob is None:
            continue
        cls = clause_class(text[max(0, m.start() - 300) : m.start()])
        old = best.get(glob)
        best[glob] = (max(cls, old[0]) if old else cls, old[1] if old else m.start())
    names = set(tokens(skill))

    def rank(item: tuple[str, tuple[int, int]]) -> tuple[int, int, int, int]:
        glob, (cls, pos) = item
        named = 0 if names & set(tokens(glob.rpartition("/")[2].replace("*", " "))) else 1
        return (_kind(glob, LOG_PATTERN), -cls, named, pos)

    written = [item for item in best.items() if item[1][0] > Clause.READ]
    if written:
        return min(written, key=rank)[0]
    return LOG_PATTERN if LOG_PATTERN in best else ""


def infer_pattern(root: Path, skill: str) -> str:
    """The output glob a skill's SKILL.md says it writes; "" when it says nothing usable."""
    from aeon_evals.load.skillmd import read_bounded

    raw = read_bounded(root, f"{SKILLS_DIR}/{skill}/SKILL.md")  # a FIFO must never block
    if not isinstance(raw, bytes):
        return ""
    return infer_from_text(raw.decode("utf-8", errors="replace"), skill)


# --- the audit ---------------------------------------------------------------------------------

NOT_COUNTED_WHY = "Aeon's LLM-run skill that aeon-evals replaces: never evaluated, never a gap"


def contract_of(root: Path, skill: str) -> Contract | None:
    """The output contract of `skill`'s SKILL.md (uncached), None when it has no SKILL.md."""
    from aeon_evals.contracts.instance import infer_contract
    from aeon_evals.load.skillmd import read_skill_doc

    doc = read_skill_doc(root, skill)
    return infer_contract(doc) if doc is not None else None


def audit(
    root: Path,
    spec_skills: set[str],
    registry: Registry,
    *,
    contracts: Mapping[str, Contract] | None = None,
    by_contracts: bool = False,
) -> AuditReport:
    """Compare skills/, aeon.yml and evals.json. Coverage = enabled skills with a spec /
    enabled skills.

    Each uncovered enabled skill's output pattern comes from its SKILL.md contract (see
    contracts.py), else from the looser path heuristic (`infer_from_text`). `contracts` (from
    contracts.load_contracts) spares reading the SKILL.md files again. Reads only folder names
    and SKILL.md files; never raises for a file it cannot read.
    """
    from aeon_evals.model import Coverage

    folders = set(skill_folders(root))
    registered = set(registry.skills)
    enabled = registry.enabled()
    universe = folders | enabled | (spec_skills & registered)
    # Aeon's LLM-run skill-evals is never evaluated (its output is this tool's article), so an
    # evals.json entry for it covers nothing: it is left out of the coverage on both sides
    counted = enabled - {LLM_SKILL}
    covered = sorted(spec_skills & universe - {LLM_SKILL})
    warnings: list[str] = []
    gaps: list[Gap] = []
    known: dict[str, Contract] = dict(contracts or {})
    # Aeon's LLM-run skill-evals is what this tool replaces, never a skill it should evaluate.
    for skill in sorted(enabled - spec_skills - {LLM_SKILL}):
        contract = known.get(skill)
        source = ""
        try:
            # a skill missing from `contracts` (a --skill run loads its own only) is read here:
            # the looser heuristic alone gave another pattern than a full run's
            if contract is None and skill in folders and skill not in known:
                contract = contract_of(root, skill)
                if contract is not None:
                    known[skill] = contract
            if contract is not None and contract.outputs:
                pattern, source = contract.outputs[0].spec.output_pattern, contract.source
            else:
                pattern = infer_pattern(root, skill) if skill in folders else ""
        except (
            Exception
        ) as exc:  # the audit must never stop the run: a bad SKILL.md costs only its pattern
            warnings.append(
                f"{exc.line()}; output pattern not inferred"
                if isinstance(exc, EvalsError)
                else f"{SKILLS_DIR}/{skill}/SKILL.md: output pattern not inferred: "
                f"{type(exc).__name__}: {exc}"
            )
            pattern = ""
        gaps.append(Gap(skill, pattern, source))
    disabled = sorted((universe & registered) - enabled - spec_skills)
    unregistered = sorted(universe - registered - spec_skills)
    orphans = find_orphans(folders, registry, spec_skills)
    return AuditReport(
        total_skills=len(universe),
        covered=tuple(covered),
        uncovered_enabled=tuple(gaps),
        uncovered_disabled=tuple(disabled),
        uncovered_unregistered=tuple(unregistered),
        enabled_total=len(enabled),
        coverage=Coverage(len(counted & spec_skills), len(counted)),
        orphans=orphans,
        no_folder=tuple(sorted(enabled - folders)),
        not_counted=tuple(sorted(enabled & {LLM_SKILL})),
        warnings=tuple(warnings),
        contracts={k: known[k] for k in sorted(known) if k in enabled},
        by_contracts=by_contracts,
    )
