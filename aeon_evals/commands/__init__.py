"""One module per subcommand: each has `add_parser(subparsers)` and a `run(args) -> int`.

The table below is what `aeon-evals --help` lists; `cli` imports a command's module only when
that command is the one being run (or for its own --help), so a module may import every stage it
uses at its top."""

from __future__ import annotations

from aeon_evals.errors import ExitCode, exit_codes_help

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

# The exit codes each command can return, beside those every command can (ALWAYS), with the
# command's own words where the general meaning (errors.EXIT_MEANINGS) does not fit it: each
# command's --help lists exactly these. The README's table lists them all.
ALWAYS = (
    ExitCode.OK,
    ExitCode.ERROR,
    ExitCode.INTERNAL,
    ExitCode.INTERRUPTED,
    ExitCode.TERMINATED,
)
_DONE = "done"
_NOT_AN_INSTANCE = "--root is not an Aeon instance (no skill registry)"
_UNREADABLE = "an unreadable aeon.yml or evals.json"
_WRITE = "the machine refused a write (a full disk, a read-only folder)"
EXITS: dict[str, dict[ExitCode, str | None]] = {
    "run": {
        ExitCode.FAILED: "--fail-on tripped (the verdict or a failing skill matched it)",
        ExitCode.ERROR: (
            f"SKILL_EVALS_ERROR: bad usage, {_NOT_AN_INSTANCE}, {_UNREADABLE} (evals.json after "
            f"one retry), or {_WRITE}"
        ),
        ExitCode.BOOTSTRAP: None,
        ExitCode.LOCKED: None,
        ExitCode.NOTHING_EVALUATED: None,
        ExitCode.NOT_OURS: None,
    },
    "demo": {
        ExitCode.OK: "the demo ran (whatever the verdict)",
        ExitCode.ERROR: f"bad usage (DIR exists), or {_WRITE}",
    },
    "audit": {
        ExitCode.OK: _DONE,
        ExitCode.ERROR: f"bad usage, {_NOT_AN_INSTANCE}, or {_UNREADABLE}",
    },
    "contracts": {
        ExitCode.OK: _DONE,
        ExitCode.ERROR: f"bad usage, an unknown SKILL, {_NOT_AN_INSTANCE}, or {_UNREADABLE}",
    },
    "site": {
        ExitCode.OK: "every page written",
        ExitCode.ERROR: (
            f"bad usage, {_NOT_AN_INSTANCE}, {_WRITE}, or a page that could not be written "
            "(index.html was)"
        ),
    },
    "init": {
        ExitCode.OK: "written (an existing file is never overwritten)",
        ExitCode.ERROR: (
            f"bad usage, {_NOT_AN_INSTANCE}, {_UNREADABLE}, no install line to write without "
            f"--package, or {_WRITE}"
        ),
    },
    "validate": {
        ExitCode.OK: "valid (warnings allowed)",
        ExitCode.ERROR: (
            "invalid: at least one error, each listed with its location (a missing or unreadable "
            "skill registry is one), or bad usage"
        ),
    },
    "lint": {
        ExitCode.OK: "no errors (warnings and infos allowed)",
        ExitCode.FAILED: "at least one error, or the rank-1 rate is below --min-rank1",
        ExitCode.ERROR: (
            f"bad usage (an unknown SKILL or rule code), {_NOT_AN_INSTANCE}, {_UNREADABLE}, or "
            f"{_WRITE} (--junit)"
        ),
    },
}


def exit_codes(name: str) -> tuple[ExitCode, ...]:
    """The exit codes command `name` can return, in order."""
    return tuple(sorted({*ALWAYS, *EXITS[name]}))


def epilog(name: str) -> str:
    """The `exit codes:` block of command `name`'s --help: only the codes it can return."""
    own = {code: text for code, text in EXITS[name].items() if text is not None}
    return exit_codes_help(exit_codes(name), own)


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
