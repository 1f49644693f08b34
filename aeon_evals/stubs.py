"""Starter specs for skills without an evals.json entry (`audit --stubs`, bootstrap)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aeon_evals.audit import AuditReport, Gap

FORBIDDEN_DEFAULTS = ["\\$\\{var\\}", "\\[TODO\\]", "PLACEHOLDER"]
LOG_PATTERN = "memory/logs/*.md"


def stub_for(gap: Gap) -> dict[str, Any]:
    """A small, safe spec: the inferred pattern, a low word floor, the skill's name as required text."""
    pattern = gap.inferred_pattern or LOG_PATTERN
    spec: dict[str, Any] = {
        "output_pattern": pattern,
        "min_words": 30,
        "required_patterns": [_name_pattern(gap.skill)],
        "forbidden_patterns": list(FORBIDDEN_DEFAULTS),
    }
    if pattern == LOG_PATTERN:
        spec["section"] = f"### {gap.skill}"
    return spec


def _name_pattern(skill: str) -> str:
    words = [w for w in skill.split("-") if len(w) > 2]
    spaced = " ".join(skill.split("-"))
    options = [skill, spaced] if spaced != skill else [skill]
    options += [w for w in words if w not in options]
    return "(?i)" + "|".join(options) if options else skill


def stubs(found: AuditReport) -> dict[str, dict[str, Any]]:
    """Starter specs keyed by skill, for every uncovered enabled skill."""
    return {gap.skill: stub_for(gap) for gap in found.uncovered_enabled}


def starter_manifest(root: Path, found: AuditReport) -> dict[str, Any]:
    """A whole evals.json for an instance that has none."""
    return {
        "version": "1",
        "description": "Per-skill output assertions for aeon-evals. Starter specs generated from the coverage audit: review before trusting them.",
        "skills": stubs(found),
    }
