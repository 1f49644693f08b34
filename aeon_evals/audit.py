"""Coverage audit (the old scripts/eval-audit): which enabled skills have a spec, and what to add."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from aeon_evals.model import Coverage
from aeon_evals.registry import Registry

SKILLS_DIR = "skills"
_ARTICLE_REF = re.compile(r"((?:output/)?articles/)([A-Za-z0-9_.-]*?)-?\$\{?(?:today|TODAY|date|DATE)\}?(\.md)")
_ARTICLE_GLOB = re.compile(r"((?:output/)?articles/)([A-Za-z0-9_-]+)-(?:YYYY-MM-DD|\*|<date>|\{date\})(\.md)")
_TOPIC_REF = re.compile(r"memory/topics/([A-Za-z0-9_.-]+\.md)")
_LOG_REF = re.compile(r"memory/logs/")


@dataclass(frozen=True)
class Gap:
    skill: str
    inferred_pattern: str  # "" when nothing could be inferred


@dataclass(frozen=True)
class Orphan:
    """An evals.json key with no skills/<name>/ folder and no aeon.yml entry."""

    skill: str
    closest: str | None


@dataclass(frozen=True)
class AuditReport:
    total_skills: int
    covered: tuple[str, ...]
    uncovered_enabled: tuple[Gap, ...]
    uncovered_disabled: tuple[str, ...]
    uncovered_unregistered: tuple[str, ...]
    enabled_total: int
    coverage: Coverage
    orphans: tuple[Orphan, ...]

    @property
    def coverage_pct(self) -> int:
        return round(self.coverage.pct)


def skill_folders(root: Path) -> list[str]:
    """The folders under skills/, sorted."""
    base = root / SKILLS_DIR
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))


def infer_pattern(root: Path, skill: str) -> str:
    """The output glob a skill's SKILL.md says it writes; "" when it says nothing usable."""
    try:
        text = (root / SKILLS_DIR / skill / "SKILL.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    for rx in (_ARTICLE_REF, _ARTICLE_GLOB):
        for m in rx.finditer(text):
            stem = m.group(2).rstrip("-")
            if stem and not stem.endswith("-"):
                return f"{m.group(1)}{stem}-*{m.group(3)}"
    if _LOG_REF.search(text):
        return "memory/logs/*.md"
    topic = _TOPIC_REF.search(text)
    if topic:
        return f"memory/topics/{topic.group(1)}"
    return ""


def audit(root: Path, spec_skills: set[str], registry: Registry) -> AuditReport:
    """Compare skills/, aeon.yml and evals.json. Coverage = enabled skills with a spec / enabled skills."""
    folders = set(skill_folders(root))
    enabled = registry.enabled()
    known = folders | set(registry.skills)
    covered = sorted(spec_skills & (folders | set(registry.skills)))
    gaps = tuple(Gap(s, infer_pattern(root, s)) for s in sorted(enabled - spec_skills))
    disabled = sorted(s for s in folders & set(registry.skills) if s not in enabled and s not in spec_skills)
    unregistered = sorted(folders - set(registry.skills) - spec_skills)
    orphans = tuple(
        Orphan(s, next(iter(difflib.get_close_matches(s, sorted(known), n=1, cutoff=0.0)), None) if known else None)
        for s in sorted(spec_skills - known)
    )
    return AuditReport(
        total_skills=len(folders),
        covered=tuple(covered),
        uncovered_enabled=gaps,
        uncovered_disabled=tuple(disabled),
        uncovered_unregistered=tuple(unregistered),
        enabled_total=len(enabled),
        coverage=Coverage(len(enabled & spec_skills), len(enabled)),
        orphans=orphans,
    )
