"""`aeon-evals init`: add a starter evals.json and the scheduled GitHub Actions workflow to an Aeon repository."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from aeon_evals import __version__, audit, registry, resources, stubs
from aeon_evals.errors import ConfigError, UsageError
from aeon_evals.fsio import confine, create_exclusive
from aeon_evals.manifest import EVALS_PATH

WORKFLOW_PATH = ".github/workflows/skill-evals.yml"
WORKFLOW_TEMPLATE = "github-workflow.yml"
DEFAULT_PACKAGE = f"aeon-evals=={__version__}"
_PACKAGE_LINE = re.compile(r"^(?P<indent>[ \t]*)AEON_EVALS_PACKAGE:.*$", re.MULTILINE)


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "init",
        help="add a starter evals.json and a scheduled GitHub Actions workflow; never overwrites a file",
        description=f"Adds what an Aeon repository needs for scheduled runs: {EVALS_PATH} (starter specs from the "
        f"coverage audit) when there is none, and {WORKFLOW_PATH}. An existing file is never overwritten: "
        "it is reported as skipped. See docs/scheduling.md.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--root", type=Path, default=Path("."), help="instance root (default: current directory)"
    )
    p.add_argument(
        "--package",
        metavar="REQUIREMENT",
        default=DEFAULT_PACKAGE,
        help=f"what the workflow pip-installs (default: {DEFAULT_PACKAGE}); e.g. "
        '"aeon-evals @ git+https://github.com/OWNER/aeon-evals@v0.1.0"',
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


def starter_text(root: Path) -> tuple[str, int]:
    """A starter evals.json from the coverage audit, and how many specs it holds."""
    found = audit.audit(root, set(), registry.load_registry(root))
    starter = stubs.starter_manifest(root, found)
    return json.dumps(starter, indent=2, ensure_ascii=False), len(starter["skills"])


def run(args: argparse.Namespace) -> int:
    """Create each missing file (exclusively: a file that appears meanwhile is kept); one line per file."""
    root = args.root.resolve()
    if not root.is_dir():
        raise ConfigError("instance root does not exist or is not a folder", path=root)
    if not (root / "aeon.yml").is_file() and not (root / audit.SKILLS_DIR).is_dir():
        raise ConfigError(
            "not an Aeon repository (no aeon.yml and no skills/ folder); pass --root", path=root
        )
    workflow = workflow_text(args.package)

    evals = confine(root, EVALS_PATH, what="init target")
    if evals.exists():
        print(f"skipped {EVALS_PATH} (exists; never overwritten)")
    else:
        text, count = starter_text(root)
        if create_exclusive(evals, text):
            print(
                f"wrote {EVALS_PATH} ({count} starter spec{'s' if count != 1 else ''} from the coverage audit: review before trusting them)"
            )
        else:
            print(f"skipped {EVALS_PATH} (appeared meanwhile; never overwritten)")

    target = confine(root, WORKFLOW_PATH, what="init target")
    if create_exclusive(target, workflow):
        print(f"wrote {WORKFLOW_PATH} (weekly + workflow_dispatch; installs {args.package})")
    else:
        print(f"skipped {WORKFLOW_PATH} (exists; never overwritten)")
    return 0
