"""One module per subcommand: each has `add_parser(subparsers)` and a `run(args) -> int`.

The table below is what `aeon-evals --help` lists; `cli` imports a command's module only when
that command is the one being run (or for its own --help), so a module may import every stage it
uses at its top."""

from __future__ import annotations

TYPE_CHECKING = False  # not from typing, which `aeon-evals --version` does without
if TYPE_CHECKING:
    import argparse

# (name, module under aeon_evals.commands, one-line help): the order of `aeon-evals --help`.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "run",
        "run_cmd",
        "evaluate every skill, diff against the previous article, write the dated article",
    ),
    (
        "demo",
        "demo_cmd",
        "copy a small bundled Aeon instance to DIR and run the full pipeline on it",
    ),
    ("audit", "audit_cmd", "coverage audit: enabled skills without an evals.json entry"),
    (
        "contracts",
        "contracts_cmd",
        "show the output contract inferred from each skill's SKILL.md, with its evidence",
    ),
    ("site", "site_cmd", "rebuild the static HTML dashboard (default: <root>/site)"),
    (
        "init",
        "init_cmd",
        "add a starter evals.json and a scheduled GitHub Actions workflow; never overwrites a file",
    ),
    (
        "validate",
        "validate_cmd",
        "check evals.json and aeon.yml; report every problem with its location",
    ),
    (
        "lint",
        "lint_cmd",
        "check every SKILL.md: frontmatter, colliding descriptions, trigger routing",
    ),
)

_SUMMARY = {name: summary for name, _, summary in COMMANDS}


def summary(name: str) -> str:
    """The one-line help of command `name`, as `aeon-evals --help` lists it."""
    return _SUMMARY[name]


CONFIG_HELP = (
    "the skill registry, relative to the root (default: aeon.yml, else the one root "
    "*.yml with a top-level skills: block, e.g. claw.yml)"
)


def add_instance_options(p: argparse.ArgumentParser, *, config: bool = True) -> None:
    """`--root` (and `--config`): where the Aeon instance is, the same for every command."""
    from pathlib import Path  # here, not at the top: `aeon-evals --version` does without it

    p.add_argument(
        "--root", type=Path, default=Path("."), help="instance root (default: current directory)"
    )
    if config:
        p.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
