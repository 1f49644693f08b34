"""`aeon-evals init`: add a starter evals.json and the scheduled GitHub Actions workflow."""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aeon_evals import resources
from aeon_evals.ci import install_origin
from aeon_evals.commands import add_instance_options, summary
from aeon_evals.contracts import audit, stubs
from aeon_evals.errors import ConfigError, UsageError
from aeon_evals.fs.confine import confine
from aeon_evals.fs.write import atomic_write, create_exclusive
from aeon_evals.load import layout, registry, switchover
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.model.problems import warning_line

WORKFLOW_PATH = ".github/workflows/skill-evals.yml"
# The workflow's scripts, kept beside it so they can be read, run and tested on their own.
SCRIPTS_DIR = ".github/skill-evals"
SCRIPTS = ("provide-notify.sh", "push-results.sh")
WORKFLOW_TEMPLATE = "github-workflow.yml"
# What --package is for when this copy cannot name itself (a folder, a local wheel).
PACKAGE_EXAMPLE = "aeon-evals @ git+https://github.com/aeon-evals/aeon-evals@COMMIT"
_PACKAGE_LINE = re.compile(r"^(?P<indent>[ \t]*)AEON_EVALS_PACKAGE:.*$", re.MULTILINE)


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "init",
        help=summary("init"),
        description=f"Adds what an Aeon repository needs for scheduled runs: {EVALS_PATH} "
        f"(starter specs from the coverage audit) when there is none, and {WORKFLOW_PATH}. "
        "An existing file is never overwritten: it is reported as skipped. The workflow installs "
        "aeon-evals the way this copy was installed (its PEP 610 direct_url.json): the same "
        "version from a package index, or the same git commit; --package overrides, and is "
        "needed for a copy installed from a folder or a local file. See docs/scheduling.md.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_instance_options(p)
    p.add_argument(
        "--disable-llm-skill",
        action="store_true",
        help="also turn off Aeon's LLM-run skill-evals in the registry: the one-line edit "
        "enabled: true → enabled: false on its entry, nothing else in the file changes",
    )
    p.add_argument(
        "--package",
        metavar="REQUIREMENT",
        help="what the workflow pip-installs (default: this copy as it was installed: "
        '"aeon-evals==VERSION" from a package index, "aeon-evals @ git+https://…@COMMIT" from '
        "git; a copy installed from a folder or a local file has no default, and init stops "
        f'with exit 2 before writing anything); e.g. "{PACKAGE_EXAMPLE}"',
    )
    p.set_defaults(func=run)


def workflow_text(package: str) -> str:
    """The packaged workflow template with AEON_EVALS_PACKAGE set to `package`."""
    if not package.strip() or any(c in package for c in "\r\n") or "${{" in package:
        raise UsageError(f"--package {package!r}: expected one pip requirement on one line")
    template = (resources.templates_dir() / WORKFLOW_TEMPLATE).read_text(encoding="utf-8")
    # A JSON string is a valid YAML double-quoted scalar: quotes and backslashes stay literal.
    text, count = _PACKAGE_LINE.subn(
        lambda m: f"{m.group('indent')}AEON_EVALS_PACKAGE: {json.dumps(package)}", template, count=1
    )
    if count != 1:  # pragma: no cover - the template is ours
        raise RuntimeError(f"{WORKFLOW_TEMPLATE}: no AEON_EVALS_PACKAGE line to set")
    return text


def package_line(given: str | None, found: install_origin.Origin | None = None) -> tuple[str, str]:
    """What the workflow installs and how that was decided: `given` (--package) when set, else
    the requirement of this copy's origin (`found`, read from the installed metadata when None).
    Raises UsageError when neither names one: GitHub's runner cannot install from here."""
    if given is not None:
        return given, "as --package says"
    found = found or install_origin.installed()
    if found.requirement is None:
        raise UsageError(
            f"this copy of aeon-evals was installed {found.said}; pass --package REQUIREMENT, "
            f'something the runner can install, e.g. "{PACKAGE_EXAMPLE}" (nothing was written)',
            where="--package",
        )
    return found.requirement, f"as this copy was installed: {found.said}"


def starter_text(root: Path, config: str | None = None) -> tuple[str, int]:
    """A starter evals.json from the coverage audit, and how many specs it holds."""
    found = audit.audit(root, set(), registry.load_registry(root, config))
    pick = stubs.run_branch(root, datetime.now(UTC))
    starter = stubs.starter_manifest(found, pick, articles=layout.article_folder(root))
    return json.dumps(starter, indent=2, ensure_ascii=False), len(starter["skills"])


def run(args: argparse.Namespace) -> int:
    """Create each missing file (exclusively: one that appears meanwhile is kept); a line each."""
    root = args.root.resolve()
    # an existing Aeon repository: its skill registry is there (else exit 2, nothing written)
    config = layout.instance(root, config=args.config).config
    target = confine(root, WORKFLOW_PATH, what="init target")
    # Decided before anything is written; a workflow that is there needs no package.
    workflow: tuple[str, str, str] | None = None
    if args.package is not None or not target.exists():
        package, how = package_line(args.package)
        workflow = (package, how, workflow_text(package))

    evals = confine(root, EVALS_PATH, what="init target")
    if evals.exists():
        print(f"skipped {EVALS_PATH} (exists; never overwritten)")
    else:
        text, count = starter_text(root, config)
        if create_exclusive(evals, text):
            print(
                f"wrote {EVALS_PATH} ({count} starter spec{'s' if count != 1 else ''} from the "
                "coverage audit: review before trusting them)"
            )
        else:
            print(f"skipped {EVALS_PATH} (appeared meanwhile; never overwritten)")

    if workflow is not None and create_exclusive(target, workflow[2]):
        print(
            f"wrote {WORKFLOW_PATH} (weekly + workflow_dispatch; installs {workflow[0]}, "
            f"{workflow[1]})"
        )
    else:
        print(f"skipped {WORKFLOW_PATH} (exists; never overwritten)")
    for name in SCRIPTS:
        rel = f"{SCRIPTS_DIR}/{name}"
        script = confine(root, rel, what="init target")
        text = (resources.templates_dir() / "ci" / name).read_text(encoding="utf-8")
        if create_exclusive(script, text):
            script.chmod(0o755)
            print(f"wrote {rel} (called by the workflow)")
        else:
            print(f"skipped {rel} (exists; never overwritten)")
    return _llm_skill(root, config, disable=args.disable_llm_skill)


def _llm_skill(root: Path, config: str, *, disable: bool) -> int:
    """Warn while the registry enables the LLM-run skill-evals; with `disable`, turn it off by
    replacing that one line (every other byte of the file is kept)."""
    path = root / config
    try:
        raw = path.read_bytes()
    except OSError:
        return 0
    found = switchover.llm_skill(raw.decode("utf-8", errors="replace"), path=config)
    if found is None:
        if disable:
            print(f"unchanged {config} (the LLM-run {registry.LLM_SKILL} is not enabled)")
        return 0
    if not disable:
        print(warning_line(found.warning()), file=sys.stderr)
        return 0
    if found.edit is None:
        raise ConfigError(
            f"line {found.line}: {registry.LLM_SKILL} is enabled in a form no one-line edit can "
            "change safely; set `enabled: false` in its entry by hand",
            path=config,
        )
    try:
        atomic_write(path, switchover.apply_edit(raw, found.edit))
    except ValueError as exc:
        raise ConfigError(f"not edited: {exc}", path=config) from None
    print(
        f"edited {config}:{found.edit.line} (the LLM-run {registry.LLM_SKILL} disabled: "
        f"`{found.edit.after.strip()}`)"
    )
    return 0
