"""Each command imports only what it uses (issue #20): the module sets, never the times."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent  # the repository root is the demo Aeon instance

# Run `main(argv)` in a fresh interpreter, then print which modules it had imported.
PROBE = """
import json, sys
from aeon_evals.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

RENDERING = {"jinja2", "markdown_it", "markupsafe"}


def loaded(*argv: str) -> set[str]:
    """The modules `aeon-evals ARGV` imports, as top-level packages and `aeon_evals.*` modules."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        check=True,
    )
    names = json.loads(done.stderr.strip().splitlines()[-1])
    return {n if n.startswith("aeon_evals") else n.split(".")[0] for n in names}


def ours(modules: set[str]) -> set[str]:
    """The package's own modules among `modules`."""
    return {m for m in modules if m.startswith("aeon_evals")}


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ()])
def test_version_and_help_import_only_the_command_line(argv: tuple[str, ...]) -> None:
    modules = loaded(*argv)
    assert ours(modules) == {
        "aeon_evals",
        "aeon_evals.cli",
        "aeon_evals.commands",
        "aeon_evals.errors",
    }
    assert not modules & (RENDERING | {"yaml", "re2", "croniter", "frontmatter", "pathlib"})


@pytest.mark.parametrize(
    "argv",
    [
        ("validate", "--root", str(REPO)),
        ("audit", "--root", str(REPO)),
        ("contracts", "--root", str(REPO)),
        ("lint", "--root", str(REPO)),
        ("validate", "--help"),
        ("site", "--help"),
    ],
)
def test_checking_commands_import_no_rendering(argv: tuple[str, ...]) -> None:
    modules = loaded(*argv)
    assert not modules & RENDERING, sorted(modules & RENDERING)
    assert not ours(modules) & {
        "aeon_evals.pipeline",
        "aeon_evals.render",
        "aeon_evals.site",
        "aeon_evals.issues",
        "aeon_evals.commands.run_cmd",
    }


def test_validate_imports_only_the_validation_modules() -> None:
    modules = ours(loaded("validate", "--root", str(REPO)))
    assert {m for m in modules if m.startswith("aeon_evals.commands.")} == {
        "aeon_evals.commands.validate_cmd"
    }
    assert not modules & {"aeon_evals.checks", "aeon_evals.state", "aeon_evals.history"}


def test_run_help_loads_the_run_but_no_other_command() -> None:
    modules = ours(loaded("run", "--help"))
    assert "aeon_evals.commands.run_cmd" in modules
    assert not modules & {
        "aeon_evals.commands.lint_cmd",
        "aeon_evals.commands.site_cmd",
        "aeon_evals.commands.validate_cmd",
    }


def test_an_unknown_command_is_refused_with_the_list_of_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "valdiate"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "invalid choice: 'valdiate'" in done.stderr
    assert "'validate'" in done.stderr
