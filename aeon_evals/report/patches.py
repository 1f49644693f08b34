"""evals.json's warnings about a spec, as the Action Queue's "Patch" items with a one-line fix
(shared by `validate` and the nightly run)."""

from __future__ import annotations

from aeon_evals.load.manifest import Manifest
from aeon_evals.model import Spec
from aeon_evals.model.problems import Severity


def whole_log(spec: Spec) -> bool:
    """A log-based spec without a section: its checks read every skill's entries."""
    return spec.output_pattern.startswith("memory/logs/") and not spec.section


def _fix(message: str, key: str) -> str:
    """The one-line fix for one of evals.json's warnings about a spec."""
    if message == "unknown key (ignored)":
        return f"remove or rename the unknown key {key}"
    if message.startswith("expected a list of patterns"):
        return f"make {key} a list"
    if message.startswith("an empty pattern"):
        return f"remove the empty pattern {key}"
    if message.startswith("no min and no max"):
        return f"give {key} a min or a max"
    return f"{key}: {message}" if key else message


def spec_patches(manifest: Manifest) -> list[tuple[str, str]]:
    """(skill, one-line fix) for every warning `validate` reports about a spec, in skill order:
    the run's Action Queue "Patch" items (`Patch evals.json:heartbeat — add a section …`)."""
    by_skill: dict[str, list[str]] = {}
    for problem in manifest.problems:
        if problem.severity is not Severity.WARNING:
            continue
        owners = [
            s
            for s in manifest.skills
            if problem.where == f"skills.{s}" or problem.where.startswith(f"skills.{s}.")
        ]
        if owners:  # the longest name: skill names may hold dots
            skill = max(owners, key=len)
            key = problem.where[len(f"skills.{skill}") + 1 :]
            by_skill.setdefault(skill, []).append(_fix(problem.message, key))
    patches: list[tuple[str, str]] = []
    for skill in sorted(manifest.skills):
        patches += [(skill, fix) for fix in by_skill.get(skill, [])]
        spec = manifest.specs.get(skill)
        if spec is not None and whole_log(spec):
            patches.append((skill, section_patch(skill)))
    return patches


def section_patch(skill: str) -> str:
    """The fix for a log-based spec without a section (an Action Queue "Patch" item, and the
    issue of a forbidden pattern found in other skills' lines of the log)."""
    return f'add a section ("section": "### {skill}"): its checks read the whole shared daily log'
