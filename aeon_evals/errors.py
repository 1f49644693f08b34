"""Exit codes and the typed errors that become one line on stderr."""

from __future__ import annotations

import enum
import errno

TYPE_CHECKING = False  # not from typing, which `aeon-evals --version` does without
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path


class ExitCode(enum.IntEnum):
    """Every exit code the CLI can return; decided in one place (cli.py)."""

    OK = 0  # the run completed, whatever the verdict
    FAILED = 1  # --fail-on tripped
    ERROR = 2  # SKILL_EVALS_ERROR: unreadable configuration, bad usage, invalid spec (validate)
    BOOTSTRAP = 3  # SKILL_EVALS_BOOTSTRAP: no evals.json or no skills; a starter spec was written
    LOCKED = 4  # another run holds the instance lock
    NOTHING_EVALUATED = 5  # no skill in scope (e.g. --skill NAME with no spec)
    NOT_OURS = 6  # today's article was written by someone else (the LLM skill); --force replaces it
    INTERNAL = 70  # a bug: the traceback is printed
    INTERRUPTED = 130  # Ctrl-C (SIGINT): 128 + 2, as a shell reports it
    TERMINATED = 143  # SIGTERM (`kill`, a CI job's timeout): 128 + 15; the run unwound first


EXIT_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "the run completed (whatever the verdict)",
    ExitCode.FAILED: (
        "--fail-on tripped (the verdict or a failing skill matched it); lint: an error, or the "
        "rank-1 rate below --min-rank1"
    ),
    ExitCode.ERROR: (
        "SKILL_EVALS_ERROR: a missing or unreadable configuration (no skill registry, so not an "
        "Aeon instance; evals.json after one retry), invalid spec (validate), bad usage, or the "
        "machine refused a write (a full disk, a read-only folder)"
    ),
    ExitCode.BOOTSTRAP: (
        "SKILL_EVALS_BOOTSTRAP: the instance registers the LLM-run skill-evals and has no "
        "evals.json, or no skills in it; a starter spec was written"
    ),
    ExitCode.LOCKED: "another aeon-evals run holds the instance lock",
    ExitCode.NOTHING_EVALUATED: "nothing was evaluated (e.g. --skill NAME has no spec)",
    ExitCode.NOT_OURS: (
        "today's article was not written by aeon-evals (the LLM skill did): not replaced "
        "without --force"
    ),
    ExitCode.INTERNAL: "internal error (a bug): the traceback is printed",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C); temp files removed, the lock released",
    ExitCode.TERMINATED: (
        "stopped by SIGTERM (kill, a CI timeout): temp files removed, a forked child stopped, "
        "the lock released"
    ),
}


def exit_codes_help(
    codes: Iterable[ExitCode] = ExitCode,
    meanings: Mapping[ExitCode, str] | None = None,
    width: int = 96,
) -> str:
    """The `exit codes:` block of a --help: `codes` (default: every one, for `aeon-evals
    --help`), each with its meaning from `meanings` (a command's own words) else EXIT_MEANINGS."""
    import textwrap

    own = meanings or {}
    lines = ["exit codes:"]
    for code in sorted(codes):
        text = textwrap.wrap(own.get(code, EXIT_MEANINGS[code]), width - 8)
        lines.append(f"  {code.value:<3} {text[0]}")
        lines += [f"      {more}" for more in text[1:]]
    return "\n".join(lines) + "\n"


_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EFBIG: "file too large (a file size limit)",
}


def os_reason(exc: BaseException) -> str:
    """The reason of an OS error as a line states it (`permission denied`): never Python's
    `[Errno 1] Operation not permitted: '/abs/path' -> None`, whose absolute paths are the
    machine's, not the instance's."""
    if isinstance(exc, OSError):
        known = _REASONS.get(exc.errno or 0)
        if known is not None:
            return known
        if exc.strerror:
            return exc.strerror[:1].lower() + exc.strerror[1:]
    return type(exc).__name__ if not str(exc) else str(exc).splitlines()[0][:200]


class EvalsError(Exception):
    """An expected failure: printed as one line, mapped to an exit code."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, *, path: Path | str | None = None, where: str | None = None):
        self.path = str(path) if path is not None else None
        self.where = where
        self.message = message
        super().__init__(self.line())

    def line(self) -> str:
        """`file: location: problem`, the one line a user sees."""
        parts = [p for p in (self.path, self.where) if p]
        return ": ".join([*parts, self.message])


class ConfigError(EvalsError):
    """A configuration file cannot be used (SKILL_EVALS_ERROR)."""


class UsageError(EvalsError):
    """The command line is wrong."""


class LockedError(EvalsError):
    """Another run is writing this instance."""

    exit_code = ExitCode.LOCKED


class NothingEvaluated(EvalsError):
    """No skill was in scope."""

    exit_code = ExitCode.NOTHING_EVALUATED


class PathOutsideRoot(EvalsError):
    """A pattern or symlink leads outside the instance root."""


class ArticleNotOurs(EvalsError):
    """Today's article exists and this tool did not write it: replacing it needs --force."""

    exit_code = ExitCode.NOT_OURS


class ReadRefused(EvalsError):
    """A file the tool would read is not a regular file, or is over its size limit."""


class WriteFailed(EvalsError):
    """The operating system refused a write (disk full, read-only, permission): exit 2."""
