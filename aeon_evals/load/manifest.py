"""Load and validate skills/skill-evals/evals.json: every problem collected with its location."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aeon_evals.errors import ConfigError
from aeon_evals.load.evals_json import EVALS_PATH as EVALS_PATH
from aeon_evals.load.evals_json import (
    duplicate_keys,
    has_repeated_keys,
    read_raw,
    to_stderr,
    with_lines,
)
from aeon_evals.load.spec_fields import SKILL_NAME as SKILL_NAME
from aeon_evals.load.spec_fields import SKILL_NAME_MAX as SKILL_NAME_MAX
from aeon_evals.load.spec_fields import SPEC_KEYS as SPEC_KEYS
from aeon_evals.load.spec_fields import Collector, got, show, spec_entry, type_name
from aeon_evals.model import ContractsMode, Spec
from aeon_evals.model.problems import Problem, Severity

# `lint`: the instance's lint settings (catalog/settings.py), read by `aeon-evals lint`
TOP_KEYS = {"version", "description", "skills", "$schema", "contracts", "lint"}
VERSIONS = ("1",)


@dataclass(frozen=True)
class Manifest:
    """evals.json, validated: the usable specs and what is wrong with the rest."""

    path: str
    specs: dict[str, Spec]
    spec_errors: dict[str, tuple[Problem, ...]] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    contracts: ContractsMode | None = None  # top-level "contracts", None when not set
    found: bool = True  # False: there is no evals.json (an instance judged on SKILL.md alone)
    # each skill's entry as written (the skill pages show it), valid or not
    entries: Mapping[str, Any] = field(default_factory=dict)

    @property
    def contracts_problem(self) -> Problem | None:
        """The error of an unusable top-level `contracts` value: the run cannot guess the mode."""
        return next((p for p in self.problems if p.where == "contracts"), None)

    @property
    def skills(self) -> list[str]:
        """Every skill named in the file, valid spec or not, sorted."""
        return sorted({*self.specs, *self.spec_errors})


def parse_manifest(data: Any, *, path: str = EVALS_PATH) -> Manifest:
    """Validate parsed evals.json data. Raises ConfigError only when nothing can be used at all."""
    if not isinstance(data, dict):
        raise ConfigError(
            f"expected a JSON object with a 'skills' key, got {type_name(data)}", path=path
        )
    out = Collector()
    for key in sorted(set(data) - TOP_KEYS):
        out.warn(str(key), "unknown key (ignored)")
    version = data.get("version")
    if version is not None and str(version) not in VERSIONS:
        out.warn("version", f"unknown version {show(version)}; read as version 1")
    contracts = None
    if data.get("contracts") is not None:
        raw_mode = data["contracts"]
        if isinstance(raw_mode, str) and raw_mode in ContractsMode.__members__.values():
            contracts = ContractsMode(raw_mode)
        else:
            out.error(
                "contracts",
                f'expected "report", "enforce" or "off", got {got(data["contracts"])}',
            )
    skills = data.get("skills")
    if skills is None:
        skills = {}
    if not isinstance(skills, dict):
        raise ConfigError(
            f"expected an object of skill specs, got {type_name(skills)}",
            path=path,
            where="skills",
        )
    specs: dict[str, Spec] = {}
    spec_errors: dict[str, tuple[Problem, ...]] = {}
    for skill in sorted(skills):
        start = len(out.problems)
        spec = spec_entry(skill, skills[skill], out)
        if spec is not None:
            specs[skill] = spec
        else:
            spec_errors[skill] = tuple(
                p for p in out.problems[start:] if p.severity is Severity.ERROR
            )
    return Manifest(
        path=path,
        specs=specs,
        spec_errors=spec_errors,
        problems=tuple(out.problems),
        contracts=contracts,
        entries=skills,
    )


def read_manifest_data(
    root: Path,
    *,
    retry_delay: float | None = 5.0,
    problems: list[Problem] | None = None,
    announce: Callable[[str], None] = to_stderr,
) -> Any | None:
    """The parsed JSON of evals.json, None when the file does not exist.

    The file is read confined to the root, only when it is a regular file under the size cap
    (ConfigError otherwise). A file that does not parse is read once more `retry_delay` seconds
    later (it may be half-written by a concurrent commit), once `announce` has said so; a
    second failure raises ConfigError. `retry_delay=None` reads it once (audit, contracts, the
    site: no run to protect).
    `problems`, when given, receives a warning for each key written twice.
    """
    found = read_raw(root, retry_delay, announce)
    if found is None:
        return None
    raw, data = found
    if problems is not None:
        problems += duplicate_keys(raw)
    return data


def read_manifest(
    root: Path, *, retry_delay: float = 5.0, announce: Callable[[str], None] = to_stderr
) -> Manifest | None:
    """evals.json read (as `read_manifest_data`) and validated, every problem (keys written
    twice first) located at its line; None when the file does not exist. Raises ConfigError
    when nothing in it can be used."""
    found = read_raw(root, retry_delay, announce)
    if found is None:
        return None
    raw, data = found
    manifest = parse_manifest(data)
    text = raw.decode("utf-8-sig")  # it parsed: it is UTF-8
    repeated = has_repeated_keys(text)
    if not (repeated or manifest.problems or manifest.spec_errors):
        return manifest  # nothing to locate: the scan of every member's line is not needed
    from aeon_evals.text import jsonpos  # the line finder: only a file with problems needs it

    lines = jsonpos.member_lines(text)
    return replace(
        manifest,
        problems=tuple(
            with_lines([*(duplicate_keys(raw) if repeated else []), *manifest.problems], lines)
        ),
        spec_errors={
            skill: tuple(with_lines(errors, lines))
            for skill, errors in manifest.spec_errors.items()
        },
    )
