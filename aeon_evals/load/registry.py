"""Read aeon.yml's `skills:` block, even when the file as a whole is not valid YAML."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from aeon_evals.errors import ConfigError, EvalsError
from aeon_evals.fs.confine import confine, open_regular, read_confined
from aeon_evals.model import Registration
from aeon_evals.model.problems import Problem, Severity
from aeon_evals.text import yamlsafe

AEON_YML = "aeon.yml"
NO_BLOCK = "no top-level 'skills:' block"
_SKILLS_LINE = re.compile(r"^skills\s*:\s*(#.*)?$")
_TOP_KEY = re.compile(r"^[A-Za-z_][\w.-]*\s*:")
# An entry line inside the block: indentation (spaces, or tabs that YAML refuses), a name, a colon.
_ENTRY = re.compile(r"^([ \t]+)([A-Za-z0-9_][\w.:-]*?)\s*:(?:\s|$)(.*)$")
# Best-effort reading of an entry that is not YAML
# (`heartbeat: { enabled: true, schedule: "0 8 * * *"`).
_LOOSE_ENABLED = re.compile(r"\benabled\s*:\s*[\"']?(true|false|yes|no|on|off)\b", re.IGNORECASE)
_LOOSE_SCHEDULE = re.compile(r"\bschedule\s*:\s*(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^,}\n#]+))")


@dataclass(frozen=True)
class Registry:
    """The registered skills, and one warning per entry that could not be read cleanly.

    `raw` keeps each entry's value as written (a mapping, or None for a key with no value) and
    `lines` its 1-based line in the file, for `validate`. `yaml_error` says why the file as a
    whole is not YAML when the `skills:` block had to be read on its own.
    """

    path: str
    skills: dict[str, Registration]
    warnings: tuple[str, ...] = ()
    found: bool = True
    raw: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    yaml_error: str | None = None
    issues: tuple[Problem, ...] = ()  # the warnings, located
    # Why no `skills:` block could be read at all (no such block, not a mapping, not YAML and no
    # block to read alone): the file is no skill registry. `load_registry` raises it.
    unusable: str | None = None

    def enabled(self) -> set[str]:
        return {name for name, reg in self.skills.items() if reg.enabled}


def _truthy(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "on")
    return value is True


def _registration(name: str, value: Any) -> Registration:
    if not isinstance(value, dict):
        return Registration(name)  # a key with no value: registered, disabled
    schedule = value.get("schedule")
    return Registration(
        name,
        enabled=_truthy(value.get("enabled", False)),
        schedule=str(schedule).strip() if schedule is not None else None,
    )


def _block_start(lines: list[str]) -> int | None:
    """Index of the top-level `skills:` line."""
    return next((i for i, line in enumerate(lines) if _SKILLS_LINE.match(line)), None)


def _block(lines: list[str], start: int) -> list[str]:
    block: list[str] = []
    for following in lines[start + 1 :]:
        if _TOP_KEY.match(following):
            break
        block.append(following)
    return block


def _entries(block: list[str]) -> list[tuple[str, int, str, bool]]:
    """Split the block into (name, index in block, entry text, indented with a tab) by its
    shallowest key indent; the entry text starts at the name."""
    found = [
        (i, m)
        for i, line in enumerate(block)
        if (m := _ENTRY.match(line)) and not line.lstrip().startswith("#")
    ]
    if not found:
        return []
    width = min(len(m.group(1).expandtabs(2)) for _, m in found)
    heads = {i: m for i, m in found if len(m.group(1).expandtabs(2)) == width}
    entries: list[tuple[str, int, list[str], bool]] = []
    for i, line in enumerate(block):
        m = heads.get(i)
        if m is not None:
            entries.append((m.group(2), i, [line[len(m.group(1)) :]], "\t" in m.group(1)))
        elif entries:
            lead = len(line) - len(line.lstrip(" \t"))
            # YAML refuses tabs in indentation: continuation lines are re-indented with spaces.
            entries[-1][2].append(line[:lead].expandtabs(2) + line[lead:])
    return [(name, i, "\n".join(text), tab) for name, i, text, tab in entries]


def _loose(text: str) -> dict[str, Any]:
    """`enabled` and `schedule` picked out of an entry that is not YAML."""
    value: dict[str, Any] = {}
    if m := _LOOSE_ENABLED.search(text):
        value["enabled"] = m.group(1).lower() in ("true", "yes", "on")
    if m := _LOOSE_SCHEDULE.search(text):
        value["schedule"] = next(g for g in m.groups() if g is not None).strip()
    return value


def _first_line(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{problem} at line {mark.line + 1}" if mark is not None else str(problem)


def _duplicates(names: list[tuple[str, int]]) -> list[tuple[str, str]]:
    seen: dict[str, int] = {}
    found = []
    for name, line in names:
        if name in seen:
            found.append(
                (
                    f"skills.{name} (line {line})",
                    f"defined twice (lines {seen[name]} and {line}); the last one wins",
                )
            )
        seen[name] = line
    return found


def _registry(
    path: str,
    raw: dict[str, Any],
    issues: list[tuple[str, str]],
    lines: dict[str, int],
    yaml_error: str | None = None,
    *,
    unusable: str | None = None,
) -> Registry:
    skills = {name: _registration(name, value) for name, value in raw.items()}
    problems = tuple(Problem(path, where, message, Severity.WARNING) for where, message in issues)
    found = Registry(
        path,
        skills,
        (),
        raw=raw,
        lines=lines,
        yaml_error=yaml_error,
        issues=problems,
        unusable=unusable,
    )
    # The run prints these warnings; a schedule it cannot use is one of them (`validate` grades it).
    every = [*problems, *schedule_problems(found)]
    return dataclasses.replace(found, warnings=tuple(p.brief() for p in every))


def parse_registry(text: str, *, path: str = AEON_YML) -> Registry:
    """Registrations from aeon.yml text; falls back entry by entry when the YAML is broken.

    Never raises: what cannot be read becomes a warning naming the entry and its line.
    """
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    start = _block_start(lines)
    block = _block(lines, start) if start is not None else []
    entries = _entries(block)
    offset = (start or 0) + 2  # block index → 1-based file line
    line_of = {name: offset + i for name, i, _, _ in entries}
    issues = _duplicates([(name, offset + i) for name, i, _, _ in entries])

    yaml_error: str | None = None
    walked = -1  # the lines before this one passed the shape check
    try:
        data = yamlsafe.load(text)
    except yaml.YAMLError as exc:
        data, yaml_error = None, _first_line(exc)
        walked = yamlsafe.checked_past(exc)
        if isinstance(exc, yamlsafe.ShapeError):
            issues.append(("", f"not read as a whole: {exc.problem}; entries read one by one"))
    if yaml_error is None:
        if not isinstance(data, dict) or "skills" not in data:
            issues.append(("", f"{NO_BLOCK}; every skill counts as unregistered"))
            return _registry(path, {}, issues, line_of, unusable=NO_BLOCK)
        skills = data.get("skills")
        if skills is None:
            skills = {}
        if not isinstance(skills, dict):
            kind = "a list" if isinstance(skills, list) else type(skills).__name__
            why = f"expected a mapping of skill names, got {kind}"
            issues.append(("skills", f"{why}; every skill counts as unregistered"))
            return _registry(path, {}, issues, line_of, unusable=f"skills: {why}")
        return _registry(path, {str(k): v for k, v in skills.items()}, issues, line_of)

    # The file as a whole is not YAML (real files hold chains written as
    # `- skill: a, consume: [...]`):
    # read the `skills:` block alone, and if that fails too, each entry on its own.
    if start is None:
        try:  # the message is shown: let the pure-Python parser word it
            yamlsafe.load(text, precise=True)
        except yaml.YAMLError as exc:
            yaml_error = _first_line(exc)
        why = f"not valid YAML ({yaml_error}) and {NO_BLOCK}"
        issues.append(("", f"{why}; every skill counts as unregistered"))
        return _registry(path, {}, issues, line_of, yaml_error, unusable=why)
    try:  # the block's lines, when the whole file's check walked past them, are not walked again
        past = start + 1 + len(block) < walked
        data = yamlsafe.load("\n".join(block), checked=past) if block else None
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        return _registry(path, {str(k): v for k, v in data.items()}, issues, line_of, yaml_error)
    raw: dict[str, Any] = {}
    for name, i, entry, tab in entries:
        where = f"skills.{name} (line {offset + i})"
        if tab:
            issues.append((where, "indented with a tab (YAML allows only spaces); read anyway"))
        try:
            parsed = yamlsafe.load(entry, precise=True)
        except yaml.YAMLError as exc:
            value = _loose(entry)
            issues.append(
                (
                    where,
                    f"not valid YAML ({_first_line(exc).split(' at line ')[0]}); read best-effort "
                    f"as {_describe(value)}",
                )
            )
            raw[name] = value
            continue
        raw[name] = parsed.get(name) if isinstance(parsed, dict) else None
    return _registry(path, raw, issues, line_of, yaml_error)


def _describe(value: dict[str, Any]) -> str:
    enabled = "enabled" if value.get("enabled") else "disabled"
    schedule = value.get("schedule")
    return f"{enabled}, schedule {schedule!r}" if schedule else f"{enabled}, no schedule"


def _unusable(message: str, name: str = AEON_YML) -> Registry:
    problem = Problem(name, "", message, Severity.WARNING)
    return Registry(name, {}, (problem.brief(),), found=False, issues=(problem,))


_CONFIG_SUFFIXES = (".yml", ".yaml")
_CONFIG_PEEK = 1 << 20  # a config with its `skills:` line past 1 MiB is not a fleet's config


def _has_skills_block(path: Path) -> bool:
    try:  # confined and regular only: a FIFO or a link out of the root is no candidate
        with open_regular(path.parent, path.name) as fh:
            head = fh.read(_CONFIG_PEEK).decode("utf-8", errors="replace").lstrip("\ufeff")
    except (OSError, EvalsError):
        return False
    return _block_start(head.splitlines()) is not None


def find_config(root: Path, override: str | None = None) -> str:
    """The instance's skill registry, relative to `root`: `override` (`--config FILE`), else
    aeon.yml, else the one root `*.yml`/`*.yaml` with a top-level `skills:` block (forks rename
    it: claw.yml, vigil.yml …). No candidate gives "aeon.yml" (read as missing).

    Raises ConfigError when the override leads outside the root or when two root files could be
    the config, naming both.
    """
    if override is not None:
        confine(root, override, what="--config")
        return Path(override).as_posix()
    if (root / AEON_YML).is_file():
        return AEON_YML
    try:
        names = sorted(
            p.name
            for p in root.iterdir()
            if p.suffix in _CONFIG_SUFFIXES and p.is_file() and _has_skills_block(p)
        )
    except OSError:
        return AEON_YML
    if len(names) > 1:
        raise ConfigError(
            f"two files could be the skill registry: {names[0]} and {names[1]}"
            + (f" (and {len(names) - 2} more)" if len(names) > 2 else "")
            + "; pass --config FILE",
            path=root,
        )
    return names[0] if names else AEON_YML


def looked_for(root: Path, name: str) -> str:
    """What `find_config` looked for, for the error that found nothing: aeon.yml and the renamed
    registries, or the one file `--config` named."""
    if name == AEON_YML:
        return (
            f"looked for {AEON_YML}, then a *.yml or *.yaml with a top-level skills: block, "
            f"in {root}"
        )
    return f"looked for {name} in {root}"


NOT_AN_INSTANCE = "not an Aeon instance (check --root, or pass --config FILE)"
UNREADABLE = "the skill registry is needed (without it every skill would count as unregistered)"


def registry_error(name: str, reason: str, *, missing: bool = True) -> ConfigError:
    """The one line of a skill registry that cannot be used (exit 2): without it every skill
    would count as unregistered and an empty fleet would pass. `missing`: no registry there at
    all (not found, no `skills:` block), rather than one that cannot be read."""
    return ConfigError(f"{reason}: {NOT_AN_INSTANCE if missing else UNREADABLE}", path=name)


def load_registry(
    root: Path, config: str | None = None, *, parse: Parser | None = None, required: bool = True
) -> Registry:
    """The skill registry under `root` (`config`, else found by `find_config`). `parse` turns
    the file's bytes and name into the registry (`parse_registry_bytes`, or the run's cache of
    it).

    A registry that is missing, cannot be read, or holds no `skills:` block raises ConfigError
    naming what was looked for: without it every skill would count as unregistered and the run
    would pass an empty fleet. `required=False` (validate, which reports every problem) returns
    it instead, `found` False or `unusable` set, with its warning.
    """
    name = config if config is not None else find_config(root)
    try:
        raw = read_confined(root, name)
    except FileNotFoundError:
        if required:
            raise registry_error(name, f"not found ({looked_for(root, name)})") from None
        return _unusable("not found; every skill counts as unregistered", name)
    except EvalsError as exc:
        if required:
            raise registry_error(name, exc.message, missing=False) from None
        return _unusable(f"{exc.message}; every skill counts as unregistered", name)
    except IsADirectoryError:
        if required:
            raise registry_error(name, "is a folder, not a file", missing=False) from None
        return _unusable("is a folder, not a file; every skill counts as unregistered", name)
    except OSError as exc:
        if required:
            raise registry_error(name, f"cannot read: {exc.strerror}", missing=False) from None
        return _unusable(f"cannot read: {exc.strerror}; every skill counts as unregistered", name)
    found = (parse or parse_registry_bytes)(raw, name)
    if required and found.unusable is not None:
        raise registry_error(name, found.unusable)
    return found


Parser = Callable[[bytes, str], Registry]


def parse_registry_bytes(raw: bytes, name: str) -> Registry:
    """The registry in the bytes of the file `name` (a warning when they are not UTF-8)."""
    try:
        text = raw.decode("utf-8")
        note: tuple[str, ...] = ()
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        note = (
            f"{name}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "undecodable bytes replaced",
        )
    found = parse_registry(text, path=name)
    if note:
        return dataclasses.replace(
            found,
            warnings=note + found.warnings,
            issues=(Problem(name, "", note[0].split(": ", 1)[1], Severity.WARNING), *found.issues),
        )
    return found


_NOT_CRON = ("workflow_dispatch", "reactive")


def schedule_problems(registry: Registry) -> list[Problem]:
    """A problem for every entry whose `enabled` or `schedule` aeon-evals cannot use as written.

    `workflow_dispatch` and `reactive` are fine. `@daily` and 6-field crons are warnings: GitHub
    Actions only takes 5-field cron, so the expected cadence falls back to 14 days. Any other
    unparseable schedule is an error on an enabled skill and a warning on a disabled one.
    """
    from aeon_evals.load import cadence

    found: list[tuple[str, str, Severity]] = []  # where, message, severity
    for name in sorted(registry.raw):
        value = registry.raw[name]
        line = registry.lines.get(name)
        suffix = f" (line {line})" if line else ""
        at = f"skills.{name}{suffix}"
        if value is not None and not isinstance(value, dict):
            found.append(
                (
                    at,
                    f'expected a mapping such as {{ enabled: true, schedule: "0 7 * * *" }}, got '
                    f"{value!r}; read as disabled",
                    Severity.WARNING,
                )
            )
            continue
        value = value or {}
        enabled = value.get("enabled")
        if enabled is not None and not isinstance(enabled, bool):
            state = "enabled" if _truthy(enabled) else "disabled"
            found.append(
                (
                    f"skills.{name}.enabled{suffix}",
                    f"expected true or false, got {enabled!r}; read as {state}",
                    Severity.WARNING,
                )
            )
        on = registry.skills[name].enabled
        schedule = value.get("schedule")
        if schedule is None:
            if on:
                found.append(
                    (
                        f"skills.{name}.schedule{suffix}",
                        f"enabled but no schedule; the {cadence.FALLBACK_DAYS:g}-day fallback "
                        "cadence applies",
                        Severity.WARNING,
                    )
                )
            continue
        if not isinstance(schedule, str):
            found.append(
                (
                    f"skills.{name}.schedule{suffix}",
                    f"expected a cron string, got {schedule!r}",
                    Severity.ERROR if on else Severity.WARNING,
                )
            )
            continue
        expr = schedule.strip()
        if expr in _NOT_CRON:
            continue
        fallback = (
            f"GitHub Actions only takes 5-field cron, so the {cadence.FALLBACK_DAYS:g}-day "
            "fallback cadence applies"
        )
        if expr.startswith("@"):
            found.append(
                (
                    f"skills.{name}.schedule{suffix}",
                    f"{expr!r} is not a 5-field cron; {fallback}",
                    Severity.WARNING,
                )
            )
            continue
        if len(expr.split()) == 6:
            found.append(
                (
                    f"skills.{name}.schedule{suffix}",
                    f"{expr!r} has 6 fields; {fallback}",
                    Severity.WARNING,
                )
            )
            continue
        try:
            cadence.validate(expr)
            cadence.cron_gap_days(expr)
        except (
            Exception
        ) as exc:  # CronError, or a cron library surprise: reading aeon.yml never raises
            found.append(
                (
                    f"skills.{name}.schedule{suffix}",
                    f"{exc}; Aeon would never schedule it as written, and the "
                    f"{cadence.FALLBACK_DAYS:g}-day fallback cadence applies",
                    Severity.ERROR if on else Severity.WARNING,
                )
            )
    return [Problem(registry.path, where, message, severity) for where, message, severity in found]


LLM_SKILL = "skill-evals"  # Aeon's own LLM-run skill, which this tool replaces
