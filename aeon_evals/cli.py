"""Command line: parse arguments, call a command, map the outcome to an exit code. Nothing else."""

from __future__ import annotations

import argparse
import errno
import gc
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from aeon_evals import __version__
from aeon_evals.commands import (
    audit_cmd,
    contracts_cmd,
    demo_cmd,
    init_cmd,
    lint_cmd,
    run_cmd,
    site_cmd,
    validate_cmd,
)
from aeon_evals.errors import EvalsError, ExitCode, exit_codes_help
from aeon_evals.fsio import write_error

COMMANDS = (
    run_cmd,
    demo_cmd,
    audit_cmd,
    contracts_cmd,
    site_cmd,
    init_cmd,
    validate_cmd,
    lint_cmd,
)

EPILOG = exit_codes_help()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aeon-evals",
        description="Evaluate every skill of an Aeon instance: checks, diff against the previous run, issues, article, dashboard.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"aeon-evals {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub, epilog=EPILOG)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `aeon-evals`; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else ExitCode.ERROR
    if args.command is None:
        parser.print_help(sys.stderr)
        return ExitCode.ERROR
    try:
        return int(args.func(args))
    except EvalsError as exc:
        print(f"aeon-evals: {exc.line()}", file=sys.stderr)
        return int(exc.exit_code)
    except BrokenPipeError:  # `aeon-evals audit | head`: the reader left; not our failure
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.OK
    except OSError as exc:
        if exc.errno not in _ENVIRONMENT:
            return _internal()
        # The machine, not the tool: a full disk, a read-only folder, a permission.
        shown = exc.filename if exc.filename is not None else "a file"
        reason = write_error(exc, "").split(": cannot write: ")[-1]
        print(f"aeon-evals: {shown}: {reason} ({exc.strerror})", file=sys.stderr)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        print("aeon-evals: interrupted", file=sys.stderr)
        return 130
    except Exception:
        return _internal()


_ENVIRONMENT = {
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EROFS,
    errno.EACCES,
    errno.EPERM,
    errno.EFBIG,
    errno.EIO,
}


def _internal() -> int:
    traceback.print_exc()
    print(
        "aeon-evals: internal error (a bug): please report it with the traceback above",
        file=sys.stderr,
    )
    return ExitCode.INTERNAL


def tune_gc() -> None:
    """For a process that runs one command and exits: a run builds a million small objects and
    frees almost none of them before it ends, so the cyclic garbage collector's full passes only
    cost time (about 0.15 s of a 1,000-skill run). The imported modules are frozen out of its
    sight and its thresholds raised; memory use is unchanged."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def console() -> NoReturn:
    """The `aeon-evals` and `python -m aeon_evals` entry point: `main` in a process of its own.
    (`main` itself, called in-process by the tests, leaves the collector alone.)"""
    tune_gc()
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    console()
