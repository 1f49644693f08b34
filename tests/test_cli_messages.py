"""Issue 33 point 6: messages as users expect them. A subcommand's typo shows that subcommand's
usage; a JSON error names the line of the offending token, and the retry says it is retrying
before it waits; `--json` commands print a JSON error object on stdout when they fail; each
command's --help lists only the exit codes it can return."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import AEONFUN, AEONFUN_NOW, whole_instance

from aeon_evals.cli import build_parser
from aeon_evals.commands import COMMANDS
from aeon_evals.errors import ExitCode

Cli = Callable[..., tuple[int, str, str]]
EVALS = "skills/skill-evals/evals.json"


def _aeon_evals(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aeon_evals", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**os.environ, "PYTHONUTF8": "1"},
    )


# --- a subcommand's typo -------------------------------------------------------------------------


def test_a_subcommand_typo_shows_that_subcommands_usage(tmp_path: Path) -> None:
    """`run --dry-rn` printed the top-level usage (`aeon-evals [-h] [--version] COMMAND ...`)."""
    done = _aeon_evals("run", "--dry-rn", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("usage: aeon-evals run [-h] [--root ROOT]")
    assert done.stderr.splitlines()[-1] == (
        "aeon-evals run: error: unrecognized arguments: --dry-rn (did you mean --dry-run?)"
    )
    assert "COMMAND ..." not in done.stderr


@pytest.mark.parametrize(
    ("argv", "usage", "error"),
    [
        (
            ["lint", "--selct=AE1"],
            "usage: aeon-evals lint ",
            "aeon-evals lint: error: unrecognized arguments: --selct=AE1 (did you mean --select?)",
        ),
        (
            ["validate", "--jsn"],
            "usage: aeon-evals validate ",
            "aeon-evals validate: error: unrecognized arguments: --jsn (did you mean --json?)",
        ),
        (
            ["audit", "extra"],
            "usage: aeon-evals audit ",
            "aeon-evals audit: error: unrecognized arguments: extra",
        ),
        (
            ["site", "--out"],
            "usage: aeon-evals site ",
            "aeon-evals site: error: argument --out: expected one argument",
        ),
    ],
)
def test_each_command_owns_its_usage_errors(
    argv: list[str], usage: str, error: str, cli: Cli
) -> None:
    code, out, err = cli(*argv)
    assert (code, out) == (2, "")
    assert err.startswith(usage) and err.splitlines()[-1] == error


def test_an_unknown_command_is_still_the_top_level_error(cli: Cli) -> None:
    code, _, err = cli("rn")
    assert code == 2 and err.startswith("usage: aeon-evals [-h] [--version] COMMAND ...")
    assert "invalid choice: 'rn'" in err


# --- JSON errors name the offending token's line --------------------------------------------------


def _trailing_comma(root: Path) -> int:
    """A comma after the last member of aeonfun's last spec: the line it is on."""
    path = root / EVALS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"forbidden_patterns"' in line)
    lines[last] = lines[last].rstrip("\n") + ",\n"
    path.write_text("".join(lines), encoding="utf-8")
    return last + 1


def test_a_trailing_comma_names_its_own_line_and_the_retry_says_so_first(
    tmp_path: Path,
) -> None:
    """The bug: a trailing comma in evals.json waited 5 s in silence, then pointed at the line
    after the comma. Now the retry is announced on stderr before the wait, and both lines name
    the comma's line. The announcement is read while the run still waits (its delay is an
    hour): the file is then mended and the run evaluates it, so the wait came after the word."""
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    good = (root / EVALS).read_bytes()
    line = _trailing_comma(root)
    column = len((root / EVALS).read_text().splitlines()[line - 1])
    argv = ["run", "--root", str(root), "--now", AEONFUN_NOW, "--no-notify", "--no-site"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "aeon_evals", *argv, "--retry-delay", "3600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert proc.stderr is not None
        # a hang guard, not a timing target: a run that waits in silence never prints it
        ready, _, _ = select.select([proc.stderr], [], [], 300)
        assert ready, "the run waited without saying that it will read evals.json again"
        first = proc.stderr.readline()  # the run is waiting now
        assert first == (
            f"aeon-evals: {EVALS}: invalid JSON: trailing comma at line {line} column {column} "
            "(JSON allows none before '}'); reading it again in 3600s (it may be half-written by "
            "a commit)\n"
        )
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    (root / EVALS).write_bytes(good)
    _trailing_comma(root)
    done = _aeon_evals(*argv, "--retry-delay", "0", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        first.rstrip("\n").replace("3600s", "0s"),
        f"aeon-evals: {EVALS}: invalid JSON: trailing comma at line {line} column {column} (JSON "
        "allows none before '}') (also after a retry 0s later)",
    ]


def test_validate_and_lint_locate_the_comma_too(tmp_path: Path, cli: Cli) -> None:
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    line = _trailing_comma(root)
    code, out, _ = cli("validate", "--root", str(root))
    assert code == 2
    assert f"{EVALS}:{line}: error: invalid JSON: trailing comma at line {line} column " in out
    code, out, _ = cli("lint", "--root", str(root))
    assert f"{EVALS}:{line}: AE302 warning: trigger cases and lint settings in it not read" in out


# --- --json on failure ----------------------------------------------------------------------------


def test_run_json_prints_a_json_error_object_on_stdout(tmp_path: Path) -> None:
    """`run --json` printed nothing on stdout when it failed: CI reading stdout got no JSON."""
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    line = _trailing_comma(root)
    done = _aeon_evals(
        "run",
        "--root",
        str(root),
        "--now",
        AEONFUN_NOW,
        "--json",
        "--retry-delay",
        "0",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    message = (
        f"invalid JSON: trailing comma at line {line} column "
        f"{len((root / EVALS).read_text().splitlines()[line - 1])} (JSON allows none before "
        "'}') (also after a retry 0s later)"
    )
    assert json.loads(done.stdout) == {
        "error": {
            "exit_code": 2,
            "class": "ConfigError",
            "message": message,
            "file": EVALS,
            "where": None,
            "text": f"{EVALS}: {message}",
        }
    }


def test_json_errors_of_usage_and_of_other_commands(tmp_path: Path, cli: Cli) -> None:
    code, out, err = cli("run", "--json", "--dry-rn")
    assert code == 2 and err.startswith("usage: aeon-evals run")
    assert json.loads(out)["error"] == {
        "exit_code": 2,
        "class": "UsageError",
        "message": "unrecognized arguments: --dry-rn (did you mean --dry-run?)",
        "file": None,
        "where": None,
        "text": "unrecognized arguments: --dry-rn (did you mean --dry-run?)",
    }
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    code, out, _ = cli("lint", "--root", str(root), "--json", "--select", "AE999")
    assert code == 2
    assert json.loads(out)["error"]["message"].startswith("--select AE999: no such rule code")
    code, out, _ = cli("run", "--root", str(root), "--json", "--lock-timeout", "-1")
    assert code == 2 and json.loads(out)["error"]["class"] == "UsageError"
    # without --json, stdout stays empty
    code, out, _ = cli("run", "--root", str(root), "--lock-timeout", "-1")
    assert (code, out) == (2, "")


# --- each --help lists only its command's exit codes --------------------------------------------


def _listed(help_text: str) -> list[int]:
    block = help_text.split("exit codes:\n", 1)[1]
    return [int(m) for m in re.findall(r"^  (\d+) ", block, re.M)]


@pytest.mark.parametrize("name", [name for name, _, _ in COMMANDS])
def test_each_help_lists_only_the_exit_codes_its_command_can_return(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every subcommand's --help repeated all ten exit codes (validate's listed 3, 4, 5, 6)."""
    from aeon_evals.cli import main
    from aeon_evals.commands import ALWAYS, exit_codes

    assert main([name, "--help"]) == 0
    listed = _listed(capsys.readouterr().out)
    assert listed == [int(code) for code in exit_codes(name)]
    assert set(ALWAYS) <= set(exit_codes(name))
    if name != "run":
        assert ExitCode.LOCKED not in listed and ExitCode.BOOTSTRAP not in listed


def test_the_lists_differ_and_the_top_level_help_has_them_all() -> None:
    from aeon_evals.commands import ALWAYS, EXITS, exit_codes

    assert set(EXITS) == {name for name, _, _ in COMMANDS}
    assert _listed(build_parser(()).format_help()) == [int(code) for code in ExitCode]
    assert exit_codes("validate") == tuple(ALWAYS)
    assert ExitCode.FAILED in exit_codes("lint") and ExitCode.FAILED in exit_codes("run")
    assert len(exit_codes("run")) == len(ExitCode)
