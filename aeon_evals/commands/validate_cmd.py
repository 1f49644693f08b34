"""`aeon-evals validate`: every problem in evals.json and aeon.yml at once, each located."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aeon_evals.commands import add_instance_options, summary
from aeon_evals.errors import ConfigError, EvalsError, ExitCode
from aeon_evals.fs.confine import inside, read_confined
from aeon_evals.load import layout
from aeon_evals.load.evals_json import (
    EVALS_PATH,
    decode_json,
    duplicate_keys,
    read_raw,
    with_lines,
)
from aeon_evals.load.manifest import Manifest, parse_manifest
from aeon_evals.load.registry import LLM_SKILL, Registry, load_registry, schedule_problems
from aeon_evals.load.skill_names import find_orphans, skill_folders
from aeon_evals.load.switchover import llm_skill
from aeon_evals.model.problems import Problem, Severity
from aeon_evals.report.patches import whole_log
from aeon_evals.text import jsonpos

if TYPE_CHECKING:
    from aeon_evals.load.outputs import Outputs

_GLOB_CHARS = "*?["


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "validate",
        help=summary("validate"),
        description="Check skills/skill-evals/evals.json against the schema (types, ranges, "
        "min ≤ max, every pattern compiled with the engine the run uses, globs inside the root, "
        "unknown keys warned) and aeon.yml's schedules (5-field cron, workflow_dispatch or "
        "reactive). Every problem is reported at once. Exit 0 when valid (warnings allowed), "
        "2 when not.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_instance_options(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print {valid, errors[{file, line, where, message}], warnings[...]}",
    )
    p.set_defaults(func=run)


def _literal_dir(pattern: str) -> str:
    """The folders of a glob before its first wildcard (`articles/x-*.md` → `articles`)."""
    parts = pattern.split("/")
    fixed: list[str] = []
    for part in parts[:-1]:
        if any(ch in part for ch in _GLOB_CHARS):
            break
        fixed.append(part)
    return "/".join(fixed)


def _stop_line(message: str, raw: bytes = b"") -> int | None:
    """The line a parser's message says it stopped at (`… at line 199 …`), or the line of the
    byte offset it names (`byte 0xe9 at offset 16`) in `raw`."""
    stop = re.search(r"\bat line (\d+)", message)
    if stop:
        return int(stop.group(1))
    offset = re.search(r"\bat offset (\d+)", message)
    if offset and raw:
        return raw.count(b"\n", 0, int(offset.group(1))) + 1
    return None


NO_EVALS_JSON = (
    "not found: fine for today's Aeon, whose contracts come from each SKILL.md (aeon.yml is "
    "still checked): `aeon-evals run` evaluates every enabled skill on its contract; "
    "`aeon-evals init` writes a starter evals.json to pin or override them"
)
# the older layout, which still registers the LLM-run skill-evals, is bootstrapped instead
NO_EVALS_JSON_SEEDED = (
    f"not found: the registry still names the LLM-run {LLM_SKILL}, so `aeon-evals run` would "
    "write a starter spec and stop (exit 3); `aeon-evals audit --stubs` drafts one"
)


def _manifest_findings(root: Path) -> tuple[list[Problem], Manifest | None]:
    try:
        raw = read_confined(root, EVALS_PATH)
    except FileNotFoundError:
        return [Problem(EVALS_PATH, "", NO_EVALS_JSON, Severity.INFO)], None
    except EvalsError as exc:
        return [Problem(EVALS_PATH, "", exc.message, Severity.ERROR)], None
    except IsADirectoryError:
        return [Problem(EVALS_PATH, "", "is a folder, not a file", Severity.ERROR)], None
    except OSError as exc:
        return [Problem(EVALS_PATH, "", f"cannot read: {exc.strerror}", Severity.ERROR)], None
    try:
        data = decode_json(raw)
    except ValueError as exc:
        return [Problem(EVALS_PATH, "", str(exc), Severity.ERROR, _stop_line(str(exc), raw))], None
    found = duplicate_keys(raw)
    try:
        manifest = parse_manifest(data)
    except ConfigError as exc:
        return [*found, Problem(EVALS_PATH, exc.where or "", exc.message, Severity.ERROR)], None
    found += manifest.problems
    if not manifest.skills:
        found.append(
            Problem(
                EVALS_PATH,
                "skills",
                "no skill specs; `aeon-evals run` would stop with SKILL_EVALS_BOOTSTRAP (exit 3)",
                Severity.ERROR,
            )
        )
    outputs: Outputs | None = None
    for skill, spec in sorted(manifest.specs.items()):
        at = f"skills.{skill}.output_pattern"
        folder = _literal_dir(spec.output_pattern)
        if folder and (root / folder).exists() and not inside(root, root / folder):
            found.append(
                Problem(
                    EVALS_PATH,
                    at,
                    f"{spec.output_pattern!r} leads outside the instance root through the symlink "
                    f"{folder!r}",
                    Severity.ERROR,
                )
            )
        elif "/" in spec.output_pattern and any(
            ch in spec.output_pattern.rpartition("/")[0] for ch in "*?["
        ):
            # A wildcard folder part may pass through a symlinked folder: ask what the run sees.
            from aeon_evals.load.outputs import Outputs  # only here: it costs validate's start-up

            outputs = outputs or Outputs(root)
            try:
                skipped = outputs.matches(spec.output_pattern).skipped
            except (EvalsError, OSError, ValueError):
                skipped = ()
            found += [
                Problem(EVALS_PATH, at, f"{why}; the run will not read it", Severity.WARNING)
                for why in skipped
                if "leading outside the root" in why
            ]
        if whole_log(spec):
            found.append(
                Problem(
                    EVALS_PATH,
                    at,
                    f'checks apply to the whole shared daily log; add "section": "### {skill}" to '
                    "check only this skill's part",
                    Severity.WARNING,
                )
            )
    return found, manifest


def _registry_findings(root: Path, registry: Registry) -> list[Problem]:
    name = registry.path
    if not registry.found or registry.unusable is not None:
        # no skill registry to read: an error, as `run` stops on it (the line it prints)
        try:
            load_registry(root, name)
        except ConfigError as exc:
            line = _stop_line(registry.unusable or "")
            return [Problem(name, "", exc.message, Severity.ERROR, line)]
    # A problem with the whole file is located where the YAML parser stopped.
    found = [
        replace(p, line=_stop_line(p.message)) if not p.where and p.line is None else p
        for p in registry.issues
    ]
    if registry.yaml_error and registry.skills:
        found.append(
            Problem(
                name,
                "",
                f"not valid YAML as a whole ({registry.yaml_error}); the skills: block was read "
                "on its own",
                Severity.WARNING,
                _stop_line(registry.yaml_error),
            )
        )
    found += schedule_problems(registry)
    return found


def _llm_skill_findings(root: Path, config: str, registry: Registry) -> list[Problem]:
    """A warning while the registry still enables the LLM-run skill-evals (two writers).
    `registry`: the same file, already parsed."""
    if not registry.found:
        return []
    try:
        text = read_confined(root, config).decode("utf-8", errors="replace")
    except (OSError, EvalsError):
        return []
    found = llm_skill(text, path=config, registry=registry)
    if found is None:
        return []
    where, _, message = found.warning().partition(": ")
    return [Problem(config, f"line {found.line}", message, Severity.WARNING)] if where else []


def _orphan_findings(root: Path, manifest: Manifest, registry: Registry) -> list[Problem]:
    orphans = find_orphans(skill_folders(root), registry, manifest.skills)
    return [
        Problem(
            EVALS_PATH,
            f"skills.{o.skill}",
            f"no skills/{o.skill}/ folder and no aeon.yml entry (orphan spec)"
            + (f"; did you mean {o.closest}?" if o.closest else ""),
            Severity.WARNING,
        )
        for o in orphans
    ]


def _overlap_findings(manifest: Manifest) -> list[Problem]:
    """A spec whose glob also matches another skill's more specific output pattern: those files
    are the other skill's and are left out of this one's checks (issue 35.6)."""
    from aeon_evals.checks.owners import Claims, overlaps
    from aeon_evals.text.controls import show_name

    claims = Claims({skill: (spec.output_pattern,) for skill, spec in manifest.specs.items()})
    return [
        Problem(
            EVALS_PATH,
            f"skills.{mine.skill}.output_pattern",
            f"{mine.pattern!r} also matches the outputs of {show_name(theirs.skill)} "
            f"({theirs.pattern!r}); a run leaves those files out of {show_name(mine.skill)}'s "
            "checks",
            Severity.WARNING,
        )
        for mine, theirs in overlaps(claims)
    ]


def _with_lines(root: Path, found: list[Problem]) -> list[Problem]:
    """evals.json findings located at the line of the member they name."""
    try:
        text = read_confined(root, EVALS_PATH).decode("utf-8-sig")
    except (OSError, EvalsError, UnicodeDecodeError):
        return found
    return with_lines(found, jsonpos.member_lines(text))


def _lint_findings(root: Path, config: str) -> list[Problem]:
    """What is wrong with the instance's lint settings (evals.json's `lint`, or the registry's
    `aeon-evals: lint:`): a code that names no rule is an error, as `lint` stops on it."""
    from aeon_evals.catalog.settings import lint_settings  # only here: validate's start-up

    try:
        found = read_raw(root, None)
    except ConfigError:  # reported by _manifest_findings
        found = None
    evals = (found[1], found[0].decode("utf-8-sig")) if found is not None else None
    return lint_settings(root, config, evals)[1]


def _in_file_order(found: list[Problem]) -> list[Problem]:
    """Sorted by file, then line (a whole-file problem first), then errors before warnings; the
    order they were found in breaks ties."""
    return sorted(found, key=lambda f: (f.file, f.line or 0, f.severity is not Severity.ERROR))


def validate(root: Path, config: str | None = None) -> list[Problem]:
    """Every problem in the instance's configuration, errors and warnings, sorted by file and
    line, each with its line when one is known. `config`: the skill registry (default:
    `layout.detect`)."""
    found, manifest = _manifest_findings(root)
    if found:
        found = _with_lines(root, found)
    config = layout.detect(root, config=config).config
    registry = load_registry(root, config, required=False)
    if LLM_SKILL in registry.skills:  # what `run` does without evals.json depends on it
        found = [
            replace(p, message=NO_EVALS_JSON_SEEDED) if p.message == NO_EVALS_JSON else p
            for p in found
        ]
    found += _registry_findings(root, registry)
    found += _llm_skill_findings(root, config, registry)
    found += _lint_findings(root, config)
    if manifest is not None:
        found += _with_lines(root, _orphan_findings(root, manifest, registry))
        found += _with_lines(root, _overlap_findings(manifest))
    return _in_file_order([f.located() for f in found])


def run(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    if not root.is_dir():
        raise ConfigError("instance root does not exist or is not a folder", path=root)
    found = validate(root, args.config)
    errors = [f for f in found if f.severity is Severity.ERROR]
    warnings = [f for f in found if f.severity is not Severity.ERROR]
    if args.json:
        print(
            json.dumps(
                {
                    "valid": not errors,
                    "errors": [f.as_json() for f in errors],
                    "warnings": [f.as_json() for f in warnings],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        from aeon_evals.text.controls import one_line

        for finding in found:
            print(one_line(finding.text()))  # an evals.json key `x⏎::error::…` is data
        verdict = "invalid" if errors else "valid"
        print(
            f"{verdict}: {len(errors)} error{'s' * (len(errors) != 1)}, {len(warnings)} "
            f"warning{'s' * (len(warnings) != 1)}"
        )
    return ExitCode.ERROR if errors else ExitCode.OK
