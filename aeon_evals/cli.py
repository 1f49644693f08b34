"""Command line: parse arguments, call a command, map the outcome to an exit code. Nothing else."""

from __future__ import annotations

import argparse
import errno
import gc
import os
import signal
import sys
from collections.abc import Collection, Sequence
from importlib import import_module

from aeon_evals import __version__
from aeon_evals.commands import COMMANDS, epilog
from aeon_evals.errors import EvalsError, ExitCode, exit_codes_help

TYPE_CHECKING = False  # typing itself is not imported: `aeon-evals --version` does without it
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, NoReturn

EPILOG = exit_codes_help()
_NAMES = tuple(name for name, _, _ in COMMANDS)


def command_module(name: str) -> ModuleType:
    """The module of command `name` (`aeon_evals.commands.<name>_cmd`), imported on demand: a
    command's stages (Jinja2, markdown-it, the pipeline) load only when that command runs."""
    module = {name: module for name, module, _ in COMMANDS}[name]
    return import_module(f"aeon_evals.commands.{module}")


class UsageExit(Exception):
    """A usage error argparse found: its usage was printed; `message` is the error."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.message = message


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised to `main` (which prints them, as JSON too under --json)
    instead of exiting; each sub-parser is one too (argparse makes them of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise UsageExit(self.prog, message)


def build_parser(commands: Collection[str] = _NAMES) -> argparse.ArgumentParser:
    """The whole command line. The commands in `commands` get their full sub-parser (which imports
    their module); the others are listed by name and help line only, enough for `--help`, for
    argparse's "invalid choice" and for dispatch, which builds the parser again for its command.
    Each command's --help lists the exit codes it can return (commands.EXITS)."""
    parser = Parser(
        prog="aeon-evals",
        description=(
            "Evaluate every skill of an Aeon instance: checks, diff against the previous run, "
            "issues, article, dashboard."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"aeon-evals {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, _, summary in COMMANDS:
        if name in commands:
            command_module(name).add_parser(sub, epilog=epilog(name))
        else:
            sub.add_parser(name, help=summary)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command `argv` names, if any: its first word that is not an option. The top-level
    options (`--help`, `--version`) take no value, so that word is the command or a typo."""
    for arg in argv:
        if arg == "--" or not arg.startswith("-"):
            return arg if arg in _NAMES else None
    return None


def _sub_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The sub-parser of command `name`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[name]
            return found
    raise KeyError(name)  # pragma: no cover - build_parser always adds the commands


def _unrecognized(sub: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """argparse's "unrecognized arguments" message, with the closest option of the command for
    each mistyped one (`--dry-rn (did you mean --dry-run?)`)."""
    import difflib

    options = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
    shown = []
    for extra in extras:
        flag = extra.split("=", 1)[0]
        close = difflib.get_close_matches(flag, options, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close and flag.startswith("-") else ""
        shown.append(extra + hint)
    return "unrecognized arguments: " + " ".join(shown)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str], command: str | None) -> Any:
    """The parsed arguments. An argument the command does not know is that command's usage
    error (its usage and the error, with the closest option), not the top-level one."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        owner = _sub_parser(parser, command) if command is not None else parser
        owner.error(_unrecognized(owner, extras))
    return args


def _wants_json(argv: Sequence[str], command: str | None) -> bool:
    """Whether the command line asks for JSON on stdout (`COMMAND … --json`): then a failure is
    a JSON error object there too, not only a line on stderr."""
    if command is None or "--json" not in argv:
        return False
    rest = list(argv)[list(argv).index(command) + 1 :]
    return "--json" in rest[: rest.index("--")] if "--" in rest else "--json" in rest


def error_json(code: int, kind: str, message: str, exc: EvalsError | None = None) -> str:
    """The JSON error object a command asked for `--json` prints on stdout when it fails (the
    README documents its shape)."""
    import json

    error: dict[str, object] = {
        "exit_code": code,
        "class": kind,
        "message": exc.message if exc is not None else message,
        "file": exc.path if exc is not None else None,
        "where": exc.where if exc is not None else None,
        "text": message,
    }
    return json.dumps({"error": error}, indent=2, ensure_ascii=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `aeon-evals`; returns the exit code."""
    if argv is None:
        argv = sys.argv[1:]
    command = chosen_command(argv)
    as_json = _wants_json(argv, command)

    def failed(code: int, kind: str, message: str, exc: EvalsError | None = None) -> int:
        if as_json:
            print(error_json(code, kind, message, exc))
        return code

    parser = build_parser(() if command is None else (command,))
    try:
        args = parse(parser, argv, command)
    except UsageExit as exc:
        from aeon_evals.text.controls import one_line  # an argument echoed back is data

        print(f"{exc.prog}: error: {one_line(exc.message)}", file=sys.stderr)
        return failed(ExitCode.ERROR, "UsageError", exc.message)
    except SystemExit as exc:  # argparse: --help, --version (0)
        return int(exc.code) if isinstance(exc.code, int) else ExitCode.ERROR
    if args.command is None:
        parser.print_help(sys.stderr)
        return ExitCode.ERROR
    try:
        return int(args.func(args))
    except EvalsError as exc:
        from aeon_evals.text.controls import one_line  # names in it are data (`--skill $'x\ny'`)

        print(f"aeon-evals: {one_line(exc.line())}", file=sys.stderr)
        return failed(int(exc.exit_code), type(exc).__name__, exc.line(), exc)
    except BrokenPipeError:  # `aeon-evals audit | head`: the reader left; not our failure
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.OK
    except OSError as exc:
        if exc.errno not in _ENVIRONMENT:
            return failed(_internal(), "InternalError", _INTERNAL)
        # The machine, not the tool: a full disk, a read-only folder, a permission.
        from aeon_evals.errors import os_reason
        from aeon_evals.text.controls import one_line

        shown = os.fsdecode(exc.filename) if exc.filename is not None else "a file"
        line = f"{one_line(shown)}: {os_reason(exc)}"
        print(f"aeon-evals: {line}", file=sys.stderr)
        return failed(ExitCode.ERROR, "WriteFailed", line)
    except KeyboardInterrupt:
        print("aeon-evals: interrupted", file=sys.stderr)
        return failed(ExitCode.INTERRUPTED, "Interrupted", "interrupted")
    except Exception:
        return failed(_internal(), "InternalError", _INTERNAL)


_INTERNAL = "internal error (a bug): please report it with the traceback above"
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
    import traceback

    traceback.print_exc()
    print(f"aeon-evals: {_INTERNAL}", file=sys.stderr)
    return ExitCode.INTERNAL


def tune_gc() -> None:
    """For a process that runs one command and exits: a run builds a million small objects and
    frees almost none of them before it ends, so the cyclic garbage collector's full passes only
    cost time (about 0.15 s of a 1,000-skill run). The imported modules are frozen out of its
    sight and its thresholds raised: a young-generation pass every 200,000 net allocations (at
    50,000, four passes of 12-15 ms each over objects that all survive them at 1,000 skills);
    memory use is unchanged (127 MiB either way)."""
    gc.freeze()
    gc.set_threshold(200_000, 20, 100)


def _terminated(signum: int, _frame: object) -> NoReturn:
    """SIGTERM (`kill`, a CI job's timeout) unwinds the run like an exception: temp files are
    removed, a forked child is stopped (and a child whose parent is gone stops by itself),
    the instance lock is released; the process then exits 143 (128 + SIGTERM)."""
    raise SystemExit(128 + signum)


def console() -> NoReturn:
    """The `aeon-evals` and `python -m aeon_evals` entry point: `main` in a process of its own.
    (`main` itself, called in-process by the tests, leaves the collector and signals alone.)"""
    tune_gc()
    signal.signal(signal.SIGTERM, _terminated)
    leave(main())


def leave(code: int) -> NoReturn:
    """End the process with `code` once stdout and stderr are flushed, without the interpreter's
    teardown: every command has closed its files, reaped its children and released its lock by
    the time `main` returns, and freeing a run's million objects one by one only cost time (about
    35 ms of a 1,000-skill run). A reader that left early (`aeon-evals audit | head`) is not the
    tool's failure; a standard output that cannot be written is (exit 2)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            continue
        except OSError as exc:
            if stream is sys.stdout:
                print(f"aeon-evals: standard output: {exc.strerror or exc}", file=sys.stderr)
                code = code or ExitCode.ERROR
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
