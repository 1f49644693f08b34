"""Coverage audit (the old scripts/eval-audit): which enabled skills have a spec, and what to add.

Skills are the folders under `skills/` (plus any skill aeon.yml enables without a folder);
covered = has an evals.json entry; enabled from aeon.yml. Coverage = enabled skills with a
spec / enabled skills. Everything here is a pure function of the folder names, the SKILL.md
texts, the registry and the spec names; a SKILL.md that cannot be read only loses its pattern.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aeon_evals.errors import EvalsError
from aeon_evals.registry import LLM_SKILL, Registry

if TYPE_CHECKING:
    from aeon_evals.contracts import Contract
    from aeon_evals.model import Coverage

# The SKILL.md reader, the contract inference (contract_*, skillmd, frontmatter) and a run's
# result types are imported where they are used: `validate` needs only the orphans
# (`find_orphans`), and starts faster without them (issue 20).

SKILLS_DIR = "skills"


@dataclass(frozen=True)
class Gap:
    skill: str
    inferred_pattern: str  # "" when nothing could be inferred
    contract_source: str = ""  # "SKILL.md:41" when the pattern comes from the skill's contract


@dataclass(frozen=True)
class Orphan:
    """An evals.json key with no skills/<name>/ folder and no aeon.yml entry."""

    skill: str
    closest: str | None


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
    warnings: tuple[str, ...] = ()
    # the output contract of each enabled skill with a SKILL.md (all of them when the caller
    # passed them in; else the uncovered ones)
    contracts: Mapping[str, Contract] = field(default_factory=dict)

    @property
    def coverage_pct(self) -> int:
        return round(self.coverage.pct)

    @property
    def covered_enabled(self) -> int:
        return self.coverage.covered


def skill_folders(root: Path) -> list[str]:
    """The folders under skills/, sorted (hidden ones skipped)."""
    base = root / SKILLS_DIR
    try:
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []


def _kind(glob: str, log_pattern: str) -> int:
    """Lower is a better output pattern: a dated article, then a fixed file, then the shared log."""
    if glob == log_pattern:
        return 2
    return 0 if "*" in glob else 1


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[-_.\s]+", name.lower()) if t]


def infer_from_text(text: str, skill: str) -> str:
    """The output glob a SKILL.md text says the skill writes; "" when it names none: the audit's
    fallback for a SKILL.md whose contract names no output (or that is not text).

    Every path the text names, read with the contract inference's words (`contract_paths`: the
    same globs, the same verbs): paths the skill writes, or may write, win over paths it only
    reads; among those a dated article beats a fixed file (`memory/topics/x.md`), which beats
    the shared daily log; then the one naming the skill; then the first mentioned. A path only
    ever read is used only for the daily log.
    """
    from aeon_evals.contract_paths import LOG_PATTERN, REF, Clause, clause_class, normalize_ref

    best: dict[str, tuple[int, int]] = {}  # glob → (best clause class, first position)
    for m in REF.finditer(text):
        glob = normalize_ref(m.group(1))
        if glob is None:
            continue
        cls = clause_class(text[max(0, m.start() - 300) : m.start()])
        old = best.get(glob)
        best[glob] = (max(cls, old[0]) if old else cls, old[1] if old else m.start())
    names = set(_tokens(skill))

    def rank(item: tuple[str, tuple[int, int]]) -> tuple[int, int, int, int]:
        glob, (cls, pos) = item
        named = 0 if names & set(_tokens(glob.rpartition("/")[2].replace("*", " "))) else 1
        return (_kind(glob, LOG_PATTERN), -cls, named, pos)

    written = [item for item in best.items() if item[1][0] > Clause.READ]
    if written:
        return min(written, key=rank)[0]
    return LOG_PATTERN if LOG_PATTERN in best else ""


def infer_pattern(root: Path, skill: str) -> str:
    """The output glob a skill's SKILL.md says it writes; "" when it says nothing usable."""
    from aeon_evals.skillmd import read_bounded

    raw = read_bounded(root, f"{SKILLS_DIR}/{skill}/SKILL.md")  # a FIFO must never block
    if not isinstance(raw, bytes):
        return ""
    return infer_from_text(raw.decode("utf-8", errors="replace"), skill)


# --- closest real skill for an orphan spec -----------------------------------------------------


@functools.lru_cache(maxsize=65536)  # a fleet's skill names share their words
def _match(tok: str, part: tuple[str, ...]) -> float:
    """How well one orphan word stands for consecutive candidate words `part` (0 = not at all)."""
    joined = "".join(part)
    if len(part) > 1:
        return 1.0 if tok in (joined, "".join(p[0] for p in part)) else 0.0
    if tok == joined:
        return 1.0
    if min(len(tok), len(joined)) >= 3 and (joined.startswith(tok) or tok.startswith(joined)):
        return 0.8
    if (
        min(len(tok), len(joined)) >= 5
        and difflib.SequenceMatcher(None, tok, joined).ratio() >= 0.8
    ):
        return 0.8
    if 2 <= len(tok) <= 4 < len(joined) and tok[0] == joined[0] and _subsequence(tok, joined):
        return 0.7  # `gh` ~ `github`, `msg` ~ `message`
    return 0.0


def _subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def _align(orphan: list[str], candidate: list[str]) -> tuple[float, set[int], bool]:
    """How much of `orphan` the words of `candidate` explain (0–1), which candidate words were
    used, and whether the orphan's last word explains the candidate's last word (its head).

    A word matches a candidate word exactly, as the initials of consecutive words (`hn` ~
    `hacker-news`), as their concatenation (`autoresearch` ~ `auto-research`), as a prefix of
    at least 3 letters (`repo` ~ `repository`), as a consonant-style abbreviation (`gh` ~
    `github`), or as a near-typo.
    """
    used: set[int] = set()
    credit = 0.0
    head = False
    for n, tok in enumerate(orphan):
        best, span = 0.0, range(0)
        for i in range(len(candidate)):
            for j in range(i + 1, min(len(candidate), i + 4) + 1):
                score = _match(tok, tuple(candidate[i:j]))
                if score > best or (score == best > 0 and j - i > len(span)):
                    best, span = score, range(i, j)
        credit += best
        used.update(span)
        if n == len(orphan) - 1 and len(candidate) - 1 in span:
            head = True
    return credit / len(orphan), used, head


@dataclass(frozen=True)
class _Name:
    """A real skill's name as closest_skill compares it: its words, lower-cased, its letters."""

    name: str
    words: list[str]
    lower: str
    letters: Counter[str]


def _names(known: set[str]) -> list[_Name]:
    """Each name once, for every orphan compared with them."""
    return [_Name(n, _tokens(n), n.lower(), Counter(n.lower())) for n in known]


def _typo_bound(a: str, letters: Counter[str], b: _Name) -> float:
    """difflib's real_quick_ratio, then its quick_ratio, of `a` (whose letter counts are
    `letters`) and `b`: upper bounds of their ratio(), without building a SequenceMatcher for
    each of a thousand names."""
    total = len(a) + len(b.lower)
    if 2 * min(len(a), len(b.lower)) / total < 0.85:
        return 2 * min(len(a), len(b.lower)) / total
    return 2 * sum((letters & b.letters).values()) / total


def closest_skill(
    orphan: str, known: set[str], *, prefer: set[str] | frozenset[str] = frozenset()
) -> str | None:
    """The real skill an orphan spec most plausibly meant, or None when none is plausibly close.

    Word-aware: `hn-digest` → `hacker-news-digest`, `polymarket` → `monitor-polymarket` (the
    last word of a compound name is its head, so matching it counts more than matching a
    modifier, as in `polymarket-comments`). Plausible means at least two thirds of the orphan's
    words are explained, or the whole names are a near-typo. `prefer` (skills without a spec
    of their own: a renamed skill has none) breaks ties; then the name that sorts first.
    """
    return _closest(orphan, _names(known), prefer)


def _closest(orphan: str, names: list[_Name], prefer: set[str] | frozenset[str]) -> str | None:
    """closest_skill over names prepared once (_names)."""
    words = _tokens(orphan)
    if not words:
        return None
    lower = orphan.lower()
    letters = Counter(lower)
    scored: list[tuple[float, str]] = []
    for known in names:
        name, cand = known.name, known.words
        if not cand or name == orphan:
            continue
        cover, used, head = _align(words, cand)
        if cover < 2 / 3 and _typo_bound(lower, letters, known) < 0.85:
            continue  # an upper bound of ratio(): no near-typo either
        ratio = difflib.SequenceMatcher(None, lower, known.lower).ratio()
        if cover < 2 / 3 and ratio < 0.85:
            continue
        score = 0.6 * max(cover, ratio) + 0.4 * len(used) / len(cand)
        score += (0.1 if head else 0.0) + (0.05 if name in prefer else 0.0) + 0.01 * ratio
        scored.append((score, name))
    if not scored:
        return None
    return min(scored, key=lambda item: (-item[0], item[1]))[1]


# --- the audit ---------------------------------------------------------------------------------


def contract_of(root: Path, skill: str) -> Contract | None:
    """The output contract of `skill`'s SKILL.md (uncached), None when it has no SKILL.md."""
    from aeon_evals.contracts import infer_contract
    from aeon_evals.skillmd import read_skill_doc

    doc = read_skill_doc(root, skill)
    return infer_contract(doc) if doc is not None else None


def find_orphans(
    folders: Iterable[str], registry: Registry, spec_skills: Iterable[str]
) -> tuple[Orphan, ...]:
    """The evals.json keys with no skills/<name>/ folder and no registry entry, sorted, each
    with the real skill it most plausibly meant (a skill without a spec of its own first)."""
    known = set(folders) | set(registry.skills)
    specs = set(spec_skills)
    orphans = sorted(specs - known)
    if not orphans:
        return ()
    without_spec = (set(folders) | registry.enabled()) - specs
    names = _names(known)  # prepared once for every orphan
    return tuple(Orphan(s, _closest(s, names, without_spec)) for s in orphans)


def audit(
    root: Path,
    spec_skills: set[str],
    registry: Registry,
    *,
    contracts: Mapping[str, Contract] | None = None,
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
    covered = sorted(spec_skills & universe)
    warnings: list[str] = []
    gaps: list[Gap] = []
    known: dict[str, Contract] = dict(contracts or {})
    # Aeon's LLM-run skill-evals is what this tool replaces, never a skill it should evaluate.
    for skill in sorted(enabled - spec_skills - {LLM_SKILL}):
        contract = known.get(skill)
        source = ""
        try:
            if contract is None and skill in folders and contracts is None:
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
        coverage=Coverage(len(enabled & spec_skills), len(enabled)),
        orphans=orphans,
        no_folder=tuple(sorted(enabled - folders)),
        warnings=tuple(warnings),
        contracts={k: known[k] for k in sorted(known) if k in enabled},
    )
