"""What the catalog checks read from an instance: every skills/*/SKILL.md (through skillmd),
aeon.yml, and the trigger cases of evals.json and skills/<name>/evals/trigger.json."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from aeon_evals.catalog.cases import key_line
from aeon_evals.catalog.findings import Catalog, Finding, Rule, Severity, TriggerSource
from aeon_evals.catalog.settings import lint_settings
from aeon_evals.fs.confine import inside
from aeon_evals.load.evals_json import EVALS_PATH, decode_json
from aeon_evals.load.layout import TRIGGER_FILE as TRIGGER_FILE
from aeon_evals.load.registry import load_registry
from aeon_evals.load.skillmd import SKILLS_DIR, read_skill_doc
from aeon_evals.text import jsonpos

TRIGGER_LIMIT = 1 << 20


def _skill_folders(root: Path) -> list[str]:
    try:
        with os.scandir(root / SKILLS_DIR) as found:
            return sorted(e.name for e in found if not e.name.startswith(".") and e.is_dir())
    except OSError:
        return []


def _read_json(root: Path, rel: str) -> tuple[object, str] | Finding | None:
    """(data, text) of a JSON file under root, None when absent, a Finding when unusable."""
    path = root / rel

    def problem(message: str) -> Finding:
        return Finding(rel, 1, Severity.ERROR, Rule.TRIGGER_INVALID, message)

    try:
        # os.stat on a string first: most skills have no trigger file, and pathlib is slow
        info = os.stat(os.path.join(root, rel))
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


def _evals_triggers(
    root: Path, specs: list[tuple[str, str, int]]
) -> tuple[list[TriggerSource], list[Finding], tuple[object, str] | None]:
    """The trigger cases of evals.json, the findings of a file that cannot be read, and its
    (data, text) for the lint settings; each spec's output pattern and its line go to `specs`
    (a skill's declared output, for the output-overlap rule)."""
    read = _read_json(root, EVALS_PATH)
    if read is None:
        return [], [], None
    if isinstance(read, Finding):
        # `validate` reports evals.json itself; here it only means its trigger cases are unread.
        note = f"trigger cases and lint settings in it not read: {read.message}"
        found = Finding(read.file, read.line, Severity.WARNING, Rule.TRIGGER_INVALID, note)
        return [], [found], None
    data, text = read
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        return [], [], read
    sources = []
    lines: dict[str, int] | None = None  # every member's line, found in one pass when needed
    for skill, spec in sorted(skills.items()):
        pattern = spec.get("output_pattern") if isinstance(spec, dict) else None
        if isinstance(pattern, str) and pattern:
            lines = jsonpos.member_lines(text) if lines is None else lines
            specs.append((skill, pattern, lines.get(f"skills.{skill}.output_pattern", 1)))
        if isinstance(spec, dict) and "trigger" in spec:
            start = key_line(text, "trigger", key_line(text, skill))
            sources.append(
                TriggerSource(
                    skill, EVALS_PATH, f"skills.{skill}.trigger", spec["trigger"], text, start
                )
            )
    return sources, [], read


def load_catalog(root: Path, config: str | None = None) -> Catalog:
    """Read every skills/*/SKILL.md, the skill registry (`config`, else found), the trigger
    cases and the lint settings under `root`.

    Never raises for bad content: an unreadable SKILL.md is a doc with `error`, an unreadable
    trigger file a finding, a bad lint setting a problem (check_catalog raises its errors).
    Raises ConfigError when there is no skill registry (load_registry). Reads only inside the
    root (skillmd refuses symlinks out of it).
    """
    registry = load_registry(root, config)
    folders = _skill_folders(root)
    docs = [d for d in (read_skill_doc(root, f) for f in folders) if d is not None]
    specs: list[tuple[str, str, int]] = []
    triggers, problems, evals = _evals_triggers(root, specs)
    for doc in docs:
        rel = f"{SKILLS_DIR}/{doc.skill}/{TRIGGER_FILE}"
        read = _read_json(root, rel)
        if isinstance(read, Finding):
            problems.append(read)
        elif read is not None:
            data, text = read
            triggers.append(TriggerSource(doc.skill, rel, "trigger", data, text, 1))
    settings, setting_problems = lint_settings(root, registry.path, evals)
    return Catalog(
        docs=tuple(docs),
        folders=tuple(folders),
        registry=registry,
        triggers=tuple(triggers),
        problems=tuple(problems),
        settings=settings,
        setting_problems=tuple(setting_problems),
        specs=tuple(specs),
    )
