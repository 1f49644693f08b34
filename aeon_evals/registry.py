"""Read aeon.yml's `skills:` block, even when the file as a whole is not valid YAML."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from aeon_evals.model import Registration

AEON_YML = "aeon.yml"
_TOP_KEY = re.compile(r"^[A-Za-z_][\w.-]*\s*:")
_ENTRY = re.compile(r"^( +)([A-Za-z0-9_][\w.:-]*)\s*:(.*)$")


@dataclass(frozen=True)
class Registry:
    """The registered skills, and one warning per entry that could not be read."""

    path: str
    skills: dict[str, Registration]
    warnings: tuple[str, ...] = ()
    found: bool = True

    def enabled(self) -> set[str]:
        return {name for name, reg in self.skills.items() if reg.enabled}


def _registration(name: str, value: Any) -> Registration:
    if not isinstance(value, dict):
        return Registration(name)  # a key with no value: registered, disabled
    enabled = value.get("enabled", False)
    schedule = value.get("schedule")
    return Registration(
        name,
        enabled=enabled is True or (isinstance(enabled, str) and enabled.strip().lower() == "true"),
        schedule=str(schedule).strip() if schedule is not None else None,
    )


def _skills_block(text: str) -> list[str]:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^skills\s*:\s*(#.*)?$", line):
            block: list[str] = []
            for following in lines[i + 1 :]:
                if _TOP_KEY.match(following):
                    break
                block.append(following)
            return block
    return []


def _entries(block: list[str]) -> list[tuple[str, int, str]]:
    """Split the block into (name, first line index, entry text) by its shallowest key indent."""
    indents = [len(m.group(1)) for line in block if (m := _ENTRY.match(line)) and not line.lstrip().startswith("#")]
    if not indents:
        return []
    indent = min(indents)
    entries: list[tuple[str, int, str]] = []
    current: list[str] = []
    start = 0
    name = ""
    for i, line in enumerate(block):
        match = _ENTRY.match(line)
        if match and len(match.group(1)) == indent:
            if name:
                entries.append((name, start, "\n".join(current)))
            name, start, current = match.group(2), i, [line[indent:]]
        elif name:
            current.append(line[indent:] if line[:indent].strip() == "" else line)
    if name:
        entries.append((name, start, "\n".join(current)))
    return entries


def parse_registry(text: str, *, path: str = AEON_YML) -> Registry:
    """Registrations from aeon.yml text; falls back entry by entry when the YAML is broken."""
    warnings: list[str] = []
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict) and "skills" in data:
        skills = data.get("skills") or {}
        if isinstance(skills, dict):
            return Registry(path, {str(k): _registration(str(k), v) for k, v in skills.items()})
        warnings.append(f"{path}: skills: expected a mapping of skill names, got {type(skills).__name__}")
        return Registry(path, {}, tuple(warnings))

    # The file as a whole is not YAML (real files hold chains written as `- skill: a, consume: [...]`):
    # read the `skills:` block alone, and if that fails too, each entry on its own.
    block = _skills_block(text)
    try:
        data = yaml.safe_load("\n".join(block)) if block else None
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        return Registry(path, {str(k): _registration(str(k), v) for k, v in data.items()})
    skills: dict[str, Registration] = {}
    line_offset = text.splitlines().index(next(line for line in text.splitlines() if line.startswith("skills"))) + 2 if block else 0
    for name, start, entry in _entries(block):
        try:
            parsed = yaml.safe_load(entry)
        except yaml.YAMLError as exc:
            first = str(exc).splitlines()[0]
            warnings.append(f"{path}: line {line_offset + start}: skills.{name}: not valid YAML ({first}); entry skipped")
            continue
        value = parsed.get(name) if isinstance(parsed, dict) else None
        skills[name] = _registration(name, value)
    if not block:
        warnings.append(f"{path}: no top-level 'skills:' block; every skill counts as unregistered")
    return Registry(path, skills, tuple(warnings))


def load_registry(root: Path) -> Registry:
    """aeon.yml under `root`; a missing file gives an empty registry (every skill unregistered)."""
    path = root / AEON_YML
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Registry(AEON_YML, {}, (f"{AEON_YML}: not found; every skill counts as unregistered",), found=False)
    except OSError as exc:
        return Registry(AEON_YML, {}, (f"{AEON_YML}: cannot read: {exc.strerror}",), found=False)
    return parse_registry(raw.decode("utf-8", errors="replace"))
