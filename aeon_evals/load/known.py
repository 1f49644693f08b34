"""The skills an instance knows, for work that must be bounded by what the instance is (the
dashboard's skill pages): aeon.yml's entries, the folders under skills/, evals.json's keys and
the skills cron-state says Aeon ran. A metrics file or an article can name any number of skills;
these sources name the instance's own."""

from __future__ import annotations

import contextlib
from pathlib import Path

from aeon_evals.errors import EvalsError
from aeon_evals.load.manifest import read_manifest_data
from aeon_evals.load.registry import load_registry
from aeon_evals.load.skill_names import skill_folders
from aeon_evals.load.state import load_state


def known_skills(root: Path) -> frozenset[str]:
    """Every skill the instance at `root` knows (see the module); a source that cannot be read
    adds none (the run names it in a warning of its own)."""
    names: set[str] = set(skill_folders(root))
    with contextlib.suppress(EvalsError, OSError):
        names.update(load_registry(root).skills)
    try:
        data = read_manifest_data(root, retry_delay=None)
    except (EvalsError, OSError, ValueError):
        data = None
    skills = data.get("skills") if isinstance(data, dict) else None
    if isinstance(skills, dict):
        names.update(str(name) for name in skills)
    names.update(load_state(root, []).cron)
    return frozenset(names)
